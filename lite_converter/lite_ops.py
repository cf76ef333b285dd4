"""The one table of per-op facts for every .lite op code (docs/ADDING_AN_OP.md, docs/OPS.md).

The schema (runtime_arm/schema/lite.fbs) gives each op its code and the options tables; this table
gives what the passes and the runtime need beyond that: which options table the op carries, how
the layout pass treats it, whether it runs in any dtype, whether its output aliases its input, and
how the int8 rewrite and slim's int8 simulation treat it. The writer, the layout and float32
promotion passes, the memory planner, the int8 pass, slim and the QDQ importer read their op lists
from here, and ``make schema`` generates the runtime's options table from it
(lite_converter/op_table_codegen.py -> runtime_arm/src/op_options_table.cc). tests/test_op_table.py
fails when the schema, this table and the generated file disagree.
"""

from __future__ import annotations

import dataclasses
import enum
import functools

from lite_converter.lite_fb.OpCode import OpCode


class LayoutClass(enum.Enum):
    """How an op relates to the physical (channels-last) layout of its activations."""

    CHANNELS_LAST = "channels_last"  # reads and writes rank-4 NHWC
    ELEMENTWISE = "elementwise"  # output keeps the layout of its inputs
    AXIS = "axis"  # works in any layout once its axes are remapped
    LOGICAL = "logical"  # needs the source model's (logical) layout
    TRANSPOSE = "transpose"  # composes with the layout permutation
    SHAPE = "shape"  # reads only the shape: gets a `perm` option
    ANY = "any"  # reads neither layout nor axes (SIZE)


class Int8Role(enum.Enum):
    """How passes/quantize_int8.py and slim/fake_quant.py treat an op (docs/INT8_OPS.md)."""

    WEIGHTED = "weighted"  # constant weight per output channel, int32 bias, requantized output
    SAME_PARAMS = "same_params"  # output keeps the input's scale and zero point (pools)
    BINARY = "binary"  # two operands, requantized output (a scalar/broadcast operand too)
    LOOKUP = "lookup"  # one activation through a 256-entry table (runtime ops/lookup_int8.cc)
    MOVE = "move"  # moves bytes: int8 when its input is, with the input's scale and zero point
    SHARED_RANGE = "shared_range"  # inputs and output get one (union) range, then bytes move (CONCAT)
    REPEAT = "repeat"  # nearest resize by integer scales: bytes repeated
    CONVERT = "convert"  # QUANTIZE / DEQUANTIZE / REQUANTIZE: the borders themselves


@dataclasses.dataclass(frozen=True)
class OpInfo:
    """The facts about one op code that are not in the schema."""

    options: str | None  # member of the schema's OpOptions union the op reads; None: no options
    layout: LayoutClass
    dtype_generic: bool = False  # only moves, selects or describes data: any element type, never promoted
    aliases_input: bool = False  # the output may share input 0's memory (runtime and planner)
    int8: Int8Role | None = None  # None: the op always runs in fp32 (or, if dtype generic, in any dtype)
    int8_weight_axis: int = 0  # WEIGHTED: the weight's output-channel axis


OPS: dict[str, OpInfo] = {}


def _add(names: str, options: str | None, layout: LayoutClass, **facts: object) -> None:
    for name in names.split():
        if name in OPS:
            raise ValueError(f"{name} is listed twice in lite_ops.OPS")
        OPS[name] = OpInfo(options, layout, **facts)  # type: ignore[arg-type]


_L = LayoutClass
_I = Int8Role
# One line per op (or per family of ops with the same facts); the order does not matter.
# -- elementwise binary (numpy broadcast)
_add("ADD MUL", "BinaryOptions", _L.ELEMENTWISE, int8=_I.BINARY)
_add("SUB DIV POW MAXIMUM MINIMUM MOD EQUAL NOT_EQUAL LESS LESS_EQUAL GREATER GREATER_EQUAL", "BinaryOptions",
     _L.ELEMENTWISE)
