"""Regression tests for hostile values in shape inputs and op options (found by fuzzing).

Each case converts a valid one-op ONNX model, then overwrites one shape-input constant or one
option field in the .lite bytes with a hostile value (huge, INT64_MIN/MAX, NaN, inf) -- what a
malformed or malicious file can hold. (Dynamic input dims where the hostile value must get past
prepare: a declared output shape would stop it before eval.) The runtime must refuse it with a
status and a clear message (or, where the value is legal, compute the right result), never
overflow, read out of bounds or commit memory without bound: the cases run through the Python
binding under a 64 MiB max_memory_bytes (what they commit is checked, not how long they take:
timing belongs in benchmarks), and all of them through the ASan/UBSan fuzz harness (a hang there
is a subprocess timeout).
"""

from __future__ import annotations

import math
import os
import struct
import subprocess
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

from lite_converter.lite_fb.DType import DType
from lite_converter.lite_fb.Model import Model
from lite_converter.lite_fb.OpCode import OpCode
from tests.test_fuzz_models import (
    OPTIONS_TABLES,
    SANITIZER_MARKERS,
    every_option_field_written,
    option_fields,
)

INT64_MIN, INT64_MAX = -(2**63), 2**63 - 1
SANITIZER_ENV = dict(os.environ, ASAN_OPTIONS="detect_leaks=1:allocator_may_return_null=1",
                     UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1")
_NUMPY_FORMATS = {np.dtype(np.float32): "<f", np.dtype(np.int32): "<i", np.dtype(np.int64): "<q"}


# -- building and patching models ------------------------------------------------------------------
def one_node_model(op: str, inputs: dict[str, tuple[int, list[int | str]]], constants: dict[str, np.ndarray],
                   outputs: list[str], opset: int = 18, input_order: list[str] | None = None,
                   **attrs: object) -> onnx.ModelProto:
    """`op` over graph inputs {name: (onnx type, shape)} and initializers, writing graph outputs."""
    names = input_order if input_order is not None else [*inputs, *constants]
    node = helper.make_node(op, names, outputs, **attrs)
    graph = helper.make_graph(
        [node], f"hostile_{op}",
        [helper.make_tensor_value_info(name, kind, shape) for name, (kind, shape) in inputs.items()],
        [helper.make_tensor_value_info(name, TensorProto.UNDEFINED, None) for name in outputs],
        [numpy_helper.from_array(value, name) for name, value in constants.items()])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], ir_version=8)


def convert(model: onnx.ModelProto) -> bytearray:
    from lite_converter.convert import convert_onnx

    with every_option_field_written():  # so that option fields equal to their default can be patched
        return bytearray(convert_onnx(model))


def set_constant(data: bytearray, old: np.ndarray, new: list[float] | list[int]) -> None:
    """Overwrites the one constant tensor whose dtype and bytes equal `old` with the values `new`
    (packed one by one, so that NaN, inf and INT64_MIN/MAX go in exactly)."""
    fmt = _NUMPY_FORMATS[old.dtype]
    wanted = old.astype(old.dtype.newbyteorder("<")).tobytes()
    model = Model.GetRootAs(bytes(data), 0)
    graph = model.Graph()
    hits = []
    for t in range(graph.TensorsLength()):
        tensor = graph.Tensors(t)
        if tensor.Buffer() == 0:
            continue
        buffer = model.Buffers(tensor.Buffer())
        start = buffer._tab.Vector(buffer._tab.Offset(4)) if buffer.DataLength() else 0
        if buffer.DataLength() == len(wanted) and bytes(data[start:start + len(wanted)]) == wanted:
            hits.append(start)
    assert len(hits) == 1, f"{len(hits)} constants hold {old!r}"
    assert len(new) == old.size
    data[hits[0]:hits[0] + len(wanted)] = b"".join(struct.pack(fmt, v) for v in new)


