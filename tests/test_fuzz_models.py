"""Fuzzes the runtime with mutated REAL .lite files under ASan/UBSan.

Seeds are models converted from ONNX by lite_converter (a small conv net, a net with a
Shape -> Gather -> Concat -> Reshape subgraph and dynamic dims, a chain of the ops that read shape
inputs and window options, a net of every int8 op from slim's quantization, and the PaddleOCR
direction classifier when it is in the local model cache). Mutations are seeded: random bit flips,
extreme byte values, truncation, and targeted hits found by walking the flatbuffer (vector
lengths, tensor indices, dims, dtypes, op codes, option fields, quantization parameters, elements
of small constants such as shape inputs), chunk duplication and zeroing. Option and shape-input
hits keep the file valid, so those mutants reach the ops' prepare and eval. The harness
(runtime_arm/tests/fuzz_models.cc) loads, verifies, resizes, runs each file: every file must end
in success or an error with a message, never a crash, leak or sanitizer report.
"""

from __future__ import annotations

import contextlib
import functools
import importlib
import math
import os
import random
import struct
import subprocess
import warnings
from collections import Counter
from collections.abc import Callable, Iterator
from pathlib import Path
from unittest import mock

import flatbuffers
import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

from lite_converter.lite_fb.Model import Model
from lite_converter.lite_fb.OpOptions import OpOptions

MUTANTS_PER_SMALL_SEED = 2000
MUTANTS_OF_OPS_SEED = 4000
MUTANTS_OF_RECURRENT_SEED = 1000
MUTANTS_OF_REAL_MODEL = 300
BATCH = 300
SANITIZER_MARKERS = ("ERROR: AddressSanitizer", "ERROR: LeakSanitizer", "runtime error:", "Sanitizer")


# -- where the interesting bytes are -------------------------------------------------------------
class Targets:
    """File offsets of fields worth hitting, found with the generated flatbuffers reader."""

    def __init__(self, data: bytes) -> None:
        self.lengths: list[int] = []  # uint32 vector length prefixes
        self.indices: list[int] = []  # int32/uint32 tensor and buffer indices
        self.dims: list[int] = []     # int64 dims
        self.dtypes: list[int] = []   # int8
        self.opcodes: list[int] = []  # uint16
        self.options: list[tuple[int, str]] = []  # option fields (and option vector elements): offset, format
        self.shape_values: list[tuple[int, str]] = []  # elements of small INT32/INT64/FLOAT32 constants
        model = Model.GetRootAs(data, 0)
        self._vector(model._tab, 12, 4)  # buffers
        buffer_data: list[tuple[int, int]] = []  # (start, length) of each buffer's data
        for b in range(model.BuffersLength()):
            elements = self._vector(model.Buffers(b)._tab, 4, 1)
            buffer_data.append((elements[0], len(elements)) if elements else (0, 0))
        graph = model.Graph()
        for field in (4, 6):  # tensors, operators
            self._vector(graph._tab, field, 4)
        for field in (8, 10):  # graph inputs, outputs
            self.indices += self._vector(graph._tab, field, 4)
        for t in range(graph.TensorsLength()):
            tensor = graph.Tensors(t)
            tab = tensor._tab
            self.dims += self._vector(tab, 8, 8)
            self.dtypes += self._scalar(tab, 6)
            self.indices += self._scalar(tab, 12)
            quantization = tensor.Quantization()
            if quantization is not None:  # scales, zero points, axis of int8 tensors
                self._options(quantization._tab, "Quantization")
            # Shape inputs (reshape shapes, pads, starts/ends/steps, repeats, scales, k, axis, ...)
            # are small integer or float constants: their values are what the ops' prepare reads.
            fmt = SMALL_CONSTANT_FORMATS.get(tensor.Dtype())
            start, length = buffer_data[tensor.Buffer()] if tensor.Buffer() < len(buffer_data) else (0, 0)
            if fmt is not None and 0 < length <= SMALL_CONSTANT_BYTES:
                size = struct.calcsize(fmt)
                self.shape_values += [(start + i, fmt) for i in range(0, length - size + 1, size)]
        for k in range(graph.OperatorsLength()):
            operator = graph.Operators(k)
            tab = operator._tab
            self.opcodes += self._scalar(tab, 4)
            for field in (8, 10):
                self.indices += self._vector(tab, field, 4)
            options = operator.Options()
            if options is not None:
                self._options(options, OPTIONS_TABLES.get(operator.OptionsType(), ""))

    def _options(self, tab: object, table: str) -> None:
        """Offsets and formats of the fields present in one options table (see option_fields)."""
        for slot, fmt in option_fields(table).values():
            o = tab.Offset(4 + 2 * slot)
            if not o:
                continue  # absent: the runtime reads the schema default
            if fmt == "activation":  # struct Activation { kind: byte; alpha: float; beta: float; }
                self.options += [(tab.Pos + o, "<b"), (tab.Pos + o + 4, "<f"), (tab.Pos + o + 8, "<f")]
            elif fmt.startswith("["):  # vector: its length and its elements
                size = struct.calcsize(fmt[1:])
                start, n = tab.Vector(o), tab.VectorLen(o)
                self.lengths.append(start - 4)
                self.options += [(start + i * size, fmt[1:]) for i in range(n)]
            else:
                self.options.append((tab.Pos + o, fmt))

    @staticmethod
    def _scalar(tab: object, voffset: int) -> list[int]:
        o = tab.Offset(voffset)
        return [tab.Pos + o] if o else []

    def _vector(self, tab: object, voffset: int, element_size: int) -> list[int]:
        o = tab.Offset(voffset)
        if not o:
            return []
        start, n = tab.Vector(o), tab.VectorLen(o)
        self.lengths.append(start - 4)
        return [start + i * element_size for i in range(n)]


