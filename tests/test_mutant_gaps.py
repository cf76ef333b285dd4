"""Tests written for mutants of tests/mutants/mutants.toml that the rest of the suite let survive.

Each test names the mutant it kills. Oracles: onnxruntime on the same ONNX model (attribute defaults,
normalization of nearly constant rows) and exact rational arithmetic (where an activation's int8 grid
starts and ends).
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from onnx import TensorProto, helper

from lite_converter.int8.params import activation_params
from tests.test_ops_nn import _randn, check, check_node, make_model


@pytest.mark.parametrize("activation", ["LeakyRelu", "HardSigmoid"])
def test_fused_activation_takes_onnx_default_attributes(activation: str):
    """Conv followed by an activation given without its attributes: the fused activation must use
    ONNX's defaults (LeakyRelu alpha 0.01; HardSigmoid alpha 0.2, beta 0.5). Kills
    ``pass-fuse-leaky-relu-default-alpha``; every other fusion test spells the attributes out."""
    constants = {"w": _randn(6, 4, 3, 3, seed=1), "b": _randn(6, seed=2)}
    nodes = [helper.make_node("Conv", ["x", "w", "b"], ["c"], pads=[1, 1, 1, 1]),
             helper.make_node(activation, ["c"], ["y"])]
    feeds = {"x": _randn(1, 4, 6, 7) * 3}
    check(make_model(nodes, feeds, {"y": TensorProto.FLOAT}, constants), feeds)


def test_layer_norm_of_nearly_constant_rows_uses_epsilon():
    """Rows whose variance (~1e-8) is far below epsilon (1e-5): the output is (x - mean) / sqrt(var +
    eps), about 0.03 in size, and ignoring epsilon makes it ~1. Kills
    ``runtime-layer-norm-epsilon-ignored`` (the other LayerNorm tests have var >> eps)."""
    x = (1.0 + 1e-4 * _randn(3, 4, 16)).astype(np.float32)
    check_node("LayerNormalization", {"x": x}, {"scale": _randn(16, seed=1)}, axis=-1, epsilon=1e-5)


def test_activation_range_ends_lie_within_half_a_step_of_the_calibrated_range():
    """``activation_params``: the int8 grid's ends ``s * (-128 - zp)`` and ``s * (127 - zp)`` are within
    half a step of the calibrated low / high (the zero point is rounded, not floored), computed in exact
    rationals. Kills ``int8-activation-zero-point-floor``: the int8 arithmetic is self-consistent with
    any zero point, so only the range it covers shows the fault."""
    rng = np.random.default_rng(20)
    for _ in range(500):
        low, high = -float(rng.uniform(0.01, 10)), float(rng.uniform(0.01, 10))
        quant = activation_params(low, high)
        scale, zero_point = Fraction(float(quant.scale[0])), int(quant.zero_point[0])
        if not -128 < zero_point < 127:  # a one-sided range pinned at a grid end
            continue
        case = (low, high, zero_point)
        assert abs(scale * (-128 - zero_point) - Fraction(low)) <= scale / 2, case
        assert abs(scale * (127 - zero_point) - Fraction(high)) <= scale / 2 + scale / 1000, case
