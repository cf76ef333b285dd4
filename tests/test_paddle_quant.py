"""A Paddle-quantized model (paddle.quantization PTQ: quantize_linear / dequantize_linear) imports as int8.

The network (tests/paddle_nets.py QuantTarget: convolutions, a depthwise one, a residual add, an
FC, and a quantizer on the logits so the output lies on an int8 grid) is calibrated and converted
by Paddle and exported. Our .lite must run its convolutions / FC in int8 with the model's own
scales, and its output must be within one step of the output grid (1 LSB) of Paddle inference's
on >= 99% of the values. Paddle 3.3.1's inference cannot run the PIR export of that model (a
quantize_linear kernel error, plain and optimized), so the PIR file must give the very bytes the
ProgramDesc file gives.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from lite_converter import reader
from lite_converter.convert import convert_paddle
from runtime_arm import Interpreter
from tests.paddle_fixtures import export_fixtures, export_report
from tests.paddle_op_cases import QUANT_CASES
from tests.paddle_oracle import paddle_available

CASE = QUANT_CASES[0]


@pytest.fixture(scope="module")
def root() -> Path:
    if not paddle_available():
        pytest.skip("paddlepaddle is not installed (`make test` installs it into .venv)")
    return export_fixtures()


def _int8_ops(data: bytes) -> list[str]:
    model = reader.read_model(data)
    tensors = model.tensors
    return [
        op.opcode
        for op in model.operators
        if op.opcode in ("CONV_2D", "FULLY_CONNECTED") and tensors[op.inputs[0]].dtype == "INT8"
    ]


def test_paddle_ptq_model_is_int8_within_one_step_of_paddle_inference(root: Path):
    directory = root / "legacy" / CASE.name
    assert export_report(root, "legacy")[CASE.name] == "ok"
    data = convert_paddle(directory)
    assert len(_int8_ops(data)) >= 3, "the quantized convolutions / FC did not become int8 ops"
    inputs = dict(np.load(directory / "inputs.npz"))
    ((name, reference),) = dict(np.load(directory / "reference.npz")).items()
    ours = Interpreter(model_content=data, threads=1).run(inputs)[name]
    steps = np.unique(np.round(np.abs(np.diff(np.unique(reference))), 7))
    step = float(steps[steps > 0].min())  # the output quantizer's step, read off Paddle's own output
    within = np.abs(ours - reference) <= step * 1.001
    assert within.mean() >= 0.99, f"{within.mean():.2%} of outputs within 1 LSB ({step:.4g})"


def test_paddle_ptq_model_pir_export_converts_to_the_same_bytes(root: Path):
    legacy = convert_paddle(root / "legacy" / CASE.name)
    pir = convert_paddle(root / "pir" / CASE.name)
    inputs = dict(np.load(root / "legacy" / CASE.name / "inputs.npz"))
    ours_legacy = Interpreter(model_content=legacy, threads=1).run(inputs)
    ours_pir = Interpreter(model_content=pir, threads=1).run(inputs)
    assert len(_int8_ops(pir)) == len(_int8_ops(legacy))
    for a, b in zip(ours_legacy.values(), ours_pir.values(), strict=True):
        np.testing.assert_array_equal(a, b)
