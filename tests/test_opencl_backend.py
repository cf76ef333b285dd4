"""The OpenCL backend against onnxruntime, op by op and on a real model, and its fallbacks.

Each case is an ONNX model (NCHW, weights as initializers) converted to .lite and run with
``backend="opencl"``; every op must be placed on the OpenCL backend (``profile()[i]["backend"]``)
and every output must match onnxruntime within ``1e-4 * max(1, max|ref|)`` at fp32 (the kernels sum
in a different order than onnxruntime: a few ulp per accumulation, far below the bound) and within
``1e-2`` relative at fp16 storage (half keeps 11 significant bits: ~5e-4 per rounding, a few
roundings per value). Shapes are chosen to break channel-block code: channels not a multiple of 4,
odd sizes, 1x1 images, strides, dilation, groups, asymmetric pads.

The implementation is PoCL unless ``LITE_OPENCL_IMPLEMENTATION`` says otherwise
(tests/opencl_env.py); ``make test`` installs PoCL, so there it is never skipped.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper

from lite_converter.convert import convert_onnx
from runtime_arm import Interpreter, LiteError
from tests.opencl_env import (
    HALF_MATH_IMPLEMENTATIONS,
    IMPLEMENTATION,
    PLATFORM_NAMES,
    available,
    implementation_env,
)
from tests.test_ops_nn import make_model, run_onnxruntime

FP32_TOLERANCE = 1e-4
FP16_TOLERANCE = 1e-2


@pytest.fixture(autouse=True)
def _opencl_implementation(monkeypatch: pytest.MonkeyPatch,
                           capfd: pytest.CaptureFixture[str]) -> Iterator[None]:
    missing = available(IMPLEMENTATION)
    if missing is not None:
        if os.environ.get("LITE_REQUIRE_OPENCL"):
            pytest.fail(f"OpenCL implementation {IMPLEMENTATION!r} missing: {missing}")
        pytest.skip(f"OpenCL implementation {IMPLEMENTATION!r} missing: {missing}")
    for key, value in implementation_env(IMPLEMENTATION).items():
        monkeypatch.setenv(key, value)
    yield
    if IMPLEMENTATION == "oclgrind":  # each of its reports names the kernel and work item
        reports = capfd.readouterr().err
        assert "\tKernel: " not in reports, f"oclgrind found errors:\n{reports[:4000]}"


def _randn(*shape: int, seed: int = 0, scale: float = 1.0) -> np.ndarray:
    return (np.random.default_rng(seed).standard_normal(shape) * scale).astype(np.float32)


def _assert_close(name: str, actual: np.ndarray, expected: np.ndarray, tolerance: float) -> None:
    assert actual.shape == expected.shape, f"{name}: shape {actual.shape} != {expected.shape}"
    bound = tolerance * max(1.0, float(np.abs(expected).max(initial=0.0)))
    worst = float(np.abs(actual.astype(np.float64) - expected).max(initial=0.0))
    assert worst <= bound, f"{name}: max |diff| {worst:.3g} > {bound:.3g}"


def run_on_opencl(model: onnx.ModelProto, feeds: dict[str, np.ndarray], precision: str = "fp32",
                  expect_all_on_gpu: bool = True) -> dict[str, np.ndarray]:
    """Runs the model on the OpenCL backend, checks against onnxruntime, returns our outputs."""
    interpreter = Interpreter(model_content=convert_onnx(model), backend="opencl", precision=precision)
    ours = interpreter.run(feeds)
    if expect_all_on_gpu:
        on_cpu = [(row["op"], row["node"]) for row in interpreter.profile()
                  if row["backend"] != "opencl" and row["computed_by"] >= 0]
        assert not on_cpu, f"ops left on the CPU: {on_cpu}"
    expected = run_onnxruntime(model, feeds)
    tolerance = FP32_TOLERANCE if precision == "fp32" else FP16_TOLERANCE
    for name, value in expected.items():
        _assert_close(name, ours[name], value, tolerance)
    return ours


def one_node(op_type: str, feeds: dict[str, np.ndarray], constants: dict[str, np.ndarray] | None = None,
             **attrs: object) -> onnx.ModelProto:
    node = helper.make_node(op_type, [*feeds, *(constants or {})], ["y"], **attrs)
    return make_model([node], feeds, {"y": TensorProto.FLOAT}, constants)


# (N, Cin, H, W, Cout, kernel, attrs)
CONV_CASES = {
    "1x1": (1, 16, 5, 6, 24, (1, 1), {}),
    "1x1_odd_channels": (1, 7, 5, 3, 5, (1, 1), {}),
    "3x3_pad1": (1, 3, 9, 7, 8, (3, 3), dict(pads=[1, 1, 1, 1])),
    "3x3_stride2_asym": (2, 5, 11, 8, 6, (3, 2), dict(strides=[2, 1], pads=[0, 1, 2, 0])),
    "dilation": (1, 3, 13, 12, 4, (3, 3), dict(dilations=[2, 3], pads=[2, 3, 2, 3])),
    "groups3": (1, 6, 7, 9, 9, (3, 3), dict(group=3, pads=[1, 1, 1, 1])),
    "depthwise_3x3_s2": (1, 8, 9, 11, 8, (3, 3), dict(group=8, strides=[2, 2], pads=[1, 1, 1, 1])),
    "depthwise_5x5_c5": (1, 5, 8, 8, 5, (5, 5), dict(group=5, pads=[2, 2, 2, 2])),
    "depthwise_multiplier2": (1, 4, 7, 6, 8, (3, 3), dict(group=4, pads=[1, 0, 1, 0])),
    "1x1_image": (1, 9, 1, 1, 3, (1, 1), {}),
}


@pytest.mark.parametrize("case", sorted(CONV_CASES))
def test_conv(case: str) -> None:
    n, cin, h, w, cout, (kh, kw), attrs = CONV_CASES[case]
    group = int(attrs.get("group", 1))
    feeds = {"x": _randn(n, cin, h, w, seed=1)}
    constants = {"w": _randn(cout, cin // group, kh, kw, seed=2, scale=0.3), "b": _randn(cout, seed=3)}
    run_on_opencl(one_node("Conv", feeds, constants, kernel_shape=[kh, kw], **attrs), feeds)


@pytest.mark.parametrize("activation", ["Relu", "Clip", "Sigmoid", "HardSwish", "LeakyRelu"])
def test_conv_with_fused_activation(activation: str) -> None:
    feeds = {"x": _randn(1, 6, 7, 5, seed=4)}
    constants = {"w": _randn(10, 6, 3, 3, seed=5, scale=0.3), "b": _randn(10, seed=6)}
    conv = helper.make_node("Conv", ["x", "w", "b"], ["t"], kernel_shape=[3, 3], pads=[1, 1, 1, 1])
    if activation == "Clip":
        constants |= {"lo": np.array(0.0, np.float32), "hi": np.array(6.0, np.float32)}
        act = helper.make_node("Clip", ["t", "lo", "hi"], ["y"])
    elif activation == "LeakyRelu":
        act = helper.make_node("LeakyRelu", ["t"], ["y"], alpha=0.1)
    else:
        act = helper.make_node(activation, ["t"], ["y"])
    run_on_opencl(make_model([conv, act], feeds, {"y": TensorProto.FLOAT}, constants), feeds)


@pytest.mark.parametrize("op", ["Add", "Sub", "Mul", "Div", "Max", "Min"])
def test_binary_same_shape(op: str) -> None:
    feeds = {"a": _randn(1, 7, 5, 3, seed=7), "b": _randn(1, 7, 5, 3, seed=8) + (4.0 if op == "Div" else 0.0)}
    run_on_opencl(one_node(op, feeds), feeds)


@pytest.mark.parametrize("shape", [(1, 7, 1, 1), (1, 1, 5, 3), (1,), (3,)])
def test_add_broadcast_constant(shape: tuple[int, ...]) -> None:
    feeds = {"x": _randn(1, 7, 5, 3, seed=9)}
    run_on_opencl(one_node("Add", feeds, {"c": _randn(*shape, seed=10)}), feeds)


@pytest.mark.parametrize("op", ["Relu", "Sigmoid", "Tanh", "HardSigmoid", "HardSwish"])
def test_activation(op: str) -> None:
    feeds = {"x": _randn(2, 5, 4, 3, seed=11, scale=3.0)}
    run_on_opencl(one_node(op, feeds), feeds)


POOL_CASES = {
    "max_3x3_s2_pad": ("MaxPool", (1, 5, 9, 8), dict(kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1])),
    "avg_2x2": ("AveragePool", (1, 6, 8, 6), dict(kernel_shape=[2, 2], strides=[2, 2])),
    "avg_3x3_pads_excluded": ("AveragePool", (1, 3, 7, 5), dict(kernel_shape=[3, 3], pads=[1, 1, 1, 1])),
    "avg_3x3_pads_included": ("AveragePool", (1, 3, 7, 5),
                              dict(kernel_shape=[3, 3], pads=[1, 1, 1, 1], count_include_pad=1)),
    "max_ceil": ("MaxPool", (1, 4, 7, 7), dict(kernel_shape=[2, 2], strides=[2, 2], ceil_mode=1)),
}


@pytest.mark.parametrize("case", sorted(POOL_CASES))
def test_pool(case: str) -> None:
    op, shape, attrs = POOL_CASES[case]
    feeds = {"x": _randn(*shape, seed=12)}
    run_on_opencl(one_node(op, feeds, **attrs), feeds)


# The work-group reduction at its edges: fewer positions than work items (1x1, 1x3), a count that is
# not a power of two, more than 64 positions per item block (a 70x45 map), channels not a multiple of 4.
GLOBAL_POOL_SHAPES = [(2, 9, 5, 7), (1, 5, 1, 1), (3, 4, 1, 3), (1, 6, 70, 45), (1, 1, 33, 17)]


@pytest.mark.parametrize("op", ["GlobalAveragePool", "GlobalMaxPool"])
@pytest.mark.parametrize("shape", GLOBAL_POOL_SHAPES)
def test_global_pool(op: str, shape: tuple[int, ...]) -> None:
    feeds = {"x": _randn(*shape, seed=13, scale=4.0) + 3.0}  # an offset: sums far from 0
    model = one_node(op, feeds)
    first = run_on_opencl(model, feeds)["y"]
    again = Interpreter(model_content=convert_onnx(model), backend="opencl").run(feeds)["y"]
    np.testing.assert_array_equal(again, first)  # a fixed summation order: the same bits every run


@pytest.mark.parametrize("axis", [1, 2, 3])
def test_concat(axis: int) -> None:
    feeds = {"a": _randn(1, 3, 5, 4, seed=14), "b": _randn(1, 5, 5, 4, seed=15)}
    if axis != 1:
        feeds["b"] = _randn(*(3 if d == axis else s for d, s in enumerate((1, 3, 5, 4))), seed=15)
    feeds["c"] = feeds["a"] * 2.0
    x = helper.make_node("Relu", ["a"], ["ra"])
    node = helper.make_node("Concat", ["ra", "b", "c"], ["y"], axis=axis)
    run_on_opencl(make_model([x, node], feeds, {"y": TensorProto.FLOAT}), feeds)


def test_gemm_and_softmax() -> None:
    feeds = {"x": _randn(3, 37, seed=16)}
    constants = {"w": _randn(11, 37, seed=17, scale=0.2), "b": _randn(11, seed=18)}
    gemm = helper.make_node("Gemm", ["x", "w", "b"], ["t"], transB=1)
    softmax = helper.make_node("Softmax", ["t"], ["y"], axis=-1)
    run_on_opencl(make_model([gemm, softmax], feeds, {"y": TensorProto.FLOAT}, constants), feeds)


def test_flatten_then_gemm() -> None:
    feeds = {"x": _randn(1, 6, 3, 2, seed=19)}
    constants = {"w": _randn(5, 36, seed=20, scale=0.2), "b": _randn(5, seed=21)}
    relu = helper.make_node("Relu", ["x"], ["r"])
    flatten = helper.make_node("Flatten", ["r"], ["f"], axis=1)
    gemm = helper.make_node("Gemm", ["f", "w", "b"], ["y"], transB=1)
    run_on_opencl(make_model([relu, flatten, gemm], feeds, {"y": TensorProto.FLOAT}, constants), feeds)


# -- the ops of PP-OCRv4 rec (transformer blocks) and det (FPN upsampling, the text-mask head) ------------

# (input shape, axis, scale / bias shape): rows of one to several positions, channels not a multiple of 4.
LAYER_NORM_CASES = {
    "last_axis_c120": ((1, 9, 120), -1, (120,)),
    "last_axis_c7": ((2, 5, 7), -1, (7,)),
    "two_axes": ((1, 3, 6, 5), 2, (6, 5)),
    "scale_broadcast": ((2, 3, 4, 6), 1, (1, 1, 6)),
    "rank5_row_of_1": ((2, 1, 3, 1, 9), -1, (9,)),
}


@pytest.mark.parametrize("case", sorted(LAYER_NORM_CASES))
def test_layer_norm(case: str) -> None:
    shape, axis, param_shape = LAYER_NORM_CASES[case]
    feeds = {"x": _randn(*shape, seed=40, scale=2.0) + 0.5}
    constants = {"scale": _randn(*param_shape, seed=41), "bias": _randn(*param_shape, seed=42)}
    run_on_opencl(one_node("LayerNormalization", feeds, constants, axis=axis, epsilon=1e-5), feeds)


def _attention_like(shape: tuple[int, ...], nodes: list[onnx.NodeProto], constants: dict[str, np.ndarray],
                    seed: int) -> None:
    feeds = {"x": _randn(*shape, seed=seed)}
    relu = helper.make_node("Relu", ["x"], ["r"])
    model = make_model([relu, *nodes], feeds, {"y": TensorProto.FLOAT}, constants)
    run_on_opencl(model, feeds)


def _i64(*values: int) -> np.ndarray:
    return np.array(values, np.int64)


# (input shape, starts, ends, axes, steps): rank 5 as rec's q/k/v split, negative steps, channels.
SLICE_CASES = {
    "rank5_axis2": ((1, 7, 3, 8, 15), (1,), (2,), (2,), (1,)),
    "rank5_two_axes": ((2, 5, 3, 4, 7), (2, 1), (3, 4), (2, 4), (1, 2)),
    "channels_odd": ((1, 9, 5, 3), (1,), (8,), (1,), (3,)),
    "negative_step": ((1, 6, 5, 7), (-1, 4), (-100, 0), (3, 2), (-2, -1)),
    "rank2_clamped": ((7, 13), (-5, 2), (100, 11), (0, 1), (1, 4)),
}


@pytest.mark.parametrize("case", sorted(SLICE_CASES))
def test_slice(case: str) -> None:
    shape, starts, ends, axes, steps = SLICE_CASES[case]
    constants = {"starts": _i64(*starts), "ends": _i64(*ends), "axes": _i64(*axes), "steps": _i64(*steps)}
    node = helper.make_node("Slice", ["r", "starts", "ends", "axes", "steps"], ["y"])
    _attention_like(shape, [node], constants, seed=43)


def test_rank5_reshape_slice_squeeze() -> None:
    """rec's attention split: [N, L, 3*h*d] -> [N, L, 3, h, d] -> q/k/v slices -> squeeze."""
    constants = {"shape": _i64(1, 9, 3, 2, 5), "starts": _i64(1), "ends": _i64(2), "axes": _i64(2),
                 "squeeze_axes": _i64(2)}
    nodes = [helper.make_node("Reshape", ["r", "shape"], ["t5"]),
             helper.make_node("Slice", ["t5", "starts", "ends", "axes"], ["s5"]),
             helper.make_node("Squeeze", ["s5", "squeeze_axes"], ["y"])]
    _attention_like((1, 9, 30), nodes, constants, seed=44)


