"""Scoring OCR outputs against rendered ground truth: character accuracy and box recall.

* Character accuracy of one line: 1 - edit_distance(prediction, truth) / max(len(prediction),
  len(truth)) (PaddleOCR's normalized edit distance), averaged over lines.
* Box recall: a simplified DB post-process (threshold the probability map, 8-connected components,
  each component's bounding rectangle grown by DB's unclip distance area * ratio / perimeter); a
  ground-truth line is found when some predicted box overlaps it with IoU >= 0.5.
"""

from __future__ import annotations

import numpy as np

DB_THRESHOLD = 0.3  # PaddleOCR's DB postprocess defaults
DB_UNCLIP_RATIO = 1.5
MIN_COMPONENT_PIXELS = 4
MATCH_IOU = 0.5


def edit_distance(a: str, b: str) -> int:
    """Levenshtein distance (insert, delete, substitute cost 1), one row at a time."""
    previous = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        current = [i]
        for j, cb in enumerate(b, 1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (ca != cb)))
        previous = current
    return previous[-1]


def character_accuracy(predictions: list[str], truths: list[str]) -> float:
    """Mean over lines of 1 - normalized edit distance, in percent."""
    scores = [1.0 - edit_distance(p, t) / max(len(p), len(t), 1)
              for p, t in zip(predictions, truths, strict=True)]
    return 100.0 * float(np.mean(scores))


def db_boxes(probability: np.ndarray) -> list[tuple[float, ...]]:
    """Axis-aligned boxes (x0, y0, x1, y1) of the text regions in an [H, W] probability map."""
    from scipy import ndimage

    labels, count = ndimage.label(probability > DB_THRESHOLD, structure=np.ones((3, 3), bool))
    boxes = []
    for index, found in enumerate(ndimage.find_objects(labels), 1):
        if found is None or (labels[found] == index).sum() < MIN_COMPONENT_PIXELS:
            continue
        y0, y1 = found[0].start, found[0].stop
        x0, x1 = found[1].start, found[1].stop
        width, height = x1 - x0, y1 - y0
        grow = width * height * DB_UNCLIP_RATIO / (2 * (width + height))
        boxes.append((x0 - grow, y0 - grow, x1 + grow, y1 + grow))
    return boxes


def iou(a: tuple[float, ...], b: tuple[float, ...]) -> float:
    inter_w = max(0.0, min(a[2], b[2]) - max(a[0], b[0]))
    inter_h = max(0.0, min(a[3], b[3]) - max(a[1], b[1]))
    inter = inter_w * inter_h
    union = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter
    return inter / union if union > 0 else 0.0


def found_lines(truth: list[tuple[int, ...]], predicted: list[tuple[float, ...]]) -> int:
    """How many ground-truth boxes some predicted box matches with IoU >= MATCH_IOU."""
    return sum(any(iou(t, p) >= MATCH_IOU for p in predicted) for t in truth)
