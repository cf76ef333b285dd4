"""fp32 convolutions whose packed weight is larger than L2 (> 512 KiB: conv2d.cc's im2col_block_gemm),
against onnxruntime and across thread counts.

These run im2col on the pool into one shared block of pixels and then the tiled GEMM over the block,
instead of per-task im2col tiles. The cases are not Winograd's (stride 2, dilation, 5x5 kernels) and
have more pixels than one block (~1 MiB of im2col: 227 pixels at k = 1152), so several blocks, a
partial last one and the batch boundary are crossed; one case fuses a Relu into the GEMM's store.
Tolerance as in test_ops_nn: 1e-4 * max(1, max|expected|). 1, 2 and 4 threads must give the same bytes.
"""
from __future__ import annotations

import numpy as np
import pytest
from onnx import TensorProto, helper
from test_ops_nn import _randn, assert_close, make_model, run_onnxruntime

from lite_converter.convert import convert_onnx
from runtime_arm import Interpreter

# (N, Cin, H, W, Cout, kernel, attrs, relu): packed weights 1.2 MB, 0.66 MB, 0.82 MB, 2.4 MB
CASES = {
    "3x3_s2_128to256_batch2": (2, 128, 30, 31, 256, (3, 3), dict(strides=[2, 2], pads=[1, 0, 2, 1]), False),
    "3x3_dilation2_96to192_relu": (1, 96, 17, 19, 192, (3, 3), dict(dilations=[2, 2], pads=[2] * 4), True),
    "5x5_64to128": (1, 64, 21, 23, 128, (5, 5), dict(pads=[2, 1, 2, 3]), False),
    "3x3_s2_256to512_7x7_out": (1, 256, 14, 14, 512, (3, 3), dict(strides=[2, 2], pads=[1, 1, 1, 1]), True),
}


def _model(case: str):
    n, cin, h, w, cout, kernel, attrs, relu = CASES[case]
    feeds = {"x": _randn(n, cin, h, w, seed=1)}
    constants = {"w": _randn(cout, cin, *kernel, seed=2) * np.float32(0.05), "b": _randn(cout, seed=3)}
    conv_out = "c" if relu else "y"
    nodes = [helper.make_node("Conv", ["x", "w", "b"], [conv_out], kernel_shape=list(kernel), **attrs)]
    if relu:
        nodes.append(helper.make_node("Relu", ["c"], ["y"]))
    return make_model(nodes, feeds, {"y": TensorProto.FLOAT}, constants), feeds


@pytest.mark.parametrize("case", list(CASES))
def test_weight_heavy_conv_matches_onnxruntime_at_any_thread_count(case: str):
    model, feeds = _model(case)
    expected = run_onnxruntime(model, feeds)["y"]
    data = convert_onnx(model)
    runs = {t: Interpreter(model_content=data, threads=t).run(feeds)["y"] for t in (1, 2, 4)}
    assert_close(f"{case} (1 thread)", runs[1], expected)
    for threads in (2, 4):
        assert np.array_equal(runs[threads], runs[1]), f"{case}: {threads} threads differ from 1 thread"
