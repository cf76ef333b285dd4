"""Pages of text lines with each line's ink box, for text detection.

Rows of lines (Latin, or Chinese with a probability of ``chinese_fraction``) in random fonts of
text_corpus.FONTS at 14..40 px, each turned by up to 2 degrees, one or two lines per row, with
uneven gaps; a few non-text shapes (frames, rules, discs) in the background; one ink colour per
page, some lines in a second one; then the degradations of degrade.py. A line's box is the
axis-aligned box of its drawn ink (exact: the ink is placed, not measured afterwards).
"""

from __future__ import annotations

import numpy as np

from tests.datasets import degrade
from tests.datasets.text_corpus import CHINESE_FONTS, FONTS, load_font
from tests.datasets.text_lines import fitting_text, ink_coverage

Box = tuple[int, int, int, int]
MIN_SIZE, MAX_SIZE = 14, 40
MAX_DEGREES = 2.0
# PaddleOCR's det preprocessing: ImageNet mean / std on RGB in [0, 1]
DET_MEAN = np.array([0.485, 0.456, 0.406], np.float32)
DET_STD = np.array([0.229, 0.224, 0.225], np.float32)


def _shapes(rng: np.random.Generator, height: int, width: int) -> np.ndarray:
    """Coverage (0..1) of a few non-text shapes: rectangle frames, rules, discs."""
    from PIL import Image, ImageDraw

    mask = Image.new("L", (width, height), 0)
    draw = ImageDraw.Draw(mask)
    for _ in range(int(rng.integers(0, 4))):
        x0, y0 = int(rng.integers(0, width - 20)), int(rng.integers(0, height - 20))
        x1, y1 = int(rng.integers(x0 + 10, width)), int(rng.integers(y0 + 10, height))
        kind, level = rng.random(), int(rng.integers(60, 200))
        if kind < 0.4:
            draw.rectangle((x0, y0, x1, y1), outline=level, width=int(rng.integers(1, 4)))
        elif kind < 0.7:
            draw.line((x0, y0, x1, y0), fill=level, width=int(rng.integers(1, 3)))
        else:
            radius = int(rng.integers(8, 40))
            draw.ellipse((x0, y0, x0 + 2 * radius, y0 + 2 * radius), fill=level // 2)
    return np.asarray(mask, np.float32) / 255.0


def render_page(rng: np.random.Generator, height: int, width: int,
                chinese_fraction: float = 0.4) -> tuple[np.ndarray, list[Box]]:
    """An RGB uint8 page and the ink box (x0, y0, x1, y1) of each of its lines."""
    colours = degrade.palette(rng)
    second_ink = degrade.palette(rng).ink
    image = degrade.background(rng, height, width, colours)
    image = degrade.composite(image, _shapes(rng, height, width), (colours.background + colours.ink) / 2)
    boxes: list[Box] = []
    y = int(rng.integers(6, 30))
    while True:
        size = int(rng.integers(MIN_SIZE, MAX_SIZE + 1))
        x = int(rng.integers(6, max(7, width // 3)))
        row_bottom = y
        while x < width - 4 * size:
            chinese = rng.random() < chinese_fraction
            choices = CHINESE_FONTS if chinese else FONTS
            font = load_font(choices[int(rng.integers(len(choices)))], size)
            text = fitting_text(rng, chinese, font, size, max_width=width - x - 8)
            ink = ink_coverage(text, font, float(rng.uniform(-MAX_DEGREES, MAX_DEGREES)))
            h, w = ink.shape
            if y + h > height - 6 or x + w > width - 4 or w < 4:
                break
            region = image[y:y + h, x:x + w]
            region[...] = degrade.composite(region, ink, second_ink if rng.random() < 0.15 else colours.ink)
            boxes.append((x, y, x + w, y + h))
            row_bottom = max(row_bottom, y + h)
            if rng.random() < 0.6:
                break
            x += w + int(rng.integers(2, 5)) * size  # a second column on this row
        y = max(row_bottom, y + size) + int(size * rng.uniform(0.5, 1.4)) + 4
        if y > height - MIN_SIZE - 6:
            break
    return degrade.photograph(rng, image, blur_max=1.0), boxes


def render_pages(seed: int, count: int, height: int = 480, width: int = 480,
                 chinese_fraction: float = 0.4) -> list[tuple[np.ndarray, list[Box]]]:
    rng = np.random.default_rng(seed)
    return [render_page(rng, height, width, chinese_fraction) for _ in range(count)]


def det_input(pixels: np.ndarray) -> np.ndarray:
    """NCHW [1, 3, H, W] float32 for PP-OCR det: ImageNet normalization."""
    normalized = (pixels.astype(np.float32) / 255.0 - DET_MEAN) / DET_STD
    return np.ascontiguousarray(normalized.transpose(2, 0, 1)[None])
