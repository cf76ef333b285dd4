"""Every int8 op the runtime has, in one converted net, against the fake-quant simulation at 0 LSB.

The list of int8 ops is lite_converter.lite_ops (every op with an Int8Role): a new int8 op fails
``test_every_int8_op_family_runs_and_equals_the_simulation`` until a net here runs it. The nets hold the
int8 paths the runtime picks by shape: a 3x3 conv (im2col / rows GEMM), 1x1 convs (direct GEMM),
grouped convs with groups 2 and 4 and several channels per group (one GEMM per group,
ops/conv2d_grouped.cc; more grouped shapes in ``grouped_shapes_net``), a transposed conv, the pools,
the table activations (composed into one REQUANTIZE or not), ADD / MUL of two tensors, broadcast and
by a scalar, RESIZE, CONCAT and the byte movers.

The grouped convs also have an oracle that shares no code with ours: onnxruntime's fp32 Conv on the
integers (x - zero point) and the int8 weights gives the accumulators exactly (every partial sum is an
integer below 2^24), to which the int32 bias is added and the requantization of lite_converter.int8
(itself checked against the C reference and exact fractions in test_int8_arithmetic.py) is applied.
"""

from __future__ import annotations

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper, numpy_helper

from lite_converter.int8 import activation_range, channel_multipliers, requantize
from lite_converter.int8.params import per_tensor
from lite_converter.ir import Graph
from lite_converter.lite_ops import OPS
from tests.slim_oracle import assert_exact, runtime_values, simulation_mismatches
from tests.test_slim_int8_ops import _batches, _quantize_with

INPUT_SHAPE = (1, 4, 12, 12)
INT8_OPS = frozenset(op for op, info in OPS.items() if info.int8 is not None)


