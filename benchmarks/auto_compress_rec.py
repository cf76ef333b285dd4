"""``config="auto"`` on PP-OCRv4 rec (issue 13 Done-when 5): the search's report, then the chosen
model's character accuracy on lines the search never saw.

Calibration: 64 hard rendered lines (tests/datasets, CALIBRATION_SEED, batches of 8). The search's
eval_fn: character accuracy on ``--lines`` lines of EVALUATION_SEED, returned per line (1 -
normalized edit distance, in %: their mean is the accuracy) so the search checks the drop's upper
confidence bound (``--confidence``; ``--scalar`` returns the mean only, the search without a
margin). The final figure: fp32 and the chosen model on ``--final-lines`` lines of HOLDOUT_SEED
(never looked at by the search nor by the int8 default's design). Speed: ``--speed-target``
(``aarch64:cortex-a76``: exact qemu instruction counts of one line; ``host``: interleaved wall time
of one line on this machine).

    nice -n 10 .venv/bin/python -m benchmarks.auto_compress_rec --speed-target host \\
        --lines 1000 --final-lines 1000 [--executor ray] [--confidence 0.95]
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

import slim
from benchmarks.int8_hard_data import batched, fp32_bytes, rec_characters, run_batches
from lite_converter.app import zoo
from lite_converter.app.demo import ctc_greedy_decode
from runtime_arm import Interpreter
from slim.auto_speed import SpeedTarget, measure_speed
from slim.auto_stats import Measured, paired_drop
from tests import ocr_metrics
from tests.datasets import splits, text_lines


class RecAccuracy:
    """eval_fn: per-line character accuracy (%) of a .lite rec on fixed lines, whose mean is
    tests/ocr_metrics.character_accuracy (``scalar``: that mean only). A class: picklable for workers."""

    def __init__(self, inputs: np.ndarray, truths: list[str], scalar: bool = False) -> None:
        self.inputs, self.truths, self.scalar = inputs, truths, scalar
        self.characters = rec_characters()

    def __call__(self, model: bytes) -> np.ndarray | float:
        rows = run_batches(model, batched(self.inputs))
        predictions = [ctc_greedy_decode(row, self.characters).strip() for row in rows]
        scores = np.array([100.0 * (1.0 - ocr_metrics.edit_distance(p, t) / max(len(p), len(t), 1))
                           for p, t in zip(predictions, self.truths, strict=True)])
        return float(scores.mean()) if self.scalar else scores


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
    parser.add_argument("--confidence", type=float, default=None, help="of the drop's upper bound (0.95)")
    parser.add_argument("--scalar", action="store_true", help="eval_fn returns the mean only: no margin")
    parser.add_argument("--recheck-rounds", type=int, default=30,
                        help="host only: re-time the returned model against fp32 (3 repeats of this many "
                             "interleaved runs on the timing line); 0: no re-check")
    parser.add_argument("--folder", type=Path, default=Path("/tmp/auto_compress_rec"))
    args = parser.parse_args()
    args.folder.mkdir(parents=True, exist_ok=True)
    calibration_crops, _ = text_lines.render_lines(splits.CALIBRATION_SEED, args.calibration)
    calibration = batched(text_lines.rec_input(calibration_crops), 8)
    crops, truths = text_lines.render_lines(splits.EVALUATION_SEED, args.lines)
    eval_fn = RecAccuracy(text_lines.rec_input(crops), truths, args.scalar)
    executor: object = args.executor
    if args.executor == "ray":
        from slim.executor import RayExecutor

        executor = RayExecutor(num_cpus=2, include_dashboard=False, log_to_driver=False)
    output = args.folder / f"rec_auto_{args.speed_target.replace(':', '_')}.lite"
    start = time.perf_counter()
    result = slim.compress(str(zoo.fetch("rec")), output, calibration, "auto",
                           max_accuracy_drop=args.max_accuracy_drop, target_speedup=args.target_speedup,
                           speed_target=args.speed_target, eval_fn=eval_fn, executor=executor,
                           timing_input=calibration[0][:1], confidence=args.confidence)
    seconds = time.perf_counter() - start
    if args.executor == "ray":
        executor.close()  # type: ignore[attr-defined]
    print(result.auto.table())
    print(f"search: {seconds:.0f} s, executor {args.executor or 'local'}; model {output}, report "
          f"{output.with_suffix('.auto.txt')}")
    if args.final_lines:
        final_crops, final_truths = text_lines.render_lines(splits.HOLDOUT_SEED, args.final_lines)
        held_out = RecAccuracy(text_lines.rec_input(final_crops), final_truths)
        reference, chosen = held_out(fp32_bytes("rec", args.folder)), held_out(result.lite_bytes)
        drop = paired_drop(Measured(float(reference.mean()), reference),
                           Measured(float(chosen.mean()), chosen), 0.95)
        print(f"held-out {args.final_lines} lines (seed {splits.HOLDOUT_SEED}): fp32 "
              f"{reference.mean():.2f}, {result.auto.chosen.name} {chosen.mean():.2f}, drop "
              f"{drop.value:.2f} (paired SE {drop.standard_error:.3f}) "
              f"({'within' if drop.value <= args.max_accuracy_drop else 'OUTSIDE'} "
              f"{args.max_accuracy_drop:g})")

    if args.speed_target == "host" and args.recheck_rounds:
        fp32, line = fp32_bytes("rec", args.folder), calibration[0][:1]
        with Interpreter(model_content=fp32) as interpreter:
            timing = {interpreter.input_names[0]: line}
        for repeat in range(3):
            speed = measure_speed(fp32, result.lite_bytes, timing, SpeedTarget.parse("host"),
                                  args.recheck_rounds)
            print(f"speed re-check {repeat}: fp32 {speed.fp32_cost:.2f} ms, {result.auto.chosen.name} "
                  f"{speed.candidate_cost:.2f} ms, {speed.speedup:.3f}x ({args.recheck_rounds} interleaved "
                  "runs)")


if __name__ == "__main__":
    main()
