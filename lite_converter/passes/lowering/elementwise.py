"""Lowering of elementwise ONNX ops: binary arithmetic, comparisons, logic, unary math, activations,
variadic Sum/Mean/Max/Min (chains of binary ops), Clip, Where, Cast/CastLike."""

from __future__ import annotations

import numpy as np

from lite_converter.frontends.onnx_attributes import elem_type_to_numpy
from lite_converter.ir import ConversionError, Graph, Node
from lite_converter.passes.clip_bounds import FLOAT_MAX
from lite_converter.passes.lowering.emitter import NO_ACTIVATION, Emitter, activation_of, dtype_name
from lite_converter.passes.lowering.registry import lowers

BINARY = {"Add": "ADD", "Sub": "SUB", "Mul": "MUL", "Div": "DIV", "Pow": "POW", "Mod": "MOD",
          "Equal": "EQUAL", "Less": "LESS", "LessOrEqual": "LESS_EQUAL", "Greater": "GREATER",
          "GreaterOrEqual": "GREATER_EQUAL", "And": "LOGICAL_AND", "Or": "LOGICAL_OR", "Xor": "LOGICAL_XOR",
          "PRelu": "PRELU"}
# Ops the .lite format runs on floats only: integer operands go through float32 and back.
_FLOAT_ONLY_BINARY = {"Pow"}

UNARY = {"Relu": "RELU", "Sigmoid": "SIGMOID", "Tanh": "TANH", "Exp": "EXP", "Log": "LOG", "Sqrt": "SQRT",
         "Reciprocal": "RECIPROCAL", "Abs": "ABS", "Neg": "NEG", "Floor": "FLOOR", "Ceil": "CEIL",
         "Round": "ROUND", "Sign": "SIGN", "Erf": "ERF", "Sin": "SIN", "Cos": "COS", "Tan": "TAN",
         "Asin": "ASIN", "Acos": "ACOS", "Atan": "ATAN", "Sinh": "SINH", "Cosh": "COSH", "Asinh": "ASINH",
         "Acosh": "ACOSH", "Atanh": "ATANH", "Softplus": "SOFTPLUS", "Softsign": "SOFTSIGN", "Mish": "MISH",
         "Not": "LOGICAL_NOT", "IsNaN": "IS_NAN", "HardSwish": "HARD_SWISH", "Identity": "IDENTITY"}

SELU_ALPHA = 1.67326319217681884765625
SELU_GAMMA = 1.05070102214813232421875


def _check_binary(graph: Graph, node: Node) -> list[str]:
    if "axis" in node.attrs or node.attrs.get("broadcast", 0):
        return ["legacy (opset < 7) broadcast with 'axis' is not supported"]
    return []


@lowers(*BINARY, check=_check_binary)
def lower_binary(graph: Graph, node: Node) -> list[Node]:
    e = Emitter(graph, node)
    op = BINARY[node.op_type]
    a, b = node.inputs[0], node.inputs[1]
    act, _ = activation_of(node)
    attrs: dict = {"activation": act}
    if op == "MOD":
        attrs["fmod"] = bool(node.attrs.get("fmod", 0))
    out_dtype = e.dtype(node.outputs[0])
    if node.op_type in _FLOAT_ONLY_BINARY and (e.dtype(a).kind != "f" or e.dtype(b).kind != "f"):
        fa = a if e.dtype(a) == np.float32 else e.op("CAST", [a], np.float32, e.shape(a), to="FLOAT32")
        fb = b if e.dtype(b) == np.float32 else e.op("CAST", [b], np.float32, e.shape(b), to="FLOAT32")
        result = e.op(op, [fa, fb], np.float32, e.shape(node.outputs[0]), **attrs)
        e.emit("CAST", [result], [node.outputs[0]], to=dtype_name(out_dtype))
        return e.nodes
    if node.op_type == "Pow" and e.dtype(b) != e.dtype(a):
        b = e.op("CAST", [b], e.dtype(a), e.shape(b), to=dtype_name(e.dtype(a)))
    e.emit(op, [a, b], node.outputs, **attrs)
    return e.nodes


