"""CONV_TRANSPOSE_2D's GEMM path (runtime_arm/src/ops/conv_transpose2d_gemm.cc) against onnxruntime.

tests/test_ops_nn.py covers the op's attribute space; these cases aim at the two GEMM forms and
their edges: the non-overlapping form (kernel == stride) that writes output rows directly, with
output padding (pixels and rows no input reaches), a top crop, a left crop (which must leave the
direct form), the 24 -> 1 channel head of PP-OCR's DB detector, fused activations, and the general
(overlapping) form with dilation. Threads must not change a single bit.
"""

from __future__ import annotations

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper

from tests.test_ops_nn import _randn, check, make_model

# (N, Cin, H, W, Cout, kernel, attrs)
CASES = {
    "db_head_24_to_1": (1, 24, 9, 11, 1, (2, 2), dict(strides=[2, 2])),
    "k2s2_output_padding": (1, 6, 5, 4, 5, (2, 2), dict(strides=[2, 2], output_padding=[1, 1])),
    "k2s2_top_crop": (1, 5, 4, 6, 3, (2, 2), dict(strides=[2, 2], pads=[1, 0, 1, 0])),
    "k2s2_left_crop": (1, 5, 4, 6, 3, (2, 2), dict(strides=[2, 2], pads=[0, 1, 0, 1])),
    "k3x2_s3x2": (2, 7, 3, 5, 17, (3, 2), dict(strides=[3, 2])),
    "k4s2_p1_overlap": (1, 9, 6, 7, 20, (4, 4), dict(strides=[2, 2], pads=[1, 1, 1, 1])),
    "k3s1_dilation2": (1, 4, 5, 6, 3, (3, 3), dict(dilations=[2, 2], pads=[1, 2, 0, 1])),
    "k1s1": (1, 33, 4, 5, 9, (1, 1), {}),
}


def conv_transpose_model(spec: tuple, with_bias: bool, activation: str | None,
                         seed: int = 1) -> tuple[onnx.ModelProto, dict]:
    """A ConvTranspose (+ activation) of spec (N, Cin, H, W, Cout, kernel, attrs): weights from
    ``seed``, the bias from ``seed + 1``."""
    n, cin, h, w, cout, (kh, kw), attrs = spec
    feeds = {"x": _randn(n, cin, h, w)}
    constants = {"w": _randn(cin, cout, kh, kw, seed=seed)}
    if with_bias:
        constants["b"] = _randn(cout, seed=seed + 1)
    conv_out = "t" if activation else "y"
    nodes = [helper.make_node("ConvTranspose", ["x", *constants], [conv_out], **attrs)]
    if activation:
        nodes.append(helper.make_node(activation, ["t"], ["y"]))
    return make_model(nodes, feeds, {"y": TensorProto.FLOAT}, constants), feeds


def _conv_transpose_model(case: str, with_bias: bool, activation: str | None) -> tuple[onnx.ModelProto, dict]:
    return conv_transpose_model(CASES[case], with_bias, activation)


@pytest.mark.parametrize("case", list(CASES))
@pytest.mark.parametrize("with_bias", [True, False])
def test_conv_transpose_gemm(case: str, with_bias: bool):
    model, feeds = _conv_transpose_model(case, with_bias, None)
    check(model, feeds)


@pytest.mark.parametrize("case", ["db_head_24_to_1", "k2s2_output_padding", "k4s2_p1_overlap"])
@pytest.mark.parametrize("activation", ["Relu", "Sigmoid"])
def test_conv_transpose_gemm_with_activation(case: str, activation: str):
    model, feeds = _conv_transpose_model(case, True, activation)
    check(model, feeds)


@pytest.mark.parametrize("case", ["k2s2_output_padding", "k4s2_p1_overlap"])
def test_conv_transpose_gemm_bit_identical_across_threads(case: str):
    from lite_converter.convert import convert_onnx
    from runtime_arm import Interpreter

    model, feeds = _conv_transpose_model(case, True, "Relu")
    data = convert_onnx(model)
    runs = [Interpreter(model_content=data, threads=t).run(feeds)["y"] for t in (1, 2, 4)]
    assert np.array_equal(runs[0], runs[1]) and np.array_equal(runs[0], runs[2])
    check(model, feeds)
