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