def test_rank5_transpose() -> None:
    constants = {"shape": _i64(2, 3, 3, 2, 5)}
    nodes = [helper.make_node("Reshape", ["r", "shape"], ["t5"]),
             helper.make_node("Transpose", ["t5"], ["y"], perm=[2, 0, 3, 1, 4])]
    _attention_like((2, 3, 30), nodes, constants, seed=45)


# (a shape, b shape): both activations; batch broadcast, K and N not multiples of 4, a single row.
MATMUL_CASES = {
    "attention_scores": ((1, 8, 9, 15), (1, 8, 15, 9)),
    "broadcast_batch": ((2, 3, 5, 7), (3, 7, 6)),
    "rank2_one_row": ((1, 9), (9, 3)),
    "rank3": ((4, 6, 5), (4, 5, 1)),
}


@pytest.mark.parametrize("case", sorted(MATMUL_CASES))
def test_matmul_of_two_activations(case: str) -> None:
    a_shape, b_shape = MATMUL_CASES[case]
    feeds = {"a": _randn(*a_shape, seed=46), "b": _randn(*b_shape, seed=47)}
    nodes = [helper.make_node("Relu", ["a"], ["ra"]), helper.make_node("MatMul", ["ra", "b"], ["y"])]
    run_on_opencl(make_model(nodes, feeds, {"y": TensorProto.FLOAT}), feeds)