_add("LOGICAL_AND LOGICAL_OR LOGICAL_XOR PRELU", "BinaryOptions", _L.ELEMENTWISE)
# -- elementwise unary
_add("HARD_SWISH HARD_SIGMOID SIGMOID TANH SILU", "UnaryOptions", _L.ELEMENTWISE, int8=_I.LOOKUP)
_add("RELU RELU6 CLIP LEAKY_RELU ELU SELU GELU SOFTPLUS SOFTSIGN EXP LOG SQRT RSQRT RECIPROCAL ABS NEG "
     "FLOOR CEIL ROUND SIGN ERF SIN COS LOGICAL_NOT IS_NAN IS_INF CELU THRESHOLDED_RELU TAN ASIN ACOS ATAN "
     "SINH COSH ASINH ACOSH ATANH MISH SHRINK", "UnaryOptions", _L.ELEMENTWISE)
_add("IDENTITY", "UnaryOptions", _L.ELEMENTWISE, dtype_generic=True, aliases_input=True)
# -- NN ops on channels-last activations
_add("CONV_2D", "Conv2DOptions", _L.CHANNELS_LAST, int8=_I.WEIGHTED)
_add("CONV_TRANSPOSE_2D", "ConvTranspose2DOptions", _L.CHANNELS_LAST, int8=_I.WEIGHTED, int8_weight_axis=3)
_add("MAX_POOL_2D", "Pool2DOptions", _L.CHANNELS_LAST, int8=_I.SAME_PARAMS)
_add("AVERAGE_POOL_2D", "Pool2DOptions", _L.CHANNELS_LAST)
_add("GLOBAL_AVERAGE_POOL", None, _L.CHANNELS_LAST, int8=_I.SAME_PARAMS)
_add("GLOBAL_MAX_POOL", None, _L.CHANNELS_LAST)
_add("RESIZE", "ResizeOptions", _L.CHANNELS_LAST, int8=_I.REPEAT)
_add("DEPTH_TO_SPACE SPACE_TO_DEPTH", "DepthToSpaceOptions", _L.CHANNELS_LAST, dtype_generic=True)
_add("INSTANCE_NORM_NHWC", "InstanceNormOptions", _L.CHANNELS_LAST)
_add("LRN_NHWC", "LrnOptions", _L.CHANNELS_LAST)
# -- dense / normalization
_add("FULLY_CONNECTED", "FullyConnectedOptions", _L.LOGICAL, int8=_I.WEIGHTED)
_add("MATMUL", "MatMulOptions", _L.LOGICAL)
_add("SOFTMAX LOG_SOFTMAX HARDMAX", "SoftmaxOptions", _L.AXIS)
_add("LAYER_NORM", "LayerNormOptions", _L.AXIS)
# -- reductions
_add("REDUCE_SUM REDUCE_MEAN REDUCE_MAX REDUCE_MIN REDUCE_PROD REDUCE_L1 REDUCE_L2 REDUCE_SUM_SQUARE "
     "REDUCE_LOG_SUM REDUCE_LOG_SUM_EXP", "ReduceOptions", _L.AXIS)
