"""Tests written for mutants of tests/mutants/mutants.toml that the rest of the suite let survive.

Each test names the mutant it kills. Oracles: onnxruntime on the same ONNX model (attribute defaults,
normalization of nearly constant rows) and exact rational arithmetic (where an activation's int8 grid
starts and ends).
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from onnx import TensorProto, helper, numpy_helper

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


@pytest.mark.parametrize("low, high, scale, zero_point", [
    (0.5, 3.0, np.float32(3.0 / 255), -128),  # all positive: widened down to 0, which is -128
    (-3.0, -0.5, np.float32(3.0 / 255), 127),  # all negative: widened up to 0, which is 127
    (0.0, 0.0, np.float32(1.0), -128),  # empty: any scale, zero is exact
    (-1e-300, 1e-300, np.finfo(np.float32).tiny, -128),  # span / 255 underflows float32
])
def test_activation_params_of_one_sided_empty_and_tiny_ranges(low: float, high: float, scale: np.float32,
                                                              zero_point: int):
    """The documented rule of ``activation_params`` on the ranges calibration produces at the edges
    (a ReLU6 output, a saturated layer, a dead channel): mutmut left these branches unchecked."""
    quant = activation_params(low, high)
    assert quant.scale.dtype == np.float32 and quant.scale[0] == scale
    assert int(quant.zero_point[0]) == zero_point and quant.axis is None


@pytest.mark.parametrize("low, high", [(float("nan"), 1.0), (-float("inf"), 1.0), (-1.0, float("nan")),
                                       (-1.0, float("inf"))])
def test_activation_params_refuse_a_range_that_is_not_finite(low: float, high: float):
    with pytest.raises(ValueError, match="not finite"):
        activation_params(low, high)


def test_int8_conv_with_relu6_clamps_below_the_top_of_a_shared_scale() -> None:
    """Conv + Clip(0, 6) into a Concat whose other input reaches ~20: the concat's one scale makes 6 an
    int8 value below 127, so the fused clamp of the int8 GEMM decides the bytes (on slim's own models the
    ReLU6 output's calibrated range ends at 6, which hides a clamp at 127). Every int8 tensor against
    slim's simulation. Kills ``avx2-qs8-gemm-ignores-fused-upper-clamp``."""
    import slim
    from tests.slim_oracle import int8_mismatches

    rng = np.random.default_rng(7)
    weights = {name: rng.standard_normal(shape).astype(np.float32) * scale for name, shape, scale in
               (("wa", (16, 8, 3, 3), 1.0), ("wb", (8, 8, 1, 1), 3.0), ("wc", (8, 24, 1, 1), 0.3))}
    nodes = [
        helper.make_node("Conv", ["x", "wa"], ["a"], pads=[1, 1, 1, 1], name="branch_a"),
        helper.make_node("Clip", ["a", "lo", "hi"], ["a6"], name="relu6"),
        helper.make_node("Conv", ["x", "wb"], ["b"], name="branch_b"),
        helper.make_node("Concat", ["a6", "b"], ["ab"], axis=1, name="concat"),
        helper.make_node("Conv", ["ab", "wc"], ["y"], name="merge"),
    ]
    inits = [numpy_helper.from_array(v, k) for k, v in weights.items()]
    inits += [numpy_helper.from_array(np.array(v, np.float32), k) for k, v in (("lo", 0.0), ("hi", 6.0))]
    graph = helper.make_graph(nodes, "relu6_concat_net",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 8, 8, 8])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 8, 8, 8])], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], ir_version=8)
    data = [np.random.default_rng(seed).standard_normal((1, 8, 8, 8)).astype(np.float32) for seed in range(3)]
    result = slim.compress(model, None, data, slim.QuantConfig(progress=False))
    assert {"branch_a", "concat"} <= set(result.int8_nodes)
    concat = next(n for n in result.graph.nodes if n.op_type == "CONCAT")
    quant = result.graph.tensors[concat.outputs[0]].quant
    six = 6.0 / float(quant.scale[0]) + int(quant.zero_point[0])
    assert six < 120, f"6.0 is int8 {six:.0f}: the clamp would not matter"
    errors = int8_mismatches(result.graph, {"x": data[0]})
    assert max(errors.values()) <= 1.0, errors


