"""Synthetic detection / segmentation scenes: shapes and digits on textured, noisy backgrounds, with
their boxes and masks known.

Each scene: a background from tests/datasets/degrade.py (grey level, tint, texture, grain,
illumination ramp), 1..7 objects of 4 classes (circle, rectangle, triangle, digit) of 10..45% of
the image side, each in its own colour at a random contrast (some faint), rotated triangles and
digits in 6 DejaVu faces, later objects occluding earlier ones; then blur, sensor noise and JPEG
(degrade.photograph). Ground truth is taken from the visible part of each object: its box is the
visible mask's extent, and an object less than 35% visible is dropped from the truth (it is still
drawn, as clutter). A scene is a function of its seed (tests/datasets/splits.py: disjoint seeds for
training, calibration and evaluation).
"""

from __future__ import annotations

import dataclasses
import functools

import numpy as np

from tests.datasets.degrade import _upsampled_field, background, palette, photograph

CLASSES = ("circle", "rectangle", "triangle", "digit")
FONTS = tuple(f"/usr/share/fonts/truetype/dejavu/{name}.ttf" for name in (
    "DejaVuSans-Bold", "DejaVuSans", "DejaVuSansCondensed-Bold", "DejaVuSans-BoldOblique",
    "DejaVuSerif-Bold", "DejaVuSansMono-Bold"))
MIN_VISIBLE = 0.35


@dataclasses.dataclass(frozen=True)
class Scene:
    """image: uint8 [H, W, 3]; boxes: float32 [n, 4] (x0, y0, x1, y1, pixels, exclusive ends);
    labels: int64 [n] (index into CLASSES); masks: bool [n, H, W] visible pixels; semantic: uint8
    [H, W], 0 = background, 1 + class index elsewhere."""

    image: np.ndarray
    boxes: np.ndarray
    labels: np.ndarray
    masks: np.ndarray
    semantic: np.ndarray

    def tensor(self) -> np.ndarray:
        """float32 [1, 3, H, W] in [0, 1], what the nets take."""
        return (self.image.astype(np.float32) / 255.0).transpose(2, 0, 1)[None].copy()


@functools.cache
def _font(path: str, size: int):  # noqa: ANN202 (PIL's FreeTypeFont)
    from PIL import ImageFont

    return ImageFont.truetype(path, size)


def _coverage(rng: np.random.Generator, label: int, size: int, extent: int) -> np.ndarray:
    """float32 [size, size] coverage (anti-aliased at 4x) of one object of ``extent`` pixels, placed."""
    from PIL import Image, ImageDraw

    scale = 4
    canvas = Image.new("L", (size * scale, size * scale), 0)
    draw = ImageDraw.Draw(canvas)
    cx, cy = rng.uniform(extent / 2, size - extent / 2, 2) * scale
    half = extent * scale / 2
    if CLASSES[label] == "circle":
        ry = half * rng.uniform(0.75, 1.0)
        draw.ellipse((cx - half, cy - ry, cx + half, cy + ry), fill=255)
    elif CLASSES[label] == "rectangle":
        hy = half * rng.uniform(0.5, 1.0)
        draw.rectangle((cx - half, cy - hy, cx + half, cy + hy), fill=255)
    elif CLASSES[label] == "triangle":
        turn = rng.uniform(0, 2 * np.pi)
        points = [(cx + half * np.cos(turn + k * 2 * np.pi / 3), cy + half * np.sin(turn + k * 2 * np.pi / 3))
                  for k in range(3)]
        draw.polygon(points, fill=255)
    else:
        font = _font(FONTS[int(rng.integers(len(FONTS)))], int(extent * scale * 1.1))
        digit = str(int(rng.integers(10)))
        glyph = Image.new("L", canvas.size, 0)
        ImageDraw.Draw(glyph).text((cx, cy), digit, fill=255, font=font, anchor="mm")
        canvas = glyph.rotate(float(rng.uniform(-20, 20)), resample=Image.BILINEAR, center=(cx, cy))
    small = canvas.resize((size, size), Image.BOX)
    return np.asarray(small, np.float32) / 255.0


def render_scene(rng: np.random.Generator, size: int = 256) -> Scene:
    """One scene of ``size`` x ``size`` pixels drawn from ``rng``."""
    colours = palette(rng)
    image = background(rng, size, size, colours)
    count = int(rng.integers(1, 8))
    labels = rng.integers(0, len(CLASSES), count)
    coverages = []
    for label in labels:
        extent = int(rng.uniform(0.10, 0.45) * size)
        coverage = _coverage(rng, int(label), size, extent)
        contrast = rng.uniform(30, 150) * rng.choice([-1.0, 1.0])
        ink = np.clip(colours.background + contrast + rng.uniform(-60, 60, 3), 0, 255)
        shade = 1.0 + _upsampled_field(rng, size, size, 16)[..., None] * rng.uniform(0, 0.15)
        alpha = coverage[..., None]
        image = image * (1.0 - alpha) + ink.astype(np.float32) * shade * alpha
        coverages.append(coverage)
    visible = np.zeros((count, size, size), bool)
    covered = np.zeros((size, size), bool)
    for i in reversed(range(count)):  # later objects lie on top
        solid = coverages[i] >= 0.5
        visible[i] = solid & ~covered
        covered |= solid
    keep = [i for i in range(count) if visible[i].sum() >= MIN_VISIBLE * max((coverages[i] >= 0.5).sum(), 1)
            and visible[i].sum() >= 16]
    boxes = np.zeros((len(keep), 4), np.float32)
    semantic = np.zeros((size, size), np.uint8)
    for row, i in enumerate(keep):
        ys, xs = np.nonzero(visible[i])
        boxes[row] = (xs.min(), ys.min(), xs.max() + 1, ys.max() + 1)
    for i in range(count):  # clutter (too occluded to count) is background in the semantic map too
        if i in keep:
            semantic[visible[i]] = labels[i] + 1
    return Scene(photograph(rng, image, blur_max=1.0), boxes, labels[keep].astype(np.int64), visible[keep],
                 semantic)


def scenes(seed: int, count: int, size: int = 256) -> list[Scene]:
    """``count`` scenes; scene i is drawn from seed (seed, i) alone."""
    return [render_scene(np.random.default_rng((seed, i)), size) for i in range(count)]
