"""NaN in, NaN out (issue 19): activations, pooling and reductions propagate NaN and infinities where
onnxruntime does, in the reference and the fast kernels (inputs of 504 values with NaN / +-inf at
scattered positions run the vector bodies and their tails; the fused activations of CONV_2D run
the GEMM, depthwise and Winograd paths). The oracle is onnxruntime on the same ONNX model:
tests.test_ops_nn.check compares NaN positions and infinities exactly, finite values within 1e-4.
A kernel written as ``v > 0 ? v : 0`` or ``max(v, 0)`` on x86 (which returns its second operand
when either is NaN) turns a NaN pixel into a confident 0.
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


POOLS = {
    "MaxPool": {"kernel_shape": [3, 3], "pads": [1, 1, 1, 1]},
    "MaxPool_s2": {"kernel_shape": [2, 2], "strides": [2, 2]},
    "AveragePool": {"kernel_shape": [3, 3], "pads": [1, 1, 1, 1], "count_include_pad": 0},
    "GlobalAveragePool": {},
    "GlobalMaxPool": {},
}


@pytest.mark.parametrize("name", sorted(POOLS))
def test_pooling_propagates_nan(name: str) -> None:
    check_node(name.split("_")[0], {"x": poisoned()}, **POOLS[name])


@pytest.mark.parametrize("op", ["ReduceMax", "ReduceMin", "ReduceMean", "ReduceSum", "ReduceL2"])
def test_reductions_propagate_nan(op: str) -> None:
    check_node(op, {"x": poisoned()}, {"axes": np.array([2, 3], np.int64)}, opset=18, keepdims=1)


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
