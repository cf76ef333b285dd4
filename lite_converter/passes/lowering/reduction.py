"""Reduce* -> REDUCE_*, ArgMax/ArgMin -> ARG_MAX/ARG_MIN.

Axes were an attribute until opset 13 (ReduceSum) / 18 (the others) and an input after; either way
they become the ``axes`` option, so an axes input must be known at conversion time.
"""

from __future__ import annotations

import numpy as np

from lite_converter.ir import Graph, Node
from lite_converter.passes.lowering.conversion_time import input_known_at_prepare
from lite_converter.passes.lowering.emitter import NO_ACTIVATION, Emitter, normalize_axis
from lite_converter.passes.lowering.registry import lowers

REDUCE = {"ReduceSum": "REDUCE_SUM", "ReduceMean": "REDUCE_MEAN", "ReduceMax": "REDUCE_MAX",
          "ReduceMin": "REDUCE_MIN", "ReduceProd": "REDUCE_PROD", "ReduceL1": "REDUCE_L1",
          "ReduceL2": "REDUCE_L2", "ReduceSumSquare": "REDUCE_SUM_SQUARE", "ReduceLogSum": "REDUCE_LOG_SUM",
          "ReduceLogSumExp": "REDUCE_LOG_SUM_EXP"}

# Spatial mean/max of an NCHW tensor with kept dims is exactly a global pool (torch's dynamo
# exporter writes adaptive_avg_pool2d(1) as ReduceMean over [2, 3]).
_GLOBAL_POOLS = {"REDUCE_MEAN": "GLOBAL_AVERAGE_POOL", "REDUCE_MAX": "GLOBAL_MAX_POOL"}


def _check_reduce(graph: Graph, node: Node) -> list[str]:
    if "axes" in node.attrs or input_known_at_prepare(graph, node.inputs, 1):
        return []
    return [f"axes ('{node.inputs[1]}') come from graph input data; they must be known at conversion time"]


@lowers(*REDUCE, check=_check_reduce)
def lower_reduce(graph: Graph, node: Node) -> list[Node]:
    e = Emitter(graph, node)
    x = node.inputs[0]
    if "axes" in node.attrs:
        axes = [int(a) for a in node.attrs["axes"]]
    elif len(node.inputs) > 1 and node.inputs[1]:
        axes = [int(a) for a in e.require_constant(1, "axes").reshape(-1)]
    else:
        axes = []
    rank = e.rank(x)
    axes = sorted({normalize_axis(a, rank, node) for a in axes}) if rank is not None else axes
    attrs = {"axes": axes, "keepdims": bool(node.attrs.get("keepdims", 1)),
             "noop_with_empty_axes": bool(node.attrs.get("noop_with_empty_axes", 0))}
    op = REDUCE[node.op_type]
    if e.dtype(x) == np.bool_:  # ReduceMax/Min-20 on bool: any/all, computed on 0/1 integers
        as_int = e.op("CAST", [x], np.int32, e.shape(x), to="INT32")
        reduced = e.op(op, [as_int], np.int32, e.shape(node.outputs[0]), **attrs)
        # "> 0" rather than a cast: the empty-set identities (INT32_MIN / INT32_MAX) map to
        # False / True, the identities of any / all.
        zero = e.const("zero", np.array(0, dtype=np.int32))
        e.emit("GREATER", [reduced, zero], node.outputs, activation=dict(NO_ACTIVATION))
        return e.nodes
    if rank == 4 and axes == [2, 3] and attrs["keepdims"] and op in _GLOBAL_POOLS:
        e.emit(_GLOBAL_POOLS[op], [x], node.outputs, layout="NCHW")  # the channels-last kernel
        return e.nodes
    e.emit(op, [x], node.outputs, **attrs)
    return e.nodes


@lowers("ArgMax", "ArgMin")
def lower_arg(graph: Graph, node: Node) -> list[Node]:
    e = Emitter(graph, node)
    x = node.inputs[0]
    e.emit("ARG_MAX" if node.op_type == "ArgMax" else "ARG_MIN", [x], node.outputs,
           axis=normalize_axis(int(node.attrs.get("axis", 0)), e.rank(x), node),
           keepdims=bool(node.attrs.get("keepdims", 1)),
           select_last_index=bool(node.attrs.get("select_last_index", 0)))
    return e.nodes
