"""int8 CONV_TRANSPOSE_2D (runtime ops/conv_transpose2d_int8.cc: kernel == stride as disjoint blocks, other
kernels by output phase) against the fake-quant simulation (every int8 tensor, 0 LSB for the transposed
convolutions), onnxruntime's integer accumulators and its fp32 result; dilated, grouped and kernel < stride
ones stay fp32.

The int8 pass quantizes a CONV_TRANSPOSE_2D when calibration measured its output; slim/calibrate.py does
not observe CONV_TRANSPOSE_2D yet, so the test adds it to the observed ops."""

from __future__ import annotations

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

import slim.calibrate
from runtime_arm import Interpreter
from tests.slim_oracle import assert_exact, int8_mismatches


def upsampling_head_net() -> onnx.ModelProto:
    """Conv+Relu -> ConvTranspose(k2 s2)+Relu -> ConvTranspose(k2 s2, 6 -> 1), like PP-OCR det's head (odd
    channel counts, row lengths not multiples of a GEMM tile), plus an overlapping k3 s2 branch (by
    output phase)."""
    rng = np.random.default_rng(11)
    w = {
        "w1": rng.standard_normal((7, 3, 3, 3)).astype(np.float32) * 0.4,
        "b1": rng.standard_normal(7).astype(np.float32) * 0.2,
        "wt1": rng.standard_normal((7, 6, 2, 2)).astype(np.float32) * 0.4,
        "bt1": rng.standard_normal(6).astype(np.float32) * 0.2,
        "wt2": rng.standard_normal((6, 1, 2, 2)).astype(np.float32) * 0.5,
        "bt2": rng.standard_normal(1).astype(np.float32) * 0.1,
        "wt3": rng.standard_normal((7, 4, 3, 3)).astype(np.float32) * 0.3,
    }
    w["wt1"][:, 2] *= 8.0  # one output channel far larger: its own weight scale (axis 3 after layout)
    nodes = [
        helper.make_node("Conv", ["x", "w1", "b1"], ["c1"], pads=[1, 1, 1, 1], name="conv1"),
        helper.make_node("Relu", ["c1"], ["r1"], name="relu1"),
        helper.make_node("ConvTranspose", ["r1", "wt1", "bt1"], ["t1"], kernel_shape=[2, 2], strides=[2, 2],
                         name="up1"),
        helper.make_node("Relu", ["t1"], ["r2"], name="relu2"),
        helper.make_node("ConvTranspose", ["r2", "wt2", "bt2"], ["y"], kernel_shape=[2, 2], strides=[2, 2],
                         name="up2"),
        helper.make_node("ConvTranspose", ["r1", "wt3"], ["z"], kernel_shape=[3, 3], strides=[2, 2],
                         pads=[1, 1, 1, 1], name="overlap"),
    ]
    graph = helper.make_graph(nodes, "upsampling_head",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 9, 13])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, None),
                               helper.make_tensor_value_info("z", TensorProto.FLOAT, None)],
                              [numpy_helper.from_array(v, k) for k, v in w.items()])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], ir_version=8)


def test_kernel_equal_stride_runs_int8_exactly() -> None:
    model = upsampling_head_net()
    rng = np.random.default_rng(5)
    data = [rng.standard_normal((1, 3, 9, 13)).astype(np.float32) for _ in range(4)]
    result = slim.compress(model, None, data, slim.QuantConfig(algorithm="abs_max", progress=False))
    graph = result.graph
    transposed = {n.name: n for n in graph.nodes if n.op_type == "CONV_TRANSPOSE_2D"}
    assert {"up1", "up2", "overlap"} <= set(result.int8_nodes)
    for name in ("up1", "up2", "overlap"):
        node = transposed[name]
        x_tensor, y_tensor = graph.tensors[node.inputs[0]], graph.tensors[node.outputs[0]]
        assert x_tensor.dtype == np.int8 and y_tensor.dtype == np.int8
        quant = graph.tensors[node.inputs[1]].quant
        assert quant.axis == 3 and quant.scale.size == graph.tensors[node.inputs[1]].data.shape[3]

    errors = int8_mismatches(graph, {"x": data[0]})
    assert {"up1", "up2", "overlap"} <= set(errors)
    assert_exact(errors)

    ort = pytest.importorskip("onnxruntime")
    session = ort.InferenceSession(model.SerializeToString())
    from lite_converter.passes.memory_plan import plan_memory
    from lite_converter.writer import serialize
    with Interpreter(model_content=serialize(graph, plan_memory(graph))) as interpreter:
        for x in data[:2]:
            want_y, want_z = session.run(None, {"x": x})
            got = interpreter.run({"x": x})
            # int8 activations through three layers: a few output steps from fp32
            assert np.abs(got["y"] - want_y).max() <= 0.05 * np.abs(want_y).max()
            assert np.abs(got["z"] - want_z).max() <= 0.08 * np.abs(want_z).max()