def op_families_net() -> onnx.ModelProto:
    """conv 3x3 + HardSwish -> Mul(scalar) -> Add(scalar) -> grouped conv (groups 2, 4 -> 4 channels per
    group, Relu) -> grouped conv (groups 4, 2 -> 3 per group, stride 2, dilation 2) -> MaxPool -> Tanh and
    x * Sigmoid(x) (SILU) branches -> conv + Sigmoid -> SE block (GAP, convs, HardSigmoid, broadcast Mul)
    + residual Add -> ConvTranspose 2x2/2 and nearest Resize 2x -> Concat -> GAP -> Squeeze -> Unsqueeze
    -> Flatten -> Reshape -> Gemm."""
    rng = np.random.default_rng(7)

    def w(*shape: int, k: float = 0.3) -> np.ndarray:
        return (rng.standard_normal(shape) * k).astype(np.float32)

    inits = {"w1": w(8, 4, 3, 3), "b1": w(8, k=0.1), "wg2": w(8, 4, 3, 3), "bg2": w(8, k=0.3),
             "wg4": w(12, 2, 3, 3, k=0.4), "bg4": w(12, k=0.3), "wt": w(8, 12, 1, 1), "ws": w(8, 12, 1, 1),
             "bs": w(8, k=0.2), "wse1": w(4, 8, 1, 1, k=0.5), "wse2": w(8, 4, 1, 1, k=0.5),
             "wd": w(8, 5, 2, 2), "bd": w(5, k=0.1), "wu": w(5, 8, 1, 1), "wc": w(6, 10, 3, 3), "fc": w(7, 6),
             "fcb": w(7, k=0.1),
             "mul_c": np.array(0.7, np.float32), "add_c": np.array(-0.2, np.float32),
             "up": np.array([1, 1, 2, 2], np.float32), "axes_w": np.array([3], np.int64),
             "axes3": np.array([3], np.int64), "shape": np.array([1, 6], np.int64)}
    nearest = {"mode": "nearest", "coordinate_transformation_mode": "asymmetric", "nearest_mode": "floor"}
    n = helper.make_node
    nodes = [
        n("Conv", ["x", "w1", "b1"], ["c1"], pads=[1, 1, 1, 1], name="conv3x3"),
        n("HardSwish", ["c1"], ["h1"], name="hswish"),
        n("Mul", ["h1", "mul_c"], ["m1"], name="mul_scalar"),
        n("Add", ["m1", "add_c"], ["a1"], name="add_scalar"),
        n("Conv", ["a1", "wg2", "bg2"], ["g2"], pads=[1, 1, 1, 1], group=2, name="grouped2"),
        n("Relu", ["g2"], ["g2r"], name="grouped2_relu"),
        n("Conv", ["g2r", "wg4", "bg4"], ["g4"], pads=[2, 2, 2, 2], strides=[2, 2], dilations=[2, 2], group=4,
          name="grouped4"),
        n("MaxPool", ["g4"], ["p_tanh"], kernel_shape=[3, 3], pads=[1, 1, 1, 1], name="maxpool_a"),
        n("Tanh", ["p_tanh"], ["t"], name="tanh"),
        n("MaxPool", ["g4"], ["p_silu"], kernel_shape=[2, 2], pads=[0, 0, 1, 1], name="maxpool_b"),
        n("Sigmoid", ["p_silu"], ["p_sig"], name="silu_gate"),
        n("Mul", ["p_silu", "p_sig"], ["s"], name="silu"),
        n("Conv", ["t", "wt"], ["tc"], name="conv1x1_tanh"),
        n("Conv", ["s", "ws", "bs"], ["sc"], name="conv1x1_silu"),
        n("Sigmoid", ["sc"], ["ss"], name="sigmoid"),
        n("Add", ["tc", "ss"], ["r"], name="add_tensors"),
        n("GlobalAveragePool", ["r"], ["se_p"], name="se_gap"),
        n("Conv", ["se_p", "wse1"], ["se1"], name="se_reduce"),
        n("Relu", ["se1"], ["se1r"], name="se_relu"),
        n("Conv", ["se1r", "wse2"], ["se2"], name="se_expand"),
        n("HardSigmoid", ["se2"], ["gate"], name="hard_sigmoid"),
        n("Mul", ["r", "gate"], ["gated"], name="mul_broadcast"),
        n("ConvTranspose", ["gated", "wd", "bd"], ["d"], kernel_shape=[2, 2], strides=[2, 2], name="deconv"),
        n("Conv", ["gated", "wu"], ["u"], name="conv1x1_up"),
        n("Resize", ["u", "", "up"], ["ur"], name="resize", **nearest),
        n("Concat", ["d", "ur"], ["cat"], axis=1, name="concat"),
        n("Conv", ["cat", "wc"], ["cc"], pads=[1, 1, 1, 1], name="conv_concat"),
        n("GlobalAveragePool", ["cc"], ["gp"], name="gap"),
        n("Squeeze", ["gp", "axes_w"], ["sq"], name="squeeze"),
        n("Unsqueeze", ["sq", "axes3"], ["usq"], name="unsqueeze"),
        n("Flatten", ["usq"], ["fl"], name="flatten"),
        n("Reshape", ["fl", "shape"], ["rs"], name="reshape"),
        n("Gemm", ["rs", "fc", "fcb"], ["y"], transB=1, name="fc"),
    ]
    graph = helper.make_graph(nodes, "int8_op_families",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, list(INPUT_SHAPE))],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
                              [numpy_helper.from_array(v, k) for k, v in inits.items()])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 14)], ir_version=8)


@pytest.fixture(scope="module")
def converted() -> dict[bool, tuple[Graph, dict[str, np.ndarray]]]:
    """{compose_tables: (quantized graph, feeds)}: with composition the scalar Mul / Add after HardSwish
    become one REQUANTIZE table, without it they run as HARD_SWISH, MUL and ADD."""
    data = _batches(INPUT_SHAPE, 4, seed=8)
    return {compose: (_quantize_with(op_families_net(), data, compose_tables=compose)[0], {"x": data[1]})
            for compose in (True, False)}


def _checked_ops(graph: Graph, errors: dict[str, float]) -> set[str]:
    return {node.op_type for node in graph.nodes if node.name in errors}


def test_every_int8_op_family_runs_and_equals_the_simulation(converted: dict) -> None:
    covered: set[str] = set()
    for compose, (graph, feeds) in converted.items():
        errors = simulation_mismatches(graph, runtime_values(graph, feeds))
        assert_exact(errors, minimum_nodes=30)
        covered |= _checked_ops(graph, errors)
        fp32 = [n.name for n in graph.nodes if n.op_type in INT8_OPS and n.name not in errors
                and n.op_type not in ("QUANTIZE", "DEQUANTIZE")]
        assert not fp32, f"compose_tables={compose}: these ops stayed fp32: {fp32}"
    assert covered == INT8_OPS, f"not run in int8: {sorted(INT8_OPS - covered)}"


