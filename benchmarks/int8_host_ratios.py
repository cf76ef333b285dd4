"""int8 against our fp32 on the host, 1 thread, interleaved: the figures of benchmarks/RESULTS.md
"int8 on AVX-512 VNNI" (issue 14 Done-when 2 host part, issue 13 Done-when 5 host part).

    nice -n 5 .venv/bin/python -m benchmarks.int8_host_ratios --workdir /tmp/int8_host --clock cpu
    nice -n 5 .venv/bin/python -m benchmarks.int8_host_ratios --workdir /tmp/int8_host --profile yolov8

Models (made once into --workdir, reused by later calls so that before / after runs time the same files):
the YOLOv8-style and YOLOX-style detectors at 1x3x320x320 exactly as benchmarks/yolo_int8.py's speed part
makes them (random BatchNorm statistics, ``hist`` on 8 random batches), and PP-OCRv4 rec (1x3x48x320),
MobileNetV2 and ResNet-18 (1x3x224x224) as benchmarks/int8_benchmarks.compress_int8 makes them (default
config, 4 random batches). Each repeat is one loop of --runs iterations, int8 and fp32 in a random order
per iteration: ``lite bench INT8 --baseline FP32`` (--clock wall) or the same alternation timed by the
thread's CPU time (--clock cpu: robust when other jobs load the machine). The ratio printed is fp32
median / int8 median per repeat and the median over repeats.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import torch

import slim
from benchmarks.int8_benchmarks import compress_int8
from benchmarks.yolo_int8 import SPEED_NETS
from lite_converter.app import zoo
from lite_converter.app.bench import BASELINE, BenchConfig, benchmark
from lite_converter.convert import convert
from runtime_arm import Interpreter
from tests.datasets.splits import CALIBRATION_SEED
from tests.models import ARCHITECTURES, export_onnx
from tests.models.torch_export import randomize_batch_norm, to_onnx

MODELS = ("yolov8", "yolox", "rec", "mobilenet_v2", "resnet18")
REC_SHAPE = (1, 3, 48, 320)


def _yolo(name: str, workdir: Path) -> tuple[str, tuple[int, ...]]:
    factory, size = SPEED_NETS[name]
    torch.manual_seed(0)
    onnx_model = to_onnx(randomize_batch_norm(factory(), seed=1), (1, 3, size, size))
    convert(onnx_model, workdir / f"{name}_fp32.lite")
    rng = np.random.default_rng(CALIBRATION_SEED)
    slim.compress(onnx_model, workdir / f"{name}_int8.lite",
                  [rng.random((1, 3, size, size), dtype=np.float32) for _ in range(8)],
                  slim.QuantConfig(algorithm="hist", progress=False))
    return "x", (1, 3, size, size)


def _onnx(name: str, onnx_path: Path, input_name: str, shape: tuple[int, ...],
          workdir: Path) -> tuple[str, tuple[int, ...]]:
    convert(onnx_path, workdir / f"{name}_fp32.lite", input_shapes={input_name: list(shape)})
    compress_int8(onnx_path, input_name, shape, workdir / f"{name}_int8.lite")
    return input_name, shape


def _classifier(name: str, workdir: Path) -> tuple[str, tuple[int, ...]]:
    return _onnx(name, export_onnx(ARCHITECTURES[name], workdir / "onnx"), "input", (1, 3, 224, 224), workdir)


def cpu_time_ratio(int8: Path, fp32: Path, input_name: str, shape: tuple[int, ...], runs: int,
                   seed: int) -> tuple[float, float]:
    """Medians (ms) of int8 and fp32 runs alternated in a random order per iteration, each timed by this
    thread's CPU time (the runtime computes on the calling thread at 1 thread): the time other jobs keep
    the process off the CPU does not count, which wall-clock medians on a loaded machine cannot say."""
    feeds = {input_name: np.random.default_rng(seed).standard_normal(shape).astype(np.float32)}
    interpreters = {}
    for kind, path in (("int8", int8), ("fp32", fp32)):
        interpreter = Interpreter(path, threads=1)
        interpreter.resize_input(input_name, shape)
        interpreter.allocate_tensors()
        for _ in range(2):
            interpreter.run(feeds)
        interpreters[kind] = interpreter
    samples: dict[str, list[int]] = {kind: [] for kind in interpreters}
    order = np.random.default_rng(seed)
    for _ in range(runs):
        for kind in order.permutation(list(interpreters)):
            start = time.thread_time_ns()
            interpreters[kind].run(feeds)
            samples[kind].append(time.thread_time_ns() - start)
    for interpreter in interpreters.values():
        interpreter.close()
    return statistics.median(samples["int8"]) / 1e6, statistics.median(samples["fp32"]) / 1e6


def wall_time_ratio(int8: Path, fp32: Path, input_name: str, shape: tuple[int, ...], runs: int,
                    seed: int) -> tuple[float, float]:
    """Medians (ms) of ``lite bench INT8 --baseline FP32`` (interleaved, wall clock)."""
    result = benchmark(BenchConfig(int8, {input_name: list(shape)}, 1, 2, runs, baseline=fp32, seed=seed))
    base = next(r for r in result.peers if r.name == BASELINE)
    assert result.ours.stats is not None and base.stats is not None
    return result.ours.stats.median * 1e3, base.stats.median * 1e3


def min_profile(path: Path, input_name: str, shape: tuple[int, ...], runs: int = 40) -> dict[str, float]:
    """Seconds per op: the minimum over ``runs`` single-run profiles. An op's minimum leaves out the
    runs where another job took the CPU in the middle of it, which a loaded machine's averages keep."""
    feeds = {input_name: np.random.default_rng(0).standard_normal(shape).astype(np.float32)}
    best: dict[str, float] = {}
    with Interpreter(path, threads=1) as interpreter:
        interpreter.resize_input(input_name, shape)
        interpreter.allocate_tensors()
        for _ in range(runs):
            interpreter.set_profiling(True)  # enabling resets the totals: one run per profile
            interpreter.run(feeds)
            for row in interpreter.profile():
                if row["calls"]:
                    seconds = row["seconds"] / row["calls"]
                    best[row["node"]] = min(best.get(row["node"], seconds), seconds)
            interpreter.set_profiling(False)
    return best


