"""Text-line crops as a text detector hands them to a recognizer, with their text.

A line (Latin, or Chinese with a probability of ``chinese_fraction``, default 40%) is drawn in a
random font of text_corpus.FONTS at 14..48 px, turned by up to 3 degrees, cut out with uneven
margins and laid over a degraded background (degrade.py). The crop keeps its natural size; the
model inputs are made the way PaddleOCR makes them (``rec_input`` / ``cls_input``: resized to height
48 keeping the aspect ratio, capped at the model width, scaled to [-1, 1], padded with 0 on the
right — ppocr/data/imaug/rec_img_aug.py resize_norm_img).
"""

from __future__ import annotations

import math

import numpy as np

from tests.datasets import degrade
from tests.datasets.text_corpus import CHINESE_FONTS, FONTS, chinese_line, latin_line, load_font

MIN_SIZE, MAX_SIZE = 14, 48
MAX_DEGREES = 3.0
REC_HEIGHT, REC_WIDTH, CLS_WIDTH = 48, 320, 192
MAX_ASPECT = REC_WIDTH / REC_HEIGHT * 1.1  # longer lines are cut (a detector splits them too)


def ink_coverage(text: str, font, degrees: float) -> np.ndarray:  # noqa: ANN001 - a PIL font
    """Anti-aliased ink coverage (0..1) of ``text``, turned by ``degrees``, cropped to the ink."""
    from PIL import Image, ImageDraw

    left, top, right, bottom = font.getbbox(text)
    pad = 4 + (bottom - top) // 2
    mask = Image.new("L", (right - left + 2 * pad, bottom - top + 2 * pad), 0)
    ImageDraw.Draw(mask).text((pad - left, pad - top), text, fill=255, font=font)
    if degrees:
        mask = mask.rotate(degrees, resample=Image.BILINEAR, expand=True)
    ink = np.asarray(mask, np.float32) / 255.0
    rows, columns = np.nonzero(ink > 0.02)
    if not rows.size:
        return ink
    return ink[rows.min():rows.max() + 1, columns.min():columns.max() + 1]


def fitting_text(rng: np.random.Generator, chinese: bool, font, size: int,  # noqa: ANN001 - a PIL font
                 max_width: float | None = None) -> str:
    """A line no wider than ``max_width`` px (default: MAX_ASPECT x the line height) at this font,
    tokens or characters dropped from the end."""
    if chinese:
        text = chinese_line(rng, int(rng.integers(3, 13)))
    else:
        text = latin_line(rng, int(rng.integers(6, 27)))
    while len(text) > 1:
        left, top, right, bottom = font.getbbox(text)
        if (right - left) <= (MAX_ASPECT * max(size, bottom - top) if max_width is None else max_width):
            break
        text = text.rsplit(" ", 1)[0] if (" " in text and not chinese) else text[:-1]
        text = text.strip()
    return text


def render_line(rng: np.random.Generator, chinese_fraction: float = 0.4) -> tuple[np.ndarray, str]:
    """An RGB uint8 crop of one text line (natural size, height ~1.1..1.8 x the font size) and its text."""
    chinese = rng.random() < chinese_fraction
    choices = CHINESE_FONTS if chinese else FONTS
    font_spec = choices[int(rng.integers(len(choices)))]
    size = int(rng.integers(MIN_SIZE, MAX_SIZE + 1))
    font = load_font(font_spec, size)
    text = fitting_text(rng, chinese, font, size)
    ink = ink_coverage(text, font, float(rng.uniform(-MAX_DEGREES, MAX_DEGREES)))
    margin = lambda low, high: int(round(size * rng.uniform(low, high)))  # noqa: E731
    top, bottom, left, right = margin(0.05, 0.35), margin(0.05, 0.35), margin(0.05, 0.6), margin(0.05, 0.6)
    height, width = ink.shape[0] + top + bottom, ink.shape[1] + left + right
    coverage = np.zeros((height, width), np.float32)
    coverage[top:top + ink.shape[0], left:left + ink.shape[1]] = ink
    colours = degrade.palette(rng)
    image = degrade.composite(degrade.background(rng, height, width, colours), coverage, colours.ink)
    return degrade.photograph(rng, image), text


def render_lines(seed: int, count: int, chinese_fraction: float = 0.4) -> tuple[list[np.ndarray], list[str]]:
    """``count`` crops and texts from one seed (the same seed gives the same lines)."""
    rng = np.random.default_rng(seed)
    lines = [render_line(rng, chinese_fraction) for _ in range(count)]
    return [pixels for pixels, _ in lines], [text for _, text in lines]


def normalized_crop(pixels: np.ndarray, width: int, height: int = REC_HEIGHT) -> np.ndarray:
    """PaddleOCR's resize_norm_img: [3, height, width] float32 in [-1, 1], zero-padded on the right."""
    from PIL import Image

    resized_width = min(width, int(math.ceil(height * pixels.shape[1] / pixels.shape[0])))
    resized = np.asarray(Image.fromarray(pixels).resize((resized_width, height), Image.BILINEAR), np.float32)
    out = np.zeros((3, height, width), np.float32)
    out[:, :, :resized_width] = (resized / 255.0 - 0.5).transpose(2, 0, 1) / 0.5
    return out


def rec_input(crops: list[np.ndarray]) -> np.ndarray:
    """NCHW [N, 3, 48, 320] batch for PP-OCR rec."""
    return np.stack([normalized_crop(crop, REC_WIDTH) for crop in crops])


def cls_crops(crops: list[np.ndarray]) -> tuple[list[np.ndarray], np.ndarray]:
    """Every other crop turned by 180 degrees (label 1), for the direction classifier."""
    turned = np.arange(len(crops)) % 2 == 1
    return [np.ascontiguousarray(c[::-1, ::-1]) if t else c for c, t in zip(crops, turned, strict=True)], \
        turned.astype(np.int64)


def cls_input(crops: list[np.ndarray]) -> np.ndarray:
    """NCHW [N, 3, 48, 192] batch for the PP-OCR direction classifier."""
    return np.stack([normalized_crop(crop, CLS_WIDTH) for crop in crops])
