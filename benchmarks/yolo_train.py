"""Short CPU training of the YOLO-style detectors and the segmentation net on synthetic scenes.

    nice -n 15 .venv/bin/python benchmarks/yolo_train.py --minutes 6

Trains tests/models/yolo_v8.py, yolox.py and seg_net.py (small widths, 128x128) on scenes of
tests/datasets/synthetic_scenes.py (training seed of tests/datasets/splits.py, flips as
augmentation, and quarter turns for the seg net) for a fixed CPU time each, and saves each
checkpoint under --cache, where benchmarks/yolo_int8.py finds it. The detectors learn with an
FCOS-style assignment (cells whose centre lies in the box's centre region, one pyramid level per box
by size), binary cross-entropy on the class scores and a GIoU loss on the boxes; the seg net with
per-pixel cross-entropy plus soft Dice, a 3% linear warm-up, channels-last tensors.

The seg net's recipe (session seg13): with cross-entropy alone, width 8 at full resolution, flips
only, 1,036 steps (5 CPU-min) reached a pooled mIoU of 0.29 on 100 evaluation scenes (triangle IoU
0.00, digit 0.05) and was as poor on its own training scenes (underfitted, not overfitted; 8 scenes
alone it fits to 99.5% of foreground pixels in 200 steps). Now: a stride-2 stem, width 16, bilinear
2x resize of the logits (the usual output stride of real-time seg nets), ~25% less CPU per step
than before, and the losses above. At 10 CPU-min each (200 evaluation scenes, pooled mIoU) the old
recipe reaches 0.517, this one 0.760 (benchmarks/COMPRESSION.md, "Session seg13").
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import torch
from torch import nn

from tests.datasets.splits import TRAINING_SEED
from tests.datasets.synthetic_scenes import CLASSES, Scene, scenes
from tests.models.detection_decode import cell_centres
from tests.models.seg_net import SegNet
from tests.models.yolo_v8 import STRIDES, YoloV8
from tests.models.yolox import YoloX

DEFAULT_CACHE = Path.home() / ".cache" / "lite-edge" / "yolo"
SIZE = 128
# a box goes to the level whose range holds its cells' largest side distance (pixels)
LEVEL_LIMITS = (0.0, SIZE / 6.4, SIZE / 3.2, float("inf"))
CENTRE_RADIUS = 2.5  # strides around the box centre a positive cell may lie
SEG_WIDTH, SEG_STEM_STRIDE = 16, 2
WARMUP = 0.03  # share of the seg net's training with a linear learning-rate warm-up


def build(name: str) -> nn.Module:
    """The benchmark's version of each net (what the checkpoints hold)."""
    if name == "yolov8":
        return YoloV8(num_classes=len(CLASSES), width=0.5)
    if name == "yolox":
        return YoloX(num_classes=len(CLASSES), width=0.5)
    return SegNet(num_classes=len(CLASSES) + 1, width=SEG_WIDTH, stem_stride=SEG_STEM_STRIDE)


def checkpoint_path(cache: Path, name: str) -> Path:
    return cache / f"{name}_{SIZE}.pt"


def training_scenes(cache: Path, count: int) -> list[Scene]:
    """The training scenes, rendered once per cache directory (npz)."""
    path = cache / f"train_scenes_{SIZE}_{count}.npz"
    if path.exists():
        data = np.load(path, allow_pickle=True)
        return list(data["scenes"])
    rendered = scenes(TRAINING_SEED, count, SIZE)
    np.savez(path, scenes=np.array(rendered, dtype=object))
    return rendered


