"""The PaddleOCR pipeline (det -> boxes -> crop -> cls -> rec -> text) in numpy: the Python side
that the Java OCR library (android_demo/ocr/) must agree with, box for box and character for
character, on the same images.

It follows PaddleOCR's own pre- and post-processing (ppocr/data/imaug/operators.py DetResizeForTest,
ppocr/postprocess/db_postprocess.py DBPostProcess, tools/infer/predict_system.py
get_rotate_crop_image / sorted_boxes, predict_cls.py, predict_rec.py, CTCLabelDecode) with the
defaults of its mobile pipeline, and the Python demo's normalization and CTC decoding
(lite_converter.app.demo). Where PaddleOCR calls OpenCV or pyclipper, this module does the same job in a
way Java can repeat exactly:

* resizing: bilinear with half-pixel centres, computed in float64, rounded half up to uint8 (what
  cv2.INTER_LINEAR does, without its fixed-point shortcuts);
* text regions: 8-connected components of the thresholded map (scipy.ndimage.label) instead of
  cv2.findContours; a component's convex hull is that of its outer contour;
* the minimum-area rectangle: rotating calipers over the convex hull (cv2.minAreaRect's result);
* the box score: the mean probability over the pixels whose centre lies in the rectangle
  (box_score_fast fills the same polygon with cv2.fillPoly);
* unclipping: PaddleOCR offsets the rectangle by d = area * ratio / perimeter with rounded joins and
  takes the minimum-area rectangle again, which is the rectangle grown by d on every side;
* cropping: the rectangle mapped onto an upright image by its affine map (the perspective map of a
  rectangle), bilinear with replicated borders.

Every step is float64 arithmetic written in the order the Java code uses, so both produce the same
integer box corners and the same model inputs (float32, bit for bit).
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np

from lite_converter.app.demo import DET_MEAN, DET_STD, ctc_greedy_decode

DET_LIMIT_SIDE = 960  # DetResizeForTest(limit_type="max")
DET_THRESHOLD = 0.3
DET_BOX_THRESHOLD = 0.6
DET_UNCLIP_RATIO = 1.5
DET_MIN_SIZE = 3
DET_MAX_CANDIDATES = 1000
CLS_HEIGHT, CLS_WIDTH = 48, 192
CLS_THRESHOLD = 0.9
REC_HEIGHT, REC_MIN_WIDTH = 48, 320
REC_DROP_SCORE = 0.5


@dataclasses.dataclass
class OcrLine:
    """One line found: its box (4 corners, clockwise from the top left, in image pixels), text, score."""

    box: list[tuple[int, int]]
    text: str
    score: float
    rotated_180: bool


def sample_bilinear(image: np.ndarray, sx: np.ndarray, sy: np.ndarray) -> np.ndarray:
    """uint8 values of ``image`` (HxWxC) at source coordinates (sx, sy) (broadcast to the output's
    shape), clamped to the image (replicated borders), interpolated in float64, rounded half up."""
    in_h, in_w = image.shape[:2]
    sx = np.clip(sx, 0.0, in_w - 1.0)
    sy = np.clip(sy, 0.0, in_h - 1.0)
    x0 = np.floor(sx).astype(np.int64)
    y0 = np.floor(sy).astype(np.int64)
    x1 = np.minimum(x0 + 1, in_w - 1)
    y1 = np.minimum(y0 + 1, in_h - 1)
    fx = (sx - x0)[..., None]
    fy = (sy - y0)[..., None]
    pixels = image.astype(np.float64)
    top = pixels[y0, x0] * (1.0 - fx) + pixels[y0, x1] * fx
    bottom = pixels[y1, x0] * (1.0 - fx) + pixels[y1, x1] * fx
    return np.floor(top * (1.0 - fy) + bottom * fy + 0.5).astype(np.uint8)


def resize_bilinear(image: np.ndarray, height: int, width: int) -> np.ndarray:
    """uint8 HxWxC -> height x width x C, bilinear with half-pixel centres."""
    in_h, in_w = image.shape[:2]
    sy = (np.arange(height, dtype=np.float64) + 0.5) * (in_h / height) - 0.5
    sx = (np.arange(width, dtype=np.float64) + 0.5) * (in_w / width) - 0.5
    return sample_bilinear(image, sx[None, :], sy[:, None])


def det_size(height: int, width: int) -> tuple[int, int]:
    """DetResizeForTest: the longer side at most 960, both sides rounded to a multiple of 32."""
    ratio = DET_LIMIT_SIDE / max(height, width) if max(height, width) > DET_LIMIT_SIDE else 1.0
    return (max(int(math.floor(height * ratio / 32.0 + 0.5)) * 32, 32),
            max(int(math.floor(width * ratio / 32.0 + 0.5)) * 32, 32))


def det_input(image: np.ndarray) -> np.ndarray:
    """NCHW float32: the resized image, ImageNet mean / std (the demo's normalization)."""
    height, width = det_size(*image.shape[:2])
    resized = resize_bilinear(image, height, width)
    normalized = (resized.astype(np.float32) / 255.0 - DET_MEAN) / DET_STD
    return np.ascontiguousarray(normalized.transpose(2, 0, 1)[None])


def convex_hull(points: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Andrew's monotone chain, counter-clockwise (in y-down image axes: clockwise), no collinear points."""
    pts = sorted(set(points))
    if len(pts) <= 2:
        return pts

    def cross(o: tuple[int, int], a: tuple[int, int], b: tuple[int, int]) -> int:
        return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])

    lower: list[tuple[int, int]] = []
    for p in pts:
        while len(lower) >= 2 and cross(lower[-2], lower[-1], p) <= 0:
            lower.pop()
        lower.append(p)
    upper: list[tuple[int, int]] = []
    for p in reversed(pts):
        while len(upper) >= 2 and cross(upper[-2], upper[-1], p) <= 0:
            upper.pop()
        upper.append(p)
    return lower[:-1] + upper[:-1]