SMALL_CONSTANT_FORMATS = {0: "<f", 6: "<i", 7: "<q"}  # DType FLOAT32, INT32, INT64
SMALL_CONSTANT_BYTES = 64
OPTIONS_TABLES = {value: name for name, value in vars(OpOptions).items()
                  if not name.startswith("_") and value}
_SLOT_FORMATS = {"PrependInt32Slot": "<i", "PrependFloat32Slot": "<f", "PrependBoolSlot": "<B",
                 "PrependInt8Slot": "<b", "PrependUint8Slot": "<B", "PrependInt64Slot": "<q",
                 "PrependStructSlot": "activation"}
_VECTOR_FORMATS = {1: "[<B", 4: "[<i", 8: "[<q"}  # by element size
_FLOAT_VECTORS = {("Quantization", "Scale")}  # the builders do not tell [float] from [int]


class _Recorder:
    """Stands in for a flatbuffers.Builder: remembers the first call made on it."""

    def __init__(self) -> None:
        self.call: tuple[str, tuple[object, ...]] | None = None

    def __getattr__(self, method: str) -> Callable[..., int]:
        def record(*args: object) -> int:
            if self.call is None:
                self.call = (method, args)
            return 0

        return record


@functools.cache
def option_fields(table: str) -> dict[str, tuple[int, str]]:
    """{CamelName: (vtable slot, struct format)} of every field of options table ``table`` (or of
    Quantization), read from the flatc-generated builder functions: "<i" etc. for scalars, "[<i" for
    vectors, "activation"."""
    if not table:
        return {}
    module = importlib.import_module(f"lite_converter.lite_fb.{table}")
    fields = {}
    for name in sorted(dir(module)):
        if not name.startswith(f"{table}Add"):
            continue
        field = name[len(table) + 3:]
        recorder = _Recorder()
        getattr(module, name)(recorder, 0)
        assert recorder.call is not None
        method, args = recorder.call
        if method == "PrependUOffsetTRelativeSlot":
            start = _Recorder()
            getattr(module, f"{table}Start{field}Vector")(start, 0)
            assert start.call is not None
            fmt = "[<f" if (table, field) in _FLOAT_VECTORS else _VECTOR_FORMATS[int(start.call[1][0])]
            fields[field] = (int(args[0]), fmt)
        elif method in _SLOT_FORMATS:
            fields[field] = (int(args[0]), _SLOT_FORMATS[method])
    return fields


