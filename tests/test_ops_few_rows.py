"""GEMMs of one to three rows over packed weights (the GEMV path of packed_gemm_run): FULLY_CONNECTED /
MatMul over one vector (wake-word heads, classifier heads, a decoder step), a 1x1 convolution on a
pooled 1x1 map (squeeze-excitation) with a fused per-channel PRelu, each with the activations the
GEMM fuses, on one thread and on two (the columns split into blocks: a PRelu's slopes must follow
its block). Against onnxruntime; the tolerance is fp32 summation-order noise over K up to 1536."""

from __future__ import annotations

import numpy as np
import onnx
import pytest
from onnx import helper

from lite_converter.convert import convert_onnx
from runtime_arm import Interpreter
from tests.test_ops_elementwise import make_model, run_onnxruntime

RTOL = 2e-5


def _check(model: onnx.ModelProto, feeds: dict[str, np.ndarray]) -> None:
    expected = run_onnxruntime(model, feeds)
    data = convert_onnx(model)
    for threads in (1, 2):
        actual = Interpreter(model_content=data, threads=threads).run(feeds)
        for name, value in expected.items():
            scale = max(1.0, float(np.abs(value).max()))
            np.testing.assert_allclose(actual[name], value, rtol=0, atol=RTOL * scale,
                                       err_msg=f"{name}, {threads} thread(s)")


def _activation(name: str, x: str, y: str, channels: int, constants: dict[str, np.ndarray]) -> onnx.NodeProto:
    if name == "Relu":
        return helper.make_node("Relu", [x], [y])
    if name == "Clip":
        constants.update(lo=np.array(-0.5, np.float32), hi=np.array(0.75, np.float32))
        return helper.make_node("Clip", [x, "lo", "hi"], [y])
    if name == "HardSwish":
        return helper.make_node("HardSwish", [x], [y])
    if name == "LeakyRelu":
        return helper.make_node("LeakyRelu", [x], [y], alpha=0.1)
    constants["slope"] = np.linspace(-0.6, 0.9, channels, dtype=np.float32).reshape(channels, 1, 1)
    return helper.make_node("PRelu", [x, "slope"], [y])


@pytest.mark.parametrize("rows", [1, 2, 3, 4])
@pytest.mark.parametrize("k,n", [(1536, 128), (96, 40), (7, 300)])
@pytest.mark.parametrize("activation", [None, "Relu", "Clip", "HardSwish"])
def test_gemm_of_few_rows(rows: int, k: int, n: int, activation: str | None) -> None:
    rng = np.random.default_rng(rows * 1000 + k + n)
    constants = {"w": (rng.standard_normal((k, n)) / np.sqrt(k)).astype(np.float32),
                 "b": rng.standard_normal(n).astype(np.float32)}
    nodes = [helper.make_node("Gemm", ["x", "w", "b"], ["g" if activation else "y"])]
    if activation:
        nodes.append(_activation(activation, "g", "y", n, constants))
    feeds = {"x": rng.standard_normal((rows, k)).astype(np.float32)}
    _check(make_model(nodes, feeds, {"y": np.float32}, constants), feeds)


@pytest.mark.parametrize("activation", ["PRelu", "LeakyRelu", "Relu"])
@pytest.mark.parametrize("cin,cout", [(1280, 120), (256, 600), (64, 100)])
def test_pointwise_conv_on_one_pixel(activation: str, cin: int, cout: int) -> None:
    rng = np.random.default_rng(cin + cout)
    constants = {"w": (rng.standard_normal((cout, cin, 1, 1)) / np.sqrt(cin)).astype(np.float32),
                 "b": rng.standard_normal(cout).astype(np.float32)}
    nodes = [helper.make_node("Conv", ["x", "w", "b"], ["c"])]
    nodes.append(_activation(activation, "c", "y", cout, constants))
    feeds = {"x": rng.standard_normal((1, cin, 1, 1)).astype(np.float32)}
    _check(make_model(nodes, feeds, {"y": np.float32}, constants), feeds)
