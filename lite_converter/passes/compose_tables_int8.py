"""One table for a chain of int8 maps of one tensor (after the int8 pass).

Every int8 -> int8 element-wise function of one tensor is a 256-entry table: the table activations
(HARD_SWISH, HARD_SIGMOID, ...) are tables already, and so are ADD / MUL by a one-element constant
with their clamp. PP-LCNet's blocks run three of them back to back (conv -> HARD_SWISH -> MUL(scale)
-> ADD(bias)), i.e. three passes over a feature map. A chain of maps is the map
``t3[t2[t1[x]]]``: one table, one pass, and the same bytes as the chain when each step's table is
the simulation's own integer function (slim.fake_quant.map_table), so nothing changes numerically.

A chain is followed only through intermediate tensors that one node reads and that are not graph
outputs. The composed op is REQUANTIZE(x, table) (an int8 map given by an int8 [256] constant,
runtime_arm/src/ops/lookup_int8.cc) and keeps the name of the chain's first node.
"""

from __future__ import annotations

import numpy as np

from lite_converter.ir import Graph, Node

TABLE_SUFFIX = "_table"


def compose_tables_int8(graph: Graph) -> list[str]:
    """Rewrites ``graph`` in place; returns the names of the nodes merged into an earlier one."""
    from slim.fake_quant import map_table  # the oracle's integer functions (slim imports this package)

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
            table = table[first.astype(np.int16) + 128]
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
