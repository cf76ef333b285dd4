"""Decoding the YOLO-style heads of tests/models (yolo_v8.py, yolox.py) into boxes, and greedy NMS.

The head output is [4 + classes, cells] for one image: per cell the distances (in strides) from the
cell centre to the left, top, right and bottom box sides, then the class scores (probabilities).
Cells are listed level by level (strides 8, 16, 32), row-major within a level, as the nets flatten
them.
"""

from __future__ import annotations

import numpy as np


def cell_centres(size: int, strides: tuple[int, ...]) -> tuple[np.ndarray, np.ndarray]:
    """(centres [cells, 2] as x, y in pixels; the stride of each cell [cells])."""
    centres, cell_strides = [], []
    for stride in strides:
        n = size // stride
        ys, xs = np.mgrid[0:n, 0:n]
        centres.append(np.stack([xs.reshape(-1), ys.reshape(-1)], 1) * stride + stride / 2)
        cell_strides.append(np.full(n * n, stride, np.float64))
    return np.concatenate(centres).astype(np.float64), np.concatenate(cell_strides)


def distances_to_boxes(distances: np.ndarray, centres: np.ndarray, strides: np.ndarray) -> np.ndarray:
    """[cells, 4] (left, top, right, bottom in strides) -> [cells, 4] boxes (x0, y0, x1, y1) in pixels."""
    d = distances * strides[:, None]
    return np.concatenate([centres - d[:, :2], centres + d[:, 2:]], 1)


def box_iou(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """[len(a), len(b)] intersection over union of x0, y0, x1, y1 boxes (empty boxes: 0)."""
    lo = np.maximum(a[:, None, :2], b[None, :, :2])
    hi = np.minimum(a[:, None, 2:], b[None, :, 2:])
    inter = np.prod(np.clip(hi - lo, 0, None), axis=2)
    area_a = np.prod(np.clip(a[:, 2:] - a[:, :2], 0, None), axis=1)
    area_b = np.prod(np.clip(b[:, 2:] - b[:, :2], 0, None), axis=1)
    union = area_a[:, None] + area_b[None, :] - inter
    return np.where(union > 0, inter / np.where(union > 0, union, 1), 0.0)


def nms(boxes: np.ndarray, scores: np.ndarray, iou_threshold: float) -> np.ndarray:
    """Indices kept by greedy non-maximum suppression, highest score first (ties: lower index first)."""
    order = np.argsort(-scores, kind="stable")
    keep: list[int] = []
    while order.size:
        best = int(order[0])
        keep.append(best)
        rest = order[1:]
        order = rest[box_iou(boxes[best:best + 1], boxes[rest])[0] <= iou_threshold]
    return np.array(keep, np.int64)


def decode(output: np.ndarray, size: int, strides: tuple[int, ...], score_threshold: float = 0.05,
           iou_threshold: float = 0.6, max_detections: int = 100
           ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(boxes [k, 4], scores [k], labels [k]) of one image's head output [4 + classes, cells]:
    the best class per cell above ``score_threshold``, NMS per class, at most ``max_detections``."""
    centres, cell_strides = cell_centres(size, strides)
    boxes = distances_to_boxes(output[:4].T.astype(np.float64), centres, cell_strides)
    class_scores = output[4:].T.astype(np.float64)
    labels = class_scores.argmax(1)
    scores = class_scores.max(1)
    chosen = np.nonzero(scores > score_threshold)[0]
    kept: list[int] = []
    for label in np.unique(labels[chosen]):
        members = chosen[labels[chosen] == label]
        kept.extend(members[nms(boxes[members], scores[members], iou_threshold)].tolist())
    kept_array = np.array(sorted(kept, key=lambda i: -scores[i])[:max_detections], np.int64)
    return boxes[kept_array], scores[kept_array], labels[kept_array]
