"""Fashion-MNIST (Zalando's 70,000 28x28 grey images of 10 clothing classes) from Debian's package
``dataset-fashion-mnist`` (make test installs it), read from its gzipped IDX files.

The official split is kept: 60,000 training images (calibration and training sets are drawn from
them with different seeds, see ``subset``) and 10,000 test images for evaluation.
"""

from __future__ import annotations

import gzip
from pathlib import Path

import numpy as np

FOLDER = Path("/usr/share/datasets/fashion-mnist")
DEBIAN_PACKAGE = "dataset-fashion-mnist"
CLASSES = ("T-shirt/top", "Trouser", "Pullover", "Dress", "Coat", "Sandal", "Shirt", "Sneaker", "Bag",
           "Ankle boot")


def available() -> bool:
    return (FOLDER / "train-images-idx3-ubyte.gz").is_file()


def _idx(path: Path) -> np.ndarray:
    """An IDX array (magic 0x0000 08 ndim, big-endian int32 dims, then unsigned bytes)."""
    with gzip.open(path, "rb") as file:
        data = file.read()
    if data[:2] != b"\0\0" or data[2] != 0x08:
        raise ValueError(f"{path} is not an unsigned-byte IDX file")
    ndim = data[3]
    dims = tuple(int(d) for d in np.frombuffer(data, ">i4", ndim, 4))
    values = np.frombuffer(data, np.uint8, offset=4 + 4 * ndim)
    if values.size != int(np.prod(dims)):
        raise ValueError(f"{path}: {values.size} values for dims {dims}")
    return values.reshape(dims)


def load(split: str) -> tuple[np.ndarray, np.ndarray]:
    """(images uint8 [N, 28, 28], labels int64 [N]) of ``split`` ('train' or 't10k')."""
    images = _idx(FOLDER / f"{split}-images-idx3-ubyte.gz")
    labels = _idx(FOLDER / f"{split}-labels-idx1-ubyte.gz").astype(np.int64)
    return images, labels


def normalized(images: np.ndarray) -> np.ndarray:
    """NCHW float32 in [-1, 1]."""
    return (images.astype(np.float32) / 127.5 - 1.0)[:, None]


def subset(images: np.ndarray, labels: np.ndarray, seed: int, count: int) -> tuple[np.ndarray, np.ndarray]:
    """``count`` samples drawn without replacement by ``seed``: sets from different seeds overlap only
    by chance, so calibration and training sets are drawn from disjoint halves (``half``)."""
    order = np.random.default_rng(seed).permutation(len(images))[:count]
    return images[order], labels[order]


def half(images: np.ndarray, labels: np.ndarray, which: int) -> tuple[np.ndarray, np.ndarray]:
    """The first (0) or second (1) half of the training split: training draws from one, calibration
    from the other, so the two are disjoint whatever their seeds."""
    middle = len(images) // 2
    part = slice(0, middle) if which == 0 else slice(middle, None)
    return images[part], labels[part]
