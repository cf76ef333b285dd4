"""int8 CONV_TRANSPOSE_2D (kernel == stride, runtime ops/conv_transpose2d_int8.cc) against the fake-quant
simulation (every int8 tensor, 0 LSB for the transposed convolutions) and onnxruntime's fp32 result; an
overlapping transposed convolution (kernel 3, stride 2) stays fp32.

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
    channel counts, row lengths not multiples of a GEMM tile), plus an fp32 k3 s2 branch."""
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
    assert {"up1", "up2"} <= set(result.int8_nodes) and "overlap" not in result.int8_nodes
    for name in ("up1", "up2"):
        node = transposed[name]
        x_tensor, y_tensor = graph.tensors[node.inputs[0]], graph.tensors[node.outputs[0]]
        assert x_tensor.dtype == np.int8 and y_tensor.dtype == np.int8
        quant = graph.tensors[node.inputs[1]].quant
        assert quant.axis == 3 and quant.scale.size == graph.tensors[node.inputs[1]].data.shape[3]
    assert graph.tensors[transposed["overlap"].outputs[0]].dtype == np.float32

    errors = int8_mismatches(graph, {"x": data[0]})
    assert {"up1", "up2"} <= set(errors)
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
    assert {"conv1", "up1", "up2"} <= set(result.int8_nodes) and "overlap" not in result.int8_nodes
