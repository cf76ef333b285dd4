"""Bias correction removes the per-channel mean shift int8 weights cause, and stays exact int8.

The case where it should help (Nagel et al. 2019): a depthwise 3x3 convolution — 9 weights per
channel, so each channel's rounding errors do not average out — on inputs with a large positive
mean (post-ReLU6 activations are like that), followed by a 1x1 convolution. The oracle is
onnxruntime on the fp32 ONNX model, on held-out data drawn like the calibration data.
"""

from __future__ import annotations

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

import slim
from runtime_arm import Interpreter
from slim.config import QuantConfig
from tests.slim_oracle import assert_exact, int8_mismatches

ort = pytest.importorskip("onnxruntime")

CHANNELS = 16


def depthwise_net() -> onnx.ModelProto:
    rng = np.random.default_rng(3)
    depthwise = rng.normal(0.0, 0.05, (CHANNELS, 1, 3, 3)).astype(np.float32)
    depthwise[:, 0, 1, 1] = rng.choice([-1.0, 1.0], CHANNELS)  # one large tap sets each channel's scale
    pointwise = rng.normal(0.0, 0.3, (CHANNELS, CHANNELS, 1, 1)).astype(np.float32)
    nodes = [
        helper.make_node("Conv", ["x", "dw", "dw_b"], ["h"], group=CHANNELS, pads=[1, 1, 1, 1], name="dw"),
        helper.make_node("Conv", ["h", "pw", "pw_b"], ["y"], name="pw"),
    ]
    zeros = np.zeros(CHANNELS, np.float32)
    inits = [numpy_helper.from_array(value, name)
             for name, value in [("dw", depthwise), ("dw_b", zeros), ("pw", pointwise), ("pw_b", zeros)]]
    shape = [4, CHANNELS, 12, 12]
    graph = helper.make_graph(nodes, "dw", [helper.make_tensor_value_info("x", TensorProto.FLOAT, shape)],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, shape)], inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], ir_version=8)


def positive_inputs(count: int, seed: int) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    return [rng.uniform(2.0, 6.0, (4, CHANNELS, 12, 12)).astype(np.float32) for _ in range(count)]


def channel_bias_error(model: onnx.ModelProto, lite: bytes, batches: list[np.ndarray]) -> np.ndarray:
    """Per output channel: mean(int8 - fp32) over the held-out batches."""
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    with Interpreter(model_content=lite) as interpreter:
        diffs = [interpreter.run([x])["y"] - session.run(None, {"x": x})[0] for x in batches]
    return np.concatenate(diffs).mean(axis=(0, 2, 3))


def test_bias_correction_removes_the_channel_mean_shift() -> None:
    model = depthwise_net()
    calibration, held_out = positive_inputs(8, seed=0), positive_inputs(8, seed=1)
    plain = slim.compress(model, None, calibration, QuantConfig(progress=False))
    corrected = slim.compress(model, None, calibration, QuantConfig(progress=False, bias_correction=True))
    assert set(corrected.int8_nodes) == set(plain.int8_nodes) >= {"dw", "pw"}
    before = np.sqrt(np.mean(channel_bias_error(model, plain.lite_bytes, held_out) ** 2))
    after = np.sqrt(np.mean(channel_bias_error(model, corrected.lite_bytes, held_out) ** 2))
    print(f"rms of per-channel mean error: {before:.5f} -> {after:.5f}")
    assert after < 0.5 * before


def test_corrected_model_is_still_exact_int8() -> None:
    model = depthwise_net()
    config = QuantConfig(progress=False, bias_correction=True)
    result = slim.compress(model, None, positive_inputs(4, seed=0), config)
    biases = [result.graph.tensors[n.inputs[2]] for n in result.graph.nodes if n.op_type == "CONV_2D"]
    assert biases and all(b.data is not None and b.data.dtype == np.int32 for b in biases)
    errors = int8_mismatches(result.graph, {result.graph.inputs[0]: positive_inputs(1, seed=5)[0]})
    assert_exact(errors)
