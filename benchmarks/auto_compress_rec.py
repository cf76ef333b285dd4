"""``config="auto"`` on PP-OCRv4 rec (issue 13 Done-when 5): the search's report, then the chosen
model's character accuracy on lines the search never saw.

Calibration: 64 hard rendered lines (tests/datasets, CALIBRATION_SEED, batches of 8). The search's
eval_fn: character accuracy on ``--lines`` lines of EVALUATION_SEED. The final figure: fp32 and the
chosen model on ``--final-lines`` lines of HOLDOUT_SEED (never looked at by the search nor by the
int8 default's design). Speed: ``--speed-target`` (``aarch64:cortex-a76``: exact qemu instruction
counts of one line; ``host``: interleaved wall time of one line on this machine).

    nice -n 15 .venv/bin/python -m benchmarks.auto_compress_rec --speed-target aarch64:cortex-a76 \\
        --lines 300 --final-lines 1000 [--executor ray]
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

import slim
from benchmarks.int8_hard_data import batched, fp32_bytes, rec_accuracy
from lite_converter.app import zoo
from tests.datasets import splits, text_lines


class RecAccuracy:
    """eval_fn: character accuracy (%) of a .lite rec on fixed lines (a class: picklable for workers)."""

    def __init__(self, inputs: np.ndarray, truths: list[str]) -> None:
        self.inputs, self.truths = inputs, truths

    def __call__(self, model: bytes) -> float:
        return rec_accuracy(model, self.inputs, self.truths)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--lines", type=int, default=300, help="eval_fn lines (EVALUATION_SEED)")
    parser.add_argument("--final-lines", type=int, default=1000,
                        help="held-out lines (HOLDOUT_SEED); 0: none")
    parser.add_argument("--calibration", type=int, default=64)
    parser.add_argument("--max-accuracy-drop", type=float, default=1.0)
    parser.add_argument("--target-speedup", type=float, default=2.0)
    parser.add_argument("--speed-target", default="aarch64:cortex-a76")
    parser.add_argument("--executor", default=None, help="local (default), process:N, ray")
    parser.add_argument("--folder", type=Path, default=Path("/tmp/auto_compress_rec"))
    args = parser.parse_args()
    args.folder.mkdir(parents=True, exist_ok=True)
    calibration_crops, _ = text_lines.render_lines(splits.CALIBRATION_SEED, args.calibration)
    calibration = batched(text_lines.rec_input(calibration_crops), 8)
    crops, truths = text_lines.render_lines(splits.EVALUATION_SEED, args.lines)
    eval_fn = RecAccuracy(text_lines.rec_input(crops), truths)
    executor: object = args.executor
    if args.executor == "ray":
        from slim.executor import RayExecutor

        executor = RayExecutor(num_cpus=2, include_dashboard=False, log_to_driver=False)
    output = args.folder / f"rec_auto_{args.speed_target.replace(':', '_')}.lite"
    start = time.perf_counter()
    result = slim.compress(str(zoo.fetch("rec")), output, calibration, "auto",
                           max_accuracy_drop=args.max_accuracy_drop, target_speedup=args.target_speedup,
                           speed_target=args.speed_target, eval_fn=eval_fn, executor=executor,
                           timing_input=calibration[0][:1])
    seconds = time.perf_counter() - start
    if args.executor == "ray":
        executor.close()  # type: ignore[attr-defined]
    print(result.auto.table())
    print(f"search: {seconds:.0f} s, executor {args.executor or 'local'}; model {output}, report "
          f"{output.with_suffix('.auto.txt')}")
    if args.final_lines:
        final_crops, final_truths = text_lines.render_lines(splits.HOLDOUT_SEED, args.final_lines)
        inputs = text_lines.rec_input(final_crops)
        reference = rec_accuracy(fp32_bytes("rec", args.folder), inputs, final_truths)
        chosen = rec_accuracy(result.lite_bytes, inputs, final_truths)
        print(f"held-out {args.final_lines} lines (seed {splits.HOLDOUT_SEED}): fp32 {reference:.2f}, "
              f"{result.auto.chosen.name} {chosen:.2f}, drop {reference - chosen:.2f} "
              f"({'within' if reference - chosen <= args.max_accuracy_drop else 'OUTSIDE'} "
              f"{args.max_accuracy_drop:g})")


if __name__ == "__main__":
    main()