@pytest.mark.parametrize("shape,axis", [((2, 5, 7, 3), 1), ((2, 5, 7, 3), 2), ((3, 6, 9), 0),
                                        ((1, 8, 9, 9), 3), ((2, 3, 4, 5, 6), 1), ((1, 1), 0)])
def test_softmax_any_axis(shape: tuple[int, ...], axis: int) -> None:
    feeds = {"x": _randn(*shape, seed=48, scale=3.0)}
    run_on_opencl(one_node("Softmax", feeds, axis=axis), feeds)


# (N, Cin, H, W, Cout, kernel, attrs): det's 2x2 stride-2 upsampling (24 -> 24, 24 -> 1), pads,
# output_padding, dilation, odd channels, a 1x1 input.
CONV_TRANSPOSE_CASES = {
    "det_k2s2": (1, 24, 5, 6, 24, (2, 2), dict(strides=[2, 2])),
    "det_head_to_1": (1, 24, 4, 3, 1, (2, 2), dict(strides=[2, 2])),
    "k3s2_pads_outpad": (2, 5, 4, 5, 7, (3, 3),
                         dict(strides=[2, 2], pads=[1, 1, 1, 1], output_padding=[1, 0])),
    "dilation_asym": (1, 3, 5, 4, 6, (3, 2), dict(strides=[1, 2], dilations=[2, 1], pads=[1, 0, 0, 1])),
    "1x1_image": (1, 9, 1, 1, 5, (3, 3), dict(strides=[2, 2])),
}


