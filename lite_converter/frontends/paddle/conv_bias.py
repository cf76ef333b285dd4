"""Paddle's convolution bias as the convolution's own input.

Paddle layers add the bias with a separate op (``elementwise_add`` of a [C] or reshaped [1, C, 1, 1]
parameter) where ONNX puts it in Conv's third input. Moving it there keeps the weight untouched:
the generic affine folding would rescale (copy) the weight and drop the int8 tag that a quantized
model's dequantize op put on it.
"""

from __future__ import annotations

import numpy as np

from lite_converter.ir import Graph

_CONVS = ("Conv", "ConvTranspose")


def _constant_value(graph: Graph, name: str, producers: dict) -> np.ndarray | None:
    """A constant, or a Reshape of a constant to a constant shape (Paddle reshapes the bias first)."""
    value = graph.constant(name)
    node = producers.get(name)
    if value is None and node is not None and node.op_type == "Reshape":
        data, shape = graph.constant(node.inputs[0]), graph.constant(node.inputs[1])
        if (
            data is not None
            and shape is not None
            and shape.ndim == 1
            and (shape != 0).all()
            and (shape >= -1).all()
            and (shape == -1).sum() <= 1
        ):
            try:
                value = data.reshape([int(d) for d in shape])
            except ValueError:
                value = None
    return value


def fold_conv_bias(graph: Graph) -> None:
    """Runs after type inference (the weight's shape is known also when a dequantize op makes it)."""
    consumers = graph.consumers()
    producers = graph.producers()
    removed: set[int] = set()
    for node in graph.nodes:
        if node.op_type not in _CONVS or len(node.inputs) != 2 or node.outputs[0] in graph.outputs:
            continue
        readers = consumers.get(node.outputs[0], [])
        weight = graph.tensors[node.inputs[1]].shape  # a constant, or a dequantized one
        if (
            len(readers) != 1
            or readers[0].op_type != "Add"
            or weight is None
            or len(weight) < 2
            or not all(isinstance(d, int) for d in weight[:2])
        ):
            continue
        add = readers[0]
        other = [name for name in add.inputs if name != node.outputs[0]]
        bias = _constant_value(graph, other[0], producers) if len(other) == 1 else None
        channels = (
            weight[1] * int(node.attrs.get("group", 1)) if node.op_type == "ConvTranspose" else weight[0]
        )
        if bias is None or bias.dtype != np.float32 or bias.size != channels:
            continue
        if bias.ndim not in (1, 3, 4) or (
            bias.ndim > 1 and bias.shape[-bias.ndim] != channels and bias.shape[-3] != channels
        ):
            continue
        node.inputs.append(graph.add_constant(f"{other[0]}_vector", bias.reshape(-1)))
        node.outputs = list(add.outputs)
        removed.add(id(add))
    graph.nodes = [n for n in graph.nodes if id(n) not in removed]
