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

from tests.datasets import splits, text_lines


def log(message: str) -> None:
    print(f"[{time.strftime('%H:%M:%S')}] {message}", file=sys.stderr, flush=True)


def render_inputs(seed: int, count: int) -> tuple[np.ndarray, list[str]]:
    """rec inputs (PaddleOCR's resize_norm_img) and texts of ``count`` lines of ``seed``."""
    log(f"rendering {count} lines of seed {seed}")
    crops, truths = text_lines.render_lines(seed, count)
    return text_lines.rec_input(crops), truths


def save_inputs(path: Path, inputs: np.ndarray) -> None:
    """rec inputs as uint8 pixels + the width of each line's image (the rest is padding, exactly 0):
    a quarter of the bytes, for training on another machine (``--phase train --inputs``)."""
    columns = (inputs != 0).any(axis=(1, 2))
    widths = np.array([np.nonzero(c)[0].max() + 1 if c.any() else 0 for c in columns], np.int32)
    pixels = np.clip(np.rint((inputs + 1.0) * 127.5), 0, 255).astype(np.uint8)
    np.savez_compressed(path, pixels=pixels, widths=widths)


def load_inputs(path: Path) -> np.ndarray:
    with np.load(path) as stored:
        inputs = stored["pixels"].astype(np.float32) / 127.5 - 1.0
        for row, width in enumerate(stored["widths"]):
            inputs[row, :, :, width:] = 0.0
    return inputs


def prune_and_finetune(model: Path, training: np.ndarray, args: argparse.Namespace) -> None:
    """slim.prune's steps, writing the pruned model before (pruned.onnx) and after (finetuned.onnx)
    the distillation into ``args.folder``."""
    from lite_converter.frontends.onnx_export import export_onnx
    from slim.distill import finetune
    from slim.finetune_config import FinetuneConfig
    from slim.pruning import pruner
    from slim.pruning.config import PruneConfig

    settings = FinetuneConfig(steps=args.steps, time_budget_s=args.time_budget, batch_size=args.batch_size,
                              learning_rate=args.learning_rate, feature_weight=args.feature_weight,
                              warmup_steps=args.warmup, checkpoint_dir=args.folder / "checkpoint",
                              checkpoint_every=25)
    target = dict(flops_target=args.flops_target) if args.ratio is None else dict(ratio=args.ratio)
    config = PruneConfig(**target, criterion=args.criterion, max_ratio=args.max_ratio, round_to=args.round_to,
                         compensate=args.compensate, finetune=settings)
    log(f"pruning: {target} ({args.criterion} importance, compensate={args.compensate})")
    analysis = pruner.analyze(str(model), training, None, args.batch_size)
    choices = pruner.allocate_units(analysis, config)
    plan = analysis.plan(choices)
    pruned = pruner.cut(analysis, plan, config)
    report = pruner.report_of(analysis, choices, plan)
    if report.flops_kept > args.flops_bound:
        raise SystemExit(f"{report.flops_kept:.1%} of the FLOPs kept: above --flops-bound {args.flops_bound}")
    log(report.table())
    save = lambda name: (args.folder / name).write_bytes(  # noqa: E731
        export_onnx(pruned, with_value_info=False).SerializeToString())
    save("pruned.onnx")
    features = pruner.feature_map(analysis, plan, choices, settings.features)
    tuned = finetune(pruned, analysis.graph, analysis.data, settings, features)
    save("finetuned.onnx")
    summary = (f"{report.flops_kept:.4f} FLOPs kept; fine-tuned {tuned.resumed_from + tuned.steps} steps of "
               f"{args.batch_size} on {len(training)} lines in {tuned.seconds:.0f} s (stopped by "
               f"{tuned.stopped_by}): loss {tuned.first_loss:.4g} -> {tuned.last_loss:.4g}")
    (args.folder / "finetune.txt").write_text(summary + "\n")
    log(summary)


