"""Floating-point operations of a .lite graph, per op, for achieved-GFLOP/s figures in `lite bench`.

The convention is the one papers quote (MobileNetV2-1.0 at 224: ~300 M multiply-adds, ~0.6 GFLOPs):

- CONV_2D, CONV_TRANSPOSE_2D, FULLY_CONNECTED, MATMUL: 2 x multiply-accumulates. Bias adds and
  activations fused into the op are not counted (they are a rounding error next to the MACs).
- elementwise arithmetic and activations: 1 per output element (sigmoid, exp... included: we count
  operations a user asked for, not the instructions a kernel spends on them);
- pools: 1 per window element per output (max compares, average adds); global pools, reductions,
  softmax-like and normalization ops: a small fixed number per input element (see _PER_INPUT_ELEMENT);
- data movement (reshape, transpose, concat, slice, gather, pad, cast, ...): 0.

Shapes must be concrete: pass the runtime's computed shapes (``Interpreter.tensor_details()`` after
allocation) for models with dynamic dims; otherwise the model's declared shapes are used and an op
with an unknown shape counts 0 and is listed in ``FlopsReport.unknown``.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping, Sequence

from lite_converter.reader import LiteModel, OperatorInfo

Shapes = Mapping[int, Sequence[int]]

_ELEMENTWISE = {
    "ADD", "SUB", "MUL", "DIV", "POW", "MAXIMUM", "MINIMUM", "MOD", "PRELU",
    "EQUAL", "NOT_EQUAL", "LESS", "LESS_EQUAL", "GREATER", "GREATER_EQUAL",
    "RELU", "RELU6", "CLIP", "SIGMOID", "TANH", "HARD_SIGMOID", "HARD_SWISH", "LEAKY_RELU", "ELU", "SELU",
    "SILU", "GELU", "SOFTPLUS", "SOFTSIGN", "EXP", "LOG", "SQRT", "RSQRT", "RECIPROCAL", "ABS", "NEG",
    "FLOOR", "CEIL", "ROUND", "SIGN", "ERF", "SIN", "COS", "CELU", "THRESHOLDED_RELU", "TAN", "ASIN",
    "ACOS", "ATAN", "SINH", "COSH", "ASINH", "ACOSH", "ATANH", "MISH", "SHRINK", "WHERE",
}
# ops whose cost scales with their input: (flops per input element)
_PER_INPUT_ELEMENT = {
    "GLOBAL_AVERAGE_POOL": 1, "GLOBAL_MAX_POOL": 1,
    "REDUCE_SUM": 1, "REDUCE_MEAN": 1, "REDUCE_MAX": 1, "REDUCE_MIN": 1, "REDUCE_PROD": 1,
    "REDUCE_L1": 2, "REDUCE_L2": 2, "REDUCE_SUM_SQUARE": 2, "REDUCE_LOG_SUM": 1, "REDUCE_LOG_SUM_EXP": 2,
    "ARG_MAX": 1, "ARG_MIN": 1,
    "SOFTMAX": 4, "LOG_SOFTMAX": 4, "HARDMAX": 1,  # max, subtract+exp, sum, scale
    "LAYER_NORM": 6, "INSTANCE_NORM_NHWC": 6, "LRN_NHWC": 4,  # mean, variance, normalize, affine
}
_POOLS = {"MAX_POOL_2D", "AVERAGE_POOL_2D"}


@dataclasses.dataclass(frozen=True)
class OpFlops:
    index: int
    opcode: str
    name: str
    flops: int


@dataclasses.dataclass(frozen=True)
class FlopsReport:
    ops: list[OpFlops]
    unknown: list[int]  # op indices whose shapes were not concrete (counted as 0)

    @property
    def total(self) -> int:
        return sum(op.flops for op in self.ops)

    def by_index(self) -> dict[int, int]:
        return {op.index: op.flops for op in self.ops}


def _elements(shape: Sequence[int]) -> int:
    return math.prod(int(d) for d in shape)


def _op_flops(op: OperatorInfo, shape_of: Mapping[int, Sequence[int]]) -> int:
    """FLOPs of one op, given concrete shapes of its tensors (KeyError when one is missing)."""
    code = op.opcode
    out = shape_of[op.outputs[0]] if op.outputs else ()
    if code == "CONV_2D":  # w [Co, KH, KW, Ci/g]
        _, kh, kw, ci_per_group = shape_of[op.inputs[1]]
        return 2 * _elements(out) * kh * kw * ci_per_group
    if code == "CONV_TRANSPOSE_2D":  # w [Ci, KH, KW, Co/g]: every input pixel scatters a KHxKW patch
        _, kh, kw, co_per_group = shape_of[op.inputs[1]]
        return 2 * _elements(shape_of[op.inputs[0]]) * kh * kw * co_per_group
    if code == "FULLY_CONNECTED":  # x [..., K], w [N, K]
        return 2 * _elements(out) * int(shape_of[op.inputs[1]][-1])
    if code == "MATMUL":
        a = shape_of[op.inputs[0]]
        return 2 * _elements(out) * int(a[-1] if a else 1)
    if code in _POOLS:
        window = int(op.options.get("kernel_h", 1)) * int(op.options.get("kernel_w", 1))
        return _elements(out) * max(1, window)
    if code in _ELEMENTWISE:
        return _elements(out)
    if code in _PER_INPUT_ELEMENT:
        return _PER_INPUT_ELEMENT[code] * _elements(shape_of[op.inputs[0]])
    return 0


def _declared_shapes(model: LiteModel) -> dict[int, list[int]]:
    return {
        t.index: t.shape for t in model.tensors if t.shape is not None and all(d >= 0 for d in t.shape)
    }


def model_flops(model: LiteModel, shapes: Shapes | None = None) -> FlopsReport:
    """Per-op FLOPs of the model; ``shapes`` (tensor index -> concrete shape) overrides the declared ones."""
    shape_of: dict[int, Sequence[int]] = dict(_declared_shapes(model))
    for index, shape in (shapes or {}).items():
        if all(int(d) >= 0 for d in shape):
            shape_of[int(index)] = [int(d) for d in shape]
    ops, unknown = [], []
    for op in model.operators:
        try:
            flops = _op_flops(op, shape_of)
        except (KeyError, ValueError, IndexError):
            flops = 0
            unknown.append(op.index)
        ops.append(OpFlops(op.index, op.opcode, op.name, int(flops)))
    return FlopsReport(ops, unknown)
