"""Elementwise ops: arithmetic with numpy broadcasting, activations, comparisons, Cast, Clip, Where.

Activations fused by the converter's own passes (the ``fused_activation`` attribute) are applied
by :func:`apply_fused_activation`, so a graph taken after ``optimize`` runs too.
"""

from __future__ import annotations

from typing import Any

import torch
import torch.nn.functional as F

from lite_converter.frontends import fused_activation
from lite_converter.ir import Node
from slim.torch_ir.registry import Value, optional, register

_BINARY = {
    "Add": torch.add, "Sub": torch.sub, "Mul": torch.mul, "Pow": torch.pow,
    "Equal": torch.eq, "Less": torch.lt, "LessOrEqual": torch.le, "Greater": torch.gt,
    "GreaterOrEqual": torch.ge, "And": torch.logical_and, "Or": torch.logical_or, "Xor": torch.logical_xor,
}
_UNARY = {
    "Relu": torch.relu, "Sigmoid": torch.sigmoid, "Tanh": torch.tanh, "Exp": torch.exp, "Log": torch.log,
    "Sqrt": torch.sqrt, "Abs": torch.abs, "Neg": torch.neg, "Reciprocal": torch.reciprocal,
    "Floor": torch.floor, "Ceil": torch.ceil, "Round": torch.round, "Sign": torch.sign, "Erf": torch.erf,
    "Sin": torch.sin, "Cos": torch.cos, "Not": torch.logical_not, "Softplus": F.softplus,
    "Softsign": F.softsign, "HardSwish": F.hardswish, "Mish": F.mish,
}


@register(*_BINARY)
def binary(node: Node, inputs: list[Value], _module: object) -> torch.Tensor:
    a, b = inputs[0], inputs[1]
    if node.op_type == "Pow" and b.dtype != a.dtype:
        b = b.to(a.dtype)
    return _BINARY[node.op_type](a, b)


@register("Div")
def div(_node: Node, inputs: list[Value], _module: object) -> torch.Tensor:
    a, b = inputs[0], inputs[1]
    if a.is_floating_point():
        return a / b
    return torch.div(a, b, rounding_mode="trunc")


@register("Max", "Min", "Sum", "Mean")
def variadic(node: Node, inputs: list[Value], _module: object) -> torch.Tensor:
    values = [v for v in inputs if v is not None]
    result = values[0]
    for value in values[1:]:
        if node.op_type == "Max":
            result = torch.maximum(result, value)
        elif node.op_type == "Min":
            result = torch.minimum(result, value)
        else:
            result = result + value
    return result / len(values) if node.op_type == "Mean" else result


@register(*_UNARY)
def unary(node: Node, inputs: list[Value], _module: object) -> torch.Tensor:
    return _UNARY[node.op_type](inputs[0])


@register("LeakyRelu")
def leaky_relu(node: Node, inputs: list[Value], _module: object) -> torch.Tensor:
    return F.leaky_relu(inputs[0], float(node.attrs.get("alpha", 0.01)))


@register("Elu")
def elu(node: Node, inputs: list[Value], _module: object) -> torch.Tensor:
    return F.elu(inputs[0], float(node.attrs.get("alpha", 1.0)))


@register("HardSigmoid")
def hard_sigmoid(node: Node, inputs: list[Value], _module: object) -> torch.Tensor:
    alpha, beta = float(node.attrs.get("alpha", 0.2)), float(node.attrs.get("beta", 0.5))
    return torch.clamp(inputs[0] * alpha + beta, 0.0, 1.0)


@register("PRelu")
def prelu(_node: Node, inputs: list[Value], _module: object) -> torch.Tensor:
    x, slope = inputs[0], inputs[1]
    return torch.where(x >= 0, x, x * slope)


@register("Gelu")
def gelu(node: Node, inputs: list[Value], _module: object) -> torch.Tensor:
    return F.gelu(inputs[0], approximate=node.attrs.get("approximate", "none"))


@register("Clip")
def clip(node: Node, inputs: list[Value], _module: object) -> torch.Tensor:
    x = inputs[0]
    low, high = optional(inputs, 1), optional(inputs, 2)
    if low is None and "min" in node.attrs:
        low = torch.tensor(float(node.attrs["min"]), dtype=x.dtype)
    if high is None and "max" in node.attrs:
        high = torch.tensor(float(node.attrs["max"]), dtype=x.dtype)
    if low is not None:
        x = torch.maximum(x, low.to(x.dtype))
    if high is not None:
        x = torch.minimum(x, high.to(x.dtype))
    return x


@register("Where")
def where(_node: Node, inputs: list[Value], _module: object) -> torch.Tensor:
    return torch.where(inputs[0].bool(), inputs[1], inputs[2])


# ONNX TensorProto element types -> torch dtypes (FLOAT follows the module's compute dtype).
_ONNX_DTYPES = {
    1: None, 2: torch.uint8, 3: torch.int8, 5: torch.int16, 6: torch.int32, 7: torch.int64, 9: torch.bool,
    10: torch.float16, 11: torch.float64,
}


@register("Cast")
def cast(node: Node, inputs: list[Value], module: Any) -> torch.Tensor:  # noqa: ANN401
    dtype = _ONNX_DTYPES[int(node.attrs["to"])]
    if dtype is None or dtype.is_floating_point:  # floats compute in the module's dtype (gradcheck: float64)
        dtype = module.float_dtype
    return inputs[0].to(dtype)


@register("Identity")
def identity(_node: Node, inputs: list[Value], _module: object) -> torch.Tensor:
    return inputs[0]


def apply_fused_activation(node: Node, y: torch.Tensor, slope: Value) -> torch.Tensor:
    """``y`` through the node's ``fused_activation`` (set by the converter's fusion pass), if any."""
    act = node.attrs.get(fused_activation.ATTR)
    if act is None:
        return y
    kind, alpha, beta = act["kind"], float(act["alpha"]), float(act["beta"])
    if kind == "RELU":
        return torch.relu(y)
    if kind == "CLIP":
        return torch.clamp(y, alpha, beta)
    if kind == "SIGMOID":
        return torch.sigmoid(y)
    if kind == "TANH":
        return torch.tanh(y)
    if kind == "HARD_SIGMOID":
        return torch.clamp(y * alpha + beta, 0.0, 1.0)
    if kind == "HARD_SWISH":
        return F.hardswish(y)
    if kind == "LEAKY_RELU":
        return F.leaky_relu(y, alpha)
    if kind == "SILU":
        return y * torch.sigmoid(y)
    if kind == "PRELU":
        return torch.where(y >= 0, y, y * slope)
    raise ValueError(f"node '{node.name}': unknown fused activation {kind}")
