"""Whether a tensor's value can be known before the model runs.

Shape inputs (docs/OPS.md) need a value at prepare time: a constant, or something computed from
constants and tensor *shapes* only (the runtime evaluates such shape subgraphs in prepare, and the
constant folder turns the static ones into constants). A value that depends on graph input data
cannot be an option or a shape input.
"""

from __future__ import annotations

from lite_converter.ir import Graph

# Ops whose output depends only on the input's shape.
_SHAPE_READERS = {"Shape", "Size"}


def known_at_prepare(graph: Graph, name: str) -> bool:
    """True when ``name`` is a constant or computed only from constants and tensor shapes."""
    producers = graph.producers()
    seen: dict[str, bool] = {}

    def visit(tensor: str) -> bool:
        if tensor in seen:
            return seen[tensor]
        seen[tensor] = False  # cycles are not constant
        if graph.constant(tensor) is not None:
            result = True
        elif tensor in graph.value_inputs:
            result = True
        elif tensor in graph.inputs or tensor not in producers:
            result = False
        else:
            node = producers[tensor]
            result = node.op_type in _SHAPE_READERS or all(visit(n) for n in node.inputs if n)
        seen[tensor] = result
        return result

    return visit(name)


def input_known_at_prepare(graph: Graph, inputs: list[str], index: int) -> bool:
    """``known_at_prepare`` for an optional input: an absent one counts as known."""
    return index >= len(inputs) or not inputs[index] or known_at_prepare(graph, inputs[index])


def value_inputs_read_at_prepare(graph: Graph, shape_inputs: dict[str, tuple[int, ...]]) -> list[str]:
    """The ``graph.value_inputs`` that some shape input (``shape_inputs[op_type]``: input indices) is
    computed from: those a body's interpreter must know at prepare; the others stay plain inputs."""
    producers = graph.producers()
    candidates = set(graph.value_inputs)
    reached: set[str] = set()
    seen: set[str] = set()
    stack = [node.inputs[i] for node in graph.nodes for i in shape_inputs.get(node.op_type, ())
             if i < len(node.inputs) and node.inputs[i]]
    while stack:
        name = stack.pop()
        if name in seen:
            continue
        seen.add(name)
        if name in candidates:
            reached.add(name)
        elif name in producers:
            stack.extend(n for n in producers[name].inputs if n)
    return [n for n in graph.value_inputs if n in reached]