@pytest.mark.parametrize("opcode", ["CONV_2D", "DEPTHWISE_CONV_2D", "AVERAGE_POOL_2D"])
def test_tflite_same_padding_puts_the_odd_row_at_the_end(opcode: str, tmp_path):
    """TFLite SAME with stride 2 on an even input: the one padded row / column is at the bottom / right,
    against LiteRT (every other SAME case in the suite pads symmetrically). Kills
    ``tflite-same-padding-extra-at-start``."""
    from ai_edge_litert import schema_py_generated as s  # the dev extra: LiteRT is the TFLite oracle

    from tests.tflite_builder import TfliteModel, assert_matches_litert, options

    rng = np.random.default_rng(12)
    m = TfliteModel()
    channels = 4
    x, y = m.tensor("x", [1, 8, 10, channels]), m.tensor("y", [1, 4, 5, channels])
    window = {"padding": s.Padding.SAME, "strideH": 2, "strideW": 2}
    if opcode == "AVERAGE_POOL_2D":
        m.op(opcode, [x], [y], options(s.Pool2DOptionsT(), filterHeight=3, filterWidth=3, **window))
    else:
        depthwise = opcode == "DEPTHWISE_CONV_2D"
        weight = rng.standard_normal((1 if depthwise else channels, 3, 3, channels)).astype(np.float32)
        opts = (options(s.DepthwiseConv2DOptionsT(), depthMultiplier=1, **window) if depthwise
                else options(s.Conv2DOptionsT(), **window))
        bias = rng.standard_normal(channels).astype(np.float32)
        m.op(opcode, [x, m.constant("w", weight), m.constant("b", bias)], [y], opts)
    feeds = [rng.standard_normal((1, 8, 10, channels)).astype(np.float32)]
    assert_matches_litert(m.finish([x], [y]), feeds, tmp_path)


def _depthwise_model(weight: np.ndarray, bias: np.ndarray, scales: np.ndarray | None) -> bytes:
    """x [1, 8, 8, C] -> DEPTHWISE_CONV_2D (3x3 SAME) -> y; ``weight`` int8 with per-channel ``scales``
    on axis 3 (a weight-only quantized file), or float32 when ``scales`` is None."""
    from ai_edge_litert import schema_py_generated as s

    from tests.tflite_builder import TfliteModel, options

    channels = weight.shape[3]
    m = TfliteModel()
    x, y = m.tensor("x", [1, 8, 8, channels]), m.tensor("y", [1, 8, 8, channels])
    w = m.tensor("w", list(weight.shape), weight.dtype, weight)
    if scales is not None:
        m.tensors[w].quantization = options(s.QuantizationParametersT(), scale=[float(v) for v in scales],
                                            zeroPoint=[0] * channels, quantizedDimension=3)
    opts = options(s.DepthwiseConv2DOptionsT(), padding=s.Padding.SAME, strideH=1, strideW=1,
                   depthMultiplier=1)
    m.op("DEPTHWISE_CONV_2D", [x, w, m.constant("b", bias)], [y], opts)
    return m.finish([x], [y])


def test_tflite_weight_only_int8_depthwise_filter_uses_its_quantized_dimension(tmp_path):
    """A float DEPTHWISE_CONV_2D whose filter [1, KH, KW, C] is int8 with per-channel scales on axis 3
    (quantizedDimension), against LiteRT running the float filter ``scale[c] * q``: LiteRT's own hybrid
    kernel quantizes the input on the fly, so it is no oracle for this. Written for the mutant
    ``tflite-per-channel-axis-ignored``, which it showed to be equivalent: the importer derives the
    channel axis of conv / depthwise / FC weights from the op (docs/TESTING.md)."""
    from tests.tflite_builder import run_litert, run_ours

    rng = np.random.default_rng(3)
    q = rng.integers(-127, 128, (1, 3, 3, 4)).astype(np.int8)
    scales = np.array([0.01, 0.02, 0.05, 0.1], np.float32)
    bias = rng.standard_normal(4).astype(np.float32)
    feeds = [rng.standard_normal((1, 8, 8, 4)).astype(np.float32)]
    path = tmp_path / "float.tflite"
    path.write_bytes(_depthwise_model((q.astype(np.float32) * scales).astype(np.float32), bias, None))
    (expected,) = run_litert(path, feeds)
    (ours,) = run_ours(_depthwise_model(q, bias, scales), feeds)
    np.testing.assert_allclose(ours, expected, rtol=0, atol=1e-5 * max(1.0, float(np.abs(expected).max())))
