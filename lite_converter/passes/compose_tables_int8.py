"""One table for a chain of int8 maps of one tensor (after the int8 pass).

Every int8 -> int8 element-wise function of one tensor is a 256-entry table: the table activations
(HARD_SWISH, HARD_SIGMOID, ...) are tables already, and so are ADD / MUL by a one-element constant
with their clamp. PP-LCNet's blocks run three of them back to back (conv -> HARD_SWISH -> MUL(scale)
-> ADD(bias)), i.e. three passes over a feature map. A chain of maps is the map
``t3[t2[t1[x]]]``: one table, one pass, and the same bytes as the chain when each step's table is
the step's own integer function (lite_converter.int8: the arithmetic the runtime and slim's simulation
share), so nothing changes numerically.

A chain is followed only through intermediate tensors that one node reads and that are not graph
outputs. The composed op is REQUANTIZE(x, table) (an int8 map given by an int8 [256] constant,
runtime_arm/src/ops/lookup_int8.cc) and keeps the name of the chain's first node.
"""

from __future__ import annotations

import numpy as np

from lite_converter.int8 import ALL_INT8, activation_range, add, compose_tables, lookup_table, mul
from lite_converter.int8.params import per_tensor
from lite_converter.ir import Graph, Node
from lite_converter.lite_ops import Int8Role, int8_ops
from lite_converter.passes.split_lookup_activation import LOOKUP_OPS

TABLE_SUFFIX = "_table"


def map_table(graph: Graph, node: Node) -> np.ndarray | None:
    """The int8 outputs for the inputs -128..127 of an int8 ``node`` that maps one tensor element by
    element (a table activation, ADD / MUL by a one-element int8 constant with its clamp, a REQUANTIZE
    table); None for any other node."""
    op = node.op_type
    if not node.inputs or not node.outputs or graph.tensors[node.inputs[0]].is_constant:
        return None
    if op == "REQUANTIZE" and len(node.inputs) == 2:
        return np.asarray(graph.constant(node.inputs[1]), np.int8).reshape(-1)
    x, y = graph.tensors[node.inputs[0]], graph.tensors[node.outputs[0]]
    if x.dtype != np.int8 or y.dtype != np.int8 or x.quant is None or y.quant is None:
        return None
    if op in LOOKUP_OPS and len(node.inputs) == 1:
        return lookup_table(op, node.attrs, per_tensor(x.quant), per_tensor(y.quant))
    if op in int8_ops(Int8Role.BINARY) and len(node.inputs) == 2:
        b = graph.constant(node.inputs[1])
        b_quant = graph.tensors[node.inputs[1]].quant
        if b is None or b.size != 1 or b.dtype != np.int8 or b_quant is None or b_quant.scale.size != 1:
            return None
        qy = per_tensor(y.quant)
        low, high = activation_range(node.attrs.get("activation"), *qy)
        binary = add if op == "ADD" else mul
        return binary(ALL_INT8, per_tensor(x.quant), b.reshape(1), per_tensor(b_quant), qy, low, high)
    return None


def compose_tables_int8(graph: Graph) -> list[str]:
    """Rewrites ``graph`` in place; returns the names of the nodes merged into an earlier one."""
    readers: dict[str, int] = {}
    for node in graph.nodes:
        for name in node.inputs:
            if name:
                readers[name] = readers.get(name, 0) + 1
    outputs = set(graph.outputs)
    chain_of: dict[str, tuple[Node, np.ndarray]] = {}  # output tensor -> (chain head, composed table)
    grown: dict[int, Node] = {}  # id -> heads that absorbed a node
    merged: list[str] = []
    kept: list[Node] = []
    for node in graph.nodes:
        table = map_table(graph, node)
        if table is None:
            kept.append(node)
            continue
        source = node.inputs[0]
        if source in chain_of and readers.get(source) == 1 and source not in outputs:
            head, first = chain_of.pop(source)
            table = compose_tables(first, table)
            head.outputs = list(node.outputs)
            grown[id(head)] = head
            merged.append(node.name)
            chain_of[node.outputs[0]] = (head, table)
            continue
        kept.append(node)
        chain_of[node.outputs[0]] = (node, table)
    for out, (head, table) in chain_of.items():
        if id(head) in grown:
            _as_table_op(graph, head, out, table)
    graph.nodes = kept
    graph.remove_unused_tensors()
    return merged


def _as_table_op(graph: Graph, head: Node, out: str, table: np.ndarray) -> None:
    """Turns the chain's head into REQUANTIZE(x, table); the table holds output bytes, so it carries
    the output's quantization."""
    name = graph.add_constant(head.name + TABLE_SUFFIX, table.astype(np.int8))
    graph.tensors[name].quant = graph.tensors[out].quant
    head.op_type = "REQUANTIZE"
    head.inputs = [head.inputs[0], name]
    head.attrs = {}
