"""YOLO-style detectors and a segmentation net: fp32 vs config="int8" (issues 13 and 14, Done-when 2).

    nice -n 15 .venv/bin/python benchmarks/yolo_train.py        # once: checkpoints under the cache
    nice -n 15 .venv/bin/python benchmarks/yolo_int8.py [--skip-speed] [--skip-qemu]

Accuracy: the trained nets of benchmarks/yolo_train.py (128x128), exported to ONNX, converted to an
fp32 .lite and compressed with ``slim.compress(..., config="int8")`` on 64 calibration scenes
(calibration seed), evaluated on --eval scenes of the evaluation seed (tests/datasets/splits.py):
detection mAP@0.5 against the scenes' truth for fp32 and int8, and how well int8's decoded boxes
reproduce fp32's (mAP@0.5 of int8 taking fp32's detections above 0.3 as the truth); segmentation
mIoU against the truth and mIoU of int8's label maps taking fp32's as the truth (both over the
pixels of all scenes pooled, tests/models/detection_metrics.py ``dataset_mean_iou``; the per-scene
mean and the share of pixels where int8 keeps fp32's class beside them). Share of convolutions in
int8 from the compressed graph. ``--configs``: presets or QuantConfig fields, one row each.

Speed: the full-width nets (YOLOv8-n-like and YOLOX-style widths 16..256, seg width 16) at 320x320
(seg 256x256), BatchNorm statistics drawn at random (speed does not depend on the training), int8
against our fp32 on the host (``lite bench INT8 --baseline FP32``: interleaved, 1 thread) and
instructions per inference on cortex-a72 under qemu (lite_converter.app.bench_qemu, 1 run).
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import torch

import slim
from benchmarks.int8_hard_data import config_of
from benchmarks.yolo_train import DEFAULT_CACHE, SEG_STEM_STRIDE, SIZE, build, checkpoint_path
from lite_converter.app.bench_qemu import count_instructions
from lite_converter.convert import convert
from runtime_arm import Interpreter
from tests.datasets.splits import CALIBRATION_SEED, EVALUATION_SEED
from tests.datasets.synthetic_scenes import CLASSES, scenes
from tests.models.detection_decode import decode
from tests.models.detection_metrics import dataset_mean_iou, mask_iou, mean_ap
from tests.models.seg_net import SegNet
from tests.models.torch_export import randomize_batch_norm, to_onnx
from tests.models.yolo_v8 import STRIDES, YoloV8
from tests.models.yolox import YoloX

FP32_AGREEMENT_SCORE = 0.3  # fp32 detections taken as the truth int8's boxes should reproduce
SPEED_NETS = {
    "yolov8": (lambda: YoloV8(num_classes=len(CLASSES)), 320),
    "yolox": (lambda: YoloX(num_classes=len(CLASSES)), 320),
    "segnet": (lambda: SegNet(num_classes=len(CLASSES) + 1, width=16, stem_stride=SEG_STEM_STRIDE), 256),
}


def run_all(lite: bytes, images: list[np.ndarray]) -> list[np.ndarray]:
    with Interpreter(model_content=lite, threads=1) as interpreter:
        return [np.array(interpreter.run({"x": x})["y"])[0] for x in images]


def conv_share(result: slim.CompressResult) -> tuple[int, int]:
    int8 = set(result.int8_nodes)
    convs = [node.name for node in result.graph.nodes if node.op_type == "CONV_2D"]
    return sum(name in int8 for name in convs), len(convs)


def accuracy(name: str, cache: Path, eval_count: int, workdir: Path, configs: list[str] | None = None,
             seed: int = EVALUATION_SEED) -> list[dict]:
    """fp32 vs int8 figures of one trained net, one row per config (default: the ``int8`` preset)."""
    model = build(name)
    model.load_state_dict(torch.load(checkpoint_path(cache, name), weights_only=False)["state_dict"])
    onnx_model = to_onnx(model.eval(), (1, 3, SIZE, SIZE))
    fp32 = convert(onnx_model)
    calibration = [s.tensor() for s in scenes(CALIBRATION_SEED, 64, SIZE)]
    evaluation = scenes(seed, eval_count, SIZE)
    images = [s.tensor() for s in evaluation]
    out32 = run_all(fp32, images)
    rows = []
    for config in configs or ["int8"]:
        start = time.perf_counter()
        result = slim.compress(onnx_model, workdir / f"{name}_int8.lite", calibration, config_of(config))
        seconds = time.perf_counter() - start
        out8 = run_all(result.lite_bytes, images)
        in_int8, convs = conv_share(result)
        row = {"net": name, "config": config, "convs_int8": f"{in_int8}/{convs}", "seconds": seconds}
        rows.append(row)
        if name == "segnet":
            truth = [s.semantic for s in evaluation]
            maps32 = [o.argmax(0) for o in out32]
            maps8 = [o.argmax(0) for o in out8]
            k = len(CLASSES) + 1
            pairs = list(zip(maps8, maps32, strict=True))
            row.update(fp32=dataset_mean_iou(maps32, truth, k)[0], int8=dataset_mean_iou(maps8, truth, k)[0],
                       agreement=dataset_mean_iou(maps8, maps32, k)[0],
                       scene_agreement=np.mean([mask_iou(a, b, k) for a, b in pairs]),
                       pixels=np.mean([np.mean(a == b) for a, b in pairs]),
                       metric="mIoU")
            continue
        truth = [(s.boxes, s.labels) for s in evaluation]
        det32 = [decode(o, SIZE, STRIDES) for o in out32]
        det8 = [decode(o, SIZE, STRIDES) for o in out8]
        fp32_truth = [(b[s > FP32_AGREEMENT_SCORE], lab[s > FP32_AGREEMENT_SCORE]) for b, s, lab in det32]
        row.update(fp32=mean_ap(det32, truth, len(CLASSES)), int8=mean_ap(det8, truth, len(CLASSES)),
                   agreement=mean_ap(det8, fp32_truth, len(CLASSES)), metric="mAP@0.5")
    return rows


def speed(name: str, workdir: Path, skip_qemu: bool) -> dict:
    """Host int8/fp32 speed-up and cortex-a72 instruction counts of the full-width net."""
    factory, size = SPEED_NETS[name]
    torch.manual_seed(0)
    onnx_model = to_onnx(randomize_batch_norm(factory(), seed=1), (1, 3, size, size))
    fp32_path, int8_path = workdir / f"{name}_{size}_fp32.lite", workdir / f"{name}_{size}_int8.lite"
    convert(onnx_model, fp32_path)
    rng = np.random.default_rng(CALIBRATION_SEED)
    result = slim.compress(onnx_model, int8_path, [rng.random((1, 3, size, size), dtype=np.float32)
                                                   for _ in range(8)], slim.QuantConfig(algorithm="hist",
                                                                                       progress=False))
    lite = [sys.executable, "-m", "lite_converter.app.cli", "bench"]
    proc = subprocess.run([*lite, str(int8_path), "--baseline", str(fp32_path), "--runs", "20"],
                          capture_output=True, text=True, timeout=1800)
    in_int8, convs = conv_share(result)
    lines = proc.stdout.splitlines()
    start = next((i for i, line in enumerate(lines) if line.startswith("comparison")), len(lines))
    row = {"net": f"{name} {size}", "convs_int8": f"{in_int8}/{convs}",
           "bench": "\n".join(lines[start:]) or proc.stderr[-2000:]}
    # the baseline's row: name, median, p90, ratio = fp32 median / int8 median
    ratio = re.search(r"^\s*lite baseline\s+[\d.]+ \S+\s+[\d.]+ \S+\s+([\d.]+)", proc.stdout, re.MULTILINE)
    row["speedup"] = float(ratio.group(1)) if ratio else float("nan")
    if not skip_qemu:
        counts = {kind: count_instructions(path, "aarch64", runs=1, cpu="cortex-a72")
                  ["instructions_per_inference"] for kind, path in (("fp32", fp32_path), ("int8", int8_path))}
        row.update(a72_fp32=counts["fp32"] / 1e6, a72_int8=counts["int8"] / 1e6)
    return row


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cache", type=Path, default=DEFAULT_CACHE)
    parser.add_argument("--eval", type=int, default=200, help="evaluation scenes")
    parser.add_argument("--nets", nargs="+", default=["yolov8", "yolox", "segnet"])
    parser.add_argument("--configs", nargs="+", default=["int8"],
                        help="presets or key=value,... QuantConfig fields (benchmarks/int8_hard_data.py)")
    parser.add_argument("--seed", type=int, default=EVALUATION_SEED, help="evaluation scenes' seed")
    parser.add_argument("--skip-accuracy", action="store_true")
    parser.add_argument("--skip-speed", action="store_true")
    parser.add_argument("--skip-qemu", action="store_true")
    args = parser.parse_args()
    torch.set_num_threads(1)
    with tempfile.TemporaryDirectory(prefix="yolo_int8_") as tmp:
        workdir = Path(tmp)
        if not args.skip_accuracy:
            print(f"{args.eval} scenes, seed {args.seed}; 64 calibration scenes, seed {CALIBRATION_SEED}")
            print(f"| net ({SIZE}x{SIZE}, trained) | config | metric | fp32 | int8 | int8 - fp32 "
                  "| int8 vs fp32 | seg: per-scene IoU vs fp32, pixels agreeing | convs int8 | compress s |")
            print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
            for name in args.nets:
                for r in accuracy(name, args.cache, args.eval, workdir, args.configs, args.seed):
                    seg = (f"{100 * r['scene_agreement']:.2f}, {100 * r['pixels']:.2f}"
                           if "pixels" in r else "-")
                    print(f"| {r['net']} | {r['config']} | {r['metric']} | {100 * r['fp32']:.2f} | "
                          f"{100 * r['int8']:.2f} | {100 * (r['int8'] - r['fp32']):+.2f} | "
                          f"{100 * r['agreement']:.2f} | {seg} | {r['convs_int8']} | {r['seconds']:.1f} |",
                          flush=True)
        if not args.skip_speed:
            print("\n| net (random BN) | convs int8 | host int8 speed-up (1 thread) | a72 fp32 M "
                  "| a72 int8 M | int8/fp32 |")
            print("| --- | --- | --- | --- | --- | --- |")
            for name in args.nets:
                r = speed(name, workdir, args.skip_qemu)
                a72 = (f"{r['a72_fp32']:.1f} | {r['a72_int8']:.1f} | {r['a72_int8'] / r['a72_fp32']:.2f}"
                       if "a72_fp32" in r else "- | - | -")
                print(f"| {r['net']} | {r['convs_int8']} | {r['speedup']:.2f}x | {a72} |", flush=True)
                print("    " + r["bench"].replace("\n", "\n    "), flush=True)


if __name__ == "__main__":
    main()
