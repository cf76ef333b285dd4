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
    """What a peer is asked to run: the source model (an ONNX, or a .tflite that only LiteRT reads), the
    inputs (in the source model's layout), the thread count, a scratch directory for converted model
    files, and our converted .lite (the source of the .tflite for LiteRT when there is none)."""

    onnx_path: Path | None
    feeds: dict[str, np.ndarray]
    threads: int
    workdir: Path
    lite_path: Path | None = None
    tflite_path: Path | None = None


def source_onnx(request: PeerRequest) -> Path:
    """The ONNX a converting peer starts from; a .tflite source has none to give it."""
    if request.onnx_path is None:
        raise PeerUnavailable("needs an ONNX model (the source is a .tflite: only LiteRT runs it)")
    return request.onnx_path


class PeerSession(Protocol):
    """A loaded model: ``run()`` copies the inputs in, infers once and reads the outputs back."""

    def run(self) -> dict[str, np.ndarray]: ...
