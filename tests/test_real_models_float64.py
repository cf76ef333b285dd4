"""The real models of tests/test_real_models.py against a float64 evaluation of the same ONNX file.

Agreement with onnxruntime does not say which of the two fp32 engines is more accurate. Evaluated in
float64 (tests/models/float64_reference.py), the same graph gives each engine's own error, and ours
must be at most twice onnxruntime's on the same input (both figures in the failure message;
docs/ACCURACY.md has the measurements). Not in the ASan run: accuracy is a property of the
arithmetic, which the sanitizers do not change, and the float64 evaluation costs ~30 s.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from lite_converter.app.demo import ocr_input
from lite_converter.convert import convert_onnx
from runtime_arm import Interpreter
from tests.datasets.photos import photograph
from tests.models import ARCHITECTURES
from tests.models.float64_reference import assert_float64_bound

OCR_INPUT = "x"

# A cheap subset (float64 evaluation costs seconds per model): the CNNs with the most layers of each
# kind (depthwise + 1x1, 3x3 + residual, squeeze-excitation + HardSwish) and the three OCR models.
# MobileNetV2 is over the bound today: 5.2e-7 against onnxruntime's 1.95e-7 on its logits (2.68x).
# Its 1x1 convolutions start each GEMM accumulator at the BatchNorm-folded bias. Bias-last brings it to
# 0.94x but makes PP-OCRv4 det worse on other pages (docs/ACCURACY.md), so it stays a known failure.
# strict: whichever change fixes it must also update this list.
FLOAT64_CNNS = [
    pytest.param("mobilenet_v2", marks=pytest.mark.xfail(
        strict=True, reason="2.68x onnxruntime's error against float64 (docs/ACCURACY.md)")),
    "resnet18", "mobilenet_v3_small"]


@pytest.mark.parametrize("name", FLOAT64_CNNS)
def test_torch_cnn_float64_within_twice_onnxruntime(name: str, torch_export: Callable[[str], Path]):
    arch = ARCHITECTURES[name]
    path = torch_export(name)
    feeds = {"input": photograph(arch.input_shape)}
    ours = Interpreter(model_content=convert_onnx(path), threads=1).run(feeds)
    assert_float64_bound(ours, path, feeds, name)


# det at 320x320: a page whose text map has both saturated and steep pixels, at a fifth of the cost
# of 640x640 in float64.
@pytest.mark.parametrize(("key", "shape"), [("det", (1, 3, 320, 320)), ("rec", (1, 3, 48, 320)),
                                            ("cls", (1, 3, 48, 192))])
def test_ppocr_float64_within_twice_onnxruntime(key: str, shape: tuple[int, ...], paddleocr: dict[str, Path],
                                                paddleocr_lite: Callable[[str], bytes]):
    image, _ = ocr_input(key, shape, seed=2)
    feeds = {OCR_INPUT: image}
    ours = Interpreter(model_content=paddleocr_lite(key), threads=1).run(feeds)
    assert_float64_bound(ours, paddleocr[key], feeds, f"{key} {shape}")