def set_option(data: bytearray, opcode: str, name: str, value: float) -> None:
    """Overwrites option field `name` (CamelCase, as in the generated accessors) of the first
    operator with `opcode`."""
    graph = Model.GetRootAs(bytes(data), 0).Graph()
    for k in range(graph.OperatorsLength()):
        operator = graph.Operators(k)
        if operator.Opcode() != getattr(OpCode, opcode):
            continue
        options = operator.Options()
        slot, fmt = option_fields(OPTIONS_TABLES[operator.OptionsType()])[name]
        o = options.Offset(4 + 2 * slot)
        assert o, f"{opcode}.{name} is not in the file"
        struct.pack_into(fmt, data, options.Pos + o, value)
        return
    raise AssertionError(f"no {opcode} operator")


def set_dtype(data: bytearray, tensor_name: str, dtype: int) -> None:
    """Overwrites the dtype of the tensor named `tensor_name` (a DType value)."""
    graph = Model.GetRootAs(bytes(data), 0).Graph()
    for t in range(graph.TensorsLength()):
        tensor = graph.Tensors(t)
        if tensor.Name() == tensor_name.encode():
            o = tensor._tab.Offset(6)
            assert o, f"the dtype of {tensor_name} is not in the file"
            struct.pack_into("<b", data, tensor._tab.Pos + o, dtype)
            return
    raise AssertionError(f"no tensor {tensor_name}")


# -- the cases -------------------------------------------------------------------------------------
F32 = TensorProto.FLOAT


@dataclass
class Case:
    name: str
    build: Callable[[], bytearray]
    feeds: dict[str, np.ndarray]
    error: tuple[str, str] | None = None  # (status name, message part) when the runtime must refuse it
    check: Callable[[dict[str, np.ndarray]], None] | None = None  # else: checks the outputs
    harness_options: list[str] = field(default_factory=lambda: ["--dynamic-dim", "3"])


def _reshape(target: list[int]) -> bytearray:
    data = convert(one_node_model("Reshape", {"x": (F32, [2, 3, 4])}, {"shape": np.array([4, -1], np.int64)},
                                  ["y"]))
    set_constant(data, np.array([4, -1], np.int64), target)
    return data


def _tile(repeats: list[int]) -> bytearray:
    data = convert(one_node_model("Tile", {"x": (F32, [2, 3])}, {"repeats": np.array([3, 5], np.int64)},
                                  ["y"]))
    set_constant(data, np.array([3, 5], np.int64), repeats)
    return data


def _expand(shape: list[int]) -> bytearray:
    data = convert(one_node_model("Expand", {"x": (F32, [1, 3])}, {"shape": np.array([7, 3], np.int64)},
                                  ["y"]))
    set_constant(data, np.array([7, 3], np.int64), shape)
    return data


def _slice_backwards() -> bytearray:
    """x[-1::-1] along axis 0 (written as ONNX Slice with INT64_MIN as the end)."""
    return convert(one_node_model(
        "Slice", {"x": (F32, ["n", 3])},
        {"starts": np.array([-1], np.int64), "ends": np.array([INT64_MIN], np.int64),
         "axes": np.array([0], np.int64), "steps": np.array([-1], np.int64)}, ["y"]))


def _pad(pads: list[int]) -> bytearray:
    # Dynamic dims: the output is not declared with a size that would give the change away.
    data = convert(one_node_model("Pad", {"x": (F32, ["a", "b"])}, {"pads": np.array([0, 5, 0, 7], np.int64)},
                                  ["y"]))
    set_constant(data, np.array([0, 5, 0, 7], np.int64), pads)
    return data


def _split(sizes: list[int]) -> bytearray:
    data = convert(one_node_model("Split", {"x": (F32, [4])}, {"split": np.array([1, 3], np.int64)},
                                  ["a", "b"]))
    set_constant(data, np.array([1, 3], np.int64), sizes)
    return data


def _resize(scales: list[float]) -> bytearray:
    # The converter keeps the H and W scales ([2] float32) of an NCHW Resize.
    data = convert(one_node_model("Resize", {"x": (F32, [1, 1, 2, 2])},
                                  {"scales": np.array([1, 1, 3, 5], np.float32)}, ["y"],
                                  input_order=["x", "", "scales"], mode="nearest"))
    set_constant(data, np.array([3, 5], np.float32), scales)
    return data


def _space_to_depth(block: int) -> bytearray:
    data = convert(one_node_model("SpaceToDepth", {"x": (F32, [1, 3, "h", "w"])}, {}, ["y"], blocksize=2))
    set_option(data, "SPACE_TO_DEPTH", "BlockSize", block)
    return data


