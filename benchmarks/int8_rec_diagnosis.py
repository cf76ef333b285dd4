"""Where PP-OCRv4 rec's int8 error comes from: one change at a time from the default, on hard lines of
the *training* seed (never the evaluation or held-out lines), calibrated as the default is.

Rows: the default; every range at 99.95% with the logits too (a percentile inside the winning
logits) and, in the percentile rows, with the logits whole; the default without the whole-range
rule; every FULLY_CONNECTED (SVTR neck + head) in fp32; backbone convs in fp32 by thirds; global
percentiles. docs/QUANTIZATION.md "Where rec's error comes from".

    .venv/bin/python -m benchmarks.int8_rec_diagnosis --lines 500
"""

from __future__ import annotations

import argparse
import dataclasses
import time
from pathlib import Path

import slim
from benchmarks.int8_hard_data import batched, fp32_bytes, rec_accuracy
from lite_converter.app import zoo
from lite_converter.convert import load_model, lower
from slim.config import resolve_config
from tests.datasets import splits, text_lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--lines", type=int, default=500)
    parser.add_argument("--calibration", type=int, default=64)
    parser.add_argument("--folder", default="/tmp/int8_rec_diagnosis")
    args = parser.parse_args()
    folder = Path(args.folder)
    folder.mkdir(parents=True, exist_ok=True)
    crops, truths = text_lines.render_lines(splits.TRAINING_SEED, args.lines)
    inputs = text_lines.rec_input(crops)
    calibration = batched(text_lines.rec_input(text_lines.render_lines(splits.CALIBRATION_SEED,
                                                                       args.calibration)[0]), 8)
    source = str(zoo.fetch("rec"))
    graph = lower(load_model(source))
    convs = [n.name for n in graph.nodes if n.op_type == "CONV_2D"]
    fcs = [n.name for n in graph.nodes if n.op_type == "FULLY_CONNECTED"]
    default = resolve_config("int8")
    default.progress = False
    rows: list[tuple[str, slim.QuantConfig]] = [
        ("int8 (default)", default),
        ("percentile 0.9995, logits too", dataclasses.replace(default, whole_decision_ranges=False,
                                                              percentile=0.9995)),
        ("without the whole-range rule", dataclasses.replace(default, whole_decision_ranges=False)),
        ("every FULLY_CONNECTED fp32", dataclasses.replace(default, skip_nodes=fcs)),
        (f"convs 0-10 fp32 ({convs[0]}..{convs[10]})", dataclasses.replace(default, skip_nodes=convs[:11])),
        ("convs 11-32 fp32", dataclasses.replace(default, skip_nodes=convs[11:33])),
        ("convs 33- fp32", dataclasses.replace(default, skip_nodes=convs[33:])),
        *[(f"percentile {p}", dataclasses.replace(default, percentile=p)) for p in (0.9995, 0.9998, 0.99995)],
    ]
    fp32 = rec_accuracy(fp32_bytes("rec", folder), inputs, truths)
    print(f"{args.lines} lines of the training seed {splits.TRAINING_SEED}, fp32 {fp32:.2f}%")
    for label, config in rows:
        start = time.perf_counter()
        int8 = rec_accuracy(slim.compress(source, None, calibration, config).lite_bytes, inputs, truths)
        print(f"{label:<44}{int8:>8.2f}{int8 - fp32:>+8.2f}{time.perf_counter() - start:>8.0f} s", flush=True)


if __name__ == "__main__":
    main()
