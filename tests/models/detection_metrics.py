"""Detection mAP at IoU 0.5 (the PASCAL VOC 2010+ all-point interpolated AP, averaged over the classes
that have ground truth) and mask IoU, for the synthetic scenes (tests/datasets/synthetic_scenes.py)."""

from __future__ import annotations

import numpy as np

from tests.models.detection_decode import box_iou

Detections = tuple[np.ndarray, np.ndarray, np.ndarray]  # boxes [k, 4], scores [k], labels [k]
Truth = tuple[np.ndarray, np.ndarray]  # boxes [n, 4], labels [n]


def average_precision(recall: np.ndarray, precision: np.ndarray) -> float:
    """Area under the precision envelope (precision made non-increasing from the right) over recall."""
    r = np.concatenate([[0.0], recall, [1.0]])
    p = np.concatenate([[0.0], precision, [0.0]])
    p = np.maximum.accumulate(p[::-1])[::-1]
    steps = np.nonzero(r[1:] != r[:-1])[0]
    return float(np.sum((r[steps + 1] - r[steps]) * p[steps + 1]))


def class_ap(detections: list[Detections], truths: list[Truth], label: int, iou: float = 0.5) -> float | None:
    """AP of one class over the images, or None when no image has that class in its truth. A detection
    is a true positive when it overlaps a not yet matched truth box of its class by >= ``iou``
    (detections taken in score order over all images; each takes its best-overlapping truth)."""
    gt = [boxes[labels == label] for boxes, labels in truths]
    total = sum(len(g) for g in gt)
    if total == 0:
        return None
    entries = [(float(s), image, box) for image, (boxes, scores, labels) in enumerate(detections)
               for box, s, lab in zip(boxes, scores, labels, strict=True) if lab == label]
    entries.sort(key=lambda e: -e[0])
    matched = [np.zeros(len(g), bool) for g in gt]
    hits = np.zeros(len(entries))
    for k, (_, image, box) in enumerate(entries):
        if not len(gt[image]):
            continue
        overlaps = box_iou(box[None], gt[image])[0]
        best = int(np.argmax(overlaps))
        if overlaps[best] >= iou and not matched[image][best]:
            matched[image][best] = True
            hits[k] = 1
    true_positives = np.cumsum(hits)
    recall = true_positives / total
    precision = true_positives / np.arange(1, len(entries) + 1)
    return average_precision(recall, precision)


def mean_ap(detections: list[Detections], truths: list[Truth], num_classes: int, iou: float = 0.5) -> float:
    """mAP@``iou`` in [0, 1] over the classes present in the truth."""
    aps = [ap for label in range(num_classes) if (ap := class_ap(detections, truths, label, iou)) is not None]
    return float(np.mean(aps)) if aps else 0.0


def mask_iou(a: np.ndarray, b: np.ndarray, num_classes: int) -> float:
    """Mean over classes (those present in a or b) of the IoU of two label maps' per-class masks."""
    ious = []
    for label in range(num_classes):
        in_a, in_b = a == label, b == label
        union = np.logical_or(in_a, in_b).sum()
        if union:
            ious.append(np.logical_and(in_a, in_b).sum() / union)
    return float(np.mean(ious)) if ious else 1.0


def dataset_mean_iou(predicted: list[np.ndarray], truth: list[np.ndarray], num_classes: int) -> tuple[float,
                                                                                                      np.ndarray]:
    """(mean over classes, per-class IoU) of label maps with every map's pixels pooled: one confusion
    matrix over the whole set, IoU_c = TP_c / (TP_c + FP_c + FN_c) (the PASCAL VOC / Cityscapes mIoU).

    Why beside ``mask_iou``: averaged per scene, a class one map lacks costs that scene a whole 0 for
    a handful of stray pixels, so per-scene means sit far below the pooled figure and swing with
    a few boundary pixels; the pooled figure weighs each class by its pixels over the set."""
    confusion = np.zeros((num_classes, num_classes), np.int64)
    for p, t in zip(predicted, truth, strict=True):
        confusion += np.bincount(t.ravel().astype(np.int64) * num_classes + p.ravel().astype(np.int64),
                                 minlength=num_classes * num_classes).reshape(num_classes, num_classes)
    inter = np.diag(confusion).astype(np.float64)
    union = confusion.sum(0) + confusion.sum(1) - inter
    per_class = np.divide(inter, union, out=np.full(num_classes, np.nan), where=union > 0)
    return float(np.nanmean(per_class)), per_class