def _clip_int(low: float, high: float) -> bytearray:
    # The converter lowers an integer Clip to MAXIMUM + MINIMUM: write a float CLIP, make it int32.
    data = convert(one_node_model("Clip", {"x": (F32, [6])},
                                  {"min": np.array(-2, np.float32), "max": np.array(3, np.float32)}, ["y"]))
    set_option(data, "CLIP", "Alpha", low)
    set_option(data, "CLIP", "Beta", high)
    for name in ("x", "y"):
        set_dtype(data, name, DType.INT32)
    return data


def _max_pool_huge_kernel() -> bytearray:
    data = convert(one_node_model("MaxPool", {"x": (F32, [1, 1, 4, 4])}, {}, ["y"], kernel_shape=[2, 2],
                                  auto_pad="SAME_UPPER"))
    set_option(data, "MAX_POOL_2D", "KernelH", 2**31 - 1)
    set_option(data, "MAX_POOL_2D", "KernelW", 2**31 - 1)
    return data


def _conv_huge_pads() -> bytearray:
    weight = np.random.default_rng(0).standard_normal((8, 8, 3, 3)).astype(np.float32)
    data = convert(one_node_model("Conv", {"x": (F32, [1, 8, 4, 4])}, {"w": weight}, ["y"],
                                  pads=[1, 1, 1, 1]))
    for pad in ("PadTop", "PadLeft", "PadBottom", "PadRight"):
        set_option(data, "CONV_2D", pad, 2**31 - 1)
    return data


def _reverse_sequence(lens: list[int] | None = None, time_axis: int | None = None) -> bytearray:
    data = convert(one_node_model("ReverseSequence", {"x": (F32, [4, 3])},
                                  {"lens": np.array([1, 2, 3], np.int64)}, ["y"]))
    if lens is not None:
        set_constant(data, np.array([1, 2, 3], np.int64), lens)
    if time_axis is not None:
        set_option(data, "REVERSE_SEQUENCE", "TimeAxis", time_axis)
    return data


def _lstm(lens: list[int] | None = None, **options: int) -> bytearray:
    rng = np.random.default_rng(0)
    weights = {"w": rng.standard_normal((1, 8, 3)).astype(np.float32),
               "r": rng.standard_normal((1, 8, 2)).astype(np.float32),
               "b": rng.standard_normal((1, 16)).astype(np.float32), "lens": np.array([4], np.int32)}
    data = convert(one_node_model("LSTM", {"x": (F32, [4, 1, 3])}, weights, ["y", "y_h"], hidden_size=2))
    if lens is not None:
        set_constant(data, np.array([4], np.int32), lens)
    for name, value in options.items():
        set_option(data, "LSTM", name, value)
    return data


def _check_backwards(out: dict[str, np.ndarray]) -> None:
    assert out["y"].shape == (0, 3)


def _check_clip(out: dict[str, np.ndarray]) -> None:
    # A NaN bound is no bound: max(x, -inf) then min(x, 3).
    np.testing.assert_array_equal(out["y"], np.minimum(np.arange(-3, 3, dtype=np.int32) * 100, 3))


POOL_INPUT = np.arange(16, dtype=np.float32).reshape(1, 1, 4, 4)


def _check_pool(out: dict[str, np.ndarray]) -> None:
    # SAME_UPPER pads about 2^30 on each side: every window covers the whole image.
    np.testing.assert_array_equal(out["y"], np.full((1, 1, 4, 4), POOL_INPUT.max(), np.float32))


