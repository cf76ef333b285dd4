"""Whether a tensor's value can be known before the model runs (so it can become an option)."""

from __future__ import annotations

from lite_converter.ir import Graph

# Ops whose output depends only on the input's shape (static when the shapes are).
_SHAPE_READERS = {"Shape", "Size"}


def known_before_run(graph: Graph, name: str) -> bool:
    """True for constants and values computed from constants and shapes only (the constant
    folder turns those into constants, the runtime's prepare computes the rest); False when the
    value depends on graph input data."""
    return known_at_prepare(graph, name)


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
        elif tensor in graph.inputs or tensor not in producers:
            result = False
        else:
            node = producers[tensor]
            result = node.op_type in _SHAPE_READERS or all(visit(n) for n in node.inputs if n)
        seen[tensor] = result
        return result

    return visit(name)


def input_known_before_run(graph: Graph, inputs: list[str], index: int) -> bool:
    """``known_before_run`` for an optional input: an absent one counts as known."""
    return index >= len(inputs) or not inputs[index] or known_before_run(graph, inputs[index])
