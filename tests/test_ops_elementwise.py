"""The elementwise op group end to end: one-node ONNX models -> lite_converter -> our runtime.

Each test builds a small ONNX model, converts it with ``convert_onnx``, runs it with
``runtime_arm.Interpreter`` and compares every output with onnxruntime running the same ONNX model
(the independent oracle). For dtypes onnxruntime has no kernel for (int8, uint16, ...) the oracle
is numpy with the ONNX definition spelled out in the test.

Tolerances, and why:

* integer, bool and data-movement results must be equal;
* float ops that IEEE rounds correctly (add, sub, mul, div, min, max, abs, neg, floor, ceil, round,
  relu, clip, fmod, ...) must be equal too: both sides compute the same correctly rounded value;
* transcendental float ops (exp, log, tanh, sigmoid, erf, trig, pow, ...) agree within a relative
  1e-5 (absolute 1e-6 near zero): onnxruntime's vectorized approximations and libm differ by a few
  ulp, which is not an error of either.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import onnx
import onnxruntime
import pytest
from onnx import TensorProto, helper, numpy_helper

OPSET = 19
TRANSCENDENTAL_RTOL = 1e-5
TRANSCENDENTAL_ATOL = 1e-6


# -- building and running one-node models (also used by test_ops_tensor.py) -------------------------
def onnx_type(dtype: np.dtype | type) -> int:
    return helper.np_dtype_to_tensor_dtype(np.dtype(dtype))


def make_model(
    nodes: Sequence[onnx.NodeProto],
    feeds: dict[str, np.ndarray],
    outputs: dict[str, np.dtype | type],
    constants: dict[str, np.ndarray] | None = None,
    opset: int = OPSET,
    input_shapes: dict[str, Sequence[int | str]] | None = None,
) -> onnx.ModelProto:
    """A model whose graph inputs are ``feeds`` and whose constants are initializers.

    Output shapes are left unknown so neither side is told the answer. ``input_shapes`` overrides a
    graph input's declared shape (symbolic dims for dynamic-shape tests).
    """
    shapes = input_shapes or {}
    inputs = [helper.make_tensor_value_info(name, onnx_type(a.dtype), shapes.get(name, a.shape))
              for name, a in feeds.items()]
    inits = [numpy_helper.from_array(np.asarray(a), name) for name, a in (constants or {}).items()]
    outs = [helper.make_tensor_value_info(name, onnx_type(dtype), None) for name, dtype in outputs.items()]
    graph = helper.make_graph(list(nodes), "op_test", inputs, outs, inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)])
    model.ir_version = 9
    # The checker wants output shapes: check an inferred copy, hand out the model without them.
    onnx.checker.check_model(onnx.shape_inference.infer_shapes(model, strict_mode=True))
    return model


def run_onnxruntime(model: onnx.ModelProto, feeds: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = 1
    session = onnxruntime.InferenceSession(
        model.SerializeToString(), options, providers=["CPUExecutionProvider"])
    names = [o.name for o in session.get_outputs()]
    return dict(zip(names, session.run(names, feeds), strict=True))


def run_lite(model: onnx.ModelProto, feeds: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    from lite_converter.convert import convert_onnx
    from runtime_arm import Interpreter

    return Interpreter(model_content=convert_onnx(model), threads=1).run(feeds)


def assert_same(actual: np.ndarray, expected: np.ndarray, rtol: float = 0.0, atol: float = 0.0) -> None:
    """Equal dtype and shape; values equal (NaN matching NaN) or within rtol/atol for floats."""
    actual, expected = np.asarray(actual), np.asarray(expected)
    assert actual.dtype == expected.dtype, f"dtype {actual.dtype} != {expected.dtype}"
    assert actual.shape == expected.shape, f"shape {actual.shape} != {expected.shape}"
    if rtol == 0.0 and atol == 0.0:
        np.testing.assert_array_equal(actual, expected)
    else:
        np.testing.assert_allclose(actual, expected, rtol=rtol, atol=atol)


def check_against_onnxruntime(model: onnx.ModelProto, feeds: dict[str, np.ndarray], rtol: float = 0.0,
                              atol: float = 0.0) -> dict[str, np.ndarray]:
    expected = run_onnxruntime(model, feeds)
    actual = run_lite(model, feeds)
    for name, value in expected.items():
        assert_same(actual[name], value, rtol, atol)
    return actual


def _rng(seed: int) -> np.random.Generator:
    return np.random.default_rng(seed)


def _values(
    shape: Sequence[int], dtype: np.dtype | type, seed: int, low: float = -5, high: float = 5
) -> np.ndarray:
    rng = _rng(seed)
    dtype = np.dtype(dtype)
    if dtype == np.bool_:
        return rng.integers(0, 2, size=shape).astype(np.bool_)
    if dtype.kind in "iu":
        info = np.iinfo(dtype)
        return rng.integers(max(int(low), info.min), min(int(high), info.max) + 1, size=shape).astype(dtype)
    return rng.uniform(low, high, size=shape).astype(dtype)


# -- binary ops: broadcasting patterns ---------------------------------------------------------------
BROADCAST_PATTERNS = [
    pytest.param(((2, 3, 4), (2, 3, 4)), id="same"),
    pytest.param(((2, 3, 4), ()), id="scalar"),
    pytest.param(((), (2, 3)), id="scalar_first"),
    pytest.param(((1, 3, 5, 5), (1, 3, 1, 1)), id="per_channel_nchw"),
    pytest.param(((2, 5, 5, 3), (3,)), id="per_channel_nhwc"),
    pytest.param(((3, 1), (1, 4)), id="outer"),
    pytest.param(((2, 1, 3, 1, 4), (1, 5, 3, 6, 1)), id="rank5_mixed"),
    pytest.param(((2, 1, 2, 1, 2, 1, 2, 3), (1, 2, 1, 2, 1, 2, 1, 1)), id="rank8"),
    pytest.param(((4, 0, 3), (1, 3)), id="empty"),
]

EXACT_FLOAT_BINARY = ["Add", "Sub", "Mul", "Div", "Max", "Min"]


@pytest.mark.parametrize("shapes", BROADCAST_PATTERNS)
@pytest.mark.parametrize("op", EXACT_FLOAT_BINARY)
def test_float_binary_broadcasting(op, shapes):
    a, b = _values(shapes[0], np.float32, 1), _values(shapes[1], np.float32, 2)
    b[b == 0] = 1.0
    model = make_model([helper.make_node(op, ["a", "b"], ["y"])], {"a": a, "b": b}, {"y": np.float32})
    check_against_onnxruntime(model, {"a": a, "b": b})


@pytest.mark.parametrize("shapes", BROADCAST_PATTERNS[:5])
@pytest.mark.parametrize("op", ["Add", "Mul", "Sub", "Div"])
def test_binary_with_constant_operand(op, shapes):
    """A constant operand is what models have (bias, scale); the converter may reshape it."""
    a, b = _values(shapes[0], np.float32, 3), _values(shapes[1], np.float32, 4, 0.5, 3)
    model = make_model([helper.make_node(op, ["a", "b"], ["y"])], {"a": a}, {"y": np.float32}, {"b": b})
    check_against_onnxruntime(model, {"a": a})


@pytest.mark.parametrize("shapes", BROADCAST_PATTERNS[:4])
def test_pow_float(shapes):
    a, b = _values(shapes[0], np.float32, 5, 0.1, 3), _values(shapes[1], np.float32, 6, -2, 3)
    model = make_model([helper.make_node("Pow", ["a", "b"], ["y"])], {"a": a, "b": b}, {"y": np.float32})
    check_against_onnxruntime(model, {"a": a, "b": b}, TRANSCENDENTAL_RTOL, TRANSCENDENTAL_ATOL)


# Squaring (a power spectrum's |X|^2) runs as x * x: equal to onnxruntime, which squares the same way,
# for a constant or a fed exponent of any single-element shape; other exponents keep powf.
@pytest.mark.parametrize("exponent_shape", [(), (1,), (1, 1, 1)])
@pytest.mark.parametrize("exponent", [2.0, 3.0, 0.5])
@pytest.mark.parametrize("constant", [True, False], ids=["constant", "fed"])
def test_pow_by_a_single_exponent(exponent_shape: tuple[int, ...], exponent: float, constant: bool) -> None:
    a = _values((2, 5, 33), np.float32, 8, -40, 40)
    a.flat[:6] = [0.0, -0.0, np.inf, -np.inf, np.nan, 3.4e38]
    b = np.full(exponent_shape, exponent, np.float32)
    feeds = {"a": np.abs(a) if exponent == 0.5 else a}
    node = helper.make_node("Pow", ["a", "b"], ["y"])
    if constant:
        model = make_model([node], feeds, {"y": np.float32}, {"b": b})
    else:
        feeds["b"] = b
        model = make_model([node], feeds, {"y": np.float32})
    tolerance = (0.0, 0.0) if exponent == 2.0 else (TRANSCENDENTAL_RTOL, TRANSCENDENTAL_ATOL)
    check_against_onnxruntime(model, feeds, *tolerance)


@pytest.mark.parametrize("exponent_dtype", [np.int32, np.int64, np.float64])
def test_pow_exponent_of_another_dtype(exponent_dtype):
    a = _values((3, 4), np.float32, 7, -3, 3)
    b = np.array([0, 1, 2, 3], dtype=exponent_dtype)
    model = make_model([helper.make_node("Pow", ["a", "b"], ["y"])], {"a": a, "b": b}, {"y": np.float32})
    check_against_onnxruntime(model, {"a": a, "b": b}, TRANSCENDENTAL_RTOL, TRANSCENDENTAL_ATOL)


# ONNX requires fmod=1 for float Mod: there is no float case with fmod=0 to compare
@pytest.mark.parametrize(("dtype", "fmod"), [
    pytest.param(dtype, fmod, id=f"{np.dtype(dtype).name}-{fmod}")
    for dtype, fmod in [(np.int32, 0), (np.int32, 1), (np.int64, 0), (np.int64, 1), (np.float32, 1)]])
def test_mod_mixed_signs(dtype, fmod):
    a = np.array([[-7, 7, -7, 7, 0, 5, -5, 13]], dtype=dtype)
    b = np.array([3, 3, -3, -3, 4, 5, 2, -4], dtype=dtype)
    node = helper.make_node("Mod", ["a", "b"], ["y"], fmod=fmod)
    model = make_model([node], {"a": a, "b": b}, {"y": dtype})
    check_against_onnxruntime(model, {"a": a, "b": b})


@pytest.mark.parametrize("shapes", BROADCAST_PATTERNS[:7])
@pytest.mark.parametrize("dtype", [np.int32, np.int64])
@pytest.mark.parametrize("op", ["Add", "Sub", "Mul", "Div", "Max", "Min"])
def test_int_binary(op, dtype, shapes):
    a, b = _values(shapes[0], dtype, 8, -50, 50), _values(shapes[1], dtype, 9, -9, 9)
    b[b == 0] = 3  # integer division by zero is undefined in ONNX
    model = make_model([helper.make_node(op, ["a", "b"], ["y"])], {"a": a, "b": b}, {"y": dtype})
    check_against_onnxruntime(model, {"a": a, "b": b})


def test_int32_add_wraps_around():
    a = np.array([2**31 - 1, -(2**31)], dtype=np.int32)
    b = np.array([1, -1], dtype=np.int32)
    model = make_model([helper.make_node("Add", ["a", "b"], ["y"])], {"a": a, "b": b}, {"y": np.int32})
    check_against_onnxruntime(model, {"a": a, "b": b})


def _numpy_binary(op: str, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """ONNX definitions in numpy, for dtypes onnxruntime has no kernel for."""
    with np.errstate(over="ignore"):
        if op == "Add":
            return a + b
        if op == "Sub":
            return a - b
        if op == "Mul":
            return a * b
        if op == "Div":  # C semantics: truncation toward zero
            return (np.trunc(a.astype(np.float64) / b.astype(np.float64))).astype(a.dtype)
        if op == "Max":
            return np.maximum(a, b)
        if op == "Min":
            return np.minimum(a, b)
    raise AssertionError(op)


@pytest.mark.parametrize("dtype", [np.int8, np.uint8, np.int16, np.uint16, np.uint32, np.uint64])
@pytest.mark.parametrize("op", ["Add", "Sub", "Mul", "Div", "Max", "Min"])
def test_small_and_unsigned_int_binary_against_numpy(op, dtype):
    a = _values((3, 5), dtype, 10, 0 if np.dtype(dtype).kind == "u" else -100, 100)
    b = _values((5,), dtype, 11, 1, 9)
    model = make_model([helper.make_node(op, ["a", "b"], ["y"])], {"a": a, "b": b}, {"y": dtype})
    assert_same(run_lite(model, {"a": a, "b": b})["y"], _numpy_binary(op, a, b))


# docs/OPS.md: float ops run in FLOAT32. The converter wraps float64 compute ops in CASTs
# (promote_float32.py), so a double model agrees with the oracle to float32 precision only.
FLOAT64_VIA_FLOAT32_RTOL = 1e-6


@pytest.mark.parametrize("op", ["Add", "Mul", "Div", "Max", "Pow"])
def test_float64_binary(op):
    a, b = _values((2, 3), np.float64, 12, 0.5, 4), _values((3,), np.float64, 13, 0.5, 2)
    model = make_model([helper.make_node(op, ["a", "b"], ["y"])], {"a": a, "b": b}, {"y": np.float64})
    check_against_onnxruntime(model, {"a": a, "b": b}, FLOAT64_VIA_FLOAT32_RTOL, 0.0)


COMPARISONS = ["Equal", "Less", "LessOrEqual", "Greater", "GreaterOrEqual"]


@pytest.mark.parametrize("shapes", BROADCAST_PATTERNS[:6])
@pytest.mark.parametrize("dtype", [np.float32, np.int32, np.int64])
@pytest.mark.parametrize("op", COMPARISONS)
def test_comparisons(op, dtype, shapes):
    a, b = _values(shapes[0], dtype, 14, -3, 3), _values(shapes[1], dtype, 15, -3, 3)
    if np.dtype(dtype).kind == "f":  # make ties happen
        a, b = np.asarray(np.round(a), dtype), np.asarray(np.round(b), dtype)
    model = make_model([helper.make_node(op, ["a", "b"], ["y"])], {"a": a, "b": b}, {"y": np.bool_})
    check_against_onnxruntime(model, {"a": a, "b": b})


def test_equal_on_bool():
    a, b = _values((4, 3), np.bool_, 16), _values((3,), np.bool_, 17)
    model = make_model([helper.make_node("Equal", ["a", "b"], ["y"])], {"a": a, "b": b}, {"y": np.bool_})
    check_against_onnxruntime(model, {"a": a, "b": b})


@pytest.mark.parametrize("op", ["And", "Or", "Xor"])
def test_logical_binary(op):
    a, b = _values((2, 3, 4), np.bool_, 18), _values((3, 1), np.bool_, 19)
    model = make_model([helper.make_node(op, ["a", "b"], ["y"])], {"a": a, "b": b}, {"y": np.bool_})
    check_against_onnxruntime(model, {"a": a, "b": b})


def test_logical_not():
    a = _values((5, 7), np.bool_, 20)
    model = make_model([helper.make_node("Not", ["a"], ["y"])], {"a": a}, {"y": np.bool_})
    check_against_onnxruntime(model, {"a": a})


@pytest.mark.parametrize("slope_shape", [(3, 1, 1), (1,), (3, 4, 5)])
def test_prelu(slope_shape):
    x = _values((2, 3, 4, 5), np.float32, 21)
    slope = _values(slope_shape, np.float32, 22, 0, 1)
    model = make_model([helper.make_node("PRelu", ["x", "slope"], ["y"])], {"x": x}, {"y": np.float32},
                       {"slope": slope})
    check_against_onnxruntime(model, {"x": x})


@pytest.mark.parametrize("activation", ["Relu", "Sigmoid", "Clip"])
def test_binary_followed_by_activation(activation):
    """The converter may fuse the activation into the binary op (fused activation path)."""
    a, b = _values((1, 4, 6, 6), np.float32, 23), _values((1, 4, 1, 1), np.float32, 24)
    nodes = [helper.make_node("Add", ["a", "b"], ["t"])]
    constants = {}
    if activation == "Clip":
        nodes.append(helper.make_node("Clip", ["t", "lo", "hi"], ["y"]))
        constants = {"lo": np.array(0.0, np.float32), "hi": np.array(6.0, np.float32)}
    else:
        nodes.append(helper.make_node(activation, ["t"], ["y"]))
    model = make_model(nodes, {"a": a, "b": b}, {"y": np.float32}, constants)
    check_against_onnxruntime(model, {"a": a, "b": b}, TRANSCENDENTAL_RTOL, TRANSCENDENTAL_ATOL)


@pytest.mark.parametrize("op", ["Add", "Mul", "Max", "Equal"])
def test_float16_binary(op):
    """FLOAT16 is computed in float32 and rounded back: one half-precision rounding, like the oracle."""
    a, b = _values((3, 4), np.float16, 25, -4, 4), _values((4,), np.float16, 26, -4, 4)
    out = np.bool_ if op == "Equal" else np.float16
    model = make_model([helper.make_node(op, ["a", "b"], ["y"])], {"a": a, "b": b}, {"y": out})
    check_against_onnxruntime(model, {"a": a, "b": b})


# -- unary ops -----------------------------------------------------------------------------------------
# (op, attributes, input range, exact?)
UNARY_CASES = [
    ("Relu", {}, (-5, 5), True),
    ("Abs", {}, (-5, 5), True),
    ("Neg", {}, (-5, 5), True),
    ("Floor", {}, (-5, 5), True),
    ("Ceil", {}, (-5, 5), True),
    ("Sign", {}, (-5, 5), True),
    ("Reciprocal", {}, (0.5, 5), True),
    ("Sqrt", {}, (0, 9), True),
    ("LeakyRelu", {"alpha": 0.1}, (-5, 5), True),
    ("ThresholdedRelu", {"alpha": 1.5}, (-5, 5), True),
    ("Shrink", {"lambd": 1.5, "bias": 0.5}, (-5, 5), True),
    ("Softsign", {}, (-5, 5), False),  # onnxruntime multiplies by a reciprocal: 1 ulp apart
    ("HardSigmoid", {"alpha": 0.3, "beta": 0.4}, (-5, 5), False),
    ("HardSwish", {}, (-5, 5), False),
    ("Sigmoid", {}, (-8, 8), False),
    ("Tanh", {}, (-5, 5), False),
    ("Exp", {}, (-5, 5), False),
    ("Log", {}, (0.01, 10), False),
    ("Elu", {"alpha": 0.7}, (-5, 5), False),
    ("Selu", {"alpha": 1.7, "gamma": 1.1}, (-5, 5), False),
    ("Celu", {"alpha": 0.8}, (-5, 5), False),
    ("Softplus", {}, (-20, 20), False),
    ("Mish", {}, (-10, 10), False),
    ("Erf", {}, (-3, 3), False),
    ("Sin", {}, (-6, 6), False),
    ("Cos", {}, (-6, 6), False),
    ("Tan", {}, (-1.4, 1.4), False),
    ("Asin", {}, (-0.99, 0.99), False),
    ("Acos", {}, (-0.99, 0.99), False),
    ("Atan", {}, (-5, 5), False),
    ("Sinh", {}, (-4, 4), False),
    ("Cosh", {}, (-4, 4), False),
    ("Asinh", {}, (-5, 5), False),
    ("Acosh", {}, (1, 5), False),
    ("Atanh", {}, (-0.99, 0.99), False),
]


@pytest.mark.parametrize("op,attrs,value_range,exact", UNARY_CASES, ids=[c[0] for c in UNARY_CASES])
def test_unary_float(op, attrs, value_range, exact):
    x = _values((2, 3, 17), np.float32, 27, *value_range)
    model = make_model([helper.make_node(op, ["x"], ["y"], **attrs)], {"x": x}, {"y": np.float32})
    if exact:
        check_against_onnxruntime(model, {"x": x})
    else:
        check_against_onnxruntime(model, {"x": x}, TRANSCENDENTAL_RTOL, TRANSCENDENTAL_ATOL)


def test_round_is_half_to_even():
    x = np.array([-2.5, -1.5, -0.5, 0.5, 1.5, 2.5, 3.5, 2.4, -2.6, 0.0], dtype=np.float32)
    model = make_model([helper.make_node("Round", ["x"], ["y"])], {"x": x}, {"y": np.float32})
    out = check_against_onnxruntime(model, {"x": x})
    assert out["y"].tolist() == [-2.0, -2.0, -0.0, 0.0, 2.0, 2.0, 4.0, 2.0, -3.0, 0.0]


@pytest.mark.parametrize("approximate", ["none", "tanh"])
def test_gelu(approximate):
    x = _values((4, 33), np.float32, 28, -6, 6)
    model = make_model([helper.make_node("Gelu", ["x"], ["y"], approximate=approximate)], {"x": x},
                       {"y": np.float32}, opset=20)
    check_against_onnxruntime(model, {"x": x}, TRANSCENDENTAL_RTOL, TRANSCENDENTAL_ATOL)


@pytest.mark.parametrize("bounds", [(-1.0, 2.0), (0.0, 6.0), (None, 0.5), (-0.5, None)])
def test_clip(bounds):
    x = _values((3, 8), np.float32, 29)
    names, constants = [], {}
    for name, value in zip(["lo", "hi"], bounds, strict=True):
        if value is None:
            names.append("")
        else:
            names.append(name)
            constants[name] = np.array(value, np.float32)
    node = helper.make_node("Clip", ["x", *names], ["y"])
    model = make_model([node], {"x": x}, {"y": np.float32}, constants)
    check_against_onnxruntime(model, {"x": x})


@pytest.mark.parametrize("dtype", [np.int32, np.int64])
@pytest.mark.parametrize("op", ["Abs", "Neg", "Sign"])
def test_unary_int(op, dtype):
    x = _values((4, 6), dtype, 30, -100, 100)
    model = make_model([helper.make_node(op, ["x"], ["y"])], {"x": x}, {"y": dtype})
    check_against_onnxruntime(model, {"x": x})


@pytest.mark.parametrize("dtype", [np.int8, np.int32, np.int64])
def test_relu_int_against_numpy(dtype):
    """Relu-14 defines integer inputs; onnxruntime has no int64/int8 kernel, numpy is the oracle."""
    x = _values((4, 6), dtype, 30, -100, 100)
    model = make_model([helper.make_node("Relu", ["x"], ["y"])], {"x": x}, {"y": dtype})
    assert_same(run_lite(model, {"x": x})["y"], np.maximum(x, 0).astype(dtype))


@pytest.mark.parametrize("dtype", [np.int8, np.int32, np.int64])
def test_clip_int(dtype):
    x = _values((4, 6), dtype, 31, -100, 100)
    constants = {"lo": np.array(-20, dtype), "hi": np.array(30, dtype)}
    node = helper.make_node("Clip", ["x", "lo", "hi"], ["y"])
    model = make_model([node], {"x": x}, {"y": dtype}, constants)
    check_against_onnxruntime(model, {"x": x})


def test_unary_float64():
    x = _values((3, 5), np.float64, 32, 0.1, 3)
    nodes = [helper.make_node("Log", ["x"], ["a"]), helper.make_node("Sqrt", ["x"], ["b"]),
             helper.make_node("Exp", ["x"], ["c"])]
    model = make_model(nodes, {"x": x}, {"a": np.float64, "b": np.float64, "c": np.float64})
    check_against_onnxruntime(model, {"x": x}, FLOAT64_VIA_FLOAT32_RTOL, 0.0)


SPECIAL_VALUES = np.array([np.inf, -np.inf, np.nan, 0.0, -0.0, 1.0, -3.5, 1e30], dtype=np.float32)


def test_is_nan():
    model = make_model([helper.make_node("IsNaN", ["x"], ["y"])], {"x": SPECIAL_VALUES}, {"y": np.bool_})
    check_against_onnxruntime(model, {"x": SPECIAL_VALUES})


@pytest.mark.parametrize("detect_negative,detect_positive", [(1, 1), (0, 1), (1, 0)])
def test_is_inf(detect_negative, detect_positive):
    node = helper.make_node("IsInf", ["x"], ["y"], detect_negative=detect_negative,
                            detect_positive=detect_positive)
    model = make_model([node], {"x": SPECIAL_VALUES}, {"y": np.bool_})
    check_against_onnxruntime(model, {"x": SPECIAL_VALUES})


def test_identity_keeps_values():
    x = _values((2, 5), np.int64, 33, -9, 9)
    nodes = [helper.make_node("Identity", ["x"], ["t"]), helper.make_node("Neg", ["t"], ["y"])]
    model = make_model(nodes, {"x": x}, {"y": np.int64})
    check_against_onnxruntime(model, {"x": x})


# -- where -----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("shapes", [((2, 3, 4), (2, 3, 4), (2, 3, 4)), ((3, 1), (1, 4), ()),
                                    ((4,), (2, 1, 4), (3, 1)), ((1, 1), (5, 6), (5, 6))])
@pytest.mark.parametrize("dtype", [np.float32, np.int64, np.uint8, np.bool_, np.float16])
def test_where(dtype, shapes):
    cond = _values(shapes[0], np.bool_, 34)
    x, y = _values(shapes[1], dtype, 35, 0, 100), _values(shapes[2], dtype, 36, 0, 100)
    model = make_model([helper.make_node("Where", ["c", "x", "y"], ["z"])], {"c": cond, "x": x, "y": y},
                       {"z": dtype})
    feeds = {"c": cond, "x": x, "y": y}
    if dtype == np.bool_:  # onnxruntime has no bool Where kernel; numpy.where is the same definition
        assert_same(run_lite(model, feeds)["z"], np.where(cond, x, y))
    else:
        check_against_onnxruntime(model, feeds)


# -- cast --------------------------------------------------------------------------------------------------
CAST_DTYPES = [np.float32, np.float64, np.float16, np.int8, np.uint8, np.int16, np.uint16, np.int32, np.int64,
               np.uint32, np.uint64, np.bool_]


def _cast_source(from_dtype: np.dtype, to_dtype: np.dtype) -> np.ndarray:
    """Values that every destination represents without undefined behaviour (no negative -> unsigned)."""
    from_dtype, to_dtype = np.dtype(from_dtype), np.dtype(to_dtype)
    if from_dtype == np.bool_:
        return np.array([True, False, True, True], dtype=np.bool_)
    signed = to_dtype.kind in "fib" and from_dtype.kind in "fi"
    values = [0, 1, 7, 100, 127] + ([-1, -7, -128] if signed else [])
    if from_dtype.kind == "f":
        values += [2.75, 99.5] + ([-2.75, -0.5] if signed else [])
    return np.array(values).astype(from_dtype)


@pytest.mark.parametrize("to_dtype", CAST_DTYPES, ids=[np.dtype(d).name for d in CAST_DTYPES])
@pytest.mark.parametrize("from_dtype", CAST_DTYPES, ids=[np.dtype(d).name for d in CAST_DTYPES])
def test_cast(from_dtype, to_dtype):
    x = _cast_source(from_dtype, to_dtype)
    node = helper.make_node("Cast", ["x"], ["y"], to=onnx_type(to_dtype))
    model = make_model([node], {"x": x}, {"y": to_dtype})
    check_against_onnxruntime(model, {"x": x})


def test_cast_float_to_half_rounds_to_nearest_even():
    # a tie between two halves, the largest half, overflow, underflow, subnormals
    x = np.array([1.00048828125, 65504.0, 70000.0, 1e-8, 6.1e-5, -2.0**-24, 3.0e-8], dtype=np.float32)
    model = make_model([helper.make_node("Cast", ["x"], ["y"], to=TensorProto.FLOAT16)], {"x": x},
                       {"y": np.float16})
    check_against_onnxruntime(model, {"x": x})
