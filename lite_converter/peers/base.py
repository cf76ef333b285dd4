"""What every peer runtime offers `lite bench`: open a model, run it once per call."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Protocol

import numpy as np


class PeerUnavailable(Exception):
    """The peer is not installed or cannot load this model; the message says which and why."""


@dataclasses.dataclass(frozen=True)
class PeerRequest:
    """What a peer is asked to run: the source ONNX, the inputs (NCHW, as the ONNX model takes them),
    the thread count, a scratch directory for converted model files, and our converted .lite
    (the source of the .tflite for LiteRT)."""

    onnx_path: Path
    feeds: dict[str, np.ndarray]
    threads: int
    workdir: Path
    lite_path: Path | None = None


class PeerSession(Protocol):
    """A loaded model: ``run()`` copies the inputs in, infers once and reads the outputs back."""

    def run(self) -> dict[str, np.ndarray]: ...
