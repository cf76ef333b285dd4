"""int8 against fp32 on the hard rendered data (tests/datasets/), per calibration config.

PP-OCRv4 rec: character accuracy on rendered lines (40% Chinese, 17 faces, degraded backgrounds),
calibration on lines of a disjoint seed; PP-OCRv4 det: line recall on rendered pages; ppocr cls:
agreement with fp32 on the lines, half turned by 180 degrees. Each row also says how long
``slim.compress`` took (load + lower + calibrate + int8 pass + write, on this machine).

    .venv/bin/python -m benchmarks.int8_hard_data --lines 1000 --pages 50 --configs int8 int8_fast

``int8_qat`` trains on ``--qat-lines`` unlabeled lines of the training seed (label-free distillation
against fp32, from the ``int8`` PTQ ranges) for ``--qat-seconds``; its row's time includes the
training, and the line under it says the steps and the process's CPU seconds (the budget is wall
time, so a busy machine trains fewer steps).

    .venv/bin/python -m benchmarks.int8_hard_data --models rec --configs int8 int8_qat --qat-seconds 900

``--qat-validation-lines N --qat-validate-every K`` holds the N training-seed lines after the training
lines apart and keeps the state whose int8 decisions agree best with fp32's there (label-free early
stopping); ``--skip`` scores lines after the first ones of a seed, for exploring on training-seed lines
that training did not use (benchmarks/COMPRESSION.md "Session qat14" has the runs).
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
import onnx
import torch

import slim
from lite_converter.app import zoo
from lite_converter.app.demo import ctc_greedy_decode
from lite_converter.convert import convert_onnx
from runtime_arm import Interpreter
from slim.config import resolve_config
from slim.finetune_config import FinetuneConfig
from slim.qat_config import QAT_PRESET, QatConfig
from tests import ocr_metrics
from tests.datasets import splits, text_lines, text_pages

BATCH = 50


def run_batches(model: bytes, batches: list[np.ndarray]) -> np.ndarray:
    with Interpreter(model_content=model) as interpreter:
        name = interpreter.input_names[0]
        return np.concatenate([next(iter(interpreter.run({name: b}).values())) for b in batches])


def rec_characters() -> list[str]:
    model = onnx.load(str(zoo.fetch("rec")), load_external_data=False)
    return {p.key: p.value for p in model.metadata_props}["character"].splitlines()


def batched(inputs: np.ndarray, size: int = BATCH) -> list[np.ndarray]:
    return [inputs[i:i + size] for i in range(0, len(inputs), size)]


def rec_accuracy(model: bytes, inputs: np.ndarray, truths: list[str]) -> float:
    characters = rec_characters()
    predictions = [ctc_greedy_decode(row, characters).strip() for row in run_batches(model, batched(inputs))]
    return ocr_metrics.character_accuracy(predictions, truths)


def det_recall(model: bytes, pages: list[tuple[np.ndarray, list]]) -> float:
    maps = run_batches(model, [text_pages.det_input(pixels) for pixels, _ in pages])
    found = sum(ocr_metrics.found_lines(boxes, ocr_metrics.db_boxes(probability[0]))
                for (_, boxes), probability in zip(pages, maps, strict=True))
    return 100.0 * found / sum(len(boxes) for _, boxes in pages)


def cls_predictions(model: bytes, inputs: np.ndarray) -> np.ndarray:
    return run_batches(model, batched(inputs)).argmax(axis=1)


def config_of(spec: str) -> slim.QuantConfig:
    """A preset name, or ``key=value,...`` fields of slim.QuantConfig (``algorithm=hist,range_search=1``)."""
    if "=" not in spec:
        settings = resolve_config(spec)
    else:
        fields = dict(item.split("=", 1) for item in spec.split(","))
        base = slim.QuantConfig(algorithm=fields.get("algorithm", "abs_max"))
        settings = slim.QuantConfig(**{key: _parsed(getattr(base, key), value)
                                       for key, value in fields.items()})
    settings.progress = False
    return settings


def _parsed(default: object, text: str) -> object:
    """``text`` as the type of the field's default (``range_search=1``, ``search_groups=4``)."""
    if isinstance(default, bool):
        return text.lower() in ("1", "true", "yes")
    if default is None and "+" in text:  # search_rules=hist 0.9999+pooled 0.9999
        return tuple(text.split("+"))
    if isinstance(default, int):
        return int(text)
    if isinstance(default, float) or (default is None and "." in text):
        return float(text)
    return int(text) if default is None else text


