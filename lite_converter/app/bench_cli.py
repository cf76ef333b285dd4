"""The `lite bench` subcommand: its arguments and how they map onto :mod:`lite_converter.app.bench`."""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path
from typing import Any

from lite_converter.app import bench_qemu
from lite_converter.app.bench import BenchConfig, BenchError, benchmark, make_feeds, prepare_models
from lite_converter.app.bench_report import report_text
from lite_converter.app.cli_common import (
    BACKEND_CHOICES,
    BACKEND_HELP,
    CPU_AFFINITY_CHOICES,
    CPU_AFFINITY_HELP,
    PRECISION_CHOICES,
    PRECISION_HELP,
    UserError,
    input_shape_arg,
    input_shapes,
)
from lite_converter.app.peers import ALIASES, PEERS
from lite_converter.flops import model_flops
from lite_converter.reader import read_model
from runtime_arm import Interpreter

TARGETS = ("aarch64", "armv7")


def _peer_list(text: str) -> list[str]:
    names = [name.strip() for name in text.split(",") if name.strip()]
    unknown = [n for n in names if ALIASES.get(n, n) not in PEERS]
    if unknown:
        raise argparse.ArgumentTypeError(f"unknown peer(s) {unknown}; known: {', '.join(PEERS)}")
    return [ALIASES.get(n, n) for n in names]


def add_bench_command(commands: Any, shape_help: str) -> None:  # noqa: ANN401 - argparse's private type
    """Registers `lite bench` on the `lite` parser's subcommands."""
    bench = commands.add_parser(
        "bench", help="latency, memory and GFLOP/s (per op with --profile, against peers with --compare)")
    bench.add_argument("model",
                       help="a .lite, .onnx or .tflite file (peers other than LiteRT need the .onnx)")
    bench.add_argument(
        "--input-shape", action="append", type=input_shape_arg, metavar="NAME=DIMS", help=shape_help)
    bench.add_argument("--threads", type=int, default=1, help="threads of every runtime (default 1)")
    bench.add_argument("--cpu-affinity", choices=CPU_AFFINITY_CHOICES, default="none",
                       help=f"{CPU_AFFINITY_HELP}. Our runtime only (with --baseline, both models): the "
                            "--compare peers keep their own defaults; ignored with --target")
    bench.add_argument("--backend", choices=BACKEND_CHOICES, default="cpu",
                       help=f"{BACKEND_HELP}. Our runtime only")
    bench.add_argument("--precision", choices=PRECISION_CHOICES, default="fp32", help=PRECISION_HELP)
    bench.add_argument("--tune", choices=("none", "fast", "normal", "exhaustive"), default="none",
                       help="OpenCL local-work-size tuning at each op's first run (default none: the "
                       "driver picks)")
    bench.add_argument("--warmup", type=int, default=3, help="untimed runs after the first (default 3)")
    bench.add_argument("--runs", type=int, default=20, help="timed runs (default 20)")
    bench.add_argument("--profile", action="store_true", help="per-op time table, slowest first")
    bench.add_argument("--compare", type=_peer_list, default=[], metavar="PEERS",
                       help="comma-separated peers run interleaved with ours: onnxruntime,litert,ncnn,mnn")
    bench.add_argument("--baseline", type=Path, metavar="MODEL",
                       help="another .lite/.onnx/.tflite run on our runtime interleaved with MODEL, e.g. "
                            "the fp32 model beside its int8 version; its median and ratio are printed like "
                            "a peer's")
    bench.add_argument("--target", choices=TARGETS,
                       help="instead of timing: count instructions per inference of the cross-built "
                            "runtime under qemu (lite_converter.app.bench_qemu; 2 counted runs)")
    bench.add_argument("--cpu", default=None,
                       help="with --target: qemu -cpu (default: the target's, e.g. cortex-a72, cortex-a7)")
    bench.add_argument("--packed-weight-ratio", type=float, default=None,
                       help="with --target: the runtime's packed_weight_ratio, packed weights as a "
                            "multiple of the model's weight bytes (default inf: keep every Winograd "
                            "transformed copy; e.g. 1.5 bounds the memory)")
    bench.add_argument("--seed", type=int, default=0, help="seed of the random inputs (default 0)")
    bench.set_defaults(handler=command_bench)


def command_bench(args: argparse.Namespace) -> int:
    if args.target:
        return _command_target(args)
    config = BenchConfig(Path(args.model), input_shapes(args.input_shape), args.threads, args.warmup,
                         args.runs, args.profile, tuple(args.compare), seed=args.seed, baseline=args.baseline,
                         cpu_affinity=args.cpu_affinity, backend=args.backend, precision=args.precision,
                         tune=args.tune)
    try:
        result = benchmark(config)
    except BenchError as error:
        raise UserError(str(error)) from None
    print(report_text(result))
    return 0


def _command_target(args: argparse.Namespace) -> int:
    """Instructions per inference on an ARM target and FLOPs per instruction: qemu's time means
    nothing for a device, but its instruction count is deterministic."""
    config = BenchConfig(Path(args.model), input_shapes(args.input_shape), args.threads, seed=args.seed)
    with tempfile.TemporaryDirectory(prefix="lite-bench-target-") as workdir:
        try:
            lite_path = prepare_models(config, Path(workdir)).lite_path
            model = read_model(lite_path)
            feeds = make_feeds(model, config.input_shapes, config.seed)
        except BenchError as error:
            raise UserError(str(error)) from None
        shapes = {i: feeds[t.name].shape for i, t in enumerate(model.input_tensors)}
        try:
            result = bench_qemu.count_instructions(lite_path, target=args.target, runs=2, shapes=shapes,
                                                   threads=args.threads, cpu=args.cpu,
                                                   packed_weight_ratio=args.packed_weight_ratio)
        except bench_qemu.InstructionCountError as error:
            raise UserError(str(error)) from None
        flops = _flops_with_shapes(lite_path, feeds)
    per_inference = result["instructions_per_inference"]
    print(f"model: {args.model} on {result['target']} (qemu -cpu {result['cpu']}, {result['threads']} "
          f"thread(s), {result['iterations']} counted runs)")
    print(f"  instructions per inference: {per_inference:.0f} ({per_inference / 1e6:.1f} M)")
    if result.get("weights_bytes"):
        memory, weights = result["memory_bytes"], result["weights_bytes"]
        print(f"  memory: {memory} bytes (arena + scratch + packed weights), {memory / weights:.2f}x the "
              f"weights ({weights} bytes)")
    if flops:
        print(f"  FLOPs: {flops / 1e9:.4f} G, {flops / per_inference:.3f} FLOPs per instruction")
    return 0


def _flops_with_shapes(lite_path: Path, feeds: dict) -> int:
    """FLOPs with every shape resolved by the host runtime (dynamic models included)."""
    with Interpreter(lite_path) as interpreter:
        for name, array in feeds.items():
            interpreter.resize_input(name, array.shape)
        interpreter.allocate_tensors()
        shapes = {d["index"]: d["shape"] for d in interpreter.tensor_details()}
    return model_flops(read_model(lite_path), shapes).total