@pytest.mark.parametrize("case", sorted(CONV_TRANSPOSE_CASES))
def test_conv_transpose(case: str) -> None:
    n, cin, h, w, cout, (kh, kw), attrs = CONV_TRANSPOSE_CASES[case]
    feeds = {"x": _randn(n, cin, h, w, seed=49)}
    constants = {"w": _randn(cin, cout, kh, kw, seed=50, scale=0.3), "b": _randn(cout, seed=51)}
    run_on_opencl(one_node("ConvTranspose", feeds, constants, kernel_shape=[kh, kw], **attrs), feeds)


# (input NCHW, scales or sizes, attrs): det's nearest x2 (asymmetric, floor), other rules, downscaling,
# bilinear, a 1x1 input.
_DET_NEAREST = dict(mode="nearest", coordinate_transformation_mode="asymmetric", nearest_mode="floor")
RESIZE_CASES: dict[str, tuple[tuple[int, ...], dict[str, np.ndarray], dict[str, object]]] = {
    "det_nearest_x2": ((1, 96, 3, 4), {"scales": np.array([1, 1, 2, 2], np.float32)}, _DET_NEAREST),
    "nearest_x8_c5": ((1, 5, 2, 3), {"scales": np.array([1, 1, 8, 8], np.float32)}, _DET_NEAREST),
    "nearest_half_pixel_sizes": ((2, 3, 7, 5), {"sizes": _i64(2, 3, 4, 9)},
                                 dict(mode="nearest", coordinate_transformation_mode="half_pixel",
                                      nearest_mode="round_prefer_ceil")),
    "linear_half_pixel": ((1, 6, 5, 7), {"scales": np.array([1, 1, 1.5, 0.6], np.float32)},
                          dict(mode="linear", coordinate_transformation_mode="half_pixel")),
    "linear_align_corners_sizes": ((1, 3, 4, 3), {"sizes": _i64(1, 3, 9, 8)},
                                   dict(mode="linear", coordinate_transformation_mode="align_corners")),
    "1x1_input": ((1, 7, 1, 1), {"scales": np.array([1, 1, 3, 2], np.float32)}, dict(mode="nearest")),
}


@pytest.mark.parametrize("case", sorted(RESIZE_CASES))
def test_resize(case: str) -> None:
    shape, size_input, attrs = RESIZE_CASES[case]
    feeds = {"x": _randn(*shape, seed=52)}
    inputs = ["r", "", *(["scales"] if "scales" in size_input else ["", "sizes"])]
    nodes = [helper.make_node("Relu", ["x"], ["r"]), helper.make_node("Resize", inputs, ["y"], **attrs)]
    run_on_opencl(make_model(nodes, feeds, {"y": TensorProto.FLOAT}, size_input), feeds)


def test_fp16_storage_within_1e_2() -> None:
    feeds = {"x": _randn(1, 6, 9, 7, seed=22)}
    constants = {"w": _randn(10, 6, 3, 3, seed=23, scale=0.3), "b": _randn(10, seed=24)}
    conv = helper.make_node("Conv", ["x", "w", "b"], ["t"], kernel_shape=[3, 3], pads=[1, 1, 1, 1])
    relu = helper.make_node("Relu", ["t"], ["y"])
    model = make_model([conv, relu], feeds, {"y": TensorProto.FLOAT}, constants)
    run_on_opencl(model, feeds, precision="fp16")


def test_fp16_store_rounds_to_nearest_even() -> None:
    """A product of two halves is exact in float; stored in a half image it must be rounded to the
    nearest half, ties to even (numpy's float16 cast), whatever the implementation's write_imagef
    does (rusticl's rounds toward zero: a bias that adds up layer after layer)."""
    rng = np.random.default_rng(41)
    halves = {name: rng.uniform(lo, 4.0, (1, 4, 32, 32)).astype(np.float16).astype(np.float32)
              for name, lo in (("a", 0.5), ("b", -4.0))}
    halves["a"][0, 0, 0, :4] = [65504.0, 2.0**-14, 2.0**-20, 1.0]  # past the largest half; subnormals
    halves["b"][0, 0, 0, :4] = [2.0, 0.75, -0.40625, np.nan]  # 6.5 subnormal quanta: a tie
    # Also a constant (a float image) as the first operand: rusticl's get_image_channel_data_type
    # then reports the output as float, which is why the rounding is a build option.
    scale = np.array([0.943359375], np.float32)
    cases = [(one_node("Mul", halves), halves["a"].astype(np.float64) * halves["b"]),
             (make_model([helper.make_node("Mul", ["s", "a"], ["y"])], {"a": halves["a"]},
                         {"y": TensorProto.FLOAT}, {"s": scale}), halves["a"].astype(np.float64) * scale[0])]
    for model, exact in cases:
        feeds = {name: halves[name] for name in ("a", "b") if name in [i.name for i in model.graph.input]}
        interpreter = Interpreter(model_content=convert_onnx(model), backend="opencl", precision="fp16")
        with np.errstate(over="ignore"):  # 65504 * 2 rounds to infinity in half, as it should
            nearest = exact.astype(np.float16).astype(np.float32)
        np.testing.assert_array_equal(interpreter.run(feeds)["y"], nearest)