CASES = [
    Case("reshape_dim_times_dim_overflows", lambda: _reshape([2**62, 8]),
         {"x": np.zeros((2, 3, 4), np.float32)}, ("SHAPE_ERROR", "too large")),
    Case("reshape_int64_max", lambda: _reshape([INT64_MAX, -1]), {"x": np.zeros((2, 3, 4), np.float32)},
         ("SHAPE_ERROR", "too large")),
    Case("tile_repeat_overflows", lambda: _tile([2**62, 1]), {"x": np.zeros((2, 3), np.float32)},
         ("SHAPE_ERROR", "too large")),
    Case("expand_to_huge", lambda: _expand([2**40, 3]), {"x": np.zeros((1, 3), np.float32)},
         ("SHAPE_ERROR", "elements")),
    Case("expand_negative", lambda: _expand([-5, 3]), {"x": np.zeros((1, 3), np.float32)},
         ("INVALID_MODEL", "negative dim")),
    Case("slice_backwards_over_empty_axis", _slice_backwards, {"x": np.zeros((0, 3), np.float32)},
         check=_check_backwards, harness_options=["--dynamic-dim", "0"]),
    Case("pad_int64_min_and_max", lambda: _pad([0, INT64_MIN, 0, INT64_MAX]),
         {"x": np.zeros((2, 3), np.float32)}, ("SHAPE_ERROR", "out of range")),
    Case("pad_end_overflows", lambda: _pad([0, 0, 0, INT64_MAX]), {"x": np.zeros((2, 3), np.float32)},
         ("SHAPE_ERROR", "out of range")),
    Case("split_sizes_overflow", lambda: _split([INT64_MAX, INT64_MAX]), {"x": np.zeros(4, np.float32)},
         ("SHAPE_ERROR", "exceed")),
    Case("resize_scale_inf", lambda: _resize([math.inf, 2.0]), {"x": np.zeros((1, 1, 2, 2), np.float32)},
         ("INVALID_ARGUMENT", "finite")),
    Case("resize_scale_nan", lambda: _resize([math.nan, 2.0]), {"x": np.zeros((1, 1, 2, 2), np.float32)},
         ("INVALID_ARGUMENT", "finite")),
    Case("resize_scale_huge", lambda: _resize([1e30, 2.0]), {"x": np.zeros((1, 1, 2, 2), np.float32)},
         ("SHAPE_ERROR", "too large")),
    Case("space_to_depth_block_overflows", lambda: _space_to_depth(2**31 - 1),
         {"x": np.zeros((1, 3, 0, 0), np.float32)}, ("SHAPE_ERROR", "block_size"),
         harness_options=["--dynamic-dim", "0"]),
    Case("conv_pads_of_2_31", _conv_huge_pads, {"x": np.zeros((1, 8, 4, 4), np.float32)},
         ("SHAPE_ERROR", "too large")),
    Case("clip_int_nan_bound", lambda: _clip_int(math.nan, 3.0),
         {"x": np.arange(-3, 3, dtype=np.int32) * 100}, check=_check_clip),
    Case("max_pool_kernel_of_2_31", _max_pool_huge_kernel, {"x": POOL_INPUT}, check=_check_pool),
    Case("reverse_sequence_length_int64_max", lambda: _reverse_sequence(lens=[1, INT64_MAX, INT64_MIN]),
         {"x": np.zeros((4, 3), np.float32)}, ("INVALID_ARGUMENT", "sequence_lens[1]")),
    Case("reverse_sequence_time_axis_2_31", lambda: _reverse_sequence(time_axis=2**31 - 1),
         {"x": np.zeros((4, 3), np.float32)}, ("INVALID_MODEL", "time_axis 2147483647")),
    Case("lstm_sequence_length_int32_max", lambda: _lstm(lens=[2**31 - 1]),
         {"x": np.zeros((4, 1, 3), np.float32)}, ("INVALID_ARGUMENT", "sequence_lens[0]")),
    Case("lstm_hidden_size_2_31", lambda: _lstm(HiddenSize=2**31 - 1),
         {"x": np.zeros((4, 1, 3), np.float32)}, ("INVALID_MODEL", "hidden_size")),
    Case("lstm_hidden_size_disagrees_with_weights", lambda: _lstm(HiddenSize=3),
         {"x": np.zeros((4, 1, 3), np.float32)}, ("SHAPE_ERROR", "must be FLOAT32")),
    Case("lstm_direction_7", lambda: _lstm(Direction=7),
         {"x": np.zeros((4, 1, 3), np.float32)}, ("INVALID_MODEL", "direction 7")),
]


# Every case is a one-op model over a few KB of data: 64 MiB is far more than a legal one needs.
HOSTILE_MEMORY_BOUND = 64 << 20