@lowers("Sum", "Mean", "Max", "Min")
def lower_variadic(graph: Graph, node: Node) -> list[Node]:
    """A left-to-right chain of binary ops; Mean divides the sum by the input count."""
    e = Emitter(graph, node)
    op = {"Sum": "ADD", "Mean": "ADD", "Max": "MAXIMUM", "Min": "MINIMUM"}[node.op_type]
    inputs = [n for n in node.inputs if n]
    dtype = e.dtype(node.outputs[0])
    if len(inputs) == 1 and node.op_type != "Mean":
        e.emit("IDENTITY", inputs, node.outputs)
        return e.nodes
    act, _ = activation_of(node)
    acc = inputs[0]
    for index, name in enumerate(inputs[1:], start=2):
        last = index == len(inputs) and node.op_type != "Mean"
        if last:
            e.emit(op, [acc, name], node.outputs, activation=act if last else NO_ACTIVATION)
        else:
            acc = e.op(op, [acc, name], dtype, None, activation=NO_ACTIVATION)
    if node.op_type == "Mean":
        count = e.const("count", np.array(len(inputs), dtype=dtype))
        e.emit("DIV", [acc, count], node.outputs, activation=act)
    return e.nodes


@lowers(*UNARY)
def lower_unary(graph: Graph, node: Node) -> list[Node]:
    e = Emitter(graph, node)
    e.emit(UNARY[node.op_type], node.inputs[:1], node.outputs[:1])
    return e.nodes


def _check_dropout(graph: Graph, node: Node) -> list[str]:
    training = node.inputs[2] if len(node.inputs) > 2 else ""
    value = graph.constant(training) if training else np.array(False)
    if value is None or bool(np.asarray(value).reshape(-1)[0]):
        return ["Dropout in training mode (training_mode not a constant false) is not supported"]
    return []


@lowers("Dropout", check=_check_dropout)
def lower_dropout(graph: Graph, node: Node) -> list[Node]:
    """Inference Dropout is the identity (optimize removes it; this covers graphs not optimized)."""
    e = Emitter(graph, node)
    e.emit("IDENTITY", node.inputs[:1], node.outputs[:1])
    if len(node.outputs) > 1 and node.outputs[1]:
        shape = e.op("SHAPE", node.inputs[:1], np.int64, None, start=0, end=2147483647)
        e.emit("CONSTANT_OF_SHAPE", [shape], [node.outputs[1]], value=np.array([True]))
    return e.nodes


@lowers("IsInf")
def lower_is_inf(graph: Graph, node: Node) -> list[Node]:
    e = Emitter(graph, node)
    e.emit("IS_INF", node.inputs[:1], node.outputs, alpha=float(node.attrs.get("detect_negative", 1)),
           beta=float(node.attrs.get("detect_positive", 1)))
    return e.nodes


@lowers("HardSigmoid", "LeakyRelu", "Elu", "Celu", "ThresholdedRelu", "Selu", "Shrink")
def lower_parametric_unary(graph: Graph, node: Node) -> list[Node]:
    """Unary ops whose ONNX attributes map onto UnaryOptions (alpha, beta, gamma)."""
    e = Emitter(graph, node)
    a = node.attrs
    op, attrs = {
        "HardSigmoid": ("HARD_SIGMOID", {"alpha": a.get("alpha", 0.2), "beta": a.get("beta", 0.5)}),
        "LeakyRelu": ("LEAKY_RELU", {"alpha": a.get("alpha", 0.01)}),
        "Elu": ("ELU", {"alpha": a.get("alpha", 1.0)}),
        "Celu": ("CELU", {"alpha": a.get("alpha", 1.0)}),
        "ThresholdedRelu": ("THRESHOLDED_RELU", {"alpha": a.get("alpha", 1.0)}),
        "Selu": ("SELU", {"alpha": a.get("alpha", SELU_ALPHA), "gamma": a.get("gamma", SELU_GAMMA)}),
        "Shrink": ("SHRINK", {"alpha": a.get("lambd", 0.5), "beta": a.get("bias", 0.0)}),
    }[node.op_type]
    e.emit(op, node.inputs[:1], node.outputs, **{k: float(v) for k, v in attrs.items()})
    return e.nodes


def _check_gelu(graph: Graph, node: Node) -> list[str]:
    approx = node.attrs.get("approximate", "none")
    return [] if approx in ("none", "tanh") else [f"approximate='{approx}' is not supported"]