def test_threads_give_the_same_bytes(converted: dict) -> None:
    graph, feeds = converted[True]
    one, three = runtime_values(graph, feeds, threads=1), runtime_values(graph, feeds, threads=3)
    differing = [name for name in one if not np.array_equal(one[name], three[name])]
    assert not differing, differing


@pytest.mark.parametrize("name", ["grouped2", "grouped4"])
def test_grouped_convs_equal_onnxruntime_integer_accumulators(converted: dict, name: str) -> None:
    """The runtime's grouped int8 conv against accumulators from onnxruntime (an oracle sharing no code
    with the runtime or the simulation), then the bias and the scheme's requantization."""
    graph, feeds = converted[True]
    _assert_grouped_conv_equals_onnxruntime(graph, runtime_values(graph, feeds), name)


GROUPED_SHAPES_INPUT = (2, 32, 9, 10)


def grouped_shapes_net() -> onnx.ModelProto:
    """Grouped convs of the shapes real nets have, batch 2: ResNeXt 32x4d's 3x3 (groups 8, 4 -> 4 per
    group), a widening stride-2 one with asymmetric pads (groups 4, 8 -> 12 per group), ShuffleNet v1's
    grouped 1x1 (groups 4: the regrouped input is the GEMM's A, no im2col) and an odd 3 channels per
    group (groups 3, 5x3 kernel, dilation 2 x 1), and a 3x3 one dilated 2 x 1 on the input map, whose
    interior pixels im2col copies as runs of whole kernel rows two input rows apart."""
    rng = np.random.default_rng(11)

    def w(*shape: int, k: float = 0.3) -> np.ndarray:
        return (rng.standard_normal(shape) * k).astype(np.float32)

    inits = {"wa": w(32, 4, 3, 3), "ba": w(32, k=0.2), "wb": w(48, 8, 3, 3, k=0.2), "bb": w(48, k=0.2),
             "wc": w(24, 12, 1, 1), "bc": w(24, k=0.2), "wd": w(9, 8, 5, 3, k=0.2), "bd": w(9, k=0.2),
             "we": w(16, 8, 3, 3, k=0.2), "be": w(16, k=0.2)}
    n = helper.make_node
    nodes = [
        n("Conv", ["x", "wa", "ba"], ["ga"], pads=[1, 1, 1, 1], group=8, name="grouped_resnext"),
        n("Relu", ["ga"], ["gar"], name="grouped_resnext_relu"),
        n("Conv", ["gar", "wb", "bb"], ["gb"], pads=[1, 0, 2, 1], strides=[2, 2], group=4,
          name="grouped_widening_stride2"),
        n("Conv", ["gb", "wc", "bc"], ["gc"], group=4, name="grouped_pointwise"),
        n("Relu", ["gc"], ["gcr"], name="grouped_pointwise_relu"),
        n("Conv", ["gcr", "wd", "bd"], ["y"], pads=[4, 1, 3, 1], dilations=[2, 1], group=3,
          name="grouped_odd"),
        n("Conv", ["x", "we", "be"], ["z"], pads=[2, 1, 2, 1], dilations=[2, 1], group=4,
          name="grouped_row_dilated"),
    ]
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, list(GROUPED_SHAPES_INPUT))
    graph = helper.make_graph(nodes, "int8_grouped_shapes", [x],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, None),
                               helper.make_tensor_value_info("z", TensorProto.FLOAT, None)],
                              [numpy_helper.from_array(v, k) for k, v in inits.items()])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 14)], ir_version=8)


@pytest.fixture(scope="module")
def grouped_shapes() -> tuple[Graph, dict[str, np.ndarray]]:
    data = _batches(GROUPED_SHAPES_INPUT, 4, seed=12)
    return _quantize_with(grouped_shapes_net(), data)[0], {"x": data[2]}


GROUPED_SHAPES = ["grouped_resnext", "grouped_widening_stride2", "grouped_pointwise", "grouped_odd",
                  "grouped_row_dilated"]


def test_grouped_shapes_equal_the_simulation_for_any_thread_count(grouped_shapes: tuple) -> None:
    graph, feeds = grouped_shapes
    one = runtime_values(graph, feeds, threads=1)
    errors = simulation_mismatches(graph, one)
    assert_exact(errors, minimum_nodes=4)
    assert set(GROUPED_SHAPES) <= set(errors), sorted(errors)
    three = runtime_values(graph, feeds, threads=3)
    assert not [name for name in one if not np.array_equal(one[name], three[name])]