def test_bias_correction_leaves_transposed_weights_alone() -> None:
    """Bias correction reads weights as [Co, KH, KW, Ci]: it must not touch a CONV_TRANSPOSE_2D weight
    ([Ci, KH, KW, Co]), and the transposes still run int8 with it on."""
    model = upsampling_head_net()
    rng = np.random.default_rng(6)
    data = [rng.standard_normal((1, 3, 9, 13)).astype(np.float32) for _ in range(2)]
    result = slim.compress(model, None, data, slim.QuantConfig(bias_correction=True, progress=False))
    assert {"conv1", "up1", "up2", "overlap"} <= set(result.int8_nodes)


# (name, weight [Ci, Co/group, KH, KW], ConvTranspose attributes, runs in int8)
OVERLAPPING = [
    ("k4s2p1", (16, 12, 4, 4), dict(strides=[2, 2], pads=[1, 1, 1, 1]), True),  # U-Net / DCGAN upsampling
    ("k3s2p1_outpad1", (16, 9, 3, 3), dict(strides=[2, 2], pads=[1, 1, 1, 1], output_padding=[1, 1]), True),
    ("k3s1p1", (16, 8, 3, 3), dict(pads=[1, 1, 1, 1]), True),
    ("k4x3_s2x1_asym", (16, 5, 4, 3), dict(strides=[2, 1], pads=[2, 0, 1, 2]), True),
    ("k5s3p3", (16, 6, 5, 5), dict(strides=[3, 3], pads=[3, 3, 2, 1]), True),  # pads past the first tap row
    ("k8s4p2", (16, 3, 8, 8), dict(strides=[4, 4], pads=[2, 2, 2, 2]), True),  # FCN-style 4x
    ("dilated", (16, 4, 3, 3), dict(strides=[2, 2], dilations=[2, 2]), False),
    ("grouped", (16, 4, 4, 4), dict(strides=[2, 2], pads=[1, 1, 1, 1], group=2), False),
    ("kernel_below_stride", (16, 4, 1, 1), dict(strides=[2, 2]), False),
]
OVERLAP_INPUT = (2, 3, 7, 9)


def overlapping_net() -> onnx.ModelProto:
    """Conv + Relu (16 channels), then each OVERLAPPING transposed convolution of that, with a bias (one
    output channel scaled up: its own weight scale) and, for k4s2p1, a fused Relu."""
    rng = np.random.default_rng(21)
    inits = {"w0": rng.standard_normal((16, 3, 3, 3)).astype(np.float32) * 0.4}
    nodes = [helper.make_node("Conv", ["x", "w0"], ["c0"], pads=[1, 1, 1, 1], name="conv0"),
             helper.make_node("Relu", ["c0"], ["r0"], name="relu0")]
    outputs = []
    for name, shape, attrs, _ in OVERLAPPING:
        weight = rng.standard_normal(shape).astype(np.float32) * 0.3
        weight[:, 0] *= 4.0
        inits[f"w_{name}"] = weight
        out_channels = shape[1] * int(attrs.get("group", 1))
        inits[f"b_{name}"] = rng.standard_normal(out_channels).astype(np.float32) * 0.2
        out = name if name != "k4s2p1" else f"{name}_pre"
        nodes.append(helper.make_node("ConvTranspose", ["r0", f"w_{name}", f"b_{name}"], [out],
                                      kernel_shape=list(shape[2:]), name=name, **attrs))
        if name == "k4s2p1":
            nodes.append(helper.make_node("Relu", [out], [name], name=f"{name}_relu"))
        outputs.append(helper.make_tensor_value_info(name, TensorProto.FLOAT, None))
    graph = helper.make_graph(nodes, "overlapping",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, list(OVERLAP_INPUT))],
                              outputs, [numpy_helper.from_array(v, k) for k, v in inits.items()])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], ir_version=8)