@dataclasses.dataclass
class Rect:
    """A rotated rectangle: centre, unit axes u (along width) and v (along height), side lengths."""

    cx: float
    cy: float
    ux: float
    uy: float
    width: float
    height: float

    def corners(self) -> list[tuple[float, float]]:
        """The 4 corners in get_mini_boxes order: top-left, top-right, bottom-right, bottom-left."""
        hw, hh = self.width / 2.0, self.height / 2.0
        vx, vy = -self.uy, self.ux
        raw = [(self.cx + sx * hw * self.ux + sy * hh * vx, self.cy + sx * hw * self.uy + sy * hh * vy)
               for sx, sy in ((-1.0, -1.0), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0))]
        return order_corners(raw)


def order_corners(points: list[tuple[float, float]]) -> list[tuple[float, float]]:
    """get_mini_boxes: sort by x; of the two left points the upper is first, of the right ones the
    upper is second."""
    pts = sorted(points, key=lambda p: p[0])
    first, fourth = (pts[0], pts[1]) if pts[1][1] > pts[0][1] else (pts[1], pts[0])
    second, third = (pts[2], pts[3]) if pts[3][1] > pts[2][1] else (pts[3], pts[2])
    return [first, second, third, fourth]


def min_area_rect(hull: list[tuple[int, int]]) -> Rect:
    """The smallest-area rectangle holding the hull: one of its sides lies on a hull edge."""
    if len(hull) == 1:
        return Rect(float(hull[0][0]), float(hull[0][1]), 1.0, 0.0, 0.0, 0.0)
    best: Rect | None = None
    best_area = math.inf
    for i in range(len(hull)):
        ax, ay = hull[i]
        bx, by = hull[(i + 1) % len(hull)]
        length = math.sqrt((bx - ax) * (bx - ax) + (by - ay) * (by - ay))
        if length == 0.0:
            continue
        ux, uy = (bx - ax) / length, (by - ay) / length
        us = [(px - ax) * ux + (py - ay) * uy for px, py in hull]
        vs = [-(px - ax) * uy + (py - ay) * ux for px, py in hull]
        u0, u1, v0, v1 = min(us), max(us), min(vs), max(vs)
        area = (u1 - u0) * (v1 - v0)
        if area < best_area:
            best_area = area
            cu, cv = (u0 + u1) / 2.0, (v0 + v1) / 2.0
            best = Rect(ax + cu * ux - cv * uy, ay + cu * uy + cv * ux, ux, uy, u1 - u0, v1 - v0)
    assert best is not None
    return best