_add("ARG_MAX ARG_MIN", "ArgOptions", _L.AXIS)
# -- data movement and shape ops
_add("CONCAT", "ConcatOptions", _L.AXIS, dtype_generic=True, int8=_I.SHARED_RANGE)
_add("SPLIT", "SplitOptions", _L.AXIS, dtype_generic=True)
_add("SLICE", "SliceOptions", _L.AXIS, dtype_generic=True)
_add("PAD", "PadOptions", _L.AXIS, dtype_generic=True)
_add("GATHER", "GatherOptions", _L.AXIS, dtype_generic=True)
_add("GATHER_ELEMENTS GATHER_ND", "GatherOptions", _L.LOGICAL, dtype_generic=True)
_add("RESHAPE", "ReshapeOptions", _L.LOGICAL, dtype_generic=True, aliases_input=True, int8=_I.MOVE)
_add("FLATTEN", "FlattenOptions", _L.LOGICAL, dtype_generic=True, aliases_input=True, int8=_I.MOVE)
_add("SQUEEZE UNSQUEEZE", "SqueezeOptions", _L.LOGICAL, dtype_generic=True, aliases_input=True, int8=_I.MOVE)
_add("TRANSPOSE", "TransposeOptions", _L.TRANSPOSE, dtype_generic=True, int8=_I.MOVE)
_add("CAST", "CastOptions", _L.ELEMENTWISE, dtype_generic=True)
_add("WHERE", None, _L.ELEMENTWISE, dtype_generic=True)
_add("SHAPE", "ShapeOptions", _L.SHAPE, dtype_generic=True)
_add("SIZE", None, _L.ANY, dtype_generic=True)
_add("EXPAND TILE RANGE NON_ZERO", None, _L.LOGICAL, dtype_generic=True)
_add("CONSTANT_OF_SHAPE", "ConstantOfShapeOptions", _L.LOGICAL, dtype_generic=True)
_add("CUMSUM", "CumSumOptions", _L.AXIS)
_add("TOP_K", "TopKOptions", _L.LOGICAL)
_add("ONE_HOT", "OneHotOptions", _L.LOGICAL, dtype_generic=True)
_add("SCATTER_ELEMENTS SCATTER_ND", "ScatterOptions", _L.LOGICAL, dtype_generic=True)
_add("TRILU", "TriluOptions", _L.LOGICAL, dtype_generic=True)
_add("REVERSE_SEQUENCE", "ReverseSequenceOptions", _L.LOGICAL, dtype_generic=True)
# -- recurrent
_add("LSTM GRU RNN", "RecurrentOptions", _L.LOGICAL)
# -- control flow (bodies are subgraphs of the model; values pass through in their own dtype)
_add("IF", "IfOptions", _L.LOGICAL, dtype_generic=True)
_add("LOOP", "LoopOptions", _L.LOGICAL, dtype_generic=True)
_add("SCAN", "ScanOptions", _L.LOGICAL, dtype_generic=True)
# -- state across invokes: writes input 1 into the variable tensor input 0 (no outputs)
_add("ASSIGN_VARIABLE", None, _L.LOGICAL, dtype_generic=True)
# -- ONNX sequences and optionals (values of a non-tensor kind; ops/sequence_ops.cc)
_add("SEQUENCE_CONSTRUCT SEQUENCE_INSERT SEQUENCE_AT SEQUENCE_ERASE SEQUENCE_LENGTH OPTIONAL "
     "OPTIONAL_HAS_ELEMENT OPTIONAL_GET_ELEMENT", None, _L.LOGICAL, dtype_generic=True)
_add("CONCAT_FROM_SEQUENCE SPLIT_TO_SEQUENCE", "SequenceOptions", _L.LOGICAL, dtype_generic=True)
# -- quantization
_add("QUANTIZE DEQUANTIZE REQUANTIZE", "QuantizeOptions", _L.ELEMENTWISE, dtype_generic=True, int8=_I.CONVERT)

# Views of OPS that the passes read.
OPTIONS_TABLE: dict[str, str | None] = {op: info.options for op, info in OPS.items()}
LAYOUT_CLASS: dict[str, LayoutClass] = {op: info.layout for op, info in OPS.items()}
# Ops that only move, select or describe data: they keep the source dtype (lowering/promote_float32.py).
DTYPE_GENERIC_OPS = frozenset(op for op, info in OPS.items() if info.dtype_generic)
# Ops whose output may share the input's memory (the runtime aliases them; the planner too).
ALIASING_OPS = frozenset(op for op, info in OPS.items() if info.aliases_input)


@functools.cache
def int8_ops(role: Int8Role, weight_axis: int | None = None) -> tuple[str, ...]:
    """The op codes the int8 rewrite treats as ``role`` (of them, those whose weight's output-channel
    axis is ``weight_axis``, if given), in table order."""
    return tuple(op for op, info in OPS.items()
                 if info.int8 is role and weight_axis in (None, info.int8_weight_axis))


def opcode_value(op_type: str) -> int:
    """The OpCode enum value of a lowered op type, e.g. "CONV_2D" -> 100."""
    value = getattr(OpCode, op_type, None)
    if not isinstance(value, int) or op_type.startswith("_"):
        raise KeyError(op_type)
    return value


def opcode_name(value: int) -> str:
    """The OpCode name of an enum value (for the reader); "OPCODE_<n>" when unknown."""
    return _OPCODE_NAMES.get(value, f"OPCODE_{value}")


_OPCODE_NAMES: dict[int, str] = {
    v: k for k, v in vars(OpCode).items() if not k.startswith("_") and isinstance(v, int)
}


def all_opcode_names() -> list[str]:
    """Every op code of the generated schema (tests/test_op_table.py checks that OPS covers them)."""
    return sorted(_OPCODE_NAMES.values())
