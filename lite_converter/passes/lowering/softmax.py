"""Softmax, LogSoftmax, Hardmax -> SOFTMAX, LOG_SOFTMAX, HARDMAX over one axis.

Before opset 13 these ops coerced the input to 2-D ([prod(dims < axis), prod(dims >= axis)]) and
normalized over the whole second part; when the axis is not the last one that is rewritten as
FLATTEN -> op(axis=1) -> RESHAPE back to the input's shape.
"""

from __future__ import annotations

import numpy as np

from lite_converter.ir import Graph, Node
from lite_converter.passes.lowering.emitter import Emitter, normalize_axis
from lite_converter.passes.lowering.registry import lowers

OPS = {"Softmax": "SOFTMAX", "LogSoftmax": "LOG_SOFTMAX", "Hardmax": "HARDMAX"}


@lowers(*OPS)
def lower_softmax(graph: Graph, node: Node) -> list[Node]:
    e = Emitter(graph, node)
    op = OPS[node.op_type]
    x = node.inputs[0]
    rank = e.rank(x)
    if graph.opset >= 13:
        e.emit(op, [x], node.outputs, axis=normalize_axis(int(node.attrs.get("axis", -1)), rank, node))
        return e.nodes
    rank = e.require_rank(x)
    axis = normalize_axis(int(node.attrs.get("axis", 1)), rank, node)
    if axis == rank - 1:
        e.emit(op, [x], node.outputs, axis=axis)
        return e.nodes
    dtype = e.dtype(x)
    flat = e.op("FLATTEN", [x], dtype, None, axis=axis)
    normalized = e.op(op, [flat], dtype, None, axis=1)
    shape = e.shape(x)
    if shape is not None and all(isinstance(d, int) for d in shape):
        target = e.const("shape", np.array(shape, dtype=np.int64))
    else:
        target = e.op("SHAPE", [x], np.int64, [rank], start=0, end=rank)
    e.emit("RESHAPE", [normalized, target], node.outputs, allowzero=False)
    return e.nodes