def box_score(probability: np.ndarray, rect: Rect) -> float:
    """Mean probability over the pixels whose centre lies inside the rectangle (its edges included)."""
    height, width = probability.shape
    corners = rect.corners()
    xs, ys = [p[0] for p in corners], [p[1] for p in corners]
    x0 = min(max(int(math.floor(min(xs))), 0), width - 1)
    x1 = min(max(int(math.ceil(max(xs))), 0), width - 1)
    y0 = min(max(int(math.floor(min(ys))), 0), height - 1)
    y1 = min(max(int(math.ceil(max(ys))), 0), height - 1)
    gy, gx = np.mgrid[y0:y1 + 1, x0:x1 + 1].astype(np.float64)
    dx, dy = gx - rect.cx, gy - rect.cy
    along = dx * rect.ux + dy * rect.uy
    across = -dx * rect.uy + dy * rect.ux
    inside = (np.abs(along) <= rect.width / 2.0 + 1e-6) & (np.abs(across) <= rect.height / 2.0 + 1e-6)
    values = probability[y0:y1 + 1, x0:x1 + 1][inside].astype(np.float64)
    total = 0.0
    for value in values:  # in raster order, one by one, as the Java loop adds them
        total += float(value)
    return total / len(values) if len(values) else 0.0


def db_boxes(probability: np.ndarray, image_height: int, image_width: int) -> list[list[tuple[int, int]]]:
    """DBPostProcess on an [H, W] map, boxes in the image's pixels, in reading order (sorted_boxes)."""
    from scipy import ndimage

    height, width = probability.shape
    labels, count = ndimage.label(probability > DET_THRESHOLD, structure=np.ones((3, 3), bool))
    boxes = []
    for index, found in enumerate(ndimage.find_objects(labels)[:DET_MAX_CANDIDATES], 1):
        if found is None:
            continue
        rows = labels[found] == index
        points = []
        for r, row in enumerate(rows):
            columns = np.flatnonzero(row)
            if columns.size:
                y = found[0].start + r
                points += [(found[1].start + int(columns[0]), y), (found[1].start + int(columns[-1]), y)]
        rect = min_area_rect(convex_hull(points))
        if min(rect.width, rect.height) < DET_MIN_SIZE:
            continue
        if box_score(probability, rect) < DET_BOX_THRESHOLD:
            continue
        distance = rect.width * rect.height * DET_UNCLIP_RATIO / (2.0 * (rect.width + rect.height))
        grown = dataclasses.replace(rect, width=rect.width + 2.0 * distance,
                                    height=rect.height + 2.0 * distance)
        if min(grown.width, grown.height) < DET_MIN_SIZE + 2:
            continue
        box = [(int(np.clip(np.round(x / width * image_width), 0, image_width)),
                int(np.clip(np.round(y / height * image_height), 0, image_height)))
               for x, y in grown.corners()]
        if int(distance_between(box[0], box[1])) <= 3 or int(distance_between(box[0], box[3])) <= 3:
            continue
        boxes.append(box)
    return sorted_boxes(boxes)


def distance_between(a: tuple[int, int], b: tuple[int, int]) -> float:
    """Euclidean distance of integer points: sqrt is correctly rounded in Python and Java alike
    (math.hypot and Math.hypot may differ in the last bit)."""
    dx, dy = a[0] - b[0], a[1] - b[1]
    return math.sqrt(dx * dx + dy * dy)


def sorted_boxes(boxes: list[list[tuple[int, int]]]) -> list[list[tuple[int, int]]]:
    """PaddleOCR's sorted_boxes: top to bottom, then left to right within 10 pixels of height."""
    ordered = sorted(boxes, key=lambda b: (b[0][1], b[0][0]))
    for i in range(len(ordered) - 1):
        for j in range(i, -1, -1):
            if abs(ordered[j + 1][0][1] - ordered[j][0][1]) < 10 and ordered[j + 1][0][0] < ordered[j][0][0]:
                ordered[j], ordered[j + 1] = ordered[j + 1], ordered[j]
            else:
                break
    return ordered


