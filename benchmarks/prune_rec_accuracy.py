"""PP-OCRv4 rec pruned to a FLOPs target and fine-tuned label-free: character accuracy against fp32.

Issue 12, Done-when 3: rec keeps <= 65% of its FLOPs, is fine-tuned by distillation against the
original (no labels: the student learns the teacher's per-step character distributions, KL) on
rendered text lines of the training seed, and is scored on held-apart lines of the evaluation seed
(tests/datasets/splits.py), fp32 and pruned both as .lite files on our runtime. Also prints the
pruned model before fine-tuning, so the figure shows what the distillation recovered.

    nice -n 10 .venv/bin/python -m benchmarks.prune_rec_accuracy --train-lines 3000 --eval-lines 500 \\
        --steps 1200 --time-budget 3000

Progress (rendering, pruning, the fine-tuning bar with loss and ETA) goes to stderr; the table to
stdout. ``--time-budget`` bounds the fine-tuning (the cosine learning-rate schedule follows
``--steps``); a rerun with the same ``--folder`` resumes from the fine-tuning checkpoint.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

import slim
from benchmarks.int8_hard_data import fp32_bytes, rec_accuracy
from lite_converter.app import zoo
from lite_converter.convert import lower, to_lite_bytes
from lite_converter.frontends.onnx_export import export_onnx
from lite_converter.ir import Graph
from slim.distill import finetune
from slim.pruning import pruner
from slim.pruning.apply import apply_plan
from tests.datasets import splits, text_lines


def log(message: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


def render_inputs(seed: int, count: int) -> tuple[np.ndarray, list[str]]:
    """rec inputs (PaddleOCR's resize_norm_img) and texts of ``count`` lines of ``seed``."""
    log(f"rendering {count} lines of seed {seed}")
    crops, truths = text_lines.render_lines(seed, count)
    return text_lines.rec_input(crops), truths


def lite_of(graph: Graph) -> bytes:
    return to_lite_bytes(lower(export_onnx(graph, with_value_info=False)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--train-lines", type=int, default=3000)
    parser.add_argument("--eval-lines", type=int, default=500)
    parser.add_argument("--flops-target", type=float, default=0.65, help="fraction of the FLOPs kept")
    parser.add_argument("--criterion", default="taylor")
    parser.add_argument("--steps", type=int, default=1200)
    parser.add_argument("--time-budget", type=float, default=3000.0, help="seconds of fine-tuning at most")
    parser.add_argument("--batch-size", type=int, default=16)
    parser.add_argument("--learning-rate", type=float, default=5e-4)
    parser.add_argument("--feature-weight", type=float, default=1.0,
                        help="weight of feature distillation on up to 8 pruned tensors (0: outputs only)")
    parser.add_argument("--folder", type=Path, default=Path("/tmp/prune_rec_accuracy"))
    args = parser.parse_args()
    args.folder.mkdir(parents=True, exist_ok=True)
    started = time.perf_counter()

    evaluation, truths = render_inputs(splits.EVALUATION_SEED, args.eval_lines)
    training, _ = render_inputs(splits.TRAINING_SEED, args.train_lines)  # texts unused: label-free
    fp32 = fp32_bytes("rec", args.folder)
    reference = rec_accuracy(fp32, evaluation, truths)
    log(f"fp32 character accuracy {reference:.2f}% on {args.eval_lines} lines")

    settings = slim.FinetuneConfig(steps=args.steps, time_budget_s=args.time_budget,
                                   batch_size=args.batch_size, learning_rate=args.learning_rate,
                                   feature_weight=args.feature_weight,
                                   checkpoint_dir=args.folder / "checkpoint", checkpoint_every=10)
    config = slim.PruneConfig(flops_target=args.flops_target, criterion=args.criterion, finetune=settings)
    log(f"pruning to {args.flops_target:.0%} of the FLOPs ({args.criterion} importance)")
    # slim.prune's steps, with the accuracy of the pruned model taken between cutting and training.
    analysis = pruner.analyze(str(zoo.fetch("rec")), training, None, args.batch_size)
    choices = pruner.allocate_units(analysis, config)
    plan = analysis.plan(choices)
    pruned = apply_plan(analysis.view, plan)
    report = pruner.report_of(analysis, choices, plan)
    log(report.table())
    before = rec_accuracy(lite_of(pruned), evaluation, truths)
    log(f"pruned, not fine-tuned: {before:.2f}%")
    features = pruner.feature_map(analysis, plan, choices, settings.features)
    tuned = finetune(pruned, analysis.graph, analysis.data, settings, features)
    after = rec_accuracy(lite_of(pruned), evaluation, truths)
    log(f"fine-tuned {tuned.steps} steps in {tuned.seconds:.0f} s (stopped by {tuned.stopped_by}, "
        f"resumed from {tuned.resumed_from}): loss {tuned.first_loss:.4g} -> {tuned.last_loss:.4g}")

    print(f"PP-OCRv4 rec, {args.eval_lines} held-apart lines (seed {splits.EVALUATION_SEED}), "
          f"fine-tuned on {args.train_lines} unlabeled lines (seed {splits.TRAINING_SEED}), "
          f"{time.perf_counter() - started:.0f} s in all")
    print("| model | FLOPs kept | character accuracy % | delta |")
    print("|---|---|---|---|")
    print(f"| fp32 | 100% | {reference:.2f} | |")
    print(f"| pruned, no fine-tuning | {report.flops_kept:.1%} | {before:.2f} | {before - reference:+.2f} |")
    print(f"| pruned + {tuned.resumed_from + tuned.steps} distillation steps (batch {args.batch_size}) | "
          f"{report.flops_kept:.1%} | {after:.2f} | {after - reference:+.2f} |")


if __name__ == "__main__":
    main()
