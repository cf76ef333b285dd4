"""What the pruning rules ask of a graph: concrete shapes (from a probe run), constants, neighbours."""

from __future__ import annotations

import dataclasses

import numpy as np

from lite_converter.ir import Graph, Node


@dataclasses.dataclass
class GraphView:
    """A graph with the concrete shape of every tensor for one probe input.

    ``shapes`` come from running the graph (slim/pruning/probe.py), since symbolic dims of dynamic
    models (PP-OCR's batch and width, attention's sequence length) leave the IR's own shapes
    incomplete; channel counts do not depend on the probe input.
    """

    graph: Graph
    shapes: dict[str, list[int]]

    def __post_init__(self) -> None:
        self.producers = self.graph.producers()
        self.consumers = self.graph.consumers()

    def shape(self, name: str) -> list[int]:
        if name in self.shapes:
            return self.shapes[name]
        value = self.graph.constant(name)
        if value is not None:
            return list(value.shape)
        raise KeyError(f"no shape known for tensor '{name}'")

    def constant(self, name: str) -> np.ndarray | None:
        return self.graph.constant(name) if name else None

    def is_constant(self, name: str) -> bool:
        return bool(name) and self.graph.constant(name) is not None

    def nodes_of(self, name: str) -> list[Node]:
        """The producer (if any) and the consumers of a tensor."""
        producer = self.producers.get(name)
        return ([producer] if producer is not None else []) + self.consumers.get(name, [])
