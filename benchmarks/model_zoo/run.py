"""The corpus run: converts each model, compares it with its reference runtime, times both.

For each model of benchmarks/model_zoo/corpus.py:

* **convert** with ``lite_converter.convert`` (ONNX inputs the corpus pins, such as silero-vad's sample
  rate, are given as ``input_values``); a refusal is recorded with its text, anything else than a
  ``ConversionError`` is an internal error and is flagged as such;
* **match**: every output within ``max(1e-4 * max(1, max|ref|), 3 * spread)``, where ``spread`` is how
  far the reference is from itself: onnxruntime with all graph optimizations against none, LiteRT with
  XNNPACK against its builtin kernels (measured from the reference alone, never from our output);
* **time**: one thread each, interleaved (ours, reference, ours, ...) so that the shared machine's
  load hits both alike, medians; each side is timed over a whole call from Python (inputs set,
  invoke, outputs read back).

    python -m benchmarks.model_zoo.run [--only KEY,...] [--seconds S] [--write-doc docs/MODEL_ZOO.md]
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import statistics
import sys
import time
import traceback
from collections.abc import Callable
from pathlib import Path

import numpy as np

from benchmarks.model_zoo.corpus import BY_KEY, CORPUS, STREAM_CALLS, ZooEntry
from benchmarks.model_zoo.fetch import fetch
from benchmarks.model_zoo.inputs import make_input
from lite_converter.app.litert_custom_ops import has_custom_transpose_conv, with_builtin_transpose_conv
from lite_converter.convert import convert
from lite_converter.ir import ConversionError
from runtime_arm import Interpreter

TOLERANCE = 1e-4
SPREAD_FACTOR = 3.0
DOC_BEGIN = "<!-- model-zoo-table: begin (python -m benchmarks.model_zoo.run --write-doc) -->"
DOC_END = "<!-- model-zoo-table: end -->"


@dataclasses.dataclass
class ZooResult:
    key: str
    requirement: str
    kind: str
    format: str
    converts: bool = False
    refusal: str = ""  # the ConversionError text, or "internal error: ..."
    matches: bool = False
    max_error: float = float("nan")
    bound: float = float("nan")
    spread: float = float("nan")
    reference_max: float = float("nan")  # max|ref| over the outputs: the scale the bound is read against
    ours_ms: float = float("nan")
    reference_ms: float = float("nan")
    notes: str = ""

    @property
    def speed_ratio(self) -> float:
        """Reference time over ours: above 1 we are faster."""
        return self.reference_ms / self.ours_ms


class Reference:
    """The reference runtime on the source file: ``run`` (optimized) and ``plain`` (unoptimized)."""

    def __init__(self, entry: ZooEntry, path: Path, input_shapes: list[tuple[int, ...]]) -> None:
        self.input_names: list[str] = []
        self.output_names: list[str] = []
        self.note = ""  # how the reference had to be helped, if it was
        if entry.format == "onnx":
            self._optimized = self._onnxruntime(path, True)
            self._plain = self._onnxruntime(path, False)
        else:
            self._optimized = self._litert(path, True, input_shapes)
            self._plain = self._litert(path, False, input_shapes)

    def _onnxruntime(self, path: Path, optimized: bool) -> Callable[[list[np.ndarray]], list[np.ndarray]]:
        import onnxruntime

        options = onnxruntime.SessionOptions()
        options.intra_op_num_threads = 1
        options.inter_op_num_threads = 1
        if not optimized:
            options.graph_optimization_level = onnxruntime.GraphOptimizationLevel.ORT_DISABLE_ALL
        session = onnxruntime.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
        self.input_names = [i.name for i in session.get_inputs()]
        self.output_names = [o.name for o in session.get_outputs()]
        return lambda feeds: session.run(self.output_names, dict(zip(self.input_names, feeds, strict=True)))

    def _litert(
        self, path: Path, xnnpack: bool, input_shapes: list[tuple[int, ...]]
    ) -> Callable[[list[np.ndarray]], list[np.ndarray]]:
        from ai_edge_litert import interpreter as litert

        resolver = (
            litert.OpResolverType.AUTO if xnnpack else litert.OpResolverType.BUILTIN_WITHOUT_DEFAULT_DELEGATES
        )
        data = path.read_bytes()
        if has_custom_transpose_conv(data):
            data = with_builtin_transpose_conv(data)
            self.note = "LiteRT runs it with Convolution2DTransposeBias as TRANSPOSE_CONV + bias"
        interpreter = litert.Interpreter(
            model_content=data, num_threads=1, experimental_op_resolver_type=resolver
        )
        for detail, shape in zip(interpreter.get_input_details(), input_shapes, strict=True):
            if tuple(detail["shape"]) != shape:  # a dynamic input (shape_signature -1)
                interpreter.resize_tensor_input(detail["index"], list(shape))
        interpreter.allocate_tensors()
        inputs, outputs = interpreter.get_input_details(), interpreter.get_output_details()
        self.input_names = [d["name"] for d in inputs]
        self.output_names = [d["name"] for d in outputs]

        def run(feeds: list[np.ndarray]) -> list[np.ndarray]:
            for detail, value in zip(inputs, feeds, strict=True):
                interpreter.set_tensor(detail["index"], value)
            interpreter.invoke()
            return [interpreter.get_tensor(d["index"]).copy() for d in outputs]

        return run

    def run(self, feeds: list[np.ndarray]) -> list[np.ndarray]:
        return self._optimized(feeds)

    def plain(self, feeds: list[np.ndarray]) -> list[np.ndarray]:
        return self._plain(feeds)


def _max_abs(a: np.ndarray, b: np.ndarray) -> float:
    return float(np.max(np.abs(a.astype(np.float64) - b.astype(np.float64)), initial=0.0))


def _ours_in_reference_order(ours: dict[str, np.ndarray], names: list[str]) -> list[np.ndarray]:
    """Our outputs matched to the reference's by name, or by position when the names differ."""
    if set(names) <= set(ours):
        return [ours[name] for name in names]
    if len(ours) != len(names):
        raise AssertionError(f"outputs {sorted(ours)} do not match the reference's {names}")
    return list(ours.values())


