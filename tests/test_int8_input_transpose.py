"""The int8 model input path and the byte-moving kernels it uses.

An int8 model's NCHW image input is quantized before its NCHW -> NHWC TRANSPOSE (quantize_int8.py):
quantizing is elementwise, so the bytes must equal quantizing the transposed fp32 image (what the
converter made before, and what slim.fake_quant.quantize of numpy's transpose gives). The 1-byte
2-D transpose and the nearest RESIZE's run copies are checked against onnxruntime on shapes that
reach their fast paths (a batch-1 image; output rows wider than the kernel's 256-column block).
"""

from __future__ import annotations

import numpy as np
import pytest
from onnx import TensorProto, helper, numpy_helper

import slim
from lite_converter.int8 import quantize
from tests.slim_oracle import assert_exact, int8_mismatches
from tests.test_ops_elementwise import check_against_onnxruntime, make_model


def _image_conv_net() -> object:
    """NCHW image -> 3x3 conv -> ReLU -> 1x1 conv: the input TRANSPOSE is read only by an int8 conv."""
    rng = np.random.default_rng(3)
    inits = [numpy_helper.from_array(rng.standard_normal((8, 3, 3, 3)).astype(np.float32) * 0.3, "w1"),
             numpy_helper.from_array(rng.standard_normal((4, 8, 1, 1)).astype(np.float32) * 0.3, "w2")]
    nodes = [helper.make_node("Conv", ["x", "w1"], ["c1"], pads=[1, 1, 1, 1], name="conv1"),
             helper.make_node("Relu", ["c1"], ["r1"], name="relu1"),
             helper.make_node("Conv", ["r1", "w2"], ["y"], name="conv2")]
    graph = helper.make_graph(nodes, "image",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 17, 13])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], ir_version=8)


def test_input_is_quantized_before_its_transpose_with_the_same_bytes() -> None:
    rng = np.random.default_rng(4)
    data = [rng.standard_normal((1, 3, 17, 13)).astype(np.float32) for _ in range(3)]
    result = slim.compress(_image_conv_net(), None, data, slim.QuantConfig(progress=False))
    graph = result.graph
    quantize_node, transpose_node = graph.nodes[0], graph.nodes[1]
    assert (quantize_node.op_type, quantize_node.inputs) == ("QUANTIZE", ["x"])
    assert transpose_node.op_type == "TRANSPOSE" and transpose_node.inputs == quantize_node.outputs
    assert [n.op_type for n in graph.nodes].count("QUANTIZE") == 1
    nhwc = graph.tensors[transpose_node.outputs[0]]
    assert nhwc.dtype == np.int8

    feed = data[0] * 3.0  # beyond the calibrated range: saturation must agree too
    errors = int8_mismatches(graph, {"x": feed})
    assert {quantize_node.name, transpose_node.name} <= set(errors)
    assert_exact(errors)

    from runtime_arm import Interpreter
    from slim.calibrate import with_outputs

    with Interpreter(model_content=with_outputs(graph, [nhwc.name])) as interpreter:
        got = dict(interpreter.run({"x": feed}))[nhwc.name]
    scale, zero_point = float(np.ravel(nhwc.quant.scale)[0]), int(np.ravel(nhwc.quant.zero_point)[0])
    expected = quantize(np.transpose(feed, (0, 2, 3, 1)), scale, zero_point)
    np.testing.assert_array_equal(got, expected)
    assert np.count_nonzero(got == 127) + np.count_nonzero(got == -128) > 0  # saturation was exercised


@pytest.mark.parametrize("shape", [(1, 3, 7, 5), (1, 5, 4, 6), (1, 2, 1, 9)])
@pytest.mark.parametrize("perm", [(0, 2, 3, 1), (0, 3, 1, 2)])
@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.float32])
def test_image_transpose(shape: tuple[int, ...], perm: tuple[int, ...], dtype: type) -> None:
    count = int(np.prod(shape))
    x = (np.random.default_rng(5).permutation(count) % 251 - 120).astype(dtype).reshape(shape)
    node = helper.make_node("Transpose", ["x"], ["y"], perm=list(perm))
    check_against_onnxruntime(make_model([node], {"x": x}, {"y": x.dtype}), {"x": x})


@pytest.mark.parametrize(("scales", "coordinate_mode", "nearest_mode"), [
    ((2.0, 2.0), "asymmetric", "floor"),
    ((1.0, 8.0), "asymmetric", "floor"),
    ((3.0, 1.7), "half_pixel", "round_prefer_floor"),
    ((0.5, 0.6), "half_pixel", "round_prefer_ceil"),
])
@pytest.mark.parametrize("dtype", [np.int8, np.float32])
@pytest.mark.parametrize("channels", [5, 24])  # pixels of 5, 20, 24 and 96 bytes: both copy paths
def test_resize_nearest_wide_rows(scales: tuple[float, float], coordinate_mode: str, nearest_mode: str,
                                  dtype: type, channels: int) -> None:
    """Output rows of 150 x scale columns: runs of one repeated pixel cross the 256-column blocks."""
    x = (np.random.default_rng(6).integers(-128, 128, (1, channels, 3, 150))).astype(dtype)
    node = helper.make_node("Resize", ["x", "", "scales"], ["y"], mode="nearest",
                            coordinate_transformation_mode=coordinate_mode, nearest_mode=nearest_mode)
    constants = {"scales": np.array([1.0, 1.0, *scales], np.float32)}
    check_against_onnxruntime(make_model([node], {"x": x}, {"y": x.dtype}, constants), {"x": x})