# -- mutators ------------------------------------------------------------------------------------
Mutator = Callable[[bytearray, Targets, random.Random], None]

EXTREME_PATTERNS = [
    b"\x00", b"\xff", b"\x7f", b"\x80", b"\xff\xff\xff\xff", b"\xff\xff\xff\x7f", b"\x00\x00\x00\x80",
    struct.pack("<q", -(2**63)), struct.pack("<q", 2**62), struct.pack("<i", -1), struct.pack("<I", 1 << 30),
]


def pick(positions: list[int], data: bytearray, size: int, rng: random.Random) -> int | None:
    """A random target that still fits in `data` (an earlier mutation may have truncated it)."""
    fitting = [p for p in positions if p + size <= len(data)]
    return rng.choice(fitting) if fitting else None


def bit_flips(data: bytearray, targets: Targets, rng: random.Random) -> None:
    for _ in range(rng.randint(1, 8)):
        data[rng.randrange(len(data))] ^= 1 << rng.randrange(8)


def extreme_bytes(data: bytearray, targets: Targets, rng: random.Random) -> None:
    pattern = rng.choice(EXTREME_PATTERNS)
    position = rng.randrange(max(1, len(data) - len(pattern)))
    data[position:position + len(pattern)] = pattern


def huge_length(data: bytearray, targets: Targets, rng: random.Random) -> None:
    value = rng.choice([0x7FFFFFFF, 0xFFFFFFFF, 0x40000000, 0x10000, len(data), 0x1FFFFFFF])
    if (position := pick(targets.lengths, data, 4, rng)) is not None:
        struct.pack_into("<I", data, position, value)


def bad_index(data: bytearray, targets: Targets, rng: random.Random) -> None:
    value = rng.choice([-1, -2, 7, 64, 1000, 2**31 - 1, -(2**31)])
    if (position := pick(targets.indices, data, 4, rng)) is not None:
        struct.pack_into("<i", data, position, value)


def bad_dim(data: bytearray, targets: Targets, rng: random.Random) -> None:
    value = rng.choice([-1, -7, 0, 1, 3, 65536, 1 << 20, 1 << 40, 2**62, 2**63 - 1])
    if (position := pick(targets.dims, data, 8, rng)) is not None:
        struct.pack_into("<q", data, position, value)


def bad_enum(data: bytearray, targets: Targets, rng: random.Random) -> None:
    if rng.random() < 0.5:
        if (position := pick(targets.dtypes, data, 1, rng)) is not None:
            struct.pack_into("<b", data, position, rng.choice([-1, 1, 2, 3, 7, 8, 11, 12, 127]))
    else:
        value = rng.choice([0, 40, 100, 121, 163, 172, 202, 203, 999, 65535, rng.randrange(210)])
        if (position := pick(targets.opcodes, data, 2, rng)) is not None:
            struct.pack_into("<H", data, position, value)


HOSTILE_INTS = [0, 1, 2, 3, 7, -1, -2, -7, 1 << 16, 1 << 20, 2**31 - 1, 2**31, 2**32, 2**62, 2**63 - 1,
                -(2**31), -(2**62), -(2**63)]
HOSTILE_FLOATS = [math.nan, math.inf, -math.inf, 0.0, -0.0, -1.0, 0.5, 3.0, 1e-30, 1e-45, 1e10, 1e30, 3.4e38]


def hostile_value(fmt: str, rng: random.Random) -> bytes:
    """An extreme value that fits the struct format (wrapped into range for small integer types)."""
    if fmt == "<f":
        return struct.pack(fmt, rng.choice(HOSTILE_FLOATS))
    bits = 8 * struct.calcsize(fmt)
    value = rng.choice(HOSTILE_INTS) % (1 << bits)
    if fmt.islower() and value >= 1 << (bits - 1):
        value -= 1 << bits
    return struct.pack(fmt, value)


