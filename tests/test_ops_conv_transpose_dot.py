"""CONV_TRANSPOSE_2D's dot-product path (kernels_neon/include/lite_kernels/f32_conv_transpose2d_dot.h,
chosen in runtime_arm/src/ops/conv_transpose2d.cc) against onnxruntime.

The path serves kernel == stride with at most 4 output values per input pixel (kernel_h * kernel_w
* out_channels <= 4), like PP-OCR's DB head (24 -> 1 channel, 2x2 stride 2, then Sigmoid). These
cases cover every such count (1..4 outputs per pixel), input channel counts on both sides of the
16-channel vector block, a batch of 2, the fused Sigmoid / Relu, and the neighbours it must leave
to the GEMM path (5 outputs per pixel, output padding). Threads must not change a single bit.
On a CPU without AVX-512 the GEMM path runs the same cases (still checked against onnxruntime).
"""

from __future__ import annotations

import numpy as np
import onnx
import pytest

from tests.test_ops_conv_transpose_gemm import conv_transpose_model
from tests.test_ops_nn import check

# (N, Cin, H, W, Cout, kernel, attrs)
CASES = {
    "db_head_k2_co1_c24": (1, 24, 7, 9, 1, (2, 2), dict(strides=[2, 2])),
    "k2x1_co2_c17": (2, 17, 4, 5, 2, (2, 1), dict(strides=[2, 1])),
    "k1x1_co3_c33": (1, 33, 3, 6, 3, (1, 1), {}),
    "k1x2_co2_c16": (1, 16, 5, 3, 2, (1, 2), dict(strides=[1, 2])),
    "k2_co1_c3": (1, 3, 6, 4, 1, (2, 2), dict(strides=[2, 2])),
    "k1_co4_c64": (1, 64, 2, 3, 4, (1, 1), {}),
    "gemm_k1x5_co1": (1, 24, 3, 4, 1, (1, 5), dict(strides=[1, 5])),
    "gemm_output_padding": (1, 24, 3, 4, 1, (2, 2), dict(strides=[2, 2], output_padding=[1, 1])),
}


def _model(case: str, with_bias: bool, activation: str | None) -> tuple[onnx.ModelProto, dict]:
    return conv_transpose_model(CASES[case], with_bias, activation, seed=3)


@pytest.mark.parametrize("case", list(CASES))
@pytest.mark.parametrize("with_bias", [True, False])
def test_conv_transpose_dot(case: str, with_bias: bool):
    model, feeds = _model(case, with_bias, None)
    check(model, feeds)


@pytest.mark.parametrize("activation", ["Sigmoid", "Relu"])
def test_conv_transpose_dot_fused_activation(activation: str):
    model, feeds = _model("db_head_k2_co1_c24", True, activation)
    check(model, feeds)


def test_conv_transpose_dot_bit_identical_across_threads():
    from lite_converter.convert import convert_onnx
    from runtime_arm import Interpreter

    model, feeds = _model("k2x1_co2_c17", True, "Sigmoid")
    data = convert_onnx(model)
    runs = [Interpreter(model_content=data, threads=t).run(feeds)["y"] for t in (1, 2, 4)]
    assert np.array_equal(runs[0], runs[1]) and np.array_equal(runs[0], runs[2])
