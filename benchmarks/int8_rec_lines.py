"""Which hard lines PP-OCRv4 rec's int8 gets wrong where fp32 is right, by what the line looks like.

Per line of the *training* seed (never the evaluation or held-out lines): int8's extra character
errors (its edit distance to the truth minus fp32's) grouped by contrast (98th - 2nd percentile of
the crop's grey levels), polarity (light text on dark), script and crop height; then each further
config paired against the first on the same lines (characters won, lines better / worse), since
a single config's accuracy on a few hundred lines moves by +-0.4 points around its trend.
docs/QUANTIZATION.md "The input-side layers in fp32" has the figures.

    .venv/bin/python -m benchmarks.int8_rec_lines --lines 600 --configs \\
        algorithm=hist,percentile=0.9999,percentile_samples=8 int8 convs=0-10
"""

from __future__ import annotations

import argparse
import dataclasses
import time
from pathlib import Path

import numpy as np

import slim
from benchmarks.int8_hard_data import batched, config_of, fp32_bytes, rec_characters, run_batches
from lite_converter.app import zoo
from lite_converter.app.demo import ctc_greedy_decode
from lite_converter.convert import load_model, lower
from tests import ocr_metrics
from tests.datasets import splits, text_lines

OLD_DEFAULT = "algorithm=hist,percentile=0.9999,percentile_samples=8"  # int8 before session ptq14


def line_errors(model: bytes, inputs: np.ndarray, truths: list[str]) -> np.ndarray:
    """Edit distance of each line's greedy CTC decoding to its truth."""
    characters = rec_characters()
    predictions = [ctc_greedy_decode(row, characters).strip() for row in run_batches(model, batched(inputs))]
    return np.array([ocr_metrics.edit_distance(p, t) for p, t in zip(predictions, truths, strict=True)])


def line_groups(crops: list[np.ndarray], truths: list[str]) -> dict[str, np.ndarray]:
    """Masks of lines by appearance, measured on the rendered crop (not the renderer's settings)."""
    grey = [crop.astype(np.float32).mean(axis=2) for crop in crops]
    low, high = (np.array([np.percentile(g, q) for g in grey]) for q in (2, 98))
    contrast = high - low
    dark = np.array([np.median(g) for g in grey]) < (low + high) / 2
    chinese = np.array([any("\u4e00" <= ch <= "\u9fff" for ch in text) for text in truths])
    height = np.array([crop.shape[0] for crop in crops])
    groups = {"all": np.ones(len(crops), bool)}
    for lo, hi in ((0, 60), (60, 100), (100, 150), (150, 256)):
        groups[f"contrast {lo}-{hi}"] = (contrast >= lo) & (contrast < hi)
    groups |= {"light text on dark": dark, "dark text on light": ~dark, "Chinese": chinese, "Latin": ~chinese}
    for lo, hi in ((0, 30), (30, 45), (45, 70), (70, 999)):
        groups[f"crop height {lo}-{hi} px"] = (height >= lo) & (height < hi)
    return groups


def config_named(spec: str, convs: list[str]) -> slim.QuantConfig:
    """benchmarks.int8_hard_data.config_of, plus ``convs=A-B``: the default with the lowered convs
    A..B (graph order) kept in fp32 by name."""
    if not spec.startswith("convs="):
        return config_of(spec)
    first, last = map(int, spec.removeprefix("convs=").split("-"))
    return dataclasses.replace(config_of("int8"), fp32_input_share=0.0, skip_nodes=convs[first:last + 1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--lines", type=int, default=600)
    parser.add_argument("--offset", type=int, default=0, help="skip the training seed's first lines")
    parser.add_argument("--calibration", type=int, default=64)
    parser.add_argument("--configs", nargs="+", default=[OLD_DEFAULT, "int8"])
    parser.add_argument("--folder", type=Path, default=Path("/tmp/int8_rec_lines"))
    args = parser.parse_args()
    args.folder.mkdir(parents=True, exist_ok=True)
    crops, truths = text_lines.render_lines(splits.TRAINING_SEED, args.offset + args.lines)
    crops, truths = crops[args.offset:], truths[args.offset:]
    inputs = text_lines.rec_input(crops)
    calibration = batched(text_lines.rec_input(text_lines.render_lines(splits.CALIBRATION_SEED,
                                                                       args.calibration)[0]), 8)
    source = str(zoo.fetch("rec"))
    convs = [node.name for node in lower(load_model(source)).nodes if node.op_type == "CONV_2D"]
    lengths = np.array([len(text) for text in truths])
    groups = line_groups(crops, truths)
    fp32 = line_errors(fp32_bytes("rec", args.folder), inputs, truths)
    print(f"lines {args.offset}-{args.offset + args.lines - 1} of the training seed {splits.TRAINING_SEED}: "
          f"fp32 {100 * (1 - fp32.sum() / lengths.sum()):.2f}%")
    first: np.ndarray | None = None
    for spec in args.configs:
        start = time.perf_counter()
        model = slim.compress(source, None, calibration, config_named(spec, convs)).lite_bytes
        errors = line_errors(model, inputs, truths)
        accuracy = 100 * (1 - errors.sum() / lengths.sum())
        print(f"\n{spec}: {accuracy:.2f}% ({accuracy - 100 * (1 - fp32.sum() / lengths.sum()):+.2f}), "
              f"{time.perf_counter() - start:.0f} s")
        if first is not None:
            print(f"  paired with {args.configs[0]}: {int(first.sum() - errors.sum()):+d} characters, lines "
                  f"better {int((errors < first).sum())} / worse {int((errors > first).sum())}")
        first = errors if first is None else first
        extra = errors - fp32
        for label, mask in groups.items():
            if mask.any():
                per_100 = 100 * extra[mask].sum() / lengths[mask].sum()
                print(f"  {label:<24}{int(mask.sum()):>5} lines {int(lengths[mask].sum()):>6} chars  "
                      f"extra errors per 100 chars {per_100:+6.2f}", flush=True)


if __name__ == "__main__":
    main()