def bad_option(data: bytearray, targets: Targets, rng: random.Random) -> None:
    """An option field (stride, pad, kernel, axis, perm entry, block size, epsilon, ...) made hostile."""
    if targets.options:
        position, fmt = rng.choice(targets.options)
        value = hostile_value(fmt, rng)
        if position + len(value) <= len(data):
            data[position:position + len(value)] = value


def bad_shape_value(data: bytearray, targets: Targets, rng: random.Random) -> None:
    """An element of a small constant (a shape input: reshape shape, pads, slice steps, repeats,
    resize scales, split sizes, top-k k, ...) made hostile, so the mutant passes the verifier."""
    for _ in range(rng.randint(1, 2)):
        if targets.shape_values:
            position, fmt = rng.choice(targets.shape_values)
            value = hostile_value(fmt, rng)
            if position + len(value) <= len(data):
                data[position:position + len(value)] = value


def truncate(data: bytearray, targets: Targets, rng: random.Random) -> None:
    del data[rng.randrange(len(data)):]


def duplicate_chunk(data: bytearray, targets: Targets, rng: random.Random) -> None:
    n = rng.randint(4, 64)
    source, destination = rng.randrange(len(data) - n), rng.randrange(len(data) - n)
    data[destination:destination + n] = data[source:source + n]


def zero_chunk(data: bytearray, targets: Targets, rng: random.Random) -> None:
    n = rng.randint(4, 64)
    start = rng.randrange(len(data) - n)
    data[start:start + n] = bytes(n)


# bad_option and bad_shape_value twice: their mutants stay valid files and reach the ops.
MUTATORS: list[Mutator] = [bit_flips, extreme_bytes, huge_length, bad_index, bad_dim, bad_enum, truncate,
                           duplicate_chunk, zero_chunk, bad_option, bad_option,
                           bad_shape_value, bad_shape_value]


def mutate(seed_data: bytes, targets: Targets, rng: random.Random, structure_only: bool) -> tuple[bytes, str]:
    """One mutant and the names of the mutators applied. `structure_only` keeps random hits off the
    weights (the tail of the file), so that a big model's mutants mostly test the runtime, not math."""
    data = bytearray(seed_data)
    names = []
    for _ in range(1 if rng.random() < 0.7 else rng.randint(2, 3)):
        mutator = rng.choice(MUTATORS)
        if structure_only and mutator in (bit_flips, extreme_bytes, duplicate_chunk, zero_chunk):
            head = bytearray(data[: min(len(data), 16384)])
            mutator(head, targets, rng)
            data[: len(head)] = head
        else:
            mutator(data, targets, rng)
        names.append(mutator.__name__)
        if len(data) < 80:
            break
    return bytes(data), "+".join(names)


# -- seeds ---------------------------------------------------------------------------------------
@contextlib.contextmanager
def every_option_field_written() -> Iterator[None]:
    """Makes the flatbuffers builder write fields equal to their schema default too (strides of 1,
    axis 0, ...), so that mutants can change them: an absent field cannot be hit."""
    original = flatbuffers.Builder.__init__

    def init(self: flatbuffers.Builder, *args: object, **kwargs: object) -> None:
        original(self, *args, **kwargs)
        self.forceDefaults = True

    with mock.patch.object(flatbuffers.Builder, "__init__", init):
        yield


