"""NaN in, NaN out (issue 19): activations, pooling and reductions propagate NaN and infinities where
onnxruntime does, in the reference and the fast kernels (inputs of 504 values with NaN / +-inf at
scattered positions run the vector bodies and their tails; the fused activations of CONV_2D run
the GEMM, depthwise and Winograd paths). The oracle is onnxruntime on the same ONNX model:
tests.test_ops_nn.check compares NaN positions and infinities exactly, finite values within 1e-4.
A kernel written as ``v > 0 ? v : 0`` or ``max(v, 0)`` on x86 (which returns its second operand
when either is NaN) turns a NaN pixel into a confident 0. Max pooling and min/max reductions are
checked against numpy instead (see there).
"""

from __future__ import annotations

import numpy as np
import pytest
from onnx import TensorProto, helper

from tests.test_ops_nn import check, check_node, make_model

SHAPE = (1, 8, 7, 9)


def poisoned(shape: tuple[int, ...] = SHAPE, seed: int = 0) -> np.ndarray:
    """Normal values with NaN, +inf and -inf in every channel, at vector-body and tail positions."""
    rng = np.random.default_rng(seed)
    x = rng.standard_normal(shape).astype(np.float32)
    flat = x.reshape(-1)
    positions = rng.choice(flat.size, size=flat.size // 12, replace=False)
    for k, p in enumerate(positions):
        flat[p] = (np.nan, np.inf, -np.inf, np.nan)[k % 4]
    flat[-1] = np.nan  # the last element: a tail of every vector loop
    return x


UNARY = {
    "Relu": {},
    "LeakyRelu": {"alpha": 0.1},
    "HardSigmoid": {"alpha": 0.2, "beta": 0.5},
    "HardSwish": {},
    "Sigmoid": {},
    "Tanh": {},
    "Elu": {"alpha": 1.0},
    "Selu": {},
    "Softplus": {},
    "Softsign": {},
    "Abs": {},
    "Neg": {},
    "Exp": {},
}


@pytest.mark.parametrize("op", sorted(UNARY))
def test_activations_propagate_nan(op: str) -> None:
    check_node(op, {"x": poisoned()}, **UNARY[op])


@pytest.mark.parametrize("low, high", [(0.0, 6.0), (-1.0, 1.0)])
def test_clip_propagates_nan(low: float, high: float) -> None:
    check_node("Clip", {"x": poisoned()}, {"lo": np.array(low, np.float32), "hi": np.array(high, np.float32)})


def test_prelu_propagates_nan() -> None:
    slope = np.linspace(0.05, 0.4, SHAPE[1], dtype=np.float32).reshape(SHAPE[1], 1, 1)
    check_node("PRelu", {"x": poisoned()}, {"slope": slope})


@pytest.mark.parametrize("op, attrs", [("AveragePool", {"kernel_shape": [3, 3], "pads": [1, 1, 1, 1],
                                                         "count_include_pad": 0}),
                                       ("GlobalAveragePool", {})])
def test_average_pooling_propagates_nan(op: str, attrs: dict[str, object]) -> None:
    check_node(op, {"x": poisoned()}, **attrs)


@pytest.mark.parametrize("op", ["ReduceMean", "ReduceSum", "ReduceL2"])
def test_sum_reductions_propagate_nan(op: str) -> None:
    check_node(op, {"x": poisoned()}, {"axes": np.array([2, 3], np.int64)}, opset=18, keepdims=1)


# Max pooling and min / max reductions: a window holding a NaN gives NaN, as np.max / np.min (and
# PyTorch) do. onnxruntime is not the oracle here: its MLAS max kernels keep or drop a NaN by its
# position in the window (GlobalMaxPool over a channel holding NaN and +inf gave a finite -0.135).
def _run(model_nodes: list, x: np.ndarray, constants: dict[str, np.ndarray] | None = None) -> np.ndarray:
    from tests.test_ops_nn import run_lite

    model = make_model(model_nodes, {"x": x}, {"y": TensorProto.FLOAT}, constants, opset=18)
    return np.asarray(run_lite(model, {"x": x})["y"])


def _max_pool_oracle(x: np.ndarray, kernel: int, stride: int, pad: int) -> np.ndarray:
    padded = np.pad(x.astype(np.float64), ((0, 0), (0, 0), (pad, pad), (pad, pad)), constant_values=-np.inf)
    n, c, h, w = padded.shape
    oh, ow = (h - kernel) // stride + 1, (w - kernel) // stride + 1
    out = np.empty((n, c, oh, ow))
    for i in range(oh):
        for j in range(ow):
            window = padded[:, :, i * stride:i * stride + kernel, j * stride:j * stride + kernel]
            out[:, :, i, j] = window.max(axis=(2, 3))  # NaN wins
    return out.astype(np.float32)


@pytest.mark.parametrize("kernel, stride, pad", [(3, 1, 1), (2, 2, 0), (3, 2, 1)])
def test_max_pool_propagates_nan(kernel: int, stride: int, pad: int) -> None:
    x = poisoned()
    node = helper.make_node("MaxPool", ["x"], ["y"], kernel_shape=[kernel, kernel], strides=[stride, stride],
                            pads=[pad] * 4)
    ours, expected = _run([node], x), _max_pool_oracle(x, kernel, stride, pad)
    assert np.array_equal(ours, expected, equal_nan=True)


def test_global_max_pool_propagates_nan() -> None:
    x = poisoned()
    ours = _run([helper.make_node("GlobalMaxPool", ["x"], ["y"])], x)
    assert np.array_equal(ours, x.max(axis=(2, 3), keepdims=True), equal_nan=True)


@pytest.mark.parametrize("op", ["ReduceMax", "ReduceMin"])
def test_min_max_reductions_propagate_nan(op: str) -> None:
    x = poisoned()
    node = helper.make_node(op, ["x", "axes"], ["y"], keepdims=1)
    ours = _run([node], x, {"axes": np.array([2, 3], np.int64)})
    expected = (x.max if op == "ReduceMax" else x.min)(axis=(2, 3), keepdims=True)
    assert np.array_equal(ours, expected, equal_nan=True)


@pytest.mark.parametrize("op", ["Softmax", "LogSoftmax"])
def test_softmax_propagates_nan(op: str) -> None:
    check_node(op, {"x": poisoned()}, axis=1)


@pytest.mark.parametrize("activation", ["Relu", "Clip", "HardSigmoid", "LeakyRelu"])
@pytest.mark.parametrize("case", ["gemm_3x3", "pointwise", "depthwise", "winograd"])
def test_fused_conv_activations_propagate_nan(case: str, activation: str) -> None:
    """Conv + activation: the converter fuses the activation into the conv kernel's output stage."""
    rng = np.random.default_rng(1)
    cin, cout, kernel, attrs = {
        "gemm_3x3": (8, 16, 3, {"pads": [1, 1, 1, 1], "strides": [2, 2]}),
        "pointwise": (8, 24, 1, {}),
        "depthwise": (8, 8, 3, {"pads": [1, 1, 1, 1], "group": 8}),
        "winograd": (8, 16, 3, {"pads": [1, 1, 1, 1]}),
    }[case]
    group = int(attrs.get("group", 1))  # type: ignore[call-overload]
    x = rng.standard_normal((1, cin, 20, 20)).astype(np.float32)
    x[0, 0, 3, 4] = np.nan  # one poisoned pixel: its whole window must read NaN downstream
    x[0, 5, 17, 19] = np.nan
    w = (rng.standard_normal((cout, cin // group, kernel, kernel)) * 0.3).astype(np.float32)
    constants = {"w": w, "b": (rng.standard_normal(cout) * 0.1).astype(np.float32)}
    nodes = [helper.make_node("Conv", ["x", "w", "b"], ["c"], **attrs)]
    attributes = {"LeakyRelu": {"alpha": 0.1}, "HardSigmoid": {"alpha": 0.2, "beta": 0.5}}
    act_attrs: dict[str, object] = attributes.get(activation, {})
    act_inputs = ["c"]
    if activation == "Clip":
        constants |= {"lo": np.array(0.0, np.float32), "hi": np.array(6.0, np.float32)}
        act_inputs += ["lo", "hi"]
    nodes.append(helper.make_node(activation, act_inputs, ["y"], **act_attrs))
    ours = check(make_model(nodes, {"x": x}, {"y": TensorProto.FLOAT}, constants), {"x": x})
    assert np.isnan(ours["y"]).any()  # the test can fail: NaN must reach the output
