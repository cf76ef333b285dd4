"""Pooling over many channels against onnxruntime: global average pool sums blocks of 16 channels in
registers (kernels_neon/ref/f32_pool2d_nhwc_ref.c), so channel counts give full blocks and a tail
(37 = 16 + 16 + 5), exactly one block, and fewer than one; max pool runs the same counts (its
vectorized channel loop has the same full-vector / tail split). tests/test_ops_nn.py's pooling
cases use 3 to 5 channels.
"""

from __future__ import annotations

import pytest

from tests.test_ops_nn import _randn, check_node


@pytest.mark.parametrize("channels", [37, 16, 7])
@pytest.mark.parametrize("attrs", [
    dict(kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1]),
    dict(kernel_shape=[2, 3], strides=[1, 2], pads=[0, 1, 1, 0], ceil_mode=1),
], ids=["3x3_s2_p1", "2x3_ceil"])
def test_max_pool_channel_blocks(channels: int, attrs: dict):
    check_node("MaxPool", {"x": _randn(2, channels, 9, 8)}, **attrs)


@pytest.mark.parametrize("channels", [37, 16, 7])
def test_global_average_pool_channel_blocks(channels: int):
    check_node("GlobalAveragePool", {"x": _randn(2, channels, 7, 6)})
