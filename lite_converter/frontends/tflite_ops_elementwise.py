"""TFLite elementwise builtins -> .lite elementwise ops (unary, binary, comparisons, select, cast).

Every one runs on its fp32 (or integer) kernel; an int8 operand is dequantized and an int8 result
quantized with the file's own parameters (``tflite_ops._fp32``). TFLite ops with no .lite twin are
written with two: SQUARED_DIFFERENCE = (a - b)², SQUARE = x·x, FLOOR_DIV = floor(a / b) (float only:
an integer floor division has no kernel), ADD_N = a chain of ADDs.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from lite_converter.frontends.tflite_activation_fusion import fuse_into_binary, fuse_prelu_into_binary
from lite_converter.frontends.tflite_ops import NO_ACTIVATION, fp32_op

if TYPE_CHECKING:
    from lite_converter.frontends.tflite_frontend import TfliteGraphBuilder

# TFLite unary builtin -> (.lite op, UnaryOptions attributes).
UNARY: dict[str, tuple[str, dict[str, Any]]] = {
    "ABS": ("ABS", {}),
    "CEIL": ("CEIL", {}),
    "COS": ("COS", {}),
    "SIN": ("SIN", {}),
    "EXP": ("EXP", {}),
    "FLOOR": ("FLOOR", {}),
    "LOG": ("LOG", {}),
    "NEG": ("NEG", {}),
    "RSQRT": ("RSQRT", {}),
    "SQRT": ("SQRT", {}),
    "ROUND": ("ROUND", {}),
    "SIGN": ("SIGN", {}),
    "ELU": ("ELU", {"alpha": 1.0}),
    "RELU_N1_TO_1": ("CLIP", {"alpha": -1.0, "beta": 1.0}),
    "RELU_0_TO_1": ("CLIP", {"alpha": 0.0, "beta": 1.0}),
    "LOGICAL_NOT": ("LOGICAL_NOT", {}),
}
# TFLite binary builtin (no fused activation) -> .lite op.
BINARY = {
    "MAXIMUM": "MAXIMUM",
    "MINIMUM": "MINIMUM",
    "POW": "POW",
    "EQUAL": "EQUAL",
    "NOT_EQUAL": "NOT_EQUAL",
    "LESS": "LESS",
    "LESS_EQUAL": "LESS_EQUAL",
    "GREATER": "GREATER",
    "GREATER_EQUAL": "GREATER_EQUAL",
    "LOGICAL_AND": "LOGICAL_AND",
    "LOGICAL_OR": "LOGICAL_OR",
}
_DTYPE_NAMES = {
    np.dtype(np.float32): "FLOAT32",
    np.dtype(np.int32): "INT32",
    np.dtype(np.int64): "INT64",
    np.dtype(np.int8): "INT8",
    np.dtype(np.bool_): "BOOL",
}


def _unary(b: TfliteGraphBuilder, op: Any, inputs: list[str], outputs: list[str]) -> None:  # noqa: ANN401
    op_type, attrs = UNARY[b.opcode_name(op)]
    fp32_op(b, op_type, outputs[0], inputs[:1], outputs[0], **attrs)


def _leaky_relu(b: TfliteGraphBuilder, op: Any, inputs: list[str], outputs: list[str]) -> None:  # noqa: ANN401
    alpha = float(op.builtinOptions.alpha) if op.builtinOptions is not None else 0.2
    if fuse_into_binary(b, inputs[0], outputs[0], {"kind": "LEAKY_RELU", "alpha": alpha, "beta": 0.0}):
        return
    fp32_op(b, "LEAKY_RELU", outputs[0], inputs[:1], outputs[0], alpha=alpha)


def _gelu(b: TfliteGraphBuilder, op: Any, inputs: list[str], outputs: list[str]) -> None:  # noqa: ANN401
    approximate = bool(op.builtinOptions.approximate) if op.builtinOptions is not None else False
    fp32_op(b, "GELU", outputs[0], inputs[:1], outputs[0], approximate_tanh=approximate)


def _prelu(b: TfliteGraphBuilder, op: Any, inputs: list[str], outputs: list[str]) -> None:  # noqa: ANN401
    if not _fused_into_conv(b, inputs[0], inputs[1], outputs[0]) and \
            not fuse_prelu_into_binary(b, inputs[0], inputs[1], outputs[0]):
        fp32_op(b, "PRELU", outputs[0], inputs[:2], outputs[0], activation=dict(NO_ACTIVATION))


def _fused_into_conv(b: TfliteGraphBuilder, x: str, slope: str, out: str) -> bool:
    """CONV_2D (or depthwise) -> PRELU with one slope per output channel becomes the conv's fused PRELU
    (its ``prelu_slope`` input 3), as the ONNX path's activation fusion does: MediaPipe's face and
    iris models have dozens. Only when the conv is fp32, has no activation of its own, and its output
    is read by this PRELU alone and is not a graph output."""
    conv = next((n for n in reversed(b.graph.nodes) if x in n.outputs), None)
    if conv is None or conv.op_type != "CONV_2D" or len(conv.inputs) > 3 or \
            conv.attrs.get("activation", {}).get("kind") != "NONE" or b.is_int8(x) or b.is_int8(out):
        return False
    graph_outputs = {b.name(i) for i in b.subgraph.outputs if 0 <= i < len(b.names)}
    value = b.graph.tensors[slope].data
    channels = int(b.graph.tensors[conv.inputs[1]].data.shape[0])
    if len(b.readers.get(x, [])) != 1 or x in graph_outputs or value is None or \
            value.size != channels or value.shape[-1] != channels:
        return False
    per_channel = b.graph.add_constant(f"{slope}_per_channel", value.reshape(channels).astype(np.float32))
    conv.inputs = [*(conv.inputs + [""])[:3], per_channel]
    conv.attrs["activation"] = {"kind": "PRELU", "alpha": 0.0, "beta": 0.0}
    conv.outputs = [out]
    return True


def _binary(b: TfliteGraphBuilder, op: Any, inputs: list[str], outputs: list[str]) -> None:  # noqa: ANN401
    fp32_op(b, BINARY[b.opcode_name(op)], outputs[0], inputs[:2], outputs[0], activation=dict(NO_ACTIVATION))


def _float_temp(b: TfliteGraphBuilder, out: str, suffix: str) -> str:
    return b.graph.add_tensor(f"{out}_{suffix}", np.float32, b.graph.tensors[out].shape)


def _squared_difference(b: TfliteGraphBuilder, op: Any, inputs: list[str], outputs: list[str]) -> None:  # noqa: ANN401
    out = outputs[0]
    target, finish = b.fp32_output(out)
    difference = _float_temp(b, out, "difference")
    act = dict(NO_ACTIVATION)
    b.add_node("SUB", f"{out}_sub", [b.dequantized(n) for n in inputs[:2]], [difference], activation=act)
    b.add_node("MUL", out, [difference, difference], [target], activation=act)
    finish()


def _square(b: TfliteGraphBuilder, op: Any, inputs: list[str], outputs: list[str]) -> None:  # noqa: ANN401
    x = inputs[0]
    fp32_op(b, "MUL", outputs[0], [x, x], outputs[0], activation=dict(NO_ACTIVATION))


def _floor_div(b: TfliteGraphBuilder, op: Any, inputs: list[str], outputs: list[str]) -> None:  # noqa: ANN401
    out = outputs[0]
    if b.graph.tensors[out].dtype != np.float32:
        b.problems.append(f"op writing '{out}': FLOOR_DIV of {b.graph.tensors[out].dtype} (float only)")
        return
    quotient = _float_temp(b, out, "quotient")
    b.add_node("DIV", f"{out}_div", inputs[:2], [quotient], activation=dict(NO_ACTIVATION))
    b.add_node("FLOOR", out, [quotient], [out])


def _add_n(b: TfliteGraphBuilder, op: Any, inputs: list[str], outputs: list[str]) -> None:  # noqa: ANN401
    out = outputs[0]
    target, finish = b.fp32_output(out)
    values = [b.dequantized(n) for n in inputs]
    total = values[0]
    for index, value in enumerate(values[1:], start=1):
        last = index == len(values) - 1
        result = target if last else _float_temp(b, out, f"sum{index}")
        b.add_node(
            "ADD",
            out if last else f"{out}_add{index}",
            [total, value],
            [result],
            activation=dict(NO_ACTIVATION),
        )
        total = result
    if len(values) == 1:
        b.add_node("IDENTITY", out, [total], [target])
    finish()


def _select(b: TfliteGraphBuilder, op: Any, inputs: list[str], outputs: list[str]) -> None:  # noqa: ANN401
    condition, *values = inputs[:3]
    out = outputs[0]
    target, finish = b.fp32_output(out)
    b.add_node("WHERE", out, [condition, *[b.dequantized(v) for v in values]], [target])
    finish()


def _cast(b: TfliteGraphBuilder, op: Any, inputs: list[str], outputs: list[str]) -> None:  # noqa: ANN401
    x, out = inputs[0], outputs[0]
    to = _DTYPE_NAMES.get(np.dtype(b.graph.tensors[out].dtype))
    if to is None or b.graph.tensors[x].quant is not None or b.graph.tensors[out].quant is not None:
        b.problems.append(f"op writing '{out}': CAST to {b.graph.tensors[out].dtype} is not imported")
        return
    b.add_node("CAST", out, [x], [out], to=to)


CONVERTERS = {
    **dict.fromkeys(UNARY, _unary),
    **dict.fromkeys(BINARY, _binary),
    "LEAKY_RELU": _leaky_relu,
    "GELU": _gelu,
    "PRELU": _prelu,
    "SQUARED_DIFFERENCE": _squared_difference,
    "SQUARE": _square,
    "FLOOR_DIV": _floor_div,
    "ADD_N": _add_n,
    "SELECT": _select,
    "SELECT_V2": _select,
    "CAST": _cast,
}
