"""FULLY_CONNECTED followed by ADD of a constant [N] vector: the vector becomes the FC bias.

MatMul+Add is how most exporters write a linear layer with bias (torch's dynamo exporter, Paddle);
ONNX has no place for the bias in MatMul, the .lite FC has. Runs on lowered nodes, after
activation fusion, so an activation fused into the ADD moves onto the FC.
"""

from __future__ import annotations

import numpy as np

from lite_converter.ir import Graph, Node


def _bias_of(graph: Graph, fc: Node, add: Node) -> np.ndarray | None:
    out = fc.outputs[0]
    others = [n for n in add.inputs if n != out]
    if len(others) != 1 or len(add.inputs) != 2:
        return None
    value = graph.constant(others[0])
    weight = graph.constant(fc.inputs[1])
    if value is None or weight is None or value.dtype != weight.dtype:
        return None
    n = weight.shape[0]
    out_shape = graph.tensors[out].shape
    if value.ndim == 0 or value.shape[-1] not in (1, n) or any(d != 1 for d in value.shape[:-1]):
        return None
    if out_shape is None or value.ndim > len(out_shape):
        return None  # the ADD would also broadcast the output to a higher rank
    return np.broadcast_to(value.reshape(-1), (n,)).astype(value.dtype)


def fuse_fc_bias(graph: Graph) -> None:
    """Moves constant per-output ADDs into the FULLY_CONNECTED before them."""
    consumers = graph.consumers()
    dead: set[int] = set()
    for fc in graph.nodes:
        if fc.op_type != "FULLY_CONNECTED" or len(fc.inputs) > 2 or fc.attrs["activation"]["kind"] != "NONE":
            continue
        out = fc.outputs[0]
        readers = consumers.get(out, [])
        if len(readers) != 1 or out in graph.outputs or readers[0].op_type != "ADD":
            continue
        add = readers[0]
        bias = _bias_of(graph, fc, add)
        if bias is None:
            continue
        fc.inputs = [*fc.inputs, graph.add_constant(f"{fc.name}/bias", bias)]
        fc.attrs["activation"] = add.attrs["activation"]
        fc.outputs = [add.outputs[0]]
        dead.add(id(add))
    graph.nodes = [n for n in graph.nodes if id(n) not in dead]