def compress_timed(key: str, calibration: list[np.ndarray], config: str) -> tuple[bytes, float, int]:
    start = time.perf_counter()
    settings = config_of(config)
    result = slim.compress(str(zoo.fetch(key)), None, calibration, settings)
    return result.lite_bytes, time.perf_counter() - start, len(result.fp32_nodes)


def qat_timed(key: str, training: list[np.ndarray], args: argparse.Namespace) -> tuple[bytes, float, int]:
    """int8_qat on ``training`` (batches of unlabeled inputs; the first 8 calibrate the PTQ start);
    prints the training's steps and CPU seconds."""
    finetune = FinetuneConfig(time_budget_s=args.qat_seconds, steps=args.qat_steps, learning_rate=args.qat_lr,
                              batch_size=args.qat_batch, warmup_steps=args.qat_warmup, progress=True,
                              loss=args.qat_loss, temperature=args.qat_temperature,
                              validate_every=args.qat_validate_every, budget_clock=args.qat_clock)
    settings = QatConfig(quant=resolve_config(args.qat_start), finetune=finetune,
                         range_learning_rate=args.qat_range_lr, learn_ranges=not args.qat_freeze_ranges,
                         distill_logits=not args.qat_probabilities,
                         validation_batches=args.qat_validation_lines // args.qat_batch,
                         layerwise=args.qat_layerwise)
    settings.finetune.feature_weight = args.qat_feature_weight
    settings.quant.progress = False
    start, cpu = time.perf_counter(), time.process_time()
    result = slim.compress(str(zoo.fetch(key)), args.folder / f"{key}_int8_qat.lite", training, settings)
    report = result.training
    if report is None:  # --qat-seconds 0: the PTQ start exported through the QAT path
        print("  int8_qat: no training (the PTQ start)", flush=True)
        return result.lite_bytes, time.perf_counter() - start, len(result.fp32_nodes)
    print(f"  int8_qat: {report.steps} steps of {args.qat_batch} lines in {report.seconds:.0f} s "
          f"(loss {report.first_loss:.4g} -> {report.last_loss:.4g}), process CPU "
          f"{time.process_time() - cpu:.0f} s, {torch.get_num_threads()} threads", flush=True)
    print(f"  training loop: {report.cpu_seconds:.0f} CPU s (validations included)", flush=True)
    if report.validation:
        history = zip(report.validation, report.validation_cpu, strict=True)
        print("  decision agreement with fp32 on the held-apart lines (step, loop CPU s: score): "
              + ", ".join(f"{step}, {cpu:.0f}: {score:.4f}" for (step, score), cpu in history)
              + f"; kept step {report.best_step}", flush=True)
    return result.lite_bytes, time.perf_counter() - start, len(result.fp32_nodes)