def compare(
    ours: list[np.ndarray], reference: list[np.ndarray], plain: list[np.ndarray], result: ZooResult
) -> None:
    """Fills max_error / bound / spread / matches: the worst output decides."""
    worst_ratio = -1.0
    for actual, expected, literal in zip(ours, reference, plain, strict=True):
        expected = np.asarray(expected)
        if actual.shape != expected.shape:
            note = f"output shape {actual.shape} != reference {expected.shape}"
            result.notes = "; ".join(filter(None, [result.notes, note]))
            if actual.size != expected.size:
                result.matches = False
                return
            actual = actual.reshape(expected.shape)  # same values, compared; the note says so
        spread = _max_abs(literal, expected)
        bound = max(TOLERANCE * max(1.0, float(np.abs(expected).max(initial=0.0))), SPREAD_FACTOR * spread)
        error = _max_abs(actual, expected) if np.isfinite(actual).all() else float("inf")
        if error / bound > worst_ratio:
            worst_ratio = error / bound
            result.max_error, result.bound, result.spread = error, bound, spread
        result.reference_max = max(
            float(np.abs(expected).max(initial=0.0)),
            0.0 if np.isnan(result.reference_max) else result.reference_max,
        )
    result.matches = worst_ratio <= 1.0


def time_interleaved(
    ours: Callable[[], object],
    reference: Callable[[], object],
    seconds: float,
    min_runs: int = 5,
    max_runs: int = 200,
) -> tuple[float, float]:
    """Median milliseconds of each, run alternately until ``seconds`` have passed (both warmed up)."""
    ours()
    reference()
    ours_times: list[float] = []
    reference_times: list[float] = []
    start = time.perf_counter()
    while len(ours_times) < max_runs and (
        len(ours_times) < min_runs or time.perf_counter() - start < seconds
    ):
        for run, times in ((ours, ours_times), (reference, reference_times)):
            begin = time.perf_counter()
            run()
            times.append((time.perf_counter() - begin) * 1e3)
    return statistics.median(ours_times), statistics.median(reference_times)


def run_entry(entry: ZooEntry, path: Path, seconds: float, timed: bool = True) -> ZooResult:
    """Converts, compares and (when ``timed``) times one corpus model."""
    result = ZooResult(entry.key, entry.requirement, entry.kind, entry.format, notes=entry.notes)
    chunks = STREAM_CALLS if entry.state_feedback else 1
    feeds = [make_input(spec, 0, chunks) for spec in entry.inputs]
    try:
        reference: Reference | None = Reference(entry, path, [feed.shape for feed in feeds])
    except Exception as err:  # noqa: BLE001 - e.g. LiteRT lacks a MediaPipe custom op: nothing to compare with
        reference, result.notes = (
            None,
            _short(f"the reference cannot run it: {type(err).__name__}: {err}", 200),
        )
    if reference is not None and reference.note:
        result.notes = "; ".join(filter(None, [result.notes, reference.note]))
    input_names = reference.input_names if reference else [spec.name for spec in entry.inputs]
    if len(entry.inputs) != len(input_names):
        raise AssertionError(
            f"{entry.key}: corpus lists {len(entry.inputs)} inputs, the model has {input_names}"
        )
    pinned = dict(entry.input_values)
    input_shapes = {
        name: list(value.shape) for name, value in zip(input_names, feeds, strict=True) if name not in pinned
    }
    try:
        data = convert(path, input_shapes=input_shapes, input_values=pinned or None)
    except ConversionError as err:
        result.refusal = str(err).strip()
        return result
    except Exception as err:  # noqa: BLE001 - the point is to flag an internal error, not to hide it
        result.refusal = f"internal error: {type(err).__name__}: {err}"
        result.notes = traceback.format_exc(limit=-3)
        return result
    result.converts = True
    if reference is None:
        return result
    try:
        _run_and_compare(entry, data, reference, feeds, result, seconds if timed else None)
    except Exception as err:  # noqa: BLE001 - recorded, the corpus goes on
        result.matches = False
        result.notes = _short(f"run failed: {type(err).__name__}: {err}", 300)
    return result