@pytest.mark.parametrize("name", GROUPED_SHAPES)
def test_grouped_shapes_equal_onnxruntime_integer_accumulators(grouped_shapes: tuple, name: str) -> None:
    graph, feeds = grouped_shapes
    _assert_grouped_conv_equals_onnxruntime(graph, runtime_values(graph, feeds), name)


def _assert_grouped_conv_equals_onnxruntime(graph: Graph, values: dict[str, np.ndarray], name: str) -> None:
    node = next(n for n in graph.nodes if n.name == name)
    assert node.op_type == "CONV_2D" and int(node.attrs["group"]) > 1
    x, weight = values[node.inputs[0]], graph.tensors[node.inputs[1]]
    bias = graph.tensors[node.inputs[2]].data.astype(np.int64)
    qx, qy = per_tensor(graph.tensors[node.inputs[0]].quant), per_tensor(graph.tensors[node.outputs[0]].quant)
    groups = int(node.attrs["group"])
    assert weight.data.shape[3] > 1 and weight.data.shape[0] // groups > 1  # several channels per group
    assert weight.data.shape[3] < x.shape[3]  # not depthwise
    attrs = node.attrs
    conv = helper.make_node(
        "Conv", ["x", "w"], ["acc"], group=groups,
        strides=[attrs.get("stride_h", 1), attrs.get("stride_w", 1)],
        dilations=[attrs.get("dilation_h", 1), attrs.get("dilation_w", 1)],
        pads=[attrs.get("pad_top", 0), attrs.get("pad_left", 0), attrs.get("pad_bottom", 0),
              attrs.get("pad_right", 0)])
    model = helper.make_model(helper.make_graph(
        [conv], "grouped", [helper.make_tensor_value_info("x", TensorProto.FLOAT, None)],
        [helper.make_tensor_value_info("acc", TensorProto.FLOAT, None)],
        [numpy_helper.from_array(weight.data.transpose(0, 3, 1, 2).astype(np.float32), "w")]),
        opset_imports=[helper.make_opsetid("", 14)], ir_version=8)
    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    session = ort.InferenceSession(model.SerializeToString(), options, providers=["CPUExecutionProvider"])
    centered = (x.astype(np.float32) - qx[1]).transpose(0, 3, 1, 2)  # NCHW, integers in [-255, 255]
    acc = session.run(None, {"x": centered})[0]
    assert np.abs(acc).max() < 2 ** 24 and np.array_equal(acc, np.rint(acc))  # exact in float32
    acc = acc.transpose(0, 2, 3, 1).astype(np.int64) + bias
    multiplier, shift = channel_multipliers(qx[0], weight.quant.scale, qy[0])
    expected = requantize(acc, multiplier, shift, qy[1], *activation_range(attrs.get("activation"), *qy))
    got = values[node.outputs[0]]
    assert np.unique(got).size > 20, "a weak check: few distinct outputs"
    np.testing.assert_array_equal(got, expected)


def test_conv_whose_sums_may_pass_int32_runs_the_reference_kernel_exactly() -> None:
    """A 1x1 conv over 66000 input channels: k * 255 * 128 >= 2^31, so the int32 GEMM could wrap and the
    runtime runs the reference int8 conv (int64 sums, saturated to int32 as the simulation does). Its bias
    is large against the products: a sign slip in the reference shows at 0 LSB."""
    rng = np.random.default_rng(13)
    channels = 66000
    weight = (rng.standard_normal((3, channels, 1, 1)) * 0.01).astype(np.float32)
    bias = np.array([2.0, -1.5, 0.5], np.float32)
    node = helper.make_node("Conv", ["x", "w", "b"], ["y"], name="wide")
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, channels, 1, 2])
    graph = helper.make_graph([node], "wide", [x],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
                              [numpy_helper.from_array(weight, "w"), numpy_helper.from_array(bias, "b")])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 14)], ir_version=8)
    data = _batches((1, channels, 1, 2), 4, seed=14)
    quantized = _quantize_with(model, data)[0]
    errors = simulation_mismatches(quantized, runtime_values(quantized, {"x": data[1]}))
    assert "wide" in errors
    assert_exact(errors)