def assign(scene_boxes: np.ndarray, scene_labels: np.ndarray, flip: bool) -> tuple[np.ndarray, np.ndarray]:
    """(class target [cells, classes], box target [cells, 4] x0 y0 x1 y1; NaN rows for negatives)."""
    centres, strides = cell_centres(SIZE, STRIDES)
    cls = np.zeros((len(centres), len(CLASSES)), np.float32)
    box = np.full((len(centres), 4), np.nan, np.float32)
    area = np.full(len(centres), np.inf)
    limits, level_of = np.array(LEVEL_LIMITS), np.searchsorted(STRIDES, strides)
    boxes = scene_boxes.astype(np.float64).copy()
    if flip:
        boxes[:, [0, 2]] = SIZE - boxes[:, [2, 0]]
    for b, label in zip(boxes, scene_labels, strict=True):
        d = np.concatenate([centres - b[:2], b[2:] - centres], 1)
        mid = (b[:2] + b[2:]) / 2
        near = np.all(np.abs(centres - mid) <= CENTRE_RADIUS * strides[:, None], 1)
        largest = d.max(1)
        level = (largest > limits[level_of]) & (largest <= limits[level_of + 1])
        a = (b[2] - b[0]) * (b[3] - b[1])
        chosen = (d.min(1) > 0) & near & level & (a < area)
        cls[chosen] = 0
        cls[chosen, label] = 1
        box[chosen] = b
        area[chosen] = a
    return cls, box