@lowers("Gelu", check=_check_gelu)
def lower_gelu(graph: Graph, node: Node) -> list[Node]:
    e = Emitter(graph, node)
    e.emit("GELU", node.inputs[:1], node.outputs, approximate_tanh=node.attrs.get("approximate") == "tanh")
    return e.nodes


@lowers("Swish")
def lower_swish(graph: Graph, node: Node) -> list[Node]:
    """x * sigmoid(alpha * x): SILU when alpha is 1."""
    e = Emitter(graph, node)
    alpha = float(node.attrs.get("alpha", 1.0))
    x = node.inputs[0]
    if alpha == 1.0:
        e.emit("SILU", [x], node.outputs)
        return e.nodes
    dtype = e.dtype(x)
    scaled = e.op("MUL", [x, e.const("alpha", np.array(alpha, dtype=dtype))], dtype, e.shape(x),
                  activation=dict(NO_ACTIVATION, kind="SIGMOID"))
    e.emit("MUL", [x, scaled], node.outputs, activation=NO_ACTIVATION)
    return e.nodes


@lowers("Clip")
def lower_clip(graph: Graph, node: Node) -> list[Node]:
    """CLIP(alpha=min, beta=max) for float constants; MAXIMUM/MINIMUM otherwise (tensor bounds, ints)."""
    e = Emitter(graph, node)
    x = node.inputs[0]
    dtype = e.dtype(x)
    if graph.opset < 11:
        bounds = [node.attrs.get("min"), node.attrs.get("max")]
        names = [e.const(k, np.array(v, dtype=dtype)) if v is not None else ""
                 for k, v in zip(("min", "max"), bounds, strict=True)]
    else:
        names = [e.input(1), e.input(2)]
    values = [graph.constant(n) if n else None for n in names]
    constant_bounds = all(not n or v is not None and v.size == 1 for n, v in zip(names, values, strict=True))
    if dtype.kind == "f" and constant_bounds:
        lo = float(values[0].reshape(-1)[0]) if names[0] else -FLOAT_MAX
        hi = float(values[1].reshape(-1)[0]) if names[1] else FLOAT_MAX
        e.emit("CLIP", [x], node.outputs, alpha=lo, beta=hi)
        return e.nodes
    if not any(names):
        e.emit("IDENTITY", [x], node.outputs)
        return e.nodes
    if names[0] and names[1]:
        low = e.op("MAXIMUM", [x, names[0]], dtype, e.shape(node.outputs[0]), activation=NO_ACTIVATION)
        e.emit("MINIMUM", [low, names[1]], node.outputs, activation=NO_ACTIVATION)
    elif names[0]:
        e.emit("MAXIMUM", [x, names[0]], node.outputs, activation=NO_ACTIVATION)
    else:
        e.emit("MINIMUM", [x, names[1]], node.outputs, activation=NO_ACTIVATION)
    return e.nodes


@lowers("Where")
def lower_where(graph: Graph, node: Node) -> list[Node]:
    e = Emitter(graph, node)
    e.emit("WHERE", node.inputs, node.outputs)
    return e.nodes


def _check_cast(graph: Graph, node: Node) -> list[str]:
    if node.op_type == "Cast":
        target = elem_type_to_numpy(int(node.attrs.get("to", 0)))
    else:
        target = graph.tensors[node.inputs[1]].dtype if node.inputs[1] in graph.tensors else None
    try:
        dtype_name(target)  # type: ignore[arg-type]
    except (ConversionError, TypeError):
        return [f"cast to {target} is not supported (.lite has no such dtype)"]
    return []


@lowers("Cast", "CastLike", check=_check_cast)
def lower_cast(graph: Graph, node: Node) -> list[Node]:
    e = Emitter(graph, node)
    if node.op_type == "Cast":
        target = elem_type_to_numpy(int(node.attrs["to"]))
    else:
        target = e.dtype(node.inputs[1])
    attrs = {"to": dtype_name(target)}
    if "saturate" in node.attrs:
        attrs["saturate"] = bool(node.attrs["saturate"])
    e.emit("CAST", node.inputs[:1], node.outputs, **attrs)
    return e.nodes
