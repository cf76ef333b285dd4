"""Dependency groups on the IR: which channels must be removed together, and which cannot be.

Every weighted layer's output channels start a search (Conv, ConvTranspose, Gemm and MatMul with
constant weights); the per-op rules (slim/pruning/rules.py) couple the slots of every tensor axis the
channels reach, in both directions, until nothing new is reached. The union-find's classes are the
*units* of pruning; the tensor axes a unit touches tie units into *groups* (a conv's output, the
BatchNorm, activations, the residual Adds and the next convs' inputs). A unit is prunable when it
holds a weighted layer's output channel and no blocked slot; a group needs two prunable units to
lose one. Groups that cannot be pruned are kept with the reasons, for the report.
"""

from __future__ import annotations

import dataclasses
from collections import deque

import numpy as np

from lite_converter.ir import Node
from slim.pruning import rules
from slim.pruning.channels import Axis, ChannelSpace
from slim.pruning.graph_view import GraphView
from slim.pruning.weights import OUT, WeightAxis, weight_axes


@dataclasses.dataclass
class Unit:
    """One removable set of channels: indices on each tensor axis it touches."""

    indices: dict[Axis, np.ndarray]

    def width(self) -> int:
        """Channels this unit removes from the narrowest axis it touches."""
        return min(len(v) for v in self.indices.values())


@dataclasses.dataclass
class Group:
    """Coupled channels: the units pruning chooses among, the layers whose weights they cut."""

    index: int
    name: str  # the first weighted layer producing these channels
    axes: list[Axis]
    units: list[Unit]  # prunable units
    layers: list[str]  # weighted layers whose output channels are in the group
    consumers: list[str]  # weighted layers reading them
    blocked: list[str]  # reasons some (or all) of its channels cannot be removed
    blocked_units: int = 0
    main: Axis | None = None  # the first producer's output channels (what reports and rounding count)

    @property
    def prunable(self) -> bool:
        return len(self.units) >= 2

    def describe(self) -> str:
        state = f"{len(self.units)} units" if self.prunable else \
            "not prunable: " + "; ".join(self.blocked[:3])
        return f"group {self.index} '{self.name}': {len(self.layers)} producer(s), " \
               f"{len(self.consumers)} consumer(s), {state}"


def source_axes(view: GraphView) -> dict[Axis, Node]:
    """Output channel axes of weighted layers (whose weights are constant)."""
    sources: dict[Axis, Node] = {}
    for node in view.graph.nodes:
        for wa in weight_axes(view, node):
            if wa.role == OUT:
                sources.setdefault(wa.axis, node)
    return sources


