"""The `lite bench` subcommand: its arguments and how they map onto :mod:`lite_converter.bench`."""

from __future__ import annotations

import argparse
import importlib.util
from pathlib import Path
from typing import Any

TARGETS = ("aarch64", "armv7")


def _peer_list(text: str) -> list[str]:
    from lite_converter.peers import ALIASES, PEERS

    names = [name.strip() for name in text.split(",") if name.strip()]
    unknown = [n for n in names if ALIASES.get(n, n) not in PEERS]
    if unknown:
        raise argparse.ArgumentTypeError(f"unknown peer(s) {unknown}; known: {', '.join(PEERS)}")
    return [ALIASES.get(n, n) for n in names]


def add_bench_command(commands: Any, shape_help: str) -> None:  # noqa: ANN401 - argparse's private type
    """Registers `lite bench` on the `lite` parser's subcommands."""
    from lite_converter.cli import input_shape_arg

    bench = commands.add_parser(
        "bench", help="latency, memory and GFLOP/s (per op with --profile, against peers with --compare)")
    bench.add_argument("model", help="a .lite or .onnx file (peers need the .onnx)")
    bench.add_argument(
        "--input-shape", action="append", type=input_shape_arg, metavar="NAME=DIMS", help=shape_help)
    bench.add_argument("--threads", type=int, default=1, help="threads of every runtime (default 1)")
    bench.add_argument("--warmup", type=int, default=3, help="untimed runs after the first (default 3)")
    bench.add_argument("--runs", type=int, default=20, help="timed runs (default 20)")
    bench.add_argument("--profile", action="store_true", help="per-op time table, slowest first")
    bench.add_argument("--compare", type=_peer_list, default=[], metavar="PEERS",
                       help="comma-separated peers run interleaved with ours: onnxruntime,litert,ncnn,mnn")
    bench.add_argument("--target", choices=TARGETS,
                       help="count instructions per inference of the cross-built runtime under qemu")
    bench.add_argument("--seed", type=int, default=0, help="seed of the random inputs (default 0)")
    bench.set_defaults(handler=command_bench)


def command_bench(args: argparse.Namespace) -> int:
    from lite_converter.bench import BenchConfig, BenchError, benchmark
    from lite_converter.bench_report import report_text
    from lite_converter.cli import UserError, _shapes

    if args.target:
        return _command_target(args)
    config = BenchConfig(Path(args.model), _shapes(args.input_shape), args.threads, args.warmup, args.runs,
                         args.profile, tuple(args.compare), seed=args.seed)
    try:
        result = benchmark(config)
    except BenchError as error:
        raise UserError(str(error)) from None
    print(report_text(result))
    return 0


def qemu_counter_available() -> bool:
    """True once the ARM engineer's ``lite_converter.bench_qemu`` module exists."""
    return importlib.util.find_spec("lite_converter.bench_qemu") is not None


def _command_target(args: argparse.Namespace) -> int:
    from lite_converter.cli import UserError

    if not qemu_counter_available():
        raise UserError(f"--target {args.target}: instruction counting under qemu is not available yet "
                        "(lite_converter.bench_qemu is missing)")
    from lite_converter import bench_qemu  # type: ignore[attr-defined]

    print(bench_qemu.count_instructions(args.model, target=args.target))
    return 0
