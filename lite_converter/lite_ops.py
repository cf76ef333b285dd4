"""The one table that says, for every .lite op code, which options table it carries and how the
layout pass must treat it (docs/OPS.md, "Layout classes").

The writer, the reader and the layout pass all read this table, so adding an op is one line here
(plus its kernels); nothing else in the converter hard-codes op lists.
"""

from __future__ import annotations

import enum

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


_BINARY = (
    "ADD SUB MUL DIV POW MAXIMUM MINIMUM MOD EQUAL NOT_EQUAL LESS LESS_EQUAL GREATER GREATER_EQUAL "
    "LOGICAL_AND LOGICAL_OR LOGICAL_XOR PRELU"
).split()
_UNARY = (
    "RELU RELU6 CLIP SIGMOID TANH HARD_SIGMOID HARD_SWISH LEAKY_RELU ELU SELU SILU GELU SOFTPLUS SOFTSIGN "
    "EXP LOG SQRT RSQRT RECIPROCAL ABS NEG FLOOR CEIL ROUND SIGN ERF SIN COS LOGICAL_NOT IS_NAN IS_INF CELU "
    "THRESHOLDED_RELU TAN ASIN ACOS ATAN SINH COSH ASINH ACOSH ATANH MISH SHRINK IDENTITY"
).split()
_REDUCE = (
    "REDUCE_SUM REDUCE_MEAN REDUCE_MAX REDUCE_MIN REDUCE_PROD REDUCE_L1 REDUCE_L2 REDUCE_SUM_SQUARE "
    "REDUCE_LOG_SUM REDUCE_LOG_SUM_EXP"
).split()

# Op code name -> options table name (None: the op has no options). Mirrors the runtime's
# runtime_arm/src/op_options_table.cc, which refuses any other union member.
OPTIONS_TABLE: dict[str, str | None] = {
    **{op: "BinaryOptions" for op in _BINARY},
    **{op: "UnaryOptions" for op in _UNARY},
    **{op: "ReduceOptions" for op in _REDUCE},
    "CONV_2D": "Conv2DOptions",
    "CONV_TRANSPOSE_2D": "ConvTranspose2DOptions",
    "MAX_POOL_2D": "Pool2DOptions",
    "AVERAGE_POOL_2D": "Pool2DOptions",
    "GLOBAL_AVERAGE_POOL": None,
    "GLOBAL_MAX_POOL": None,
    "RESIZE": "ResizeOptions",
    "DEPTH_TO_SPACE": "DepthToSpaceOptions",
    "SPACE_TO_DEPTH": "DepthToSpaceOptions",
    "FULLY_CONNECTED": "FullyConnectedOptions",
    "MATMUL": "MatMulOptions",
    "SOFTMAX": "SoftmaxOptions",
    "LOG_SOFTMAX": "SoftmaxOptions",
    "HARDMAX": "SoftmaxOptions",
    "LAYER_NORM": "LayerNormOptions",
    "INSTANCE_NORM_NHWC": "InstanceNormOptions",
    "LRN_NHWC": "LrnOptions",
    "ARG_MAX": "ArgOptions",
    "ARG_MIN": "ArgOptions",
    "CONCAT": "ConcatOptions",
    "SPLIT": "SplitOptions",
    "SLICE": "SliceOptions",
    "RESHAPE": "ReshapeOptions",
    "FLATTEN": "FlattenOptions",
    "SQUEEZE": "SqueezeOptions",
    "UNSQUEEZE": "SqueezeOptions",
    "TRANSPOSE": "TransposeOptions",
    "PAD": "PadOptions",
    "GATHER": "GatherOptions",
    "GATHER_ELEMENTS": "GatherOptions",
    "GATHER_ND": "GatherOptions",
    "CAST": "CastOptions",
    "SHAPE": "ShapeOptions",
    "SIZE": None,
    "EXPAND": None,
    "TILE": None,
    "WHERE": None,
    "RANGE": None,
    "CONSTANT_OF_SHAPE": "ConstantOfShapeOptions",
    "CUMSUM": "CumSumOptions",
    "TOP_K": "TopKOptions",
    "ONE_HOT": "OneHotOptions",
    "SCATTER_ELEMENTS": "ScatterOptions",
    "SCATTER_ND": "ScatterOptions",
    "TRILU": "TriluOptions",
    "NON_ZERO": None,
    "QUANTIZE": "QuantizeOptions",
    "DEQUANTIZE": "QuantizeOptions",
    "REQUANTIZE": "QuantizeOptions",
}

_CHANNELS_LAST = (
    "CONV_2D CONV_TRANSPOSE_2D MAX_POOL_2D AVERAGE_POOL_2D GLOBAL_AVERAGE_POOL GLOBAL_MAX_POOL RESIZE "
    "DEPTH_TO_SPACE SPACE_TO_DEPTH INSTANCE_NORM_NHWC LRN_NHWC"
).split()
_AXIS = (
    "CONCAT SPLIT SOFTMAX LOG_SOFTMAX HARDMAX ARG_MAX ARG_MIN SLICE PAD GATHER CUMSUM LAYER_NORM".split()
    + _REDUCE
)

LAYOUT_CLASS: dict[str, LayoutClass] = {
    **{op: LayoutClass.LOGICAL for op in OPTIONS_TABLE},
    **{op: LayoutClass.ELEMENTWISE for op in _BINARY + _UNARY},
    **{op: LayoutClass.ELEMENTWISE for op in ("WHERE", "CAST", "QUANTIZE", "DEQUANTIZE", "REQUANTIZE")},
    **{op: LayoutClass.CHANNELS_LAST for op in _CHANNELS_LAST},
    **{op: LayoutClass.AXIS for op in _AXIS},
    "TRANSPOSE": LayoutClass.TRANSPOSE,
    "SHAPE": LayoutClass.SHAPE,
    "SIZE": LayoutClass.ANY,
}

# Ops whose output may share the input's memory (the runtime aliases them; the planner too).
ALIASING_OPS = frozenset({"RESHAPE", "FLATTEN", "SQUEEZE", "UNSQUEEZE", "IDENTITY"})


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
    """Every op code of the generated schema (a test checks that the tables above cover them)."""
    return sorted(_OPCODE_NAMES.values())
