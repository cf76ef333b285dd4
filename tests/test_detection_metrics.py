"""The detection decoding, NMS, mAP@0.5 and mask IoU of tests/models (used by benchmarks/yolo_int8.py),
on cases worked out by hand."""

from __future__ import annotations

import numpy as np
import pytest

from tests.datasets.synthetic_scenes import CLASSES, render_scene
from tests.models.detection_decode import box_iou, decode, nms
from tests.models.detection_metrics import average_precision, dataset_mean_iou, mask_iou, mean_ap


def test_box_iou_by_hand() -> None:
    a = np.array([[0, 0, 10, 10]], np.float64)
    b = np.array([[5, 0, 15, 10], [20, 20, 30, 30], [0, 0, 10, 10], [3, 3, 3, 9]], np.float64)
    np.testing.assert_allclose(box_iou(a, b)[0], [50 / 150, 0.0, 1.0, 0.0])


def test_nms_keeps_the_best_of_each_overlapping_group() -> None:
    boxes = np.array([[0, 0, 10, 10], [1, 0, 11, 10], [20, 0, 30, 10], [0, 1, 10, 11]], np.float64)
    scores = np.array([0.6, 0.9, 0.5, 0.6])
    # 1 (0.9) removes 0 (IoU 0.82) and 3 (IoU 0.68); 2 is apart
    assert nms(boxes, scores, 0.5).tolist() == [1, 2]
    assert nms(boxes, scores, 0.9).tolist() == [1, 0, 3, 2]  # stable among ties: 0 before 3


def test_decode_one_cell() -> None:
    size, strides = 32, (8, 16, 32)  # 16 + 4 + 1 cells
    output = np.zeros((4 + 2, 21), np.float32)
    output[:4, 5] = [1.0, 0.5, 1.0, 2.0]  # stride 8, row 1, col 1: centre (12, 12)
    output[4 + 1, 5] = 0.9
    output[4 + 0, 20] = 0.01  # below the score threshold
    boxes, scores, labels = decode(output, size, strides)
    np.testing.assert_allclose(boxes, [[4.0, 8.0, 20.0, 28.0]])
    np.testing.assert_allclose(scores, [0.9], rtol=1e-6)
    assert labels.tolist() == [1]


def test_average_precision_by_hand() -> None:
    # two images, one truth box each; detections: hit (0.9), miss (0.8), hit (0.7)
    truths = [(np.array([[0, 0, 10, 10]], np.float64), np.array([0])),
              (np.array([[0, 0, 10, 10]], np.float64), np.array([0]))]
    detections = [
        (np.array([[0, 0, 10, 10], [50, 50, 60, 60]], np.float64), np.array([0.9, 0.8]), np.array([0, 0])),
        (np.array([[1, 0, 10, 10]], np.float64), np.array([0.7]), np.array([0])),
    ]
    # recall 0.5, 0.5, 1.0; precision 1, 1/2, 2/3: AP = 0.5 * 1 + 0.5 * 2/3
    assert mean_ap(detections, truths, num_classes=3) == pytest.approx(0.5 + 1 / 3)
    # a duplicate of a matched box is a false positive; a wrong class never matches
    duplicate = [(np.array([[0, 0, 10, 10], [0, 0, 10, 10]], np.float64), np.array([0.9, 0.8]),
                  np.array([0, 0])), (np.zeros((1, 4)), np.array([0.1]), np.array([1]))]
    assert mean_ap(duplicate, truths, num_classes=2) == pytest.approx(0.5)
    assert average_precision(np.array([0.5, 1.0]), np.array([1.0, 1.0])) == pytest.approx(1.0)


def test_mask_iou_by_hand() -> None:
    a = np.array([[0, 0, 1, 1], [0, 0, 2, 2]])
    b = np.array([[0, 0, 1, 0], [0, 0, 2, 2]])
    # background: 4 / 5, class 1: 1 / 2, class 2: 2 / 2
    assert mask_iou(a, b, 3) == pytest.approx((4 / 5 + 1 / 2 + 1.0) / 3)


def test_dataset_mean_iou_pools_the_pixels_of_all_maps_by_hand() -> None:
    """Two 2x2 maps, 4 classes; class 3 appears in neither (left out of the mean). Pooled counts:
    class 0: TP 3, FP 1, FN 0 -> 3/4; class 1: TP 3, FP 0, FN 1 -> 3/4; class 2: TP 1, FP 0, FN 0 -> 1."""
    predicted = [np.array([[0, 0], [1, 2]]), np.array([[1, 0], [1, 0]])]
    truth = [np.array([[0, 0], [1, 2]]), np.array([[1, 1], [1, 0]])]
    mean, per_class = dataset_mean_iou(predicted, truth, 4)
    np.testing.assert_allclose(per_class[:3], [3 / 4, 3 / 4, 1.0])
    assert np.isnan(per_class[3]) and mean == pytest.approx((3 / 4 + 3 / 4 + 1.0) / 3)


def test_scene_truth_matches_its_masks() -> None:
    rng = np.random.default_rng(7)
    for _ in range(3):
        scene = render_scene(rng, 96)
        assert scene.image.shape == (96, 96, 3) and scene.image.dtype == np.uint8
        assert set(scene.labels.tolist()) <= set(range(len(CLASSES)))
        for box, mask, label in zip(scene.boxes, scene.masks, scene.labels, strict=True):
            ys, xs = np.nonzero(mask)
            assert box.tolist() == [xs.min(), ys.min(), xs.max() + 1, ys.max() + 1]
            assert (scene.semantic[mask] == label + 1).all()
        assert (scene.masks.sum(0) <= 1).all()  # visible masks never overlap