def _our_feeds(
    interpreter: Interpreter, reference: Reference, feeds: list[np.ndarray], pinned: dict[str, int]
) -> dict[str, np.ndarray]:
    """The reference-ordered ``feeds`` by our input names, the pinned inputs left out (TFLite names
    may differ from the reference's: then by position)."""
    kept = [(n, v) for n, v in zip(reference.input_names, feeds, strict=True) if n not in pinned]
    if {n for n, _ in kept} == set(interpreter.input_names):
        return dict(kept)
    return dict(zip(interpreter.input_names, [v for _, v in kept], strict=True))


def _worst(steps: list[ZooResult]) -> ZooResult:
    def badness(step: ZooResult) -> tuple[bool, float]:
        ratio = step.max_error / step.bound
        return (not step.matches, ratio if np.isfinite(ratio) else float("inf"))

    return max(steps, key=badness)


def _take_worst(result: ZooResult, steps: list[ZooResult]) -> None:
    """``result`` (one of ``steps``) becomes the verdict over all of them: the worst one's figures."""
    worst = _worst(steps)
    result.matches = all(step.matches for step in steps)
    result.max_error, result.bound, result.spread = worst.max_error, worst.bound, worst.spread
    result.reference_max = max(step.reference_max for step in steps)
    result.notes = worst.notes


def _compare_variants(
    entry: ZooEntry,
    interpreter: Interpreter,
    reference: Reference,
    feeds: list[np.ndarray],
    pinned: dict[str, int],
    result: ZooResult,
) -> None:
    """The inputs scaled by each of ``entry.variant_scales``, compared like the first call."""
    steps = [dataclasses.replace(result)]
    for scale in entry.variant_scales:
        scaled = [np.ascontiguousarray(feed * np.asarray(scale, feed.dtype)) for feed in feeds]
        ours = interpreter.run(_our_feeds(interpreter, reference, scaled, pinned))
        step = dataclasses.replace(result, matches=False, max_error=float("nan"), bound=float("nan"))
        compare(
            _ours_in_reference_order(ours, reference.output_names),
            reference.run(scaled),
            reference.plain(scaled),
            step,
        )
        steps.append(step)
    _take_worst(result, steps)


def _compare_stream(
    entry: ZooEntry,
    interpreter: Interpreter,
    reference: Reference,
    first: tuple[list[np.ndarray], list[np.ndarray], list[np.ndarray], list[np.ndarray]],
    pinned: dict[str, int],
    result: ZooResult,
) -> None:
    """A streaming model over STREAM_CALLS consecutive calls: each side (ours, the reference, the plain
    reference) feeds its own state outputs back and reads the next chunk of audio; every call is held
    to the rule and the worst call decides. ``first`` is call 0: its feeds, then ours, the reference's
    and the plain reference's outputs (``result`` holds their comparison)."""
    feeds, *outputs = first
    sides = ("ours", "reference", "plain")
    state = {
        side: dict(zip(reference.output_names, out, strict=True))
        for side, out in zip(sides, outputs, strict=True)
    }
    steps = [dataclasses.replace(result)]
    for call in range(1, STREAM_CALLS):
        chunk = [make_input(spec, call, STREAM_CALLS) for spec in entry.inputs]
        side_feeds = {}
        for side in sides:
            side_feeds[side] = list(chunk)
            for output, input_name in entry.state_feedback:
                side_feeds[side][reference.input_names.index(input_name)] = state[side][output]
        ours = interpreter.run(_our_feeds(interpreter, reference, side_feeds["ours"], pinned))
        now = {
            "ours": _ours_in_reference_order(ours, reference.output_names),
            "reference": reference.run(side_feeds["reference"]),
            "plain": reference.plain(side_feeds["plain"]),
        }
        state = {side: dict(zip(reference.output_names, now[side], strict=True)) for side in sides}
        step = dataclasses.replace(result, matches=False, max_error=float("nan"), bound=float("nan"))
        compare(now["ours"], now["reference"], now["plain"], step)
        steps.append(step)
    _take_worst(result, steps)
    stream_note = f"{STREAM_CALLS} consecutive calls, state fed back"
    result.notes = "; ".join(filter(None, [result.notes, stream_note]))