def crop(image: np.ndarray, box: list[tuple[int, int]]) -> np.ndarray:
    """get_rotate_crop_image: the box as an upright uint8 image; turned 90 degrees when tall."""
    width = int(max(distance_between(box[0], box[1]), distance_between(box[2], box[3])))
    height = int(max(distance_between(box[0], box[3]), distance_between(box[1], box[2])))
    (x0, y0), (x1, y1), _, (x3, y3) = [(float(x), float(y)) for x, y in box]
    width, height = max(width, 1), max(height, 1)
    v = np.arange(height, dtype=np.float64)[:, None]
    u = np.arange(width, dtype=np.float64)[None, :]
    sx = x0 + (u / width) * (x1 - x0) + (v / height) * (x3 - x0)
    sy = y0 + (u / width) * (y1 - y0) + (v / height) * (y3 - y0)
    result = sample_bilinear(image, sx, sy)
    if result.shape[0] / result.shape[1] >= 1.5:
        result = np.rot90(result)
    return np.ascontiguousarray(result)


def line_input(image: np.ndarray, target_width: int, max_width: int) -> np.ndarray:
    """NCHW float32 for cls / rec: height 48, the width kept in proportion up to max_width, zero
    padding (in the normalized range) to target_width; the demo's [0, 255] -> [-1, 1]."""
    h, w = image.shape[:2]
    resized_w = min(max_width, int(math.ceil(REC_HEIGHT * w / h)))
    resized = resize_bilinear(image, REC_HEIGHT, resized_w)
    batch = np.zeros((1, 3, REC_HEIGHT, target_width), np.float32)
    batch[0, :, :, :resized_w] = (resized.astype(np.float32) / 127.5 - 1.0).transpose(2, 0, 1)
    return batch


def rec_width(image: np.ndarray) -> int:
    """predict_rec's imgW for a batch of one: 48 * max(320 / 48, w / h)."""
    h, w = image.shape[:2]
    return int(REC_HEIGHT * max(REC_MIN_WIDTH / REC_HEIGHT, w / h))


def decode(probabilities: np.ndarray, characters: list[str]) -> tuple[str, float]:
    """CTCLabelDecode: the demo's greedy decoding, and the mean probability of the kept classes."""
    best = probabilities.argmax(axis=-1)
    kept = [i for i, c in enumerate(best) if c != 0 and (i == 0 or c != best[i - 1])]
    total = 0.0
    for i in kept:  # in order, one by one, as the Java loop adds them
        total += float(probabilities[i, best[i]])
    return ctc_greedy_decode(probabilities, characters), total / len(kept) if kept else 0.0


class OcrPipeline:
    """det + cls + rec over three runtime_arm Interpreters (one thread each)."""

    def __init__(self, det_path: str, cls_path: str, rec_path: str, characters: list[str]) -> None:
        from runtime_arm import Interpreter

        self.det = Interpreter(det_path, threads=1)
        self.cls = Interpreter(cls_path, threads=1)
        self.rec = Interpreter(rec_path, threads=1)
        self.characters = characters

    def close(self) -> None:
        for interpreter in (self.det, self.cls, self.rec):
            interpreter.close()

    def _first_output(self, interpreter: object, batch: np.ndarray) -> np.ndarray:
        return next(iter(interpreter.run([batch]).values()))  # type: ignore[attr-defined]

    def boxes(self, image: np.ndarray) -> list[list[tuple[int, int]]]:
        probability = self._first_output(self.det, det_input(image))[0, 0]
        return db_boxes(probability, image.shape[0], image.shape[1])

    def read_line(self, line: np.ndarray) -> tuple[str, float, bool]:
        """Text, score and whether cls turned the crop by 180 degrees."""
        classes = self._first_output(self.cls, line_input(line, CLS_WIDTH, CLS_WIDTH))[0]
        turned = int(classes.argmax()) == 1 and float(classes[1]) > CLS_THRESHOLD
        if turned:
            line = np.ascontiguousarray(line[::-1, ::-1])
        width = rec_width(line)
        probabilities = self._first_output(self.rec, line_input(line, width, width))[0]
        text, score = decode(probabilities, self.characters)
        return text, score, turned

    def __call__(self, image: np.ndarray) -> list[OcrLine]:
        lines = []
        for box in self.boxes(image):
            text, score, turned = self.read_line(crop(image, box))
            if score >= REC_DROP_SCORE:
                lines.append(OcrLine(box, text, score, turned))
        return lines