# -- the tests -------------------------------------------------------------------------------------
@pytest.mark.parametrize("case", CASES, ids=lambda c: c.name)
def test_hostile_value_is_refused_or_computed(case: Case):
    from runtime_arm import Interpreter, LiteError

    data = case.build()
    interpreter = Interpreter(model_content=bytes(data), threads=1, max_memory_bytes=HOSTILE_MEMORY_BOUND)
    if case.error is not None:
        with pytest.raises(LiteError) as raised:
            interpreter.run(case.feeds)
        status, part = case.error
        assert raised.value.code.name == status, raised.value
        assert part in raised.value.message, raised.value
    else:
        assert case.check is not None
        case.check(interpreter.run(case.feeds))
    assert interpreter.memory_bytes <= HOSTILE_MEMORY_BOUND, interpreter.memory_bytes


def test_empty_tensor_with_huge_dims_is_refused():
    """An empty tensor must not carry dims whose products overflow ([0, 2^40, 2^40]: its strides)."""
    from runtime_arm import Interpreter, LiteError

    interpreter = Interpreter(model_content=bytes(_pad([0, 5, 0, 7])), threads=1)  # x: [a, b], both dynamic
    interpreter.resize_input(0, [0, 2**40])
    with pytest.raises(LiteError) as raised:
        interpreter.allocate_tensors()
    assert raised.value.code.name == "SHAPE_ERROR" and "exceeds 2 GiB" in raised.value.message, raised.value
    # A static dim the model fixes cannot be resized at all: the caller's mistake, said at once.
    interpreter = Interpreter(model_content=bytes(_slice_backwards()), threads=1)  # x: [n, 3]
    with pytest.raises(LiteError) as raised:
        interpreter.resize_input(0, [0, 2**40])
    assert raised.value.code.name == "INVALID_ARGUMENT" and "static dim 1 = 3" in raised.value.message


def test_hostile_cases_under_sanitizers(tmp_path: Path, asan_build: Path):
    """Every case through the ASan/UBSan fuzz harness: an error or a result, no sanitizer report."""
    harness = asan_build / "runtime_arm" / "fuzz_models"
    assert harness.is_file(), f"{harness} missing: build with `make asan`"
    for case in CASES:
        path = tmp_path / f"{case.name}.lite"
        path.write_bytes(case.build())
        result = subprocess.run([str(harness), *case.harness_options, str(path)], capture_output=True,
                                text=True, errors="replace", timeout=120, check=False, env=SANITIZER_ENV)
        assert result.returncode == 0 and not any(m in result.stderr for m in SANITIZER_MARKERS), (
            f"{case.name}:\n{result.stderr[-4000:]}")
        line = result.stdout.strip()
        if case.error is not None:
            assert f": {case.error[0]}: " in line and case.error[1] in line, line
        else:
            assert line.endswith(": ok"), line


def test_int8_max_pool_with_a_2_31_kernel_is_fast(tmp_path: Path, asan_build: Path):
    """int8 MAX_POOL_2D walked a SAME window of 2^31 x 2^31 taps tap by tap (hours); now the taps
    inside the input are found in closed form. Runs in the sanitizer harness, under a timeout."""
    from lite_converter.lite_fb.Padding import Padding
    from tests.test_fuzz_models import int8_seed

    seed = int8_seed()
    if seed is None:
        pytest.skip("slim cannot quantize here")
    data = bytearray(seed)
    set_option(data, "MAX_POOL_2D", "KernelH", 2**31 - 1)
    set_option(data, "MAX_POOL_2D", "KernelW", 2**31 - 1)
    set_option(data, "MAX_POOL_2D", "Padding", Padding.SAME_UPPER)  # same output size as the seed's pool
    path = tmp_path / "int8_max_pool_huge_kernel.lite"
    path.write_bytes(data)
    result = subprocess.run([str(asan_build / "runtime_arm" / "fuzz_models"), str(path)], capture_output=True,
                            text=True, errors="replace", timeout=60, check=False, env=SANITIZER_ENV)
    clean = result.returncode == 0 and not any(m in result.stderr for m in SANITIZER_MARKERS)
    assert clean, result.stderr[-4000:]
    assert result.stdout.strip().endswith(": ok"), result.stdout
