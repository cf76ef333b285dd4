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
        """Classes (units) by root slot; groups = axes tied together by a class. Vectorized: a
        model has 10^5 slots."""
        space = self.space
        roots = space.roots()
        axes, axis_of_slot = space.axis_ids()
        parent = list(range(len(axes)))  # union-find over the (few hundred) axes

        def find(i: int) -> int:
            while parent[i] != i:
                parent[i] = parent[parent[i]]
                i = parent[i]
            return i

        for a, b in set(zip(axis_of_slot[roots].tolist(), axis_of_slot.tolist(), strict=True)):
            ra, rb = find(a), find(b)
            if ra != rb:
                parent[rb] = ra
        group_of_axis = [find(i) for i in range(len(axes))]
        # per class: blocked reason, produced by a weighted layer, indices per axis
        reason_of_root: dict[int, str] = {}
        for slot, reason in space.blocked.items():
            reason_of_root.setdefault(int(roots[slot]), reason)
        source_axis = np.array([axis in self.sources for axis in axes])
        has_source = np.zeros(len(roots), dtype=bool)
        np.logical_or.at(has_source, roots, source_axis[axis_of_slot])
        offsets = np.array([space.offsets[a] for a in axes])
        local = np.arange(len(roots)) - offsets[axis_of_slot]
        order_of_slots = np.lexsort((local, axis_of_slot, roots))
        r, a, loc = roots[order_of_slots], axis_of_slot[order_of_slots], local[order_of_slots]
        starts = np.flatnonzero(np.r_[True, (r[1:] != r[:-1]) | (a[1:] != a[:-1])])
        ends = np.r_[starts[1:], len(r)]
        classes: dict[int, dict[Axis, np.ndarray]] = {}
        for start, end in zip(starts.tolist(), ends.tolist(), strict=True):
            classes.setdefault(int(r[start]), {})[axes[a[start]]] = loc[start:end]
        members: dict[int, list[tuple[int, dict[Axis, np.ndarray]]]] = {}
        for root, indices in classes.items():
            members.setdefault(group_of_axis[axis_of_slot[root]], []).append((root, indices))
        order = {node.name: i for i, node in enumerate(self.view.graph.nodes)}
        groups = [self._group(m, reason_of_root, has_source, order) for m in members.values()]
        groups.sort(key=lambda g: (order.get(g.name, len(order)), g.name))
        for index, group in enumerate(groups):
            group.index = index
        return groups

    def _group(self, members: list[tuple[int, dict[Axis, np.ndarray]]], reason_of_root: dict[int, str],
               has_source: np.ndarray, order: dict[str, int]) -> Group:
        space = self.space
        group_axes = sorted({axis for _, indices in members for axis in indices})
        units: list[Unit] = []
        reasons: list[str] = []
        blocked_units = 0
        for root, indices in members:
            why = reason_of_root.get(root)
            if why is None and not has_source[root]:
                why = "no weighted layer produces these channels"
            if why is None:
                whole = next((a for a, v in indices.items() if len(v) == space.sizes[a]), None)
                if whole is not None:  # e.g. channel shuffles repeated until every channel is coupled
                    why = f"coupled channels span all of {whole}"
            if why is not None:
                blocked_units += 1
                if why not in reasons:
                    reasons.append(why)
                continue
            units.append(Unit(indices))
        axis_set = set(group_axes)
        producers = sorted({self.sources[a].name for a in group_axes if a in self.sources},
                           key=lambda n: order.get(n, 0))
        consumers = sorted({node.name for node in self.view.graph.nodes for wa in self._weights[id(node)]
                            if wa.role != OUT and wa.axis in axis_set and node.op_type in
                            ("Conv", "ConvTranspose", "Gemm", "MatMul")}, key=lambda n: order.get(n, 0))
        name = producers[0] if producers else str(group_axes[0])
        if not units and not reasons:
            reasons.append("no channels")
        main = next((a for a in group_axes if a in self.sources and self.sources[a].name == name), None)
        return Group(0, name, group_axes, units, producers, consumers, reasons, blocked_units, main)

    # -- queries ------------------------------------------------------------------------------------
    def weight_axes(self, node: Node) -> list[WeightAxis]:
        return self._weights[id(node)]

    @property
    def prunable_groups(self) -> list[Group]:
        return [g for g in self.groups if g.prunable]

    def report(self) -> str:
        """One line per group."""
        return "\n".join(group.describe() for group in self.groups)