def fp32_bytes(key: str, folder: Path) -> bytes:
    path = folder / f"{key}_fp32.lite"
    convert_onnx(str(zoo.fetch(key)), path)
    return path.read_bytes()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--lines", type=int, default=1000)
    parser.add_argument("--pages", type=int, default=50)
    parser.add_argument("--calibration", type=int, default=64, help="calibration lines (pages: a quarter)")
    parser.add_argument("--configs", nargs="+", default=["int8_fast", "int8"])
    parser.add_argument("--models", nargs="+", default=["rec", "det", "cls"])
    parser.add_argument("--seed", type=int, default=splits.EVALUATION_SEED)
    parser.add_argument("--skip", type=int, default=0,
                        help="evaluate on the lines after the first this many of the seed (exploring on "
                             "training-seed lines that training did not use)")
    parser.add_argument("--folder", type=Path, default=Path("/tmp/int8_hard_data"))
    parser.add_argument("--qat-lines", type=int, default=2000, help="int8_qat: training lines")
    parser.add_argument("--qat-seconds", type=float, default=900.0, help="int8_qat: training wall time")
    parser.add_argument("--qat-lr", type=float, default=2e-5, help="int8_qat: weights' learning rate")
    parser.add_argument("--qat-range-lr", type=float, default=2e-3, help="int8_qat: ranges' learning rate")
    parser.add_argument("--qat-batch", type=int, default=8)
    parser.add_argument("--qat-steps", type=int, default=None, help="int8_qat: stop after this many steps")
    parser.add_argument("--qat-warmup", type=int, default=0, help="int8_qat: linear warm-up steps")
    parser.add_argument("--qat-freeze-ranges", action="store_true", help="int8_qat: keep the PTQ ranges")
    parser.add_argument("--qat-probabilities", action="store_true",
                        help="int8_qat: distill the softmax output, not the logits before it")
    parser.add_argument("--qat-loss", default="auto", help="int8_qat: distillation loss (auto, l2, kl)")
    parser.add_argument("--qat-temperature", type=float, default=2.0, help="int8_qat: kl's temperature")
    parser.add_argument("--qat-start", default="int8", help="int8_qat: the PTQ preset it starts from")
    parser.add_argument("--qat-validation-lines", type=int, default=0,
                        help="int8_qat: lines of the training seed after the training lines, held apart "
                             "for the label-free validation (decision agreement with fp32)")
    parser.add_argument("--qat-validate-every", type=int, default=0,
                        help="int8_qat: steps between validations")
    parser.add_argument("--qat-layerwise", action="store_true",
                        help="int8_qat: layer-wise reconstruction (every int8 tensor against fp32's)")
    parser.add_argument("--qat-clock", choices=["wall", "process"], default="wall",
                        help="int8_qat: --qat-seconds counts wall or process CPU seconds")
    parser.add_argument("--qat-feature-weight", type=float, default=0.0,
                        help="int8_qat: weight of the layer-wise losses (0: 1.0 with --qat-layerwise)")
    parser.add_argument("--threads", type=int, default=None, help="torch threads (1 on a busy machine)")
    args = parser.parse_args()
    if args.threads:
        torch.set_num_threads(args.threads)
    args.folder.mkdir(parents=True, exist_ok=True)
    crops, truths = text_lines.render_lines(args.seed, args.skip + args.lines)
    crops, truths = crops[args.skip:], truths[args.skip:]
    calibration_crops, _ = text_lines.render_lines(splits.CALIBRATION_SEED, args.calibration)
    chinese = sum(any(ord(c) > 0x2E80 for c in t) for t in truths)
    print(f"{args.lines} lines ({100 * chinese / args.lines:.0f}% Chinese), seed {args.seed}; "
          f"calibration {args.calibration} lines, seed {splits.CALIBRATION_SEED}")
    print(f"{'model':<6}{'config':<12}{'metric':<28}{'fp32':>8}{'int8':>8}{'delta':>8}{'fp32 nodes':>12}"
          f"{'compress s':>12}")
    for key in args.models:
        fp32 = fp32_bytes(key, args.folder)
        if key == "rec":
            inputs = text_lines.rec_input(crops)
            calibration = batched(text_lines.rec_input(calibration_crops), 8)
            metric, reference = "character accuracy %", rec_accuracy(fp32, inputs, truths)
        elif key == "cls":
            turned, _ = text_lines.cls_crops(crops)
            inputs = text_lines.cls_input(turned)
            calibration = batched(text_lines.cls_input(text_lines.cls_crops(calibration_crops)[0]), 8)
            metric, reference_classes = "agreement with fp32 %", cls_predictions(fp32, inputs)
            reference = 100.0
        else:
            pages = text_pages.render_pages(args.seed, args.pages)
            calibration = [text_pages.det_input(p) for p, _ in
                           text_pages.render_pages(splits.CALIBRATION_SEED, max(4, args.calibration // 16))]
            metric, reference = "line recall % (IoU >= 0.5)", det_recall(fp32, pages)
        for config in args.configs:
            if config == QAT_PRESET:
                if key != "rec":
                    continue
                count = args.qat_lines + args.qat_validation_lines  # validation: the last lines
                training_crops, _ = text_lines.render_lines(splits.TRAINING_SEED, count)
                training = batched(text_lines.rec_input(training_crops), args.qat_batch)
                int8, seconds, kept = qat_timed(key, training, args)
            else:
                int8, seconds, kept = compress_timed(key, calibration, config)
            if key == "rec":
                score = rec_accuracy(int8, inputs, truths)
            elif key == "cls":
                score = 100.0 * float(np.mean(cls_predictions(int8, inputs) == reference_classes))
            else:
                score = det_recall(int8, pages)
            print(f"{key:<6}{config:<12}{metric:<28}{reference:>8.2f}{score:>8.2f}{score - reference:>8.2f}"
                  f"{kept:>12}{seconds:>12.1f}", flush=True)


if __name__ == "__main__":
    main()
