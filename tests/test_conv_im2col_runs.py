"""fp32 im2col convolutions whose output rows are long enough for the run fast path of conv2d.cc
(pixels whose whole window is inside the image copied as one run per output row, with fixed-size
copies for 9- and 21-float window rows: the 3x3 and 7x7 stems on 3 channels), against onnxruntime.

Runs cross the 64-pixel im2col tiles and the batch boundary; left, right, top and bottom pads put
border pixels before, after, above and below the runs; one case has a window-row width (10 floats)
that takes the generic copy. Where the GEMM reads kernel rows in place (AVX2, AVX-512), narrow maps
stay on im2col; output widths of 1, 24 and 72 end on a panel of at most 8 columns.
Tolerance as in test_ops_nn: 1e-4 * max(1, max|expected|).
"""
from __future__ import annotations

import pytest
from test_ops_nn import _randn, check_node

# (N, Cin, H, W, Cout, kernel, attrs)
IM2COL_RUN_CASES = {
    "stem3x3_s2_pad1": (1, 3, 67, 75, 16, (3, 3), dict(strides=[2, 2], pads=[1, 1, 1, 1])),
    "stem3x3_s2_asym_pads_batch2": (2, 3, 31, 44, 8, (3, 3), dict(strides=[2, 2], pads=[0, 2, 1, 3])),
    "stem3x3_s1_no_pad": (1, 3, 20, 70, 5, (3, 3), {}),
    "stem7x7_s2_pad3_batch2": (2, 3, 40, 45, 8, (7, 7), dict(strides=[2, 2], pads=[3, 3, 3, 3])),
    "generic_3x2_c5_stride1x2": (2, 5, 17, 50, 6, (3, 2), dict(strides=[1, 2], pads=[1, 0, 2, 1])),
    # openWakeWord's shapes: kernel rows in place on a 32-wide map, im2col on an 8-wide one (too many
    # partial tiles per row), output widths 24 and 72 (a last panel of 8 columns on AVX2)
    "rows_3x1_c24_w32": (1, 24, 12, 32, 24, (3, 1), {}),
    "narrow_1x3_c48_w8": (1, 48, 9, 8, 72, (1, 3), dict(pads=[0, 1, 0, 1])),
    # a segmentation head: one output channel (a 1-column panel) over kernel rows
    "head3x3_cout1": (1, 8, 13, 45, 1, (3, 3), dict(pads=[1, 1, 1, 1])),
}


@pytest.mark.parametrize("case", list(IM2COL_RUN_CASES))
def test_im2col_run_conv(case: str):
    n, cin, h, w, cout, kernel, attrs = IM2COL_RUN_CASES[case]
    x = _randn(n, cin, h, w, seed=1)
    weight = _randn(cout, cin, *kernel, seed=2)
    bias = _randn(cout, seed=3)
    check_node("Conv", {"x": x}, {"w": weight, "b": bias}, kernel_shape=list(kernel), **attrs)
