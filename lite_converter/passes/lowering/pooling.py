"""MaxPool/AveragePool -> MAX_POOL_2D/AVERAGE_POOL_2D, GlobalAverage/MaxPool -> GLOBAL_*.

1-D pools run as 2-D ones over a unit H axis; global pools over other ranks than 4 become
REDUCE_MEAN/REDUCE_MAX over the spatial axes (same result, no layout constraint).
"""

from __future__ import annotations

from lite_converter.ir import Graph, Node
from lite_converter.passes.lowering.emitter import NO_ACTIVATION, Emitter
from lite_converter.passes.lowering.registry import lowers
from lite_converter.passes.lowering.spatial import (
    as_2d_input,
    check_2d,
    from_2d_output,
    require_spatial_rank,
    window_attrs,
)


def _check_pool(graph: Graph, node: Node) -> list[str]:
    problems = check_2d(graph, node)
    if len([o for o in node.outputs if o]) > 1:
        problems.append("the Indices output of MaxPool is not supported")
    return problems


@lowers("MaxPool", "AveragePool", check=_check_pool)
def lower_pool(graph: Graph, node: Node) -> list[Node]:
    e = Emitter(graph, node)
    rank = require_spatial_rank(graph, node)
    kernel = [int(v) for v in node.attrs["kernel_shape"]]
    if rank == 1:
        kernel = [1, *kernel]
    attrs = window_attrs(node, rank)
    attrs.update(kernel_h=kernel[0], kernel_w=kernel[1], ceil_mode=bool(node.attrs.get("ceil_mode", 0)),
                 count_include_pad=bool(node.attrs.get("count_include_pad", 0)),
                 activation=dict(NO_ACTIVATION), layout="NCHW")
    op = "MAX_POOL_2D" if node.op_type == "MaxPool" else "AVERAGE_POOL_2D"
    x, out = node.inputs[0], node.outputs[0]
    if rank == 1:
        x, out = as_2d_input(e, x), from_2d_output(e, out)
    e.emit(op, [x], [out], **attrs)
    if rank == 1:
        e.emit("SQUEEZE", [out], node.outputs[:1], axes=[2])
    return e.nodes


def _check_global(graph: Graph, node: Node) -> list[str]:
    x = graph.tensors.get(node.inputs[0])
    if x is None or x.shape is None:
        return []  # known after constant folding, or lowering says so
    return [] if len(x.shape) >= 3 else ["global pooling needs a rank >= 3 input"]


@lowers("GlobalAveragePool", "GlobalMaxPool", check=_check_global)
def lower_global_pool(graph: Graph, node: Node) -> list[Node]:
    e = Emitter(graph, node)
    rank = e.require_rank(node.inputs[0])
    average = node.op_type == "GlobalAveragePool"
    if rank == 4:
        op = "GLOBAL_AVERAGE_POOL" if average else "GLOBAL_MAX_POOL"
        e.emit(op, node.inputs, node.outputs, layout="NCHW")
    else:
        e.emit("REDUCE_MEAN" if average else "REDUCE_MAX", node.inputs, node.outputs,
               axes=list(range(2, rank)), keepdims=True, noop_with_empty_axes=False)
    return e.nodes