class DependencyGraph:
    """The groups of one graph (for the concrete shapes in ``view``)."""

    def __init__(self, view: GraphView) -> None:
        self.view = view
        self.space = ChannelSpace()
        self.sources = source_axes(view)
        self._weights = {id(node): weight_axes(view, node) for node in view.graph.nodes}
        self._propagate()
        self.groups = self._build_groups()

    # -- propagation --------------------------------------------------------------------------------
    def _track(self, axis: Axis, queue: deque[Axis]) -> None:
        size = self.view.shape(axis.tensor)[axis.axis]
        if self.space.track(axis, size):
            queue.append(axis)
            graph = self.view.graph
            if axis.tensor in graph.outputs:
                self.space.block(self.space.slots(axis), "a model output keeps its channels")
            if axis.tensor in graph.inputs:
                self.space.block(self.space.slots(axis), "a model input keeps its channels")

    def _propagate(self) -> None:
        queue: deque[Axis] = deque()
        for axis in self.sources:
            self._track(axis, queue)
        visited: set[tuple[int, Axis]] = set()
        while queue:
            axis = queue.popleft()
            for node in self.view.nodes_of(axis.tensor):
                if (id(node), axis) in visited:
                    continue
                visited.add((id(node), axis))
                tracked = set(self.space.offsets)
                for link in rules.links(self.view, node, axis, tracked):
                    if isinstance(link, rules.Blocking):
                        self._track(link.axis, queue)
                        self.space.block(self.space.slots(link.axis, link.indices), link.reason)
                        continue
                    self._track(link.a, queue)
                    self._track(link.b, queue)
                    self.space.union(self.space.slots(link.a, link.ia), self.space.slots(link.b, link.ib))

    # -- groups -------------------------------------------------------------------------------------
    def _build_groups(self) -> list[Group]:
        space = self.space
        classes = space.classes()
        axis_parent: dict[Axis, Axis] = {axis: axis for axis in space.offsets}

        def find(axis: Axis) -> Axis:
            while axis_parent[axis] != axis:
                axis_parent[axis] = axis_parent[axis_parent[axis]]
                axis = axis_parent[axis]
            return axis

        for slots in classes.values():
            first = find(space.axis_of(slots[0]))
            for slot in slots[1:]:
                other = find(space.axis_of(slot))
                if other != first:
                    axis_parent[other] = first
        by_root: dict[Axis, list[list[int]]] = {}
        for slots in classes.values():
            by_root.setdefault(find(space.axis_of(slots[0])), []).append(slots)
        order = {node.name: i for i, node in enumerate(self.view.graph.nodes)}
        groups: list[Group] = []
        for root, members in by_root.items():
            groups.append(self._group(root, members, order))
        groups.sort(key=lambda g: (order.get(g.name, len(order)), g.name))
        for index, group in enumerate(groups):
            group.index = index
        return groups

    def _group(self, root: Axis, members: list[list[int]], order: dict[str, int]) -> Group:
        space = self.space
        axes = sorted({space.axis_of(s) for slots in members for s in slots})
        units: list[Unit] = []
        reasons: list[str] = []
        blocked_units = 0
        for slots in members:
            why = next((space.blocked[s] for s in slots if s in space.blocked), None)
            has_source = any(space.axis_of(s) in self.sources for s in slots)
            if why is None and not has_source:
                why = "no weighted layer produces these channels"
            if why is not None:
                blocked_units += 1
                if why not in reasons:
                    reasons.append(why)
                continue
            indices: dict[Axis, list[int]] = {}
            for slot in slots:
                axis = space.axis_of(slot)
                indices.setdefault(axis, []).append(slot - space.offsets[axis])
            whole = next((a for a, v in indices.items() if len(v) == space.sizes[a]), None)
            if whole is not None:  # e.g. channel shuffles repeated until every channel is coupled
                blocked_units += 1
                why = f"coupled channels span all of {whole}"
                if why not in reasons:
                    reasons.append(why)
                continue
            units.append(Unit({a: np.array(sorted(v), dtype=np.int64) for a, v in indices.items()}))
        axis_set = set(axes)
        producers = sorted({self.sources[a].name for a in axes if a in self.sources},
                           key=lambda n: order.get(n, 0))
        consumers = sorted({node.name for node in self.view.graph.nodes for wa in self._weights[id(node)]
                            if wa.role != OUT and wa.axis in axis_set and node.op_type in
                            ("Conv", "ConvTranspose", "Gemm", "MatMul")}, key=lambda n: order.get(n, 0))
        name = producers[0] if producers else str(root)
        if not units and not reasons:
            reasons.append("no channels")
        main = next((a for a in axes if a in self.sources and self.sources[a].name == name), None)
        return Group(0, name, axes, units, producers, consumers, reasons, blocked_units, main)

    # -- queries ------------------------------------------------------------------------------------
    def weight_axes(self, node: Node) -> list[WeightAxis]:
        return self._weights[id(node)]

    @property
    def prunable_groups(self) -> list[Group]:
        return [g for g in self.groups if g.prunable]

    def report(self) -> str:
        """One line per group."""
        return "\n".join(group.describe() for group in self.groups)