def _run_and_compare(
    entry: ZooEntry,
    data: bytes,
    reference: Reference,
    feeds: list[np.ndarray],
    result: ZooResult,
    seconds: float | None,
) -> None:
    interpreter = Interpreter(model_content=data, threads=1)
    pinned = dict(entry.input_values)
    our_feeds = _our_feeds(interpreter, reference, feeds, pinned)
    ours = _ours_in_reference_order(interpreter.run(our_feeds), reference.output_names)
    expected = reference.run(feeds)
    plain = reference.plain(feeds)
    compare(ours, expected, plain, result)
    if entry.state_feedback:
        _compare_stream(entry, interpreter, reference, (feeds, ours, expected, plain), pinned, result)
    if entry.variant_scales:
        _compare_variants(entry, interpreter, reference, feeds, pinned, result)
    if seconds is None:
        return
    result.ours_ms, result.reference_ms = time_interleaved(
        lambda: interpreter.run(our_feeds), lambda: reference.run(feeds), seconds
    )


# -- reporting --------------------------------------------------------------------------------------
def _short(text: str, limit: int = 160) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def markdown_table(results: list[ZooResult]) -> str:
    reference_name = {"onnx": "onnxruntime", "tflite": "LiteRT"}
    lines = [
        "| model | package==version | kind | format | converts | max error / bound | ours ms | "
        "reference ms | speed (ref/ours) | notes |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in results:
        if r.converts:
            error = f"{r.max_error:.2g} / {r.bound:.2g}" + ("" if r.matches else " **no match**")
            timing = (
                f"{r.ours_ms:.2f} | {r.reference_ms:.2f} ({reference_name[r.format]}) | {r.speed_ratio:.2f}×"
            )
            note = r.notes
        else:
            error, timing = "–", "– | – | –"
            note = _short(r.refusal)
        lines.append(
            f"| {r.key} | {r.requirement} | {r.kind} | {r.format} | {'yes' if r.converts else 'no'} | "
            f"{error} | {timing} | {note.replace('|', '/')} |"
        )
    return "\n".join(lines)


def summary(results: list[ZooResult]) -> str:
    total = len(results)
    converts = sum(r.converts for r in results)
    matches = sum(r.matches for r in results)
    fast = sum(r.matches and r.speed_ratio >= 0.9 for r in results)
    internal = [r.key for r in results if r.refusal.startswith("internal error")]
    return (
        f"converts {converts}/{total}, matches {matches}/{total}, speed >= 0.9x of the reference "
        f"{fast}/{total}" + (f"; INTERNAL ERRORS: {', '.join(internal)}" if internal else "")
    )


def write_doc(doc: Path, results: list[ZooResult]) -> None:
    text = doc.read_text()
    begin, end = text.index(DOC_BEGIN) + len(DOC_BEGIN), text.index(DOC_END)
    doc.write_text(f"{text[:begin]}\n{summary(results)}\n\n{markdown_table(results)}\n{text[end:]}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--only", default="", help="comma-separated corpus keys (default: all)")
    parser.add_argument("--seconds", type=float, default=3.0, help="timing budget per model (default 3)")
    parser.add_argument("--json", type=Path, help="also write the results as JSON here")
    parser.add_argument("--write-doc", type=Path, help="replace the table between the markers of this file")
    args = parser.parse_args(argv)
    keys = [k for k in args.only.split(",") if k] or [entry.key for entry in CORPUS]
    unknown = [k for k in keys if k not in BY_KEY]
    if unknown:
        parser.error(f"unknown keys {unknown}")
    paths = fetch(keys, progress=True)
    results = []
    for key in keys:
        print(f"{key} ...", file=sys.stderr, flush=True)
        result = run_entry(BY_KEY[key], paths[key], args.seconds)
        print(
            f"  converts={result.converts} matches={result.matches} error={result.max_error:.3g}/"
            f"{result.bound:.3g} ours={result.ours_ms:.2f} ms ref={result.reference_ms:.2f} ms "
            f"{_short(result.refusal, 300)}",
            file=sys.stderr,
            flush=True,
        )
        results.append(result)
    print(markdown_table(results))
    print()
    print(summary(results))
    if args.json:
        args.json.write_text(json.dumps([dataclasses.asdict(r) for r in results], indent=1))
    if args.write_doc:
        write_doc(args.write_doc, results)
    return 0


if __name__ == "__main__":
    sys.exit(main())
