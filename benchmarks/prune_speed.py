"""Is a ``prune_0.5`` model actually faster on our runtime? (issue 12, Done-when 4)

Per model: prune to keep 50% of the FLOPs and of the estimated runtime cost (slim.prune, Taylor
importance on random inputs, channels rounded to 16 (the default), no fine-tuning: the weights'
values do not change the speed), convert
both models, then ``lite bench PRUNED --baseline ORIGINAL --threads 1`` (both on our runtime in one process,
interleaved run by run) and, with ``--target aarch64``, the instructions per inference of the
cross-built runtime under qemu for each. Prints one markdown table (benchmarks/COMPRESSION.md).

    .venv/bin/python benchmarks/prune_speed.py [--models mobilenet_v2 resnet18 ...] [--runs 40] [--no-qemu]

Needs the torch extra; ``--target aarch64`` needs ``make cross qemu-plugin``.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

import slim  # noqa: E402
from lite_converter.app.bench import BASELINE, OURS  # noqa: E402
from lite_converter.convert import convert  # noqa: E402

# name -> input shape; det and cls are PaddleOCR's, read from Paddle's own inference folders.
MODELS = {"mobilenet_v2": (1, 3, 224, 224), "resnet18": (1, 3, 224, 224), "shufflenet_v2": (1, 3, 224, 224),
          "efficientnet_b0": (1, 3, 224, 224), "paddle_det": (1, 3, 320, 320), "paddle_cls": (1, 3, 48, 192)}


def source(name: str, directory: Path) -> Path:
    if name.startswith("paddle_"):
        from tests import paddle_zoo

        return paddle_zoo.model_dir(name.removeprefix("paddle_"))
    from tests.models import ARCHITECTURES, export_onnx

    return export_onnx(ARCHITECTURES[name], directory / name)


def lite(args: list[str]) -> str:
    result = subprocess.run([sys.executable, "-m", "lite_converter.app", *args], cwd=REPO,
                            capture_output=True, text=True, timeout=3600)
    if result.returncode != 0:
        raise RuntimeError(f"lite {' '.join(args)} failed: {result.stderr.strip()}")
    return result.stdout


def median_ms(text: str, label: str) -> float:
    """The median column of ``label``'s row in the bench report."""
    for line in text.splitlines():
        match = re.match(rf"\s*{label}\s+(\d+\.\d+)", line)
        if match:
            return float(match.group(1))
    raise RuntimeError(f"no row {label!r} in:\n{text}")


def instructions(path: Path) -> float:
    text = lite(["bench", str(path), "--target", "aarch64"])
    return float(re.search(r"instructions per inference: (\d+)", text).group(1))  # type: ignore[union-attr]


def measure(name: str, directory: Path, runs: int, qemu: bool) -> str:
    shape = MODELS[name]
    model = source(name, directory)
    data = np.random.default_rng(0).uniform(-1, 1, (16, *shape[1:])).astype(np.float32)
    config = slim.PruneConfig(flops_target=0.5, finetune=None)  # round_to: the default, 16
    feed = "x" if name.startswith("paddle_") else "input"
    shapes = {feed: list(shape)}
    pruned = slim.prune(model, data, config)
    original_lite, pruned_lite = directory / f"{name}.lite", directory / f"{name}.pruned.lite"
    convert(model, original_lite, input_shapes=shapes)
    convert(pruned.onnx_model(), pruned_lite, input_shapes=shapes)
    text = lite(["bench", str(pruned_lite), "--baseline", str(original_lite), "--threads", "1",
                 "--runs", str(runs), "--warmup", "5"])
    ours, baseline = median_ms(text, OURS), median_ms(text, BASELINE)
    kept, cost = pruned.report.flops_kept, pruned.report.cost_kept
    row = f"| {name} | {kept:.1%} | {cost:.1%} | {baseline:.2f} | {ours:.2f} | {baseline / ours:.2f}x |"
    if qemu:
        before, after = instructions(original_lite), instructions(pruned_lite)
        row += f" {before / 1e6:.1f} M | {after / 1e6:.1f} M | {after / before:.2f} |"
    else:
        row += " - | - | - |"
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", nargs="+", default=list(MODELS), choices=list(MODELS))
    parser.add_argument("--runs", type=int, default=40)
    parser.add_argument("--no-qemu", action="store_true", help="skip the aarch64 instruction counts")
    args = parser.parse_args()
    print("| model | FLOPs kept | est. cost kept | original ms | pruned ms | speed-up "
          "| aarch64 insns original | pruned | ratio |")
    print("|---|---|---|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory(prefix="prune-speed-") as work:
        for name in args.models:
            print(measure(name, Path(work), args.runs, not args.no_qemu), flush=True)


if __name__ == "__main__":
    main()
