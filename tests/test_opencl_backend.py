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
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper

from lite_converter.convert import convert_onnx
from runtime_arm import Interpreter, LiteError
from tests.opencl_env import IMPLEMENTATION, PLATFORM_NAMES, available, implementation_env
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


@pytest.mark.parametrize("op", ["GlobalAveragePool", "GlobalMaxPool"])
def test_global_pool(op: str) -> None:
    feeds = {"x": _randn(2, 9, 5, 7, seed=13)}
    run_on_opencl(one_node(op, feeds), feeds)


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


def test_fp16_storage_within_1e_2() -> None:
    feeds = {"x": _randn(1, 6, 9, 7, seed=22)}
    constants = {"w": _randn(10, 6, 3, 3, seed=23, scale=0.3), "b": _randn(10, seed=24)}
    conv = helper.make_node("Conv", ["x", "w", "b"], ["t"], kernel_shape=[3, 3], pads=[1, 1, 1, 1])
    relu = helper.make_node("Relu", ["t"], ["y"])
    model = make_model([conv, relu], feeds, {"y": TensorProto.FLOAT}, constants)
    run_on_opencl(model, feeds, precision="fp16")


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