def shape_ops_net() -> onnx.ModelProto:
    """The ops that read shape inputs or windowed options, chained with dynamic H and W: Pad, Slice,
    Resize, Conv, ConvTranspose, pools, DepthToSpace / SpaceToDepth, LRN, InstanceNorm, Tile, Split,
    Expand, Transpose, Reshape, CumSum, TopK, and a Shape -> Range -> OneHot -> ConstantOfShape
    branch. Every shape input is a constant the mutators can make hostile."""
    rng = np.random.default_rng(2)

    def weights(*shape: int) -> np.ndarray:
        return (rng.standard_normal(shape) * 0.3).astype(np.float32)

    constants = {
        "pads": np.array([0, 0, 1, 1, 0, 0, 1, 1], np.int64),
        "pad_value": np.array(0.5, np.float32),
        "starts": np.array([1, 1], np.int64),
        "ends": np.array([-1, -1], np.int64),
        "slice_axes": np.array([2, 3], np.int64),
        "steps": np.array([1, 1], np.int64),
        "scales": np.array([1, 1, 2, 2], np.float32),
        "w_conv": weights(4, 4, 3, 3),
        "b_conv": weights(4),
        "w_convt": weights(4, 2, 2, 2),
        "in_scale": weights(4),
        "in_bias": weights(4),
        "repeats": np.array([1, 1, 1, 2], np.int64),
        "expand_shape": np.array([2, 1, 1, 1], np.int64),
        "flat_shape": np.array([2, -1], np.int64),
        "cum_axis": np.array(1, np.int64),
        "k": np.array([3], np.int64),
        "two": np.array(2, np.int64),
        "zero": np.array(0, np.int64),
        "one": np.array(1, np.int64),
        "depth": np.array(4, np.int64),
        "onehot_values": np.array([0, 1], np.float32),
    }
    node = helper.make_node
    nodes = [
        node("Pad", ["x", "pads", "pad_value"], ["padded"], mode="constant"),
        node("Slice", ["padded", "starts", "ends", "slice_axes", "steps"], ["sliced"]),
        node("Resize", ["sliced", "", "scales"], ["resized"], mode="nearest"),
        node("Conv", ["resized", "w_conv", "b_conv"], ["conv"], pads=[1, 1, 1, 1], strides=[2, 2]),
        node("ConvTranspose", ["conv", "w_convt"], ["convt"], strides=[2, 2], group=2),
        node("MaxPool", ["convt"], ["maxpool"], kernel_shape=[2, 2], strides=[2, 2]),
        node("AveragePool", ["maxpool"], ["avgpool"], kernel_shape=[3, 3], pads=[1, 1, 1, 1],
             count_include_pad=1),
        node("DepthToSpace", ["avgpool"], ["d2s"], blocksize=2),
        node("SpaceToDepth", ["d2s"], ["s2d"], blocksize=2),
        node("LRN", ["s2d"], ["lrn"], size=3),
        node("InstanceNormalization", ["lrn", "in_scale", "in_bias"], ["inorm"]),
        node("Tile", ["inorm", "repeats"], ["tiled"]),
        node("Split", ["tiled"], ["half_a", "half_b"], axis=3, num_outputs=2),
        node("Add", ["half_a", "half_b"], ["summed"]),
        node("Expand", ["summed", "expand_shape"], ["expanded"]),
        node("Transpose", ["expanded"], ["nhwc"], perm=[0, 2, 3, 1]),
        node("Reshape", ["nhwc", "flat_shape"], ["flat"]),
        node("CumSum", ["flat", "cum_axis"], ["cumsum"]),
        node("TopK", ["cumsum", "k"], ["top_values", "top_indices"], axis=-1),
        node("Softmax", ["top_values"], ["y"], axis=-1),
        node("Shape", ["x"], ["x_shape"]),
        node("Gather", ["x_shape", "two"], ["height"], axis=0),
        node("Range", ["zero", "height", "one"], ["rows"]),
        node("OneHot", ["rows", "depth", "onehot_values"], ["onehot"], axis=-1),
        node("Shape", ["onehot"], ["onehot_shape"]),
        node("ConstantOfShape", ["onehot_shape"], ["ones"],
             value=numpy_helper.from_array(np.array([1], np.float32))),
        node("Add", ["onehot", "ones"], ["onehot_plus"]),
        node("ReduceSum", ["onehot_plus"], ["z"], keepdims=0),
    ]
    graph = helper.make_graph(
        nodes, "shape_ops_net", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4, "h", "w"])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None),
         helper.make_tensor_value_info("z", TensorProto.FLOAT, None)],
        [numpy_helper.from_array(value, name) for name, value in constants.items()])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)], ir_version=8)