@pytest.fixture(scope="module")
def overlapping() -> tuple:
    rng = np.random.default_rng(22)
    data = [rng.standard_normal(OVERLAP_INPUT).astype(np.float32) for _ in range(4)]
    model = overlapping_net()
    return model, slim.compress(model, None, data, slim.QuantConfig(progress=False)), data


def test_overlapping_transposed_convolutions_run_int8_exactly(overlapping: tuple) -> None:
    """Kernels past the stride, pads, output padding, asymmetric strides, batch 2: by output phase, every
    output equals the simulation at 0 LSB, for 1 and 3 threads; dilation, groups and kernel < stride stay
    fp32."""
    from tests.slim_oracle import runtime_values, simulation_mismatches

    _, result, data = overlapping
    int8 = {name for name, _, _, fits in OVERLAPPING if fits}
    assert int8 <= set(result.int8_nodes)
    assert not {name for name, _, _, fits in OVERLAPPING if not fits} & set(result.int8_nodes)
    for threads in (1, 3):
        values = runtime_values(result.graph, {"x": data[1]}, threads=threads)
        errors = simulation_mismatches(result.graph, values)
        assert int8 <= set(errors)
        assert_exact(errors)


@pytest.mark.parametrize("name", [name for name, _, _, fits in OVERLAPPING if fits])
def test_overlapping_transposed_convolution_equals_onnxruntime_accumulators(overlapping: tuple,
                                                                             name: str) -> None:
    """The runtime's int8 output against onnxruntime's fp32 ConvTranspose on the integers (x - zero point)
    and the int8 weights (exact: every partial sum is an integer below 2^24), plus the bias and the
    scheme's requantization: an oracle that shares no code with the runtime or the simulation."""
    from lite_converter.int8 import activation_range, channel_multipliers, requantize
    from lite_converter.int8.params import per_tensor
    from tests.slim_oracle import runtime_values

    ort = pytest.importorskip("onnxruntime")
    _, result, data = overlapping
    graph = result.graph
    values = runtime_values(graph, {"x": data[2]})
    node = next(n for n in graph.nodes if n.name == name)
    x, weight = values[node.inputs[0]], graph.tensors[node.inputs[1]]
    bias = graph.tensors[node.inputs[2]].data.astype(np.int64)
    qx, qy = per_tensor(graph.tensors[node.inputs[0]].quant), per_tensor(graph.tensors[node.outputs[0]].quant)
    a = node.attrs
    attrs = dict(strides=[a.get("stride_h", 1), a.get("stride_w", 1)],
                 pads=[a.get(f"pad_{side}", 0) for side in ("top", "left", "bottom", "right")],
                 output_padding=[a.get("output_padding_h", 0), a.get("output_padding_w", 0)])
    transposed = helper.make_node("ConvTranspose", ["x", "w"], ["acc"], **attrs)
    w_onnx = weight.data.transpose(0, 3, 1, 2).astype(np.float32)  # [Ci, KH, KW, Co] -> [Ci, Co, KH, KW]
    model = helper.make_model(helper.make_graph(
        [transposed], "one", [helper.make_tensor_value_info("x", TensorProto.FLOAT, None)],
        [helper.make_tensor_value_info("acc", TensorProto.FLOAT, None)],
        [numpy_helper.from_array(w_onnx, "w")]),
        opset_imports=[helper.make_opsetid("", 13)], ir_version=8)
    options = ort.SessionOptions()
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    session = ort.InferenceSession(model.SerializeToString(), options, providers=["CPUExecutionProvider"])
    acc = session.run(None, {"x": (x.astype(np.float32) - qx[1]).transpose(0, 3, 1, 2)})[0]
    assert np.abs(acc).max() < 2 ** 24 and np.array_equal(acc, np.rint(acc))
    acc = acc.transpose(0, 2, 3, 1).astype(np.int64) + bias
    multiplier, shift = channel_multipliers(qx[0], weight.quant.scale, qy[0])
    expected = requantize(acc, multiplier, shift, qy[1], *activation_range(a.get("activation"), *qy))
    got = values[node.outputs[0]]
    assert got.shape == expected.shape and np.unique(got).size > 20
    np.testing.assert_array_equal(got, expected)
