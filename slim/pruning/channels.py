"""Channel slots and the union-find that couples them: the data model of dependency groups.

A *slot* is one index along one axis of one tensor: channel 7 of a conv output is the slot
``(Axis("conv_out", 1), 7)``. Ops couple slots that must be removed together (both operands of a
residual Add, a depthwise conv's input and output channel, the same head-dim index of every head
after a reshape); the union-find's classes are the *units* pruning removes, each a set of slots on
one or more tensor axes. Slots can be *blocked* with a reason (a graph output's channels, a
LayerNorm's normalized axis...): a class with a blocked slot is never removed.
"""

from __future__ import annotations

import dataclasses

import numpy as np


@dataclasses.dataclass(frozen=True, order=True)
class Axis:
    """One axis of one tensor (the axis index is non-negative)."""

    tensor: str
    axis: int

    def __str__(self) -> str:
        return f"{self.tensor}[axis {self.axis}]"


class ChannelSpace:
    """Union-find over the slots of every tracked axis; ``track`` adds an axis of a given size."""

    def __init__(self) -> None:
        self.offsets: dict[Axis, int] = {}
        self.sizes: dict[Axis, int] = {}
        self._parent: list[int] = []
        self._axis_of_slot: list[Axis] = []
        self.blocked: dict[int, str] = {}  # slot -> reason (first reason wins)

    def track(self, axis: Axis, size: int) -> bool:
        """Starts tracking ``axis``; False when it already was (sizes must agree)."""
        if axis in self.offsets:
            if self.sizes[axis] != size:
                raise ValueError(f"{axis}: size {size} != tracked {self.sizes[axis]}")
            return False
        offset = len(self._parent)
        self.offsets[axis], self.sizes[axis] = offset, size
        self._parent.extend(range(offset, offset + size))
        self._axis_of_slot.extend([axis] * size)
        return True

    def slots(self, axis: Axis, indices: np.ndarray | None = None) -> np.ndarray:
        """Global slot ids of ``indices`` (default: all) along ``axis``."""
        offset = self.offsets[axis]
        if indices is None:
            return np.arange(offset, offset + self.sizes[axis])
        return offset + np.asarray(indices, dtype=np.int64)

    def find(self, slot: int) -> int:
        parent = self._parent
        root = slot
        while parent[root] != root:
            root = parent[root]
        while parent[slot] != root:
            parent[slot], slot = root, parent[slot]
        return root

    def union(self, a: np.ndarray, b: np.ndarray) -> None:
        """Couples slot a[k] with slot b[k] for every k."""
        for x, y in zip(np.asarray(a).tolist(), np.asarray(b).tolist(), strict=True):
            rx, ry = self.find(x), self.find(y)
            if rx != ry:
                if rx < ry:
                    rx, ry = ry, rx
                self._parent[rx] = ry

    def block(self, slots: np.ndarray, reason: str) -> None:
        for slot in np.asarray(slots).tolist():
            self.blocked.setdefault(slot, reason)

    def axis_of(self, slot: int) -> Axis:
        return self._axis_of_slot[slot]

    def roots(self) -> np.ndarray:
        """The class root of every slot (pointer jumping over the parent array)."""
        parent = np.asarray(self._parent, dtype=np.int64)
        while True:
            jumped = parent[parent]
            if np.array_equal(jumped, parent):
                return parent
            parent = jumped

    def axis_ids(self) -> tuple[list[Axis], np.ndarray]:
        """The tracked axes in slot order, and the index into that list of every slot's axis."""
        axes = sorted(self.offsets, key=lambda a: self.offsets[a])
        ids = np.repeat(np.arange(len(axes)), [self.sizes[a] for a in axes])
        return axes, ids