def recurrent_net() -> onnx.ModelProto:
    """LSTM (bidirectional, peepholes, lengths, initial states), GRU (reverse, reset before the
    candidate) and RNN chained over a dynamic time axis: mutants hit hidden_size, direction, the
    gate-function vectors, clip, the layout flag and the sequence lengths."""
    rng = np.random.default_rng(3)

    def weights(*shape: int) -> np.ndarray:
        return (rng.standard_normal(shape) * 0.4).astype(np.float32)

    constants = {
        "lstm_w": weights(2, 16, 3), "lstm_r": weights(2, 16, 4), "lstm_b": weights(2, 32),
        "lens": np.array([5, 3], np.int32), "h0": weights(2, 2, 4), "c0": weights(2, 2, 4),
        "peep": weights(2, 12), "flat": np.array([0, 0, -1], np.int64),
        "gru_w": weights(1, 9, 8), "gru_r": weights(1, 9, 3), "gru_b": weights(1, 18),
        "rnn_w": weights(1, 2, 3), "rnn_r": weights(1, 2, 2), "axis1": np.array([1], np.int64),
    }
    node = helper.make_node
    nodes = [
        node("LSTM", ["x", "lstm_w", "lstm_r", "lstm_b", "lens", "h0", "c0", "peep"], ["y1", "h1", "c1"],
             hidden_size=4, direction="bidirectional", clip=3.0),
        node("Transpose", ["y1"], ["y1t"], perm=[0, 2, 1, 3]),
        node("Reshape", ["y1t", "flat"], ["y1f"]),
        node("GRU", ["y1f", "gru_w", "gru_r", "gru_b"], ["y2"], hidden_size=3, direction="reverse"),
        node("Squeeze", ["y2", "axis1"], ["y2s"]),
        node("RNN", ["y2s", "rnn_w", "rnn_r"], ["y3", "y"], hidden_size=2, activations=["HardSigmoid"],
             activation_alpha=[0.3], activation_beta=[0.4]),
    ]
    graph = helper.make_graph(
        nodes, "recurrent_net", [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["t", 2, 3])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None),
         helper.make_tensor_value_info("c1", TensorProto.FLOAT, None)],
        [numpy_helper.from_array(value, name) for name, value in constants.items()])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 14)], ir_version=8)


def int8_seed() -> bytes | None:
    """Every int8 op (QUANTIZE, DEQUANTIZE, int8 CONV_2D, ADD, MAX_POOL_2D, GLOBAL_AVERAGE_POOL,
    FULLY_CONNECTED) from slim's post-training quantization, every option field written, so that
    mutants also hit scales, zero points and quantization axes. None (with a warning) when slim
    cannot calibrate here (it runs the fp32 model through the runtime library)."""
    import slim
    from tests.test_slim_int8_ops import every_int8_op_net

    rng = np.random.default_rng(5)
    data = [rng.standard_normal((1, 3, 12, 12)).astype(np.float32) for _ in range(3)]
    try:
        with every_option_field_written():
            return slim.compress(every_int8_op_net(), None, data, slim.QuantConfig(progress=False)).lite_bytes
    except (ImportError, OSError) as error:
        warnings.warn(f"fuzzing without the int8 seed: {error}", stacklevel=1)
        return None


