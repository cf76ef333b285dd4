"""Finds hard-swish written out in primitive ops and replaces it with one HardSwish node.

Exporters spell hard-swish several ways; the ones seen in real models:

* ``x * HardSigmoid(x)`` with alpha = 1/6, beta = 0.5 (PP-OCR rec/cls, Paddle's ``hardswish``);
* ``x * Clip(x + 3, 0, 6) / 6`` (PP-OCRv4 det), also with ``* (1/6)`` instead of ``/ 6``;
* the gate alone, ``Clip(x + 3, 0, 6) / 6``, which is HardSigmoid(1/6, 0.5) and becomes one.

HardSwish is an ONNX op from opset 14; the exporter expands it again for older opsets.
"""

from __future__ import annotations

import math

from lite_converter.ir import Graph, Node
from lite_converter.passes.clip_bounds import clip_bounds
from lite_converter.passes.graph_queries import only_consumer, scalar_value

SIXTH = 1.0 / 6.0


def _close(a: float | None, b: float) -> bool:
    return a is not None and math.isclose(a, b, rel_tol=1e-5, abs_tol=1e-7)


def _other_input(node: Node, name: str) -> str | None:
    if len(node.inputs) != 2 or node.inputs[0] == node.inputs[1]:
        return None
    if node.inputs[0] == name:
        return node.inputs[1]
    return node.inputs[0] if node.inputs[1] == name else None


def _divides_by_six(graph: Graph, node: Node, operand: str) -> bool:
    """True when ``node`` computes operand / 6 (or operand * (1/6))."""
    if node.op_type == "Div" and node.inputs[0] == operand:
        return _close(scalar_value(graph, node.inputs[1]), 6.0)
    if node.op_type == "Mul":
        other = _other_input(node, operand)
        return other is not None and _close(scalar_value(graph, other), SIXTH)
    return False


def _relu6_of_x_plus_3(graph: Graph, name: str, producers: dict[str, Node],
                       consumers: dict[str, list[Node]]) -> tuple[str, list[Node]] | None:
    """(x, [Clip, Add]) when ``name`` = Clip(x + 3, 0, 6) with private intermediates, else None."""
    clip = producers.get(name)
    if clip is None or clip.op_type != "Clip" or only_consumer(graph, name, consumers) is None:
        return None
    bounds = clip_bounds(graph, clip)
    if bounds is None or not (_close(bounds[0], 0.0) and _close(bounds[1], 6.0)):
        return None
    add = producers.get(clip.inputs[0])
    if add is None or add.op_type != "Add" or only_consumer(graph, add.outputs[0], consumers) is not clip:
        return None
    for x, three in (add.inputs, add.inputs[::-1]):
        if _close(scalar_value(graph, three), 3.0) and graph.constant(x) is None:
            return x, [clip, add]
    return None


def match_hard_activation(graph: Graph, node: Node, producers: dict[str, Node],
                          consumers: dict[str, list[Node]]) -> tuple[list[Node], Node] | None:
    """(nodes to remove, the HardSwish / HardSigmoid node replacing them) when ``node`` ends one of
    the patterns (also used, without rewriting, by slim/torch_ir/fuse_hard_swish.py)."""
    if node.op_type not in ("Mul", "Div") or len(node.inputs) != 2:
        return None
    # Gate: Clip(x+3, 0, 6) / 6 -> HardSigmoid(x, 1/6, 0.5)
    for operand in node.inputs:
        found = _relu6_of_x_plus_3(graph, operand, producers, consumers)
        if found and _divides_by_six(graph, node, operand):
            x, dead = found
            return [node, *dead], Node("HardSigmoid", node.name, [x], [node.outputs[0]],
                                       {"alpha": SIXTH, "beta": 0.5})
    # x * HardSigmoid(x) -> HardSwish(x)
    if node.op_type == "Mul":
        for gate_name in node.inputs:
            gate = producers.get(gate_name)
            if gate is None or gate.op_type != "HardSigmoid" or \
                    only_consumer(graph, gate_name, consumers) is not node:
                continue
            if _close(gate.attrs.get("alpha", 0.2), SIXTH) and _close(gate.attrs.get("beta", 0.5), 0.5) \
                    and _other_input(node, gate_name) == gate.inputs[0]:
                return [node, gate], Node("HardSwish", node.name, [gate.inputs[0]], [node.outputs[0]])
    # (x * Clip(x+3, 0, 6)) / 6 -> HardSwish(x)
    product = producers.get(node.inputs[0])
    if product is not None and product.op_type == "Mul" and \
            only_consumer(graph, product.outputs[0], consumers) is node and \
            _divides_by_six(graph, node, product.outputs[0]):
        for gate_name in product.inputs:
            found = _relu6_of_x_plus_3(graph, gate_name, producers, consumers)
            if found and _other_input(product, gate_name) == found[0]:
                return [node, product, *found[1]], Node("HardSwish", node.name, [found[0]], [node.outputs[0]])
    return None


def _sweep(graph: Graph) -> bool:
    """Rewrites every non-overlapping match found with the maps of the graph as it was."""
    producers = graph.producers()
    consumers = graph.consumers()
    position = {id(n): i for i, n in enumerate(graph.nodes)}
    dead: set[int] = set()
    replacement: dict[int, Node] = {}  # first removed node (in graph order) -> its replacement
    for node in graph.nodes:
        found = match_hard_activation(graph, node, producers, consumers)
        if found is None or any(id(n) in dead for n in found[0]):
            continue
        dead.update(id(n) for n in found[0])
        replacement[id(min(found[0], key=lambda n: position[id(n)]))] = found[1]
    kept = [n for n in graph.nodes if id(n) not in dead or id(n) in replacement]
    graph.nodes = [replacement.get(id(n), n) for n in kept]
    return bool(dead)


def recognize_hard_swish(graph: Graph) -> bool:
    """Rewrites every decomposed hard-swish/hard-sigmoid; True when anything changed.

    A second sweep turns the HardSigmoid gates found by the first into HardSwish where they
    multiply their own input.
    """
    changed = False
    while _sweep(graph):
        changed = True
    return changed
