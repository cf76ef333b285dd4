"""Quick latency check of our runtime against onnxruntime, interleaved iteration by iteration.

Why a separate script from `make bench`: it is the small loop the dense-path work was tuned with,
independent of the bench CLI and of optional peers, and it can restrict our kernels to a CPU
feature subset (``--cpu-mask``, sets LITE_CPU_FEATURES_MASK before the runtime loads) to compare
microkernel variants on one machine. Both runtimes run the same input in the same process, each
iteration running every engine once, so load drifts on a shared machine hit them alike; medians and
the ours/ort ratio are printed.

    .venv/bin/python benchmarks/quick_compare.py --models det rec mobilenet_v2 resnet18 --threads 1 2
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

SHAPES = {"det": (1, 3, 640, 640), "rec": (1, 3, 48, 320), "mobilenet_v2": (1, 3, 224, 224),
          "resnet18": (1, 3, 224, 224)}


def onnx_path(key: str, directory: Path) -> Path:
    """The ONNX file of a PaddleOCR zoo model (det, rec) or a seeded torch architecture of tests/models."""
    if key in ("det", "rec", "cls"):
        from lite_converter.app import zoo

        return zoo.fetch(key)
    from tests.models import ARCHITECTURES, export_onnx

    return export_onnx(ARCHITECTURES[key], directory / key)


def timed(run: Callable[[], object]) -> float:
    start = time.perf_counter()
    run()
    return (time.perf_counter() - start) * 1e3


def compare(key: str, threads: int, iterations: int, directory: Path) -> str:
    import onnxruntime as ort

    from lite_converter.convert import convert_onnx
    from runtime_arm import Interpreter

    path = onnx_path(key, directory)
    shape = SHAPES[key]
    x = np.random.default_rng(0).standard_normal(shape).astype(np.float32)
    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    session = ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
    name = session.get_inputs()[0].name
    ours = Interpreter(model_content=convert_onnx(path), threads=threads)
    engines = {"ours": lambda: ours.run({name: x}), "ort": lambda: session.run(None, {name: x})}
    for run in engines.values():  # warm-up (packing, allocation, caches)
        run()
    times: dict[str, list[float]] = {k: [] for k in engines}
    for _ in range(iterations):
        for label, run in engines.items():
            times[label].append(timed(run))
    med = {k: statistics.median(v) for k, v in times.items()}
    return (f"{key:14s} threads={threads}  ours {med['ours']:8.2f} ms  ort {med['ort']:8.2f} ms  "
            f"ratio {med['ours'] / med['ort']:5.2f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", nargs="+", default=list(SHAPES), choices=list(SHAPES))
    parser.add_argument("--threads", nargs="+", type=int, default=[1, 2])
    parser.add_argument("--iterations", type=int, default=10)
    parser.add_argument("--cpu-mask",
                        help="LITE_CPU_FEATURES_MASK for our runtime, e.g. 0 (portable C), 0x1 (AVX2)")
    args = parser.parse_args()
    if args.cpu_mask is not None:
        os.environ["LITE_CPU_FEATURES_MASK"] = args.cpu_mask
    with tempfile.TemporaryDirectory() as tmp:
        for key in args.models:
            for threads in args.threads:
                print(compare(key, threads, args.iterations, Path(tmp)), flush=True)


if __name__ == "__main__":
    main()
