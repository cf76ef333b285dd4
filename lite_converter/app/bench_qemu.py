"""Instructions per inference on ARM, counted under qemu-user: a device-independent cost figure.

The command line over lite_converter/qemu_count.py (what the count means and what it leaves out is
said there): instructions per inference, FLOPs per instruction for static shapes, the most expensive
functions with ``--top N``.

    python -m lite_converter.app.bench_qemu model.lite --target aarch64 --runs 2
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Sequence

from lite_converter.flops import model_flops
from lite_converter.qemu_count import (  # noqa: F401  (re-exported: the CLI's callers and tests use them)
    CROSS_ROOT,
    PLUGIN_PATH,
    REPO_ROOT,
    TARGETS,
    InstructionCountError,
    QemuTarget,
    count_instructions,
    ensure_built,
    ratio_arguments,
    shape_arguments,
)
from lite_converter.reader import read_model


def _model_flops(model_path: str | os.PathLike) -> int | None:
    """The model's FLOPs from its declared shapes, or None when some op's shape is not concrete."""
    report = model_flops(read_model(model_path))
    return None if report.unknown else report.total


def main(argv: Sequence[str] | None = None) -> int:
    """CLI: prints instructions per inference and, for static shapes, FLOPs per instruction."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("model")
    parser.add_argument("--target", choices=sorted(TARGETS), default="aarch64")
    parser.add_argument("--cpu", default=None, help="qemu -cpu (default: the target's)")
    parser.add_argument("--runs", type=int, default=2)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--shape", action="append", default=[], metavar="INDEX:D0xD1x...")
    parser.add_argument("--top", type=int, default=0, help="also list the N most expensive functions")
    parser.add_argument("--packed-weight-ratio", type=float, default=None,
                        help="the runtime's packed_weight_ratio (default: its default, inf: no bound)")
    args = parser.parse_args(argv)
    shapes = {int(s.split(":")[0]): [int(d) for d in s.split(":")[1].split("x")] for s in args.shape}
    result = count_instructions(args.model, args.target, args.runs, args.cpu, shapes, args.threads,
                                top=args.top, packed_weight_ratio=args.packed_weight_ratio)
    print(f"{args.model} on {result['target']} (-cpu {result['cpu']}, {result['threads']} thread(s)): "
          f"{result['instructions_per_inference'] / 1e6:.1f} M instructions per inference "
          f"({result['iterations']} counted)")
    if result.get("weights_bytes"):
        memory, weights = result["memory_bytes"], result["weights_bytes"]
        print(f"  memory {memory / 1e6:.1f} MB (arena + scratch + packed weights), "
              f"{memory / weights:.2f}x the weights' {weights / 1e6:.1f} MB")
    flops = None if shapes else _model_flops(args.model)
    if flops:
        per_instruction = flops / result["instructions_per_inference"]
        print(f"  {flops / 1e6:.1f} MFLOPs, {per_instruction:.2f} FLOPs per instruction")
    for name, count in result.get("top_functions", []):
        share = count / result["instructions_per_inference"]
        print(f"  {count / 1e6:10.2f} M  {share:6.1%}  {name}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
