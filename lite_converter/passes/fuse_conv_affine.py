"""Folds per-channel constant Mul/Div/Add/Sub after a Conv/ConvTranspose into its weights and bias.

Paddle-exported models (PP-OCRv4's MobileOne blocks: ``conv * w0 + w1``) and models whose BN was
decomposed to ``Mul+Add`` carry these; after folding the conv writes the final value directly.
The bias fusion the brief asks for is the Add case (a conv without bias gets one).
"""

from __future__ import annotations

import numpy as np

from lite_converter.ir import Graph, Node
from lite_converter.passes.fold_batch_norm import fold_into_conv
from lite_converter.passes.graph_queries import only_consumer, per_channel_vector, rank_of

_AFFINE_OPS = {"Mul", "Div", "Add", "Sub"}


def _out_channels(graph: Graph, conv: Node) -> int | None:
    weight = graph.constant(conv.inputs[1])
    if weight is None:
        return None
    if conv.op_type == "Conv":
        return int(weight.shape[0])
    return int(weight.shape[1]) * int(conv.attrs.get("group", 1))


def _affine_of(graph: Graph, conv: Node, op: Node) -> tuple[np.ndarray, np.ndarray] | None:
    """(s, t) such that op(conv_out) == conv_out * s + t per channel, else None."""
    out = conv.outputs[0]
    other_index = 1 if op.inputs[0] == out else 0
    if op.inputs[1 - other_index] != out or op.inputs[0] == op.inputs[1]:
        return None
    if op.op_type in ("Div", "Sub") and other_index == 0:
        return None  # c / x and c - x are not affine in x per channel (Sub is, but negated: skip)
    value = graph.constant(op.inputs[other_index])
    channels = _out_channels(graph, conv)
    rank = rank_of(graph, out)
    if value is None or channels is None or rank is None or value.dtype.kind != "f":
        return None
    vec = per_channel_vector(np.asarray(value, dtype=np.float64), channels, rank)
    if vec is None:
        return None
    ones, zeros = np.ones(channels), np.zeros(channels)
    if op.op_type == "Mul":
        return vec, zeros
    if op.op_type == "Div":
        return (None if np.any(vec == 0) else 1.0 / vec), zeros  # type: ignore[return-value]
    if op.op_type == "Add":
        return ones, vec
    return ones, -vec


def fuse_conv_affine(graph: Graph) -> bool:
    """Folds chains of affine consumers into convs; True when anything changed."""
    consumers = graph.consumers()
    dead: set[int] = set()
    for conv in graph.nodes:
        if conv.op_type not in ("Conv", "ConvTranspose") or "fused_activation" in conv.attrs:
            continue
        while True:
            op = only_consumer(graph, conv.outputs[0], consumers)
            if op is None or op.op_type not in _AFFINE_OPS or "fused_activation" in op.attrs:
                break
            affine = _affine_of(graph, conv, op)
            if affine is None or affine[0] is None or not fold_into_conv(graph, conv, *affine):
                break
            if graph.tensors[op.outputs[0]].dtype is None:
                graph.tensors[op.outputs[0]].dtype = graph.tensors[conv.outputs[0]].dtype
            conv.outputs[0] = op.outputs[0]
            dead.add(id(op))
    graph.nodes = [n for n in graph.nodes if id(n) not in dead]
    return bool(dead)
