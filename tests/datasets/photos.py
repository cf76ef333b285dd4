"""Photographs for the ImageNet-shaped CNNs: scikit-learn's two bundled sample photos (china.jpg,
flower.jpg, 427x640 RGB), centre-cropped, resized and normalized the way ImageNet models are fed.

Real images rather than noise: a photo's pixels are correlated across space and channels the way a
network's first layers expect, so activations spread over the ranges they were built for.
"""

from __future__ import annotations

import numpy as np

IMAGENET_MEAN = np.array([0.485, 0.456, 0.406], np.float32)
IMAGENET_STD = np.array([0.229, 0.224, 0.225], np.float32)
PHOTOS = ("flower.jpg", "china.jpg")


def photograph(shape: tuple[int, ...], name: str = "flower.jpg") -> np.ndarray:
    """NCHW float32 [N, 3, H, W] of ``shape``: the photo centre-cropped to a square, resized (bilinear),
    ImageNet-normalized; the N images of the batch are the bundled photos in turn."""
    from PIL import Image
    from sklearn.datasets import load_sample_image

    batch, _, height, width = shape
    order = [name, *(p for p in PHOTOS if p != name)]
    images = []
    for index in range(batch):
        pixels = load_sample_image(order[index % len(order)])
        rows, cols = pixels.shape[:2]
        side = min(rows, cols)
        top, left = (rows - side) // 2, (cols - side) // 2
        square = Image.fromarray(pixels[top:top + side, left:left + side])
        resized = np.asarray(square.resize((width, height), Image.BILINEAR), np.float32) / 255.0
        images.append(((resized - IMAGENET_MEAN) / IMAGENET_STD).transpose(2, 0, 1))
    return np.ascontiguousarray(np.stack(images), dtype=np.float32)


def photograph_crop(index: int, size: int = 224) -> np.ndarray:
    """[1, 3, size, size] input number ``index``: a seeded random square crop (40-100% of the short
    side) of one of the two photos in turn, mirrored half the time, resized and normalized as above:
    many distinct real images from two files (error statistics over many inputs)."""
    from PIL import Image
    from sklearn.datasets import load_sample_image

    rng = np.random.default_rng(1000 + index)
    pixels = load_sample_image(PHOTOS[index % len(PHOTOS)])
    rows, cols = pixels.shape[:2]
    side = int(min(rows, cols) * rng.uniform(0.4, 1.0))
    top, left = int(rng.integers(0, rows - side + 1)), int(rng.integers(0, cols - side + 1))
    crop = pixels[top:top + side, left:left + side]
    if rng.random() < 0.5:
        crop = crop[:, ::-1]
    resized = np.asarray(Image.fromarray(np.ascontiguousarray(crop)).resize((size, size), Image.BILINEAR),
                         np.float32) / 255.0
    return np.ascontiguousarray(((resized - IMAGENET_MEAN) / IMAGENET_STD).transpose(2, 0, 1)[None])


def photographed_page(height: int, width: int, index: int) -> np.ndarray:
    """[1, 3, height, width] det input number ``index``: a rendered page of text as a camera sees it,
    on paper tinted and textured by a photo crop (a quarter of each pixel's value) with sensor noise
    (sigma 2 levels), quantized to uint8, normalized as PP-OCR det expects.

    Why beside the clean rendered page: its exact-white background makes every pixel of a flat
    region compute the same sums, so (likely) the rounding error of a region is one draw shared by
    every page, and the error statistics of many clean pages are a few draws that any change of
    summation order redraws. Texture and noise give each pixel its own rounding, as a photographed
    document does (docs/ACCURACY.md)."""
    from PIL import Image

    from lite_converter.app.demo import DET_MEAN, DET_STD, render_page

    rng = np.random.default_rng(2000 + index)
    page, _ = render_page(height, width, rng)
    texture = photograph_crop(index, max(height, width))[0].transpose(1, 2, 0) * IMAGENET_STD + IMAGENET_MEAN
    texture = Image.fromarray(np.uint8(np.clip(texture, 0.0, 1.0) * 255.0)).resize((width, height))
    texture = np.asarray(texture, np.float32)
    pixels = 0.75 * page.astype(np.float32) + 0.25 * texture + rng.normal(0.0, 2.0, page.shape)
    camera = np.clip(np.rint(pixels), 0.0, 255.0).astype(np.float32) / 255.0
    return np.ascontiguousarray(((camera - DET_MEAN) / DET_STD).transpose(2, 0, 1)[None], dtype=np.float32)
