"""Gather family, Scatter family, TopK, OneHot, Trilu, CumSum, ReverseSequence."""

from __future__ import annotations

import numpy as np

from lite_converter.ir import Graph, Node
from lite_converter.passes.lowering.emitter import Emitter, normalize_axis
from lite_converter.passes.lowering.registry import lowers

_REDUCTIONS = {"none": "NONE", "add": "ADD", "mul": "MUL", "max": "MAX", "min": "MIN"}


@lowers("Gather", "GatherElements")
def lower_gather(graph: Graph, node: Node) -> list[Node]:
    e = Emitter(graph, node)
    op = "GATHER" if node.op_type == "Gather" else "GATHER_ELEMENTS"
    axis = normalize_axis(int(node.attrs.get("axis", 0)), e.rank(node.inputs[0]), node)
    e.emit(op, node.inputs, node.outputs, axis=axis)
    return e.nodes


@lowers("GatherND")
def lower_gather_nd(graph: Graph, node: Node) -> list[Node]:
    e = Emitter(graph, node)
    e.emit("GATHER_ND", node.inputs, node.outputs, batch_dims=int(node.attrs.get("batch_dims", 0)))
    return e.nodes


def _check_reduction(graph: Graph, node: Node) -> list[str]:
    reduction = str(node.attrs.get("reduction", "none"))
    return [] if reduction in _REDUCTIONS else [f"reduction='{reduction}' is not supported"]


@lowers("ScatterElements", "Scatter", "ScatterND", check=_check_reduction)
def lower_scatter(graph: Graph, node: Node) -> list[Node]:
    e = Emitter(graph, node)
    reduction = _REDUCTIONS[str(node.attrs.get("reduction", "none"))]
    if node.op_type == "ScatterND":
        e.emit("SCATTER_ND", node.inputs, node.outputs, reduction=reduction)
    else:
        axis = normalize_axis(int(node.attrs.get("axis", 0)), e.rank(node.inputs[0]), node)
        e.emit("SCATTER_ELEMENTS", node.inputs, node.outputs, axis=axis, reduction=reduction)
    return e.nodes


_TOP_K_DTYPES = {np.dtype(np.float32), np.dtype(np.int32), np.dtype(np.int64)}


def check_top_k(graph: Graph, node: Node) -> list[str]:
    """The TOP_K kernel sorts float32, int32 and int64 values (float16/64 are promoted to float32)."""
    dtype = graph.tensor(node.inputs[0]).dtype
    if dtype is None or dtype in _TOP_K_DTYPES or dtype in (np.float16, np.float64):
        return []
    return [f"TopK on {dtype} is not supported (float32, int32, int64 only)"]


@lowers("TopK", check=check_top_k, shape_inputs=(1,))
def lower_top_k(graph: Graph, node: Node) -> list[Node]:
    e = Emitter(graph, node)
    x = node.inputs[0]
    if "k" in node.attrs:  # TopK-1
        k = e.const("k", np.array([node.attrs["k"]], dtype=np.int64))
    else:
        k = e.as_int64(node.inputs[1])
    axis = normalize_axis(int(node.attrs.get("axis", -1)), e.rank(x), node)
    e.emit("TOP_K", [x, k], node.outputs, axis=axis, largest=bool(node.attrs.get("largest", 1)),
           sorted=bool(node.attrs.get("sorted", 1)))
    return e.nodes


@lowers("OneHot", shape_inputs=(1,))
def lower_one_hot(graph: Graph, node: Node) -> list[Node]:
    e = Emitter(graph, node)
    e.emit("ONE_HOT", node.inputs, node.outputs, axis=int(node.attrs.get("axis", -1)))
    return e.nodes


@lowers("Trilu")
def lower_trilu(graph: Graph, node: Node) -> list[Node]:
    e = Emitter(graph, node)
    inputs = [node.inputs[0], e.as_int64(e.input(1))]
    e.emit("TRILU", inputs, node.outputs, upper=bool(node.attrs.get("upper", 1)))
    return e.nodes


@lowers("CumSum", shape_inputs=(1,))
def lower_cumsum(graph: Graph, node: Node) -> list[Node]:
    e = Emitter(graph, node)
    e.emit("CUMSUM", node.inputs, node.outputs, exclusive=bool(node.attrs.get("exclusive", 0)),
           reverse=bool(node.attrs.get("reverse", 0)))
    return e.nodes


def _check_reverse_sequence(graph: Graph, node: Node) -> list[str]:
    axes = (int(node.attrs.get("batch_axis", 1)), int(node.attrs.get("time_axis", 0)))
    if sorted(axes) != [0, 1]:
        return [f"batch_axis {axes[0]} and time_axis {axes[1]} must be 0 and 1, one each"]
    return []


@lowers("ReverseSequence", check=_check_reverse_sequence)
def lower_reverse_sequence(graph: Graph, node: Node) -> list[Node]:
    e = Emitter(graph, node)
    e.emit("REVERSE_SEQUENCE", node.inputs, node.outputs, batch_axis=int(node.attrs.get("batch_axis", 1)),
           time_axis=int(node.attrs.get("time_axis", 0)))
    return e.nodes
