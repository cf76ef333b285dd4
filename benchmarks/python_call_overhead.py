"""The whole Python call of tiny corpus models: Interpreter.run through the _fast_run extension,
through the ctypes path (the extension set aside on the same interpreter), and the reference
runtime's set / invoke / get, one thread each, interleaved call by call (so the shared machine's
load hits all three alike), as benchmarks/model_zoo/run.py times them.

    python -m benchmarks.python_call_overhead [--only KEY,...] [--calls N] [--rounds R]

Prints, per model and round, the median and minimum milliseconds of each and the reference / ours
ratios (above 1: we are faster). Models come from the corpus cache (benchmarks/model_zoo/fetch.py).
"""

from __future__ import annotations

import argparse
import functools
import statistics
import time
from collections.abc import Callable

from benchmarks.model_zoo.corpus import BY_KEY
from benchmarks.model_zoo.fetch import fetch
from benchmarks.model_zoo.inputs import make_input
from benchmarks.model_zoo.run import Reference, _our_feeds
from lite_converter.convert import convert
from runtime_arm import Interpreter

DEFAULT_MODELS = "oww_hey_jarvis_tflite,oww_alexa_tflite,oww_embedding_tflite"


def interleaved(calls: dict[str, Callable[[], object]], count: int) -> dict[str, list[float]]:
    """Milliseconds of each call, ``count`` rounds of one call each in turn (after one warm-up)."""
    for call in calls.values():
        call()
    times: dict[str, list[float]] = {name: [] for name in calls}
    for _ in range(count):
        for name, call in calls.items():
            begin = time.perf_counter()
            call()
            times[name].append((time.perf_counter() - begin) * 1e3)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--only", default=DEFAULT_MODELS, help="comma-separated corpus keys")
    parser.add_argument("--calls", type=int, default=400, help="interleaved calls per round")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    entries = [BY_KEY[key] for key in args.only.split(",") if key]
    paths = fetch([entry.key for entry in entries])
    print("| model | round | fast ms (median / min) | ctypes ms | reference ms | ref/fast | ref/ctypes |")
    print("|---|---|---|---|---|---|---|")
    for entry in entries:
        feeds = [make_input(spec) for spec in entry.inputs]
        reference = Reference(entry, paths[entry.key], [feed.shape for feed in feeds])
        data = convert(paths[entry.key], input_shapes={n: list(f.shape) for n, f in
                                                       zip(reference.input_names, feeds, strict=True)})
        fast, slow = Interpreter(model_content=data, threads=1), Interpreter(model_content=data, threads=1)
        slow._runner = None  # the ctypes path
        ours = _our_feeds(fast, reference, feeds, {})
        calls = {"fast": functools.partial(fast.run, ours), "ctypes": functools.partial(slow.run, ours),
                 "reference": functools.partial(reference.run, feeds)}
        for round_index in range(args.rounds):
            times = interleaved(calls, args.calls)
            med = {name: statistics.median(t) for name, t in times.items()}
            low = {name: min(t) for name, t in times.items()}
            cells = [f"{med[n]:.3f} / {low[n]:.3f}" for n in calls]
            ratios = f"{med['reference'] / med['fast']:.2f}× | {med['reference'] / med['ctypes']:.2f}×"
            print(f"| {entry.key} | {round_index + 1} | {' | '.join(cells)} | {ratios} |", flush=True)


if __name__ == "__main__":
    main()
