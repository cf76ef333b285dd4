"""GELU written out with Erf becomes one GELU op.

Exporters without a Gelu op (opset < 20: torch's legacy exporter, onnxscript's decomposition at
opset 18) write ``x * 0.5 * (1 + erf(x / sqrt(2)))`` with the two outer multiplications in any
order; all three orders are matched, on lowered ops.
"""

from __future__ import annotations

import math

from lite_converter.ir import Graph, Node


def _close(value: float | None, expected: float) -> bool:
    return value is not None and math.isclose(value, expected, rel_tol=1e-4)


class _Gelu:
    def __init__(self, graph: Graph) -> None:
        self.graph = graph
        self.producers = graph.producers()
        self.consumers = graph.consumers()

    def scalar(self, name: str) -> float | None:
        value = self.graph.constant(name)
        return float(value.reshape(-1)[0]) if value is not None and value.size == 1 else None

    def plain(self, node: Node | None, op: str) -> bool:
        if node is None or node.op_type != op:
            return False
        return node.attrs.get("activation", {}).get("kind") == "NONE"

    def reader(self, name: str) -> Node | None:
        """The only reader of a private tensor."""
        readers = self.consumers.get(name, [])
        return readers[0] if len(readers) == 1 and name not in self.graph.outputs else None

    def other(self, node: Node, name: str) -> str | None:
        if len(node.inputs) != 2 or node.inputs[0] == node.inputs[1] or name not in node.inputs:
            return None
        return node.inputs[1] if node.inputs[0] == name else node.inputs[0]

    def scaled_input(self, erf: Node) -> str | None:
        """x when erf's input is x / sqrt(2) or x * (1 / sqrt(2)) (read by the erf only)."""
        scale = self.producers.get(erf.inputs[0])
        if self.reader(erf.inputs[0]) is not erf:
            return None
        if self.plain(scale, "DIV") and _close(self.scalar(scale.inputs[1]), math.sqrt(2.0)):
            return scale.inputs[0]
        if self.plain(scale, "MUL"):
            for x, c in (scale.inputs, scale.inputs[::-1]):
                if _close(self.scalar(c), 1.0 / math.sqrt(2.0)) and self.graph.constant(x) is None:
                    return x
        return None

    def match(self, erf: Node) -> tuple[list[Node], str, Node] | None:
        """(dead nodes, x, final MUL) for a GELU computed from ``erf``."""
        x = self.scaled_input(erf)
        add = self.reader(erf.outputs[0])
        if x is None or not self.plain(add, "ADD"):
            return None
        if not _close(self.scalar(self.other(add, erf.outputs[0]) or ""), 1.0):
            return None
        dead = [self.producers[erf.inputs[0]], erf, add]
        first = self.reader(add.outputs[0])
        if not self.plain(first, "MUL"):
            return None
        partner = self.other(first, add.outputs[0])
        if partner == x:  # (x * A) * 0.5
            last = self.reader(first.outputs[0])
            if self.plain(last, "MUL") and _close(self.scalar(self.other(last, first.outputs[0]) or ""), 0.5):
                return [*dead, first], x, last
            return None
        if _close(self.scalar(partner or ""), 0.5):  # x * (A * 0.5)
            last = self.reader(first.outputs[0])
            if self.plain(last, "MUL") and self.other(last, first.outputs[0]) == x:
                return [*dead, first], x, last
            return None
        half = self.producers.get(partner or "")  # (x * 0.5) * A
        if self.plain(half, "MUL") and self.reader(half.outputs[0]) is first and \
                _close(self.scalar(self.other(half, x) or ""), 0.5):
            return [*dead, half], x, first
        return None


def fuse_gelu(graph: Graph) -> None:
    """Replaces every Erf-based GELU subgraph by GELU(x)."""
    finder = _Gelu(graph)
    dead: set[int] = set()
    for erf in list(graph.nodes):
        if erf.op_type != "ERF" or id(erf) in dead:
            continue
        found = finder.match(erf)
        if found is None:
            continue
        nodes, x, last = found
        dead.update(id(n) for n in nodes)
        last.op_type, last.inputs, last.attrs = "GELU", [x], {"approximate_tanh": False}
    graph.nodes = [n for n in graph.nodes if id(n) not in dead]