def evaluate(args: argparse.Namespace) -> None:
    """fp32, pruned and fine-tuned models as .lite files on our runtime, on held-apart lines."""
    from benchmarks.int8_hard_data import fp32_bytes, rec_accuracy
    from lite_converter.convert import convert_onnx

    evaluation, truths = render_inputs(splits.EVALUATION_SEED, args.eval_lines)
    reference = rec_accuracy(fp32_bytes("rec", args.folder), evaluation, truths)
    log(f"fp32 character accuracy {reference:.2f}% on {args.eval_lines} lines")
    scores = {}
    for name in ("pruned", "finetuned"):
        convert_onnx(str(args.folder / f"{name}.onnx"), args.folder / f"{name}.lite")
        scores[name] = rec_accuracy((args.folder / f"{name}.lite").read_bytes(), evaluation, truths)
        log(f"{name}: {scores[name]:.2f}%")
    summary = (args.folder / "finetune.txt").read_text().strip()
    kept = float(summary.split()[0])
    print(f"PP-OCRv4 rec, {args.eval_lines} held-apart lines (seed {splits.EVALUATION_SEED}); {summary}")
    print("| model | FLOPs kept | character accuracy % | delta |")
    print("|---|---|---|---|")
    print(f"| fp32 | 100% | {reference:.2f} | |")
    for name, label in (("pruned", "pruned, no fine-tuning"), ("finetuned", "pruned + distillation")):
        print(f"| {label} | {kept:.1%} | {scores[name]:.2f} | {scores[name] - reference:+.2f} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--phase", choices=("all", "render", "train", "eval"), default="all",
                        help="render: write the training inputs to --inputs; train: prune + fine-tune "
                             "(needs only torch, numpy, onnx: runs on another machine); eval: score")
    parser.add_argument("--inputs", type=Path, help="training inputs (.npz of --phase render)")
    parser.add_argument("--model", type=Path, help="the rec .onnx (default: the zoo's)")
    parser.add_argument("--threads", type=int, default=0, help="torch threads (0: torch's default)")
    parser.add_argument("--train-lines", type=int, default=2000)
    parser.add_argument("--eval-lines", type=int, default=500)
    parser.add_argument("--flops-target", type=float, default=0.65,
                        help="PruneConfig.flops_target: FLOPs and estimated runtime cost kept <= this")
    parser.add_argument("--flops-bound", type=float, default=0.65,
                        help="refuse a pruned model keeping more than this fraction of the FLOPs (issue 12)")
    parser.add_argument("--criterion", default="taylor")
    parser.add_argument("--ratio", type=float, default=None,
                        help="remove this fraction of every group (instead of the global FLOPs ranking); "
                             "the FLOPs kept must still be <= --flops-target")
    parser.add_argument("--max-ratio", type=float, default=0.75, help="no group loses more than this")
    parser.add_argument("--round-to", type=int, default=16)
    parser.add_argument("--compensate", action="store_true",
                        help="removed channels' mean contribution into the consumers' biases")
    parser.add_argument("--warmup", type=int, default=0, help="linear learning-rate warm-up steps")
    parser.add_argument("--steps", type=int, default=1200)
    parser.add_argument("--time-budget", type=float, default=3000.0, help="seconds of fine-tuning at most")
    parser.add_argument("--batch-size", type=int, default=16)
    parser.add_argument("--learning-rate", type=float, default=5e-4)
    parser.add_argument("--feature-weight", type=float, default=1.0,
                        help="weight of feature distillation on up to 8 pruned tensors (0: outputs only)")
    parser.add_argument("--folder", type=Path, default=Path("/tmp/prune_rec_accuracy"))
    args = parser.parse_args()
    args.folder.mkdir(parents=True, exist_ok=True)
    if args.threads:
        import torch

        torch.set_num_threads(args.threads)
    if args.phase == "render":
        save_inputs(args.inputs, render_inputs(splits.TRAINING_SEED, args.train_lines)[0])
        return
    if args.phase in ("all", "train"):
        if args.inputs is not None:
            training = load_inputs(args.inputs)
        else:
            training = render_inputs(splits.TRAINING_SEED, args.train_lines)[0]  # texts unused: label-free
        if args.model is None:
            from lite_converter.app import zoo

            args.model = zoo.fetch("rec")
        prune_and_finetune(args.model, training, args)
    if args.phase in ("all", "eval"):
        evaluate(args)


if __name__ == "__main__":
    main()
