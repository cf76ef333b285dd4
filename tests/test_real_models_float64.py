"""The real models of tests/test_real_models.py against a float64 evaluation of the same ONNX file.

Agreement with onnxruntime does not say which of the two fp32 engines is more accurate. Evaluated in
float64 (tests/models/float64_reference.py), the same graph gives each engine's own error. The bound
is on the distribution of |error| over every output element of three inputs per model: its rms and
99.9% quantile at most twice onnxruntime's, its maximum at most four times (a det map's maximum is
one steep-sigmoid pixel, which any change of summation order redraws: docs/ACCURACY.md has the
measurements over 20 inputs per model, benchmarks/float64_error_distribution.py). Not in the ASan
run: accuracy is a property of the arithmetic, which the sanitizers do not change, and the float64
evaluation costs ~55 s of CPU.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from lite_converter.app.demo import ocr_input
from lite_converter.convert import convert_onnx
from runtime_arm import Interpreter
from tests.datasets.photos import photograph_crop
from tests.models import ARCHITECTURES
from tests.models.float64_reference import assert_float64_bound

OCR_INPUT = "x"
INPUTS = 3

# A cheap subset (float64 evaluation costs seconds per input): the CNNs with the most layers of each
# kind (depthwise + 1x1, 3x3 + residual, squeeze-excitation + HardSwish) and the three OCR models.
# MobileNetV2 and MobileNetV3-small were over the bound (rms 2.36x and 1.98x onnxruntime's over 20
# photo crops) while the GEMM summed k in one chain from the bias; the k blocks of f32_gemm_packed.h
# brought them to 0.90x and 0.82x (docs/ACCURACY.md).
FLOAT64_CNNS = ["mobilenet_v2", "resnet18", "mobilenet_v3_small"]

@pytest.mark.parametrize("name", FLOAT64_CNNS)
def test_torch_cnn_float64_within_twice_onnxruntime(name: str, torch_export: Callable[[str], Path]):
    arch = ARCHITECTURES[name]
    path = torch_export(name)
    interpreter = Interpreter(model_content=convert_onnx(path), threads=1)
    feeds = [{"input": photograph_crop(index, arch.input_shape[-1])} for index in range(INPUTS)]
    assert_float64_bound([(feed, interpreter.run(feed)) for feed in feeds], path, name)


# Pages and lines of several sizes (det's float64 evaluation grows with the page: 320x320 ~5 s).
OCR_SHAPES = {"det": [(1, 3, 160, 160), (1, 3, 224, 320), (1, 3, 320, 320)],
              "rec": [(1, 3, 48, 160), (1, 3, 48, 320), (1, 3, 48, 480)],
              "cls": [(1, 3, 48, 192)] * INPUTS}


@pytest.mark.parametrize("key", list(OCR_SHAPES))
def test_ppocr_float64_within_twice_onnxruntime(key: str, paddleocr: dict[str, Path],
                                                paddleocr_lite: Callable[[str], bytes]):
    interpreter = Interpreter(model_content=paddleocr_lite(key), threads=1)
    feeds = [{OCR_INPUT: ocr_input(key, shape, seed=2 + index)[0]}
             for index, shape in enumerate(OCR_SHAPES[key])]
    assert_float64_bound([(feed, interpreter.run(feed)) for feed in feeds], paddleocr[key], key)