# -- the test ------------------------------------------------------------------------------------
def seed_models(
    small_conv_onnx: onnx.ModelProto, shape_subgraph_onnx: onnx.ModelProto
) -> list[tuple[str, bytes, int, bool, list[str]]]:
    """(name, .lite bytes, number of mutants, structure_only, harness options) per seed."""
    from lite_converter.app import zoo
    from lite_converter.convert import convert_onnx

    with every_option_field_written():
        ops = convert_onnx(shape_ops_net())
        recurrent = convert_onnx(recurrent_net())
    seeds = [
        ("conv", convert_onnx(small_conv_onnx), MUTANTS_PER_SMALL_SEED, False, ["--dynamic-dim", "6"]),
        ("shape", convert_onnx(shape_subgraph_onnx), MUTANTS_PER_SMALL_SEED, False, ["--dynamic-dim", "6"]),
        ("ops", ops, MUTANTS_OF_OPS_SEED, False, ["--dynamic-dim", "6"]),
        ("recurrent", recurrent, MUTANTS_OF_RECURRENT_SEED, False, ["--dynamic-dim", "6"]),
    ]
    int8 = int8_seed()
    if int8 is not None:
        seeds.append(("int8", int8, MUTANTS_PER_SMALL_SEED, False, []))
    try:
        cls = zoo.fetch("cls")  # the real PaddleOCR classifier (cached after the first download)
    except zoo.ZooError as error:
        warnings.warn(f"fuzzing without the PaddleOCR classifier: {error}", stacklevel=1)
        return seeds
    shape = "x".join(map(str, zoo.PADDLEOCR_MODELS["cls"].input_shape))
    seeds.append(("ppocr_cls", convert_onnx(cls), MUTANTS_OF_REAL_MODEL, True, ["--shape", shape]))
    return seeds


def run_harness(harness: Path, files: list[Path], list_file: Path, options: list[str]) -> list[str]:
    list_file.write_text("\n".join(str(f) for f in files) + "\n")
    command = [str(harness), *options, f"@{list_file}"]
    result = subprocess.run(command, capture_output=True, errors="replace",
                            text=True, timeout=600, check=False,
                            env=dict(os.environ, ASAN_OPTIONS="detect_leaks=1:allocator_may_return_null=1",
                                     UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"))
    lines = result.stdout.splitlines()
    if result.returncode != 0 or any(m in result.stderr for m in SANITIZER_MARKERS):
        culprit = files[len(lines)] if len(lines) < len(files) else "(after the last file: a leak?)"
        pytest.fail(f"harness exit {result.returncode} on {culprit}\n{result.stderr[-6000:]}")
    assert len(lines) == len(files), result.stderr[-3000:]
    for line, path in zip(lines, files, strict=True):
        assert line.startswith(f"{path}: "), line
    return lines


def test_mutated_real_models_never_crash(tmp_path, asan_build, small_conv_onnx, shape_subgraph_onnx):
    harness = asan_build / "runtime_arm" / "fuzz_models"
    assert harness.is_file(), f"{harness} missing: build with `make asan`"
    files: list[Path] = []
    lines: list[str] = []
    for name, data, count, structure_only, options in seed_models(small_conv_onnx, shape_subgraph_onnx):
        original = tmp_path / f"seed_{name}.lite"
        original.write_bytes(data)
        group = [original]
        targets = Targets(data)
        rng = random.Random(f"lite-fuzz-{name}")
        for i in range(count):
            mutant, how = mutate(data, targets, rng, structure_only)
            path = tmp_path / f"{name}_{i:05d}_{how}.lite"
            path.write_bytes(mutant)
            group.append(path)
        for start in range(0, len(group), BATCH):
            batch = group[start:start + BATCH]
            lines += run_harness(harness, batch, tmp_path / f"batch_{name}_{start}.txt", options)
        files += group

    by_file = dict(zip(files, lines, strict=True))
    for path in files:
        if path.name.startswith("seed_"):
            assert by_file[path] == f"{path}: ok", by_file[path]
    outcomes = Counter(line.split(": ", 2)[1] for line in lines)
    mutants = len(files) - sum(1 for f in files if f.name.startswith("seed_"))
    assert mutants >= 2000
    assert not [line for line in lines if "BUG:" in line]
    # The test can fail: a good share must be refused at load, and some must still run.
    assert outcomes["load"] >= 0.25 * mutants, outcomes
    assert outcomes["ok"] >= 0.05 * mutants, outcomes
    # ... and a good share must get past the verifier into the ops' prepare and eval (the option
    # and shape-input mutators keep the file valid).
    reached = sum(outcomes[stage] for stage in ("allocate", "invoke", "get_output", "ok", "skipped"))
    assert reached >= 0.3 * mutants, outcomes
    for line in lines:
        if not line.endswith(": ok") and ": skipped:" not in line:
            assert len(line.split(": ", 3)[-1]) > 5, f"an error without a real message: {line}"
