"""NaN in, NaN out (issues 19 and 20): every activation, pooling op, reduction and softmax propagates
NaN and infinities where onnxruntime does, in the fast kernels and (test_reference_kernels_too) the
portable reference kernels (inputs of 504 values with NaN / +-inf at scattered positions run the
vector bodies and their tails; the fused activations of CONV_2D run the GEMM, depthwise and
Winograd paths). The oracle is onnxruntime on the same ONNX model: tests.test_ops_nn.check compares
NaN positions and infinities exactly, finite values within 1e-4. A kernel written as
``v > 0 ? v : 0`` or ``max(v, 0)`` on x86 (which returns its second operand when either is NaN)
turns a NaN pixel into a confident 0. Where onnxruntime is not consistent with itself (its MLAS
max kernels keep or drop a NaN by its position: max pooling, min/max reductions) the oracle is
numpy / the ONNX spec instead, said at each test. The int8 borders (QuantizeLinear /
DequantizeLinear around int8 ops) are compared with onnxruntime byte for byte, NaN excepted (see
there). Hardmax / ArgMax over NaN are left out: onnxruntime picks a position-dependent index there.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

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


# Every activation the converter takes (Clip and PRelu below), and the elementwise math beside them:
# (attributes, opset). ThresholdedRelu and Shrink map NaN to 0, as their spec's comparisons and
# onnxruntime do (``x > alpha`` is false for NaN).
UNARY: dict[str, tuple[dict[str, object], int]] = {
    "Relu": ({}, 17),
    "LeakyRelu": ({"alpha": 0.1}, 17),
    "HardSigmoid": ({"alpha": 0.2, "beta": 0.5}, 17),
    "HardSwish": ({}, 17),
    "Sigmoid": ({}, 17),
    "Tanh": ({}, 17),
    "Elu": ({"alpha": 1.0}, 17),
    "Selu": ({}, 17),
    "Celu": ({"alpha": 0.7}, 17),
    "Softplus": ({}, 17),
    "Softsign": ({}, 17),
    "Gelu": ({}, 20),
    "Gelu_tanh": ({"approximate": "tanh"}, 20),
    "Mish": ({}, 18),
    "Swish": ({}, 24),
    "ThresholdedRelu": ({"alpha": 0.5}, 17),
    "Shrink": ({"lambd": 0.5, "bias": 0.1}, 17),
    "Abs": ({}, 17),
    "Neg": ({}, 17),
    "Exp": ({}, 17),
    "Log": ({}, 17),
    "Sqrt": ({}, 17),
    "Reciprocal": ({}, 17),
    "Erf": ({}, 17),
    "Sign": ({}, 17),
    "Floor": ({}, 17),
    "Ceil": ({}, 17),
    "Round": ({}, 17),
}


@pytest.mark.parametrize("op", sorted(UNARY))
def test_activations_propagate_nan(op: str) -> None:
    attrs, opset = UNARY[op]
    check_node(op.split("_")[0], {"x": poisoned()}, opset=opset, **attrs)


@pytest.mark.parametrize("op", ["Max", "Min"])
def test_elementwise_max_min_propagate_nan(op: str) -> None:
    """Both operand orders: x86's max_ps returns its second operand when either is NaN."""
    other = np.random.default_rng(3).standard_normal(SHAPE).astype(np.float32)
    check_node(op, {"x": poisoned(), "b": other})
    check_node(op, {"b": other, "x": poisoned()})


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


@pytest.mark.parametrize("op", ["ReduceMean", "ReduceSum", "ReduceL1", "ReduceL2", "ReduceSumSquare",
                                "ReduceLogSum", "ReduceLogSumExp", "ReduceProd"])
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


# -- the int8 borders ----------------------------------------------------------------------------
# int8 has no NaN. +-inf and out-of-range values saturate and ties round to even as in onnxruntime,
# byte for byte. NaN quantizes to the zero point (the int8 image of 0.0) on every CPU: onnxruntime
# gives -128 on x86 (cvtps2dq's "integer indefinite", then clamped) and the zero point on ARM, so
# it is no oracle for NaN; the ONNX spec leaves it open for integer types.
BORDER = np.array([np.nan, np.inf, -np.inf, 0.5, 1.5, 2.5, -0.5, -2.5, 300.0, -300.0, 126.5, -128.5],
                  np.float32)


def _qdq_model(zero_point_type: int, activation: str | None):
    nodes = [helper.make_node("QuantizeLinear", ["x", "s", "z"], ["q"]),
             helper.make_node("DequantizeLinear", ["q", "s", "z"], ["d" if activation else "y"])]
    constants = {"s": np.array(1.0, np.float32),
                 "z": np.array(0, helper.tensor_dtype_to_np_dtype(zero_point_type))}
    if activation:  # an int8 table op between the borders (the converter composes it into a lookup)
        nodes += [helper.make_node(activation, ["d"], ["a"]),
                  helper.make_node("QuantizeLinear", ["a", "s2", "z"], ["q2"]),
                  helper.make_node("DequantizeLinear", ["q2", "s2", "z"], ["y"])]
        constants["s2"] = np.array(1 / 255, np.float32)
    x = np.tile(BORDER, 4).reshape(1, -1)
    return make_model(nodes, {"x": x}, {"y": TensorProto.FLOAT}, constants, opset=14), x


@pytest.mark.parametrize("activation", [None, "Sigmoid", "Tanh", "HardSwish"])
@pytest.mark.parametrize("zero_point_type", [TensorProto.INT8, TensorProto.UINT8])
def test_int8_borders_saturate_and_round_like_onnxruntime(zero_point_type: int,
                                                          activation: str | None) -> None:
    from tests.test_ops_nn import run_lite, run_onnxruntime

    model, x = _qdq_model(zero_point_type, activation)
    ours, expected = run_lite(model, {"x": x})["y"], run_onnxruntime(model, {"x": x})["y"]
    finite_or_inf = ~np.isnan(x)
    np.testing.assert_array_equal(ours[finite_or_inf], expected[finite_or_inf])
    # NaN: the zero point, i.e. what onnxruntime gives for 0.0 through the same chain.
    zeros = run_onnxruntime(model, {"x": np.zeros_like(x)})["y"]
    np.testing.assert_array_equal(ours[~finite_or_inf], zeros[~finite_or_inf])


# -- the reference kernels -----------------------------------------------------------------------
def test_reference_kernels_too() -> None:
    """Every test above again in a process with every CPU feature masked off
    (LITE_CPU_FEATURES_MASK=0): the portable reference kernels, which the fast ones are checked
    against elsewhere, must propagate NaN as well."""
    if os.environ.get("LITE_CPU_FEATURES_MASK") == "0":
        pytest.skip("this is the reference-kernel run itself")  # declared: the inner run only
    env = {**os.environ, "LITE_CPU_FEATURES_MASK": "0"}
    root = Path(__file__).resolve().parents[1]
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", __file__,
                           "-k", "not test_reference_kernels_too"], env=env, cwd=root,
                          capture_output=True, text=True, timeout=900, check=False)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    summary = done.stdout.strip().splitlines()[-1]
    passed = int(re.search(r"(\d+) passed", summary).group(1))  # type: ignore[union-attr]
    assert passed >= 75 and "skipped" not in summary and "failed" not in summary, summary
