"""What every peer runtime offers `lite bench`: open a model, run it once per call."""

from __future__ import annotations

import dataclasses
import os
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


# The ncnn and MNN wheels each bring their own GNU OpenMP runtime, whose idle workers spin 300,000
# rounds after every parallel region by default, i.e. on past the end of a run: at 2 threads the
# next runtime of an interleaved benchmark runs on a busy core (measured, ResNet-18: ours 13.0 ms
# right after ncnn, 11.0 ms after itself). 10,000 rounds still cover the waits inside a run (ncnn
# 18.4-18.7 ms either way; 1,000 rounds: 20.2 ms, 0: 23.8 ms) and end the spinning soon after it
# (ours after ncnn 11.6 ms). libgomp reads it when it is loaded; a value the user set is kept.
OPENMP_SPIN_ROUNDS = "10000"


def set_openmp_spin() -> None:
    """Before a wheel that brings libgomp is imported: a shorter idle spin unless the user set one."""
    os.environ.setdefault("GOMP_SPINCOUNT", OPENMP_SPIN_ROUNDS)


def source_onnx(request: PeerRequest) -> Path:
    """The ONNX a converting peer starts from; a .tflite source has none to give it."""
    if request.onnx_path is None:
        raise PeerUnavailable("needs an ONNX model (the source is a .tflite: only LiteRT runs it)")
    return request.onnx_path


class PeerSession(Protocol):
    """A loaded model: ``run()`` copies the inputs in, infers once and reads the outputs back."""

    def run(self) -> dict[str, np.ndarray]: ...
