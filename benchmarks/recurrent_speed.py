"""LSTM / GRU models exported from torch: our runtime against onnxruntime, interleaved.

The models of tests/models/recurrent_nets.py (a 2-layer bidirectional LSTM, hidden 128, batch 1;
a 2-layer bidirectional GRU, hidden 96, batch 4) at a few sequence lengths. Each iteration runs
every engine once on the same input, so load drift on a shared machine hits both alike; medians
and the speed ratio onnxruntime / ours (> 1: we are faster) are printed, with the largest
difference from onnxruntime relative to max(1, max|ort|).

    .venv/bin/python benchmarks/recurrent_speed.py --threads 1 --iterations 30
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))


def compare(name: str, time_steps: int, threads: int, iterations: int, directory: Path) -> str:
    import onnxruntime as ort

    from lite_converter.convert import convert_onnx
    from runtime_arm import Interpreter
    from tests.models.recurrent_nets import NETS, export_recurrent

    net = NETS[name]
    path = export_recurrent(net, directory)
    x = np.random.default_rng(0).standard_normal((time_steps, net.batch, net.features)).astype(np.float32)
    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    session = ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
    ours = Interpreter(model_content=convert_onnx(path), threads=threads)
    engines = {"ours": lambda: ours.run({"x": x})["y"], "ort": lambda: session.run(None, {"x": x})[0]}
    outputs = {label: run() for label, run in engines.items()}  # warm-up, and the comparison
    scale = max(1.0, float(np.abs(outputs["ort"]).max()))
    error = float(np.abs(outputs["ours"] - outputs["ort"]).max()) / scale
    times: dict[str, list[float]] = {label: [] for label in engines}
    for _ in range(iterations):
        for label, run in engines.items():
            start = time.perf_counter()
            run()
            times[label].append((time.perf_counter() - start) * 1e3)
    med = {label: statistics.median(values) for label, values in times.items()}
    return (f"| {name} | {time_steps} | {threads} | {med['ours']:.2f} | {med['ort']:.2f} | "
            f"{med['ort'] / med['ours']:.2f} | {error:.1e} |")


def main() -> None:
    from tests.models.recurrent_nets import NETS

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", nargs="+", default=sorted(NETS), choices=sorted(NETS))
    parser.add_argument("--steps", nargs="+", type=int, default=[20, 100])
    parser.add_argument("--threads", nargs="+", type=int, default=[1])
    parser.add_argument("--iterations", type=int, default=30)
    args = parser.parse_args()
    print("| model | time steps | threads | ours ms | onnxruntime ms | speed ratio (ort / ours) "
          "| max rel. diff |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    with tempfile.TemporaryDirectory() as tmp:
        for name in args.models:
            for steps in args.steps:
                for threads in args.threads:
                    print(compare(name, steps, threads, args.iterations, Path(tmp)), flush=True)


if __name__ == "__main__":
    main()
