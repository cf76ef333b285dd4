"""Small questions passes ask about the graph (who reads a tensor, is it safe to rewrite)."""

from __future__ import annotations

import numpy as np

from lite_converter.ir import Graph, Node


def only_consumer(graph: Graph, name: str, consumers: dict[str, list[Node]]) -> Node | None:
    """The single node reading ``name`` when rewriting it in place is safe, else None.

    Safe means exactly one reader (counted once per node) and not a graph output, whose value the
    user reads too.
    """
    readers = consumers.get(name, [])
    if name in graph.outputs or len(readers) != 1:
        return None
    return readers[0]


def scalar_value(graph: Graph, name: str) -> float | None:
    """The value of a constant holding a single element (any shape), else None."""
    value = graph.constant(name)
    if value is None or value.size != 1 or value.dtype == np.dtype(object):
        return None
    return float(value.reshape(-1)[0])


def rank_of(graph: Graph, name: str) -> int | None:
    tensor = graph.tensors.get(name)
    if tensor is None or tensor.shape is None:
        return None
    return len(tensor.shape)


def per_channel_vector(value: np.ndarray, channels: int, rank: int, axis: int = 1) -> np.ndarray | None:
    """``value`` as a [channels] vector if broadcasting it onto a rank-``rank`` tensor varies only
    along ``axis`` (the channel axis), else None. Scalars broadcast to every channel."""
    if value.ndim > rank:
        return None
    full = value.reshape((1,) * (rank - value.ndim) + value.shape)
    for i, d in enumerate(full.shape):
        if i != axis and d != 1:
            return None
    if full.shape[axis] not in (1, channels):
        return None
    return np.broadcast_to(full.reshape(-1), (channels,)).copy()


def remove_nodes(graph: Graph, dead: list[Node]) -> None:
    ids = {id(n) for n in dead}
    graph.nodes = [n for n in graph.nodes if id(n) not in ids]
