"""Fashion-MNIST from Debian's ``dataset-fashion-mnist`` package (IDX files, gzip), as numpy arrays.

The package installs the original files under /usr/share/datasets/fashion-mnist/; ``make test``
installs it. Images come back as float32 [N, 1, 28, 28] in [0, 1], labels as int64.
"""

from __future__ import annotations

import gzip
from pathlib import Path

import numpy as np

DIRECTORY = Path("/usr/share/datasets/fashion-mnist")
FILES = {
    "train": ("train-images-idx3-ubyte.gz", "train-labels-idx1-ubyte.gz"),
    "test": ("t10k-images-idx3-ubyte.gz", "t10k-labels-idx1-ubyte.gz"),
}
CLASSES = ("T-shirt/top", "Trouser", "Pullover", "Dress", "Coat", "Sandal", "Shirt", "Sneaker", "Bag",
           "Ankle boot")


def available() -> bool:
    return all((DIRECTORY / name).is_file() for pair in FILES.values() for name in pair)


def _idx(path: Path) -> np.ndarray:
    """An IDX array: magic (0, 0, dtype 0x08 = ubyte, rank), big-endian dims, then the bytes."""
    with gzip.open(path, "rb") as stream:
        raw = stream.read()
    if raw[:3] != b"\x00\x00\x08":
        raise ValueError(f"{path}: not an unsigned-byte IDX file")
    rank = raw[3]
    dims = [int.from_bytes(raw[4 + 4 * i: 8 + 4 * i], "big") for i in range(rank)]
    data = np.frombuffer(raw, np.uint8, offset=4 + 4 * rank)
    if data.size != int(np.prod(dims)):
        raise ValueError(f"{path}: {data.size} bytes for dims {dims}")
    return data.reshape(dims)


def load(split: str) -> tuple[np.ndarray, np.ndarray]:
    """(images [N, 1, 28, 28] float32 in [0, 1], labels [N] int64) of ``split`` ("train", "test")."""
    images, labels = (_idx(DIRECTORY / name) for name in FILES[split])
    return (images.astype(np.float32) / 255.0)[:, None], labels.astype(np.int64)
