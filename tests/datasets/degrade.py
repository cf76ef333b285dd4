"""What makes a rendered image look like a photographed or scanned one.

Ink is drawn as a coverage mask (0..1, anti-aliased, possibly rotated) and composited over a
background; then the whole image is blurred, given sensor noise and JPEG-compressed:

* background: a grey level (mostly paper-light, sometimes dark), a colour tint, a low-frequency
  texture (random field at 1/8..1/32 of the size, upsampled), fine grain, an illumination ramp, and
  now and then ruled lines;
* ink: a grey level at a contrast of 35..200 levels from the background, darker (most lines) or
  lighter (light text on a dark background), with its own tint;
* blur: Gaussian, radius 0..1.3 px; noise: Gaussian, sigma 0..10 levels; JPEG quality 25..95 on
  half of the images.

Every draw comes from the caller's numpy Generator, so an image is a function of its seed.
"""

from __future__ import annotations

import dataclasses
import io

import numpy as np


@dataclasses.dataclass(frozen=True)
class Palette:
    """Background and ink colours of one image (RGB, 0..255)."""

    background: np.ndarray
    ink: np.ndarray


def palette(rng: np.random.Generator) -> Palette:
    """A background grey and tint, and an ink colour at a random contrast from it."""
    dark_background = rng.random() < 0.15
    level = rng.uniform(30, 110) if dark_background else rng.uniform(140, 255)
    tint = rng.uniform(-18, 18, 3)
    background = np.clip(level + tint, 0, 255)
    contrast = rng.uniform(35, 200)
    ink_level = level + contrast if dark_background else level - contrast
    ink = np.clip(ink_level + rng.uniform(-15, 15, 3), 0, 255)
    return Palette(background, ink)


def _upsampled_field(rng: np.random.Generator, height: int, width: int, cell: int) -> np.ndarray:
    """A smooth random field in about [-1, 1] with features of ``cell`` pixels."""
    from PIL import Image

    small = rng.standard_normal((max(2, height // cell + 2), max(2, width // cell + 2))).astype(np.float32)
    image = Image.fromarray(small, mode="F").resize((width + 2 * cell, height + 2 * cell), Image.BICUBIC)
    return np.asarray(image)[cell:cell + height, cell:cell + width] / 1.5


def background(rng: np.random.Generator, height: int, width: int, colours: Palette) -> np.ndarray:
    """float32 [H, W, 3] background: grey + tint + texture + grain + illumination (+ ruled lines)."""
    image = np.broadcast_to(colours.background.astype(np.float32), (height, width, 3)).copy()
    texture = _upsampled_field(rng, height, width, int(rng.integers(8, 33))) * rng.uniform(0, 22)
    grain = rng.standard_normal((height, width)).astype(np.float32) * rng.uniform(0, 6)
    ys, xs = np.mgrid[0:height, 0:width].astype(np.float32)
    angle = rng.uniform(0, 2 * np.pi)
    ramp = (np.cos(angle) * xs / max(width, 1) + np.sin(angle) * ys / max(height, 1)) * rng.uniform(-40, 40)
    image += (texture + grain + ramp)[..., None]
    if rng.random() < 0.1:  # ruled paper / a table border
        step = int(rng.integers(12, 40))
        rule = colours.background * 0.75 + colours.ink * 0.25
        image[int(rng.integers(0, step))::step, :, :] = rule
    return image


def composite(base: np.ndarray, coverage: np.ndarray, ink: np.ndarray) -> np.ndarray:
    """``base`` with ``ink`` laid over it where ``coverage`` (0..1, [H, W]) says."""
    alpha = coverage[..., None].astype(np.float32)
    return base * (1.0 - alpha) + ink.astype(np.float32) * alpha


def photograph(rng: np.random.Generator, image: np.ndarray, blur_max: float = 1.3) -> np.ndarray:
    """uint8 [H, W, 3] after blur, sensor noise and (half of the time) JPEG compression."""
    from PIL import Image, ImageFilter

    pixels = Image.fromarray(np.clip(image, 0, 255).astype(np.uint8))
    radius = rng.uniform(0, blur_max)
    if radius > 0.2:
        pixels = pixels.filter(ImageFilter.GaussianBlur(radius))
    noise = rng.standard_normal(image.shape).astype(np.float32) * rng.uniform(0, 10)
    noisy = np.asarray(pixels, np.float32) + noise
    pixels = Image.fromarray(np.clip(np.rint(noisy), 0, 255).astype(np.uint8))
    if rng.random() < 0.5:
        buffer = io.BytesIO()
        pixels.save(buffer, format="JPEG", quality=int(rng.integers(25, 96)))
        pixels = Image.open(io.BytesIO(buffer.getvalue())).convert("RGB")
    return np.asarray(pixels)
