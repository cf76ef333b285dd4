"""Inference BatchNormalization disappears: folded into the Conv/ConvTranspose before it, or,
standing alone, rewritten as ``x * s + t`` with s = scale / sqrt(var + eps), t = bias - mean * s.

Folding needs all BN parameters and the conv weights constant and the conv output read by the BN
only. BN in training mode (``training_mode=1``) is refused earlier by check_supported.
"""

from __future__ import annotations

import numpy as np

from lite_converter.ir import Graph, Node
from lite_converter.passes.graph_queries import only_consumer, rank_of, remove_nodes


def bn_scale_shift(graph: Graph, bn: Node) -> tuple[np.ndarray, np.ndarray] | None:
    """Per-channel (s, t) of an inference BatchNormalization with constant parameters, else None."""
    params = [graph.constant(n) for n in bn.inputs[1:5]]
    if len(params) != 4 or any(p is None for p in params):
        return None
    scale, bias, mean, var = (np.asarray(p, dtype=np.float64) for p in params)
    s = scale / np.sqrt(var + float(bn.attrs.get("epsilon", 1e-5)))
    return s, bias - mean * s


def fold_into_conv(graph: Graph, conv: Node, s: np.ndarray, t: np.ndarray) -> bool:
    """Scales the conv's output channels by s and shifts them by t; False if weights are not constant."""
    weight = graph.constant(conv.inputs[1])
    if weight is None or weight.dtype.kind != "f":
        return False
    bias_name = conv.inputs[2] if len(conv.inputs) > 2 else ""
    bias = graph.constant(bias_name) if bias_name else None
    if bias_name and bias is None:
        return False
    w = weight.astype(np.float64)
    if conv.op_type == "Conv":
        out_channels = w.shape[0]
        if s.size != out_channels:
            return False
        w = w * s.reshape((-1,) + (1,) * (w.ndim - 1))
    else:  # ConvTranspose: weights [Cin, Cout/group, k...]
        group = int(conv.attrs.get("group", 1))
        per_group = w.shape[1]
        if s.size != per_group * group:
            return False
        grouped = w.reshape((group, w.shape[0] // group, per_group) + w.shape[2:])
        grouped = grouped * s.reshape((group, 1, per_group) + (1,) * (w.ndim - 2))
        w = grouped.reshape(w.shape)
    b = np.zeros(s.size) if bias is None else bias.astype(np.float64)
    new_bias = b * s + t
    conv.inputs[1] = graph.add_constant(f"{conv.inputs[1]}_bnfold", w.astype(weight.dtype))
    bias_const = graph.add_constant(f"{conv.name}_bias_bnfold", new_bias.astype(weight.dtype))
    conv.inputs = conv.inputs[:2] + [bias_const]
    return True


def decompose(graph: Graph, bn: Node, s: np.ndarray, t: np.ndarray) -> list[Node] | None:
    """``x * s + t`` nodes replacing a standalone BN (None when the input rank is unknown)."""
    x = bn.inputs[0]
    rank = rank_of(graph, x)
    if rank is None or rank < 2:
        return None
    dtype = graph.tensors[x].dtype or np.dtype(np.float32)
    shape = (-1,) + (1,) * (rank - 2)
    scale = graph.add_constant(f"{bn.name}_scale", s.reshape(shape).astype(dtype))
    shift = graph.add_constant(f"{bn.name}_shift", t.reshape(shape).astype(dtype))
    scaled = graph.add_tensor(f"{bn.outputs[0]}_scaled", dtype, graph.tensors[bn.outputs[0]].shape)
    return [Node("Mul", f"{bn.name}_mul", [x, scale], [scaled]),
            Node("Add", bn.name, [scaled, shift], [bn.outputs[0]])]


def fold_batch_norm(graph: Graph) -> bool:
    """Removes every inference BN it can; True when anything changed."""
    producers = graph.producers()
    consumers = graph.consumers()
    removed: list[Node] = []
    changed = False
    new_nodes: list[Node] = []
    for node in graph.nodes:
        if node.op_type != "BatchNormalization" or node.attrs.get("training_mode", 0) or \
                node.attrs.get("spatial", 1) == 0 or len([o for o in node.outputs if o]) != 1:
            new_nodes.append(node)
            continue
        params = bn_scale_shift(graph, node)
        if params is None:
            new_nodes.append(node)
            continue
        s, t = params
        producer = producers.get(node.inputs[0])
        if producer is not None and producer.op_type in ("Conv", "ConvTranspose") \
                and only_consumer(graph, node.inputs[0], consumers) is node \
                and "fused_activation" not in producer.attrs and fold_into_conv(graph, producer, s, t):
            producer.outputs[0] = node.outputs[0]
            removed.append(node)
            changed = True
            continue
        replacement = decompose(graph, node, s, t)
        if replacement is None:
            new_nodes.append(node)
            continue
        new_nodes.extend(replacement)
        changed = True
    graph.nodes = new_nodes
    remove_nodes(graph, removed)
    return changed