def giou_loss(pred: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
    """1 - generalized IoU of x0 y0 x1 y1 boxes (mean)."""
    lo, hi = torch.maximum(pred[:, :2], target[:, :2]), torch.minimum(pred[:, 2:], target[:, 2:])
    inter = (hi - lo).clamp(min=0).prod(1)
    union = (pred[:, 2:] - pred[:, :2]).prod(1) + (target[:, 2:] - target[:, :2]).prod(1) - inter
    hull = (torch.maximum(pred[:, 2:], target[:, 2:]) - torch.minimum(pred[:, :2], target[:, :2])).prod(1)
    iou = inter / union.clamp(min=1e-6)
    return (1 - iou + (hull - union) / hull.clamp(min=1e-6)).mean()


def detection_loss(output: torch.Tensor, cls_t: torch.Tensor, box_t: torch.Tensor) -> torch.Tensor:
    centres, strides = (torch.from_numpy(a).float() for a in cell_centres(SIZE, STRIDES))
    scores = output[:, 4:].transpose(1, 2).clamp(1e-6, 1 - 1e-6)
    positive = ~torch.isnan(box_t[..., 0])
    count = positive.sum().clamp(min=1)
    cls_loss = nn.functional.binary_cross_entropy(scores, cls_t, reduction="sum") / count
    if not positive.any():
        return cls_loss
    d = output[:, :4].transpose(1, 2) * strides[None, :, None]
    pred = torch.cat([centres[None] - d[..., :2], centres[None] + d[..., 2:]], 2)
    return cls_loss + 2.0 * giou_loss(pred[positive], box_t[positive])


def segmentation_loss(logits: torch.Tensor, target: torch.Tensor) -> torch.Tensor:
    """Per-pixel cross-entropy plus soft Dice (1 - mean over the classes present in the batch).

    Why Dice too: background is 84% of the pixels (triangles 3%, digits 2%), so cross-entropy alone
    is won by predicting background around small classes (trained that way, 1,036 steps: IoU of
    triangle 0.00, digit 0.05). Dice weighs each class by its own area (the CE + Dice pair nnU-Net
    uses)."""
    ce = nn.functional.cross_entropy(logits, target)
    probs = logits.softmax(1)
    onehot = nn.functional.one_hot(target, logits.shape[1]).permute(0, 3, 1, 2).to(probs.dtype)
    inter, total = (probs * onehot).sum((0, 2, 3)), (probs + onehot).sum((0, 2, 3))
    present = onehot.sum((0, 2, 3)) > 0
    dice = (2 * inter + 1.0) / (total + 1.0)
    return ce + 1.0 - dice[present].mean()


def dihedral(array: np.ndarray, turns: int, flip: bool) -> np.ndarray:
    """``array`` (last two axes H, W) rotated by ``turns`` quarter turns, then flipped left-right."""
    out = np.rot90(array, turns, axes=(-2, -1))
    return out[..., ::-1] if flip else out


def batch(data: list[Scene], picks: np.ndarray, flips: np.ndarray, segmentation: bool,
          turns: np.ndarray | None = None) -> tuple:
    """(images, targets...) of the picked scenes; the seg net's scenes also turned by ``turns``
    quarter turns (the labels do not depend on orientation; boxes would need turning too)."""
    if segmentation:
        turns = np.zeros(len(picks), int) if turns is None else turns
        images = np.stack([dihedral(data[i].tensor()[0], int(t), bool(f))
                           for i, t, f in zip(picks, turns, flips, strict=True)])
        maps = np.stack([dihedral(data[i].semantic, int(t), bool(f))
                         for i, t, f in zip(picks, turns, flips, strict=True)])
        x = torch.from_numpy(np.ascontiguousarray(images)).contiguous(memory_format=torch.channels_last)
        return x, torch.from_numpy(maps.astype(np.int64))
    images = np.concatenate([data[i].tensor() for i in picks])
    images[flips] = images[flips][..., ::-1]
    x = torch.from_numpy(np.ascontiguousarray(images))
    targets = [assign(data[i].boxes, data[i].labels, bool(f)) for i, f in zip(picks, flips, strict=True)]
    return x, *(torch.from_numpy(np.stack([t[k] for t in targets])) for k in (0, 1))


def train(name: str, data: list[Scene], seconds: float, batch_size: int, log: Callable[[str], None],
          save: Callable[[dict], None]) -> dict:
    """Trains ``name`` for ``seconds`` of this process's CPU time (the same training whatever else
    the machine runs); returns the checkpoint dict."""
    torch.manual_seed(0)
    segmentation = name == "segnet"
    model = build(name).train()
    if segmentation:  # ~25% less CPU time per step for the 8-channel full-resolution convs
        model = model.to(memory_format=torch.channels_last)
    optimizer = torch.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=1e-4)
    rng = np.random.default_rng(0)
    start, step, losses = time.process_time(), 0, []
    while time.process_time() - start < seconds:
        progress = (time.process_time() - start) / seconds
        warmup = min(1.0, progress / WARMUP) if segmentation else 1.0
        for group in optimizer.param_groups:
            group["lr"] = 3e-3 * warmup * 0.5 * (1 + np.cos(np.pi * progress))
        picks = rng.integers(0, len(data), batch_size)
        flips = rng.random(batch_size) < 0.5
        turns = rng.integers(0, 4, batch_size) if segmentation else None
        tensors = batch(data, picks, flips, segmentation, turns)
        out = model(tensors[0])
        if segmentation:
            loss = segmentation_loss(out, tensors[1])
        else:
            loss = detection_loss(out, tensors[1], tensors[2])
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        losses.append(float(loss.detach()))
        step += 1
        if step % 10 == 0:
            log(f"{name} step {step} {time.process_time() - start:.0f}s loss {np.mean(losses[-20:]):.3f}")
        if step % 50 == 0:  # an interrupted training still leaves its latest weights
            save(_checkpoint(model, step, time.process_time() - start, losses))
    return _checkpoint(model, step, time.process_time() - start, losses)


def _checkpoint(model: nn.Module, step: int, seconds: float, losses: list[float]) -> dict:
    return {"state_dict": model.state_dict(), "steps": step, "seconds": seconds,
            "final_loss": float(np.mean(losses[-20:]))}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--models", nargs="+", default=["yolov8", "yolox", "segnet"])
    parser.add_argument("--minutes", type=float, default=6.0, help="CPU time per model (1 thread)")
    parser.add_argument("--scenes", type=int, default=600, help="training scenes (rendered once, cached)")
    parser.add_argument("--batch", type=int, default=8)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--cache", type=Path, default=DEFAULT_CACHE)
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    args.cache.mkdir(parents=True, exist_ok=True)
    data = training_scenes(args.cache, args.scenes)
    for name in args.models:
        path = checkpoint_path(args.cache, name)
        result = train(name, data, args.minutes * 60, args.batch, lambda line: print(line, flush=True),
                       lambda checkpoint, path=path: torch.save(checkpoint, path))
        torch.save(result, path)
        print(f"{name}: {result['steps']} steps in {result['seconds']:.0f} s, "
              f"loss {result['final_loss']:.3f} -> {checkpoint_path(args.cache, name)}", flush=True)


if __name__ == "__main__":
    main()