def print_min_profile(label: str, path: Path, input_name: str, shape: tuple[int, ...]) -> None:
    """Per op type and the slowest convolutions, from min_profile, with their GFLOP/s."""
    result = benchmark(BenchConfig(path, {input_name: list(shape)}, 1, 0, 1, profile=True))
    assert result.profile is not None
    kinds = {op.node: (op.op, op.flops) for op in result.profile}
    best = min_profile(path, input_name, shape)
    total = sum(best.values())
    by_op: dict[str, float] = {}
    for node, seconds in best.items():
        by_op[kinds[node][0]] = by_op.get(kinds[node][0], 0.0) + seconds
    print(f"\n{label}: {total * 1e3:.2f} ms (sum of per-op minima over 40 runs)")
    for op_name, seconds in sorted(by_op.items(), key=lambda kv: -kv[1])[:12]:
        print(f"  {op_name:28s} {seconds * 1e3:8.3f} ms {100 * seconds / total:5.1f}%")
    convs = sorted((n for n in best if kinds[n][0] == "CONV_2D"), key=lambda n: -best[n])
    for node in convs[:10]:
        flops = kinds[node][1]
        print(f"  {node[:44]:44s} {best[node] * 1e3:7.3f} ms {flops / 1e6:8.1f} MFLOP "
              f"{flops / best[node] / 1e9:6.0f} GFLOP/s")


def make(name: str, workdir: Path) -> tuple[str, tuple[int, ...]]:
    """Writes NAME_fp32.lite and NAME_int8.lite under workdir (once) and returns the input name and shape."""
    makers: dict[str, Callable[[], tuple[str, tuple[int, ...]]]] = {
        "yolov8": lambda: _yolo("yolov8", workdir),
        "yolox": lambda: _yolo("yolox", workdir),
        "rec": lambda: _onnx("rec", zoo.fetch("rec"), "x", REC_SHAPE, workdir),
        "mobilenet_v2": lambda: _classifier("mobilenet_v2", workdir),
        "resnet18": lambda: _classifier("resnet18", workdir),
    }
    marker = workdir / f"{name}.input"
    if not marker.exists():
        input_name, shape = makers[name]()
        marker.write_text(f"{input_name} {','.join(map(str, shape))}")
    input_name, dims = marker.read_text().split()
    return input_name, tuple(int(d) for d in dims.split(","))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--workdir", type=Path, required=True)
    parser.add_argument("--models", nargs="+", default=list(MODELS), choices=MODELS)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--clock", choices=("wall", "cpu"), default="wall",
                        help="wall: lite bench's interleaved wall-clock medians; cpu: this thread's CPU time")
    parser.add_argument("--profile", nargs="*", default=[], choices=MODELS,
                        help="also print these models' per-op profiles (each op's minimum over 40 runs)")
    args = parser.parse_args()
    torch.set_num_threads(1)
    args.workdir.mkdir(parents=True, exist_ok=True)
    print(f"| model ({args.clock} clock) | int8 ms | fp32 ms | fp32 / int8 per repeat | median |")
    print("| --- | --- | --- | --- | --- |")
    for name in args.models:
        input_name, shape = make(name, args.workdir)
        int8, fp32 = args.workdir / f"{name}_int8.lite", args.workdir / f"{name}_fp32.lite"
        ratios, int8_ms, fp32_ms = [], [], []
        timer = cpu_time_ratio if args.clock == "cpu" else wall_time_ratio
        for repeat in range(args.repeats):
            a, b = timer(int8, fp32, input_name, shape, args.runs, repeat)
            int8_ms.append(a)
            fp32_ms.append(b)
            ratios.append(b / a)
        print(f"| {name} | {statistics.median(int8_ms):.2f} | {statistics.median(fp32_ms):.2f} | "
              f"{' '.join(f'{r:.2f}' for r in ratios)} | {statistics.median(ratios):.2f}x |", flush=True)
    for name in args.profile:
        input_name, shape = make(name, args.workdir)
        for kind in ("int8", "fp32"):
            print_min_profile(f"{name} {kind}", args.workdir / f"{name}_{kind}.lite", input_name, shape)

if __name__ == "__main__":
    main()