def _half_math_model() -> tuple[onnx.ModelProto, dict[str, np.ndarray]]:
    """The kernels that do half math under fp16_compute (activations, pooling, resize) between float
    ones (convolution, depthwise convolution, elementwise with a broadcast constant, softmax)."""
    feeds = {"x": _randn(1, 6, 9, 7, seed=60)}
    constants = {"w": _randn(10, 6, 3, 3, seed=61, scale=0.3), "b": _randn(10, seed=62),
                 "dw": _randn(10, 1, 3, 3, seed=63, scale=0.3), "db": _randn(10, seed=64),
                 "c": _randn(1, 10, 1, 1, seed=65), "scales": np.array([1, 1, 2, 2], np.float32)}
    nodes = [helper.make_node("Conv", ["x", "w", "b"], ["t"], kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
             helper.make_node("Conv", ["t", "dw", "db"], ["d"], kernel_shape=[3, 3], pads=[1, 1, 1, 1],
                              group=10),
             helper.make_node("HardSwish", ["d"], ["h"]),
             helper.make_node("Mul", ["h", "c"], ["m"]),
             helper.make_node("AveragePool", ["m"], ["p"], kernel_shape=[2, 2], strides=[2, 2]),
             helper.make_node("Resize", ["p", "", "scales"], ["r"], mode="linear"),
             helper.make_node("Softmax", ["r"], ["y"], axis=1)]
    return make_model(nodes, feeds, {"y": TensorProto.FLOAT}, constants), feeds


def test_fp16_compute_half_math_or_a_clear_refusal() -> None:
    model, feeds = _half_math_model()
    if IMPLEMENTATION in HALF_MATH_IMPLEMENTATIONS:
        run_on_opencl(model, feeds, precision="fp16_compute")
        return
    refusal = "has no cl_khr_fp16 .* precision fp16 \\(half storage, float math\\) works"
    with pytest.raises(LiteError, match=refusal):
        Interpreter(model_content=convert_onnx(model), backend="opencl", precision="fp16_compute")
    interpreter = Interpreter(model_content=convert_onnx(model), backend="auto", precision="fp16_compute")
    assert "cl_khr_fp16" in interpreter.backend_note, interpreter.backend_note
    _assert_close("y", interpreter.run(feeds)["y"], run_onnxruntime(model, feeds)["y"], FP32_TOLERANCE)


def _conv_chain() -> tuple[onnx.ModelProto, dict[str, np.ndarray]]:
    """Conv -> Add (with a second graph input) -> Mul: the Add reads one tensor from each side."""
    feeds = {"x": _randn(1, 6, 9, 7, seed=25), "z": _randn(1, 10, 9, 7, seed=28)}
    constants = {"w": _randn(10, 6, 3, 3, seed=26, scale=0.3), "b": _randn(10, seed=27)}
    nodes = [helper.make_node("Conv", ["x", "w", "b"], ["t"], kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
             helper.make_node("Add", ["t", "z"], ["u"]),
             helper.make_node("Mul", ["u", "t"], ["y"])]
    return make_model(nodes, feeds, {"y": TensorProto.FLOAT}, constants), feeds


def test_runs_on_the_requested_implementation() -> None:
    model, feeds = _conv_chain()
    interpreter = Interpreter(model_content=convert_onnx(model), backend="opencl")
    interpreter.run(feeds)
    assert PLATFORM_NAMES[IMPLEMENTATION] in interpreter.backend_info, interpreter.backend_info


def test_forced_refusal_falls_back_per_op(monkeypatch: pytest.MonkeyPatch) -> None:
    model, feeds = _conv_chain()
    everything = run_on_opencl(model, feeds)
    monkeypatch.setenv("LITE_OPENCL_REFUSE_OPS", "ADD")
    interpreter = Interpreter(model_content=convert_onnx(model), backend="opencl")
    mixed = interpreter.run(feeds)
    placement = {row["op"]: row["backend"] for row in interpreter.profile() if row["op"] != "TRANSPOSE"}
    assert placement == {"CONV_2D": "opencl", "ADD": "cpu", "MUL": "opencl"}, placement
    expected = run_onnxruntime(model, feeds)["y"]
    _assert_close("y", mixed["y"], expected, FP32_TOLERANCE)
    _assert_close("y", mixed["y"], everything["y"], FP32_TOLERANCE)


def test_no_opencl_library(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    model, feeds = _conv_chain()
    monkeypatch.setenv("LITE_OPENCL_LIBRARY", str(tmp_path / "libOpenCL.so"))
    with pytest.raises(LiteError, match="backend 'opencl' is unavailable: no OpenCL library found"):
        Interpreter(model_content=convert_onnx(model), backend="opencl")
    interpreter = Interpreter(model_content=convert_onnx(model), backend="auto")
    assert "OpenCL unavailable, running on the CPU" in interpreter.backend_note
    ours = interpreter.run(feeds)
    assert {row["backend"] for row in interpreter.profile()} == {"cpu"}
    _assert_close("y", ours["y"], run_onnxruntime(model, feeds)["y"], FP32_TOLERANCE)


def test_bad_backend_names_are_refused() -> None:
    model, _ = _conv_chain()
    with pytest.raises(ValueError, match="backend must be one of"):
        Interpreter(model_content=convert_onnx(model), backend="vulkan")
    with pytest.raises(ValueError, match="precision must be one of"):
        Interpreter(model_content=convert_onnx(model), backend="opencl", precision="int4")


def _onnx_feeds(path: Path, seed: int = 29) -> dict[str, np.ndarray]:
    import onnxruntime

    session = onnxruntime.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    return {i.name: _randn(*[d if isinstance(d, int) else 1 for d in i.shape], seed=seed)
            for i in session.get_inputs()}


def run_model_file_on_opencl(path: Path, feeds: dict[str, np.ndarray],
                             precision: str = "fp32") -> list[tuple[str, str]]:
    """Runs a model file on OpenCL against onnxruntime; returns the ops left on the CPU."""
    from tests.models.oracle import onnxruntime_outputs

    interpreter = Interpreter(model_content=convert_onnx(onnx.load(str(path))), backend="opencl",
                              precision=precision)
    ours = interpreter.run(feeds)
    expected = onnxruntime_outputs(path, feeds)
    tolerance = FP32_TOLERANCE if precision == "fp32" else FP16_TOLERANCE
    for name, value in expected.items():
        _assert_close(name, ours[name], value, tolerance)
    return [(row["op"], row["node"]) for row in interpreter.profile()
            if row["backend"] != "opencl" and row["computed_by"] >= 0]


# `make test` runs MobileNetV2; `make test-opencl` (LITE_OPENCL_FULL=1) adds ResNet-18 and EfficientNet-B0.
FULL_RUN = bool(os.environ.get("LITE_OPENCL_FULL"))
REAL_MODELS = ["mobilenet_v2"] + (["resnet18", "efficientnet_b0"] if FULL_RUN else [])


@pytest.mark.parametrize("name", REAL_MODELS)
def test_real_model_matches_onnxruntime(name: str, tmp_path: Path) -> None:
    from tests.models import ARCHITECTURES, export_onnx

    path = export_onnx(ARCHITECTURES[name], tmp_path)
    on_cpu = run_model_file_on_opencl(path, _onnx_feeds(path))
    assert not on_cpu, f"ops left on the CPU: {on_cpu}"


def _ctc_classes(probabilities: np.ndarray) -> list[int]:
    """The CTC reading of one [T, classes] row as class ids (argmax, repeats merged, blank 0 dropped)."""
    best = probabilities.argmax(axis=-1)
    return [int(c) for i, c in enumerate(best) if c != 0 and (i == 0 or c != best[i - 1])]


# PP-OCRv4 at real input sizes: a 48x320 text line for rec (its 6625-class output over 40 steps is
# wider than the device's image limit: laid out "tall"), a 160x256 page for det. `make test` runs
# fp32; `make test-opencl` adds fp16 storage, and fp16_compute where the device has half math.
_HALF_PRECISIONS = ["fp16"] + (["fp16_compute"] if IMPLEMENTATION in HALF_MATH_IMPLEMENTATIONS else [])
PPOCR_CASES = [("rec", "fp32"), ("det", "fp32")] + (
    [(key, precision) for precision in _HALF_PRECISIONS for key in ("rec", "det")] if FULL_RUN else [])
# The bounds at half precision (max |diff| / max(1, max|ref|), measured on PoCL, rusticl and Intel's
# runtime; docs/OPENCL.md, Precision, has the analysis): fp16 storage rounds each of ~150 (det) / ~190
# (rec) activations once (to nearest even on every implementation), which adds up to 0.033 on det's
# sigmoid map and 0.020 on rec's softmax. det cannot do better at single text-edge pixels: onnxruntime
# itself moves by 0.022 there when only its input is rounded to half. fp16_compute (Intel: det 0.030,
# rec 0.021) does half math only where no constant is read. What a user
# sees must not change: the same CTC reading, the same DB boxes (corners within 2 px), the text mask
# equal but for 0.01% of the pixels (0 differ on all three).
HALF_BOUNDS = {("det", "fp16"): 0.05, ("rec", "fp16"): 0.03,
               ("det", "fp16_compute"): 0.05, ("rec", "fp16_compute"): 0.03}
HALF_MASK_MISMATCH = 1e-4


@pytest.mark.parametrize("key,precision", PPOCR_CASES)
def test_ppocr_v4_every_op_on_opencl(key: str, precision: str, paddleocr: dict[str, Path],
                                     paddleocr_lite: Callable[[str], bytes]) -> None:
    from tests import ocr_render

    if not ocr_render.fonts_available():
        pytest.skip("Debian's fonts-dejavu-core is not installed (make test installs it)")
    rng = np.random.default_rng(7)
    if key == "rec":
        line, _ = ocr_render.render_line(rng)
        image = ocr_render.rec_input([line])
    else:
        page, _ = ocr_render.render_page(rng, 160, 256)
        image = ocr_render.det_input(page)
    path = paddleocr[key]
    interpreter = Interpreter(model_content=paddleocr_lite(key), backend="opencl", precision=precision)
    name = interpreter.input_names[0]
    ours = interpreter.run({name: image})
    on_cpu = [(row["op"], row["node"]) for row in interpreter.profile()
              if row["backend"] != "opencl" and row["computed_by"] >= 0]
    assert not on_cpu, f"ops left on the CPU: {on_cpu}"
    from tests.models.oracle import onnxruntime_outputs

    expected = onnxruntime_outputs(path, {name: image})
    (out_name, reference), = expected.items()
    _assert_close(out_name, ours[out_name], reference,
                  FP32_TOLERANCE if precision == "fp32" else HALF_BOUNDS[key, precision])
    if key == "rec":
        reading = _ctc_classes(reference[0])
        assert len(reading) >= 5, "the rendered line should read as text"
        assert _ctc_classes(ours[out_name][0]) == reading
        return
    from tests.ocr_pipeline_reference import db_boxes

    mask = reference > 0.3  # DB's binarization threshold
    assert mask.mean() > 0.02, "the rendered page should have text"
    mismatch = float(np.mean((ours[out_name] > 0.3) != mask))
    assert mismatch <= (0.0 if precision == "fp32" else HALF_MASK_MISMATCH), mismatch
    expected_boxes = db_boxes(reference[0, 0], 160, 256)
    boxes = db_boxes(ours[out_name][0, 0], 160, 256)
    assert len(expected_boxes) >= 2 and len(boxes) == len(expected_boxes), (boxes, expected_boxes)
    corners = np.abs(np.array(boxes, np.int64) - np.array(expected_boxes, np.int64))
    assert corners.max() <= 2, (boxes, expected_boxes)


def test_backend_profile_counts_kernels_from_events() -> None:
    model, feeds = _conv_chain()
    interpreter = Interpreter(model_content=convert_onnx(model), backend="opencl")
    interpreter.run(feeds)
    assert interpreter.backend_profile()["kernels"] == []  # profiling off: no events
    interpreter.set_profiling(True)
    for _ in range(3):
        interpreter.run(feeds)
    interpreter.set_profiling(False)
    report = interpreter.backend_profile()
    assert report["program"] == "compiled" and report["program_ms"] > 0, report
    assert report["tune"] == "none", report
    calls = {k["kernel"]: k["calls"] for k in report["kernels"]}
    # Conv, then Add and Mul on `binary`; the NCHW <-> NHWC layout transposes on `relayout`.
    assert calls["conv2d"] == 3 and calls["binary"] == 6, calls
    assert all(k["seconds"] >= 0 for k in report["kernels"]), report
    seconds = [k["seconds"] for k in report["kernels"]]
    assert seconds == sorted(seconds, reverse=True)


def test_lite_bench_profile_prints_the_kernel_table(tmp_path: Path,
                                                   capfd: pytest.CaptureFixture[str]) -> None:
    from lite_converter.app.cli import main

    model, _ = _conv_chain()
    path = tmp_path / "chain.onnx"
    onnx.save(model, str(path))
    argv = ["bench", str(path), "--backend", "opencl", "--profile", "--runs", "2", "--warmup", "0"]
    assert main(argv) == 0
    out = capfd.readouterr().out
    for expected in ("init (load + prepare)", "first run:", "median", "opencl backend: program compiled in",
                     "local-size tuning none", "per-kernel device time (OpenCL event timestamps",
                     "ops on the CPU: none"):
        assert expected in out, out
    table = out[out.index("per-kernel device time"):]
    assert "conv2d " in table and "binary " in table, table


def test_local_size_tuning_and_its_cache(tmp_path: Path) -> None:
    model, feeds = _conv_chain()
    lite = convert_onnx(model)
    expected = run_onnxruntime(model, feeds)["y"]

    untuned = Interpreter(model_content=lite, backend="opencl", cache_dir=tmp_path)
    _assert_close("y", untuned.run(feeds)["y"], expected, FP32_TOLERANCE)
    assert untuned.backend_profile()["tune"] == "none" and untuned.backend_profile()["tune_ms"] == 0
    assert not list(tmp_path.glob("opencl-tune-*")), "tune=none times nothing and writes nothing"

    def tuned_run() -> tuple[dict, str]:
        interpreter = Interpreter(model_content=lite, backend="opencl", cache_dir=tmp_path, tune="fast")
        _assert_close("y", interpreter.run(feeds)["y"], expected, FP32_TOLERANCE)
        return interpreter.backend_profile(), interpreter.backend_info

    report, info = tuned_run()
    assert report["tune"] == "fast" and report["tune_ms"] > 0, report
    (cache,) = tmp_path.glob("opencl-tune-*.txt")
    lines = cache.read_text().splitlines()
    assert lines[0] == "lite-opencl-tuning 1" and lines[1].startswith("device ")
    assert {line.split("/")[0] for line in lines[2:]} >= {"conv2d", "binary"}, lines

    report, info = tuned_run()  # every choice from the cache: nothing timed
    loaded = f"{len(lines) - 2} choices loaded from the cache"
    assert report["tune_ms"] == 0 and loaded in info, (report, info)

    for damaged in ("garbage\n", lines[0] + "\ndevice 0000000000000000\n" + "\n".join(lines[2:]),
                    "\n".join(lines[:2] + ["conv2d/1x6x9x7 -3 8"])):
        cache.write_text(damaged)
        report, info = tuned_run()
        assert "ignored, tuned again" in info and report["tune_ms"] > 0, (damaged, info)
        assert cache.read_text().splitlines()[:2] == lines[:2], "rewritten for this device"
    untuned = Interpreter(model_content=lite, backend="opencl", cache_dir=tmp_path)
    tuning_note = untuned.backend_info.split("tuning")[-1]
    assert "loaded from the cache" not in tuning_note, "tune=none reads no choices"
    with pytest.raises(ValueError, match="tune must be one of"):
        Interpreter(model_content=lite, backend="opencl", tune="slow")


def _cache_run(model: onnx.ModelProto, feeds: dict[str, np.ndarray], cache: Path) -> tuple[str, np.ndarray]:
    interpreter = Interpreter(model_content=convert_onnx(model), backend="opencl", cache_dir=cache)
    out = interpreter.run(feeds)["y"]
    return interpreter.backend_info, out


def test_program_binary_cache(tmp_path: Path) -> None:
    model, feeds = _conv_chain()
    expected = run_onnxruntime(model, feeds)["y"]
    info, cold = _cache_run(model, feeds, tmp_path)
    assert "compiled from source" in info and "rebuilt" not in info, info
    files = list(tmp_path.glob("opencl-*.bin"))
    assert len(files) == 1 and not list(tmp_path.glob("*.tmp.*")), list(tmp_path.iterdir())
    info, warm = _cache_run(model, feeds, tmp_path)
    assert "loaded from the binary cache" in info, info
    np.testing.assert_array_equal(warm, cold)
    _assert_close("y", warm, expected, FP32_TOLERANCE)
    good = files[0].read_bytes()

    # Each damaged entry is detected, ignored (compiled again) and rewritten.
    damaged = {
        "binary corrupt": good[:-100] + bytes(b ^ 0x5A for b in good[-100:]),
        "truncated": good[: len(good) // 2],
        "not a cache file": b"\x7fELF" + good[4:],
        "another device": good.replace(b"device=", b"device=X", 1),
        "bad key size": good[:8] + (1 << 40).to_bytes(8, "little") + good[16:],
    }
    for why, content in damaged.items():
        files[0].write_bytes(content)
        info, out = _cache_run(model, feeds, tmp_path)
        assert "compiled from source" in info and "rebuilt from source" in info, (why, info)
        _assert_close("y", out, expected, FP32_TOLERANCE)
        # Rewritten (some drivers' binaries differ between compilations: not compared to `good`).
        assert files[0].read_bytes() != content, f"{why}: the entry was not rewritten"
        assert "loaded from the binary cache" in _cache_run(model, feeds, tmp_path)[0], why


def test_warm_start_with_both_caches_compiles_and_tunes_nothing(tmp_path: Path) -> None:
    model, feeds = _conv_chain()
    lite = convert_onnx(model)
    expected = run_onnxruntime(model, feeds)["y"]
    cold = Interpreter(model_content=lite, backend="opencl", cache_dir=tmp_path, tune="fast")
    _assert_close("y", cold.run(feeds)["y"], expected, FP32_TOLERANCE)
    report = cold.backend_profile()
    assert report["program"] == "compiled" and report["tune_ms"] > 0, report
    warm = Interpreter(model_content=lite, backend="opencl", cache_dir=tmp_path, tune="fast")
    _assert_close("y", warm.run(feeds)["y"], expected, FP32_TOLERANCE)
    report = warm.backend_profile()
    assert report["program"] == "loaded" and report["tune_ms"] == 0, report
    assert "loaded from the binary cache" in warm.backend_info, warm.backend_info


# -- NaN in, NaN out (issue 19) -----------------------------------------------------------------------
# OpenCL's fmax / fmin return the other operand when one is NaN: a ReLU, clamp or max pooling written
# with them turns a NaN pixel into a number. Oracle: onnxruntime, and numpy (NaN wins) for max pooling,
# where onnxruntime's MLAS keeps or drops a NaN by its position (tests/test_nan_propagation.py).
_NAN_CASES: dict[str, tuple[str, dict[str, object], dict[str, np.ndarray]]] = {
    "Relu": ("Relu", {}, {}),
    "LeakyRelu": ("LeakyRelu", {"alpha": 0.1}, {}),
    "Clip": ("Clip", {}, {"lo": np.array(0.0, np.float32), "hi": np.array(6.0, np.float32)}),
    "HardSigmoid": ("HardSigmoid", {"alpha": 0.2, "beta": 0.5}, {}),
    "HardSwish": ("HardSwish", {}, {}),
    "Sigmoid": ("Sigmoid", {}, {}),
    "Max": ("Max", {}, {"b": _randn(1, 6, 5, 7, seed=4)}),
    "Min": ("Min", {}, {"b": _randn(1, 6, 5, 7, seed=4)}),
    "AveragePool": ("AveragePool", {"kernel_shape": [3, 3], "pads": [1, 1, 1, 1]}, {}),
    "MaxPool": ("MaxPool", {"kernel_shape": [3, 3], "pads": [1, 1, 1, 1]}, {}),
    "GlobalMaxPool": ("GlobalMaxPool", {}, {}),
    "Softmax": ("Softmax", {"axis": -1}, {}),  # over the last axis of a [5, 35] input (the GPU's softmax)
}


@pytest.mark.parametrize("case", sorted(_NAN_CASES))
def test_nan_propagates_on_opencl(case: str) -> None:
    from tests.test_nan_propagation import _max_pool_oracle, poisoned
    from tests.test_ops_nn import assert_close

    op, attrs, constants = _NAN_CASES[case]
    x = poisoned((5, 35) if op == "Softmax" else (1, 6, 5, 7), seed=2)
    model = one_node(op, {"x": x}, constants, **attrs)
    interpreter = Interpreter(model_content=convert_onnx(model), backend="opencl")
    ours = interpreter.run({"x": x})["y"]
    backends = [row["backend"] for row in interpreter.profile() if row["computed_by"] >= 0]
    assert backends and set(backends) == {"opencl"}, backends  # with the layout transposes
    if op == "MaxPool":
        expected = _max_pool_oracle(x, 3, 1, 1)
    elif op == "GlobalMaxPool":
        expected = x.max(axis=(2, 3), keepdims=True)
    else:
        expected = run_onnxruntime(model, {"x": x})["y"]
    assert np.isnan(expected).any()
    assert_close(case, ours, expected)


def test_streaming_model_keeps_variable_readers_on_the_cpu() -> None:
    """A variable changes between invokes with no op writing it, so nothing would upload it to the
    device: the ops reading one run on the CPU, the rest where they can, and the stream matches the
    CPU interpreter's at every step."""
    from lite_converter.convert import convert_tflite
    from tests.test_tflite_streaming import _frames, streaming_model

    lite = convert_tflite(streaming_model())
    with Interpreter(model_content=lite) as cpu, Interpreter(model_content=lite, backend="opencl") as gpu:
        for frame in _frames()[:6]:
            expected, actual = cpu.run([frame]), gpu.run([frame])
            for name in expected:
                _assert_close(name, actual[name], expected[name], FP32_TOLERANCE)
        placed = {entry["op"]: entry["backend"] for entry in gpu.profile()}
    assert placed["CONV_2D"] == "opencl"  # the device is really used
    assert placed["CONCAT"] == "cpu" and placed["ASSIGN_VARIABLE"] == "cpu"
