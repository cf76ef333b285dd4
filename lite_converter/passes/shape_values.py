"""Symbolic values of the small int tensors that models compute from shapes.

``Shape(x) -> Slice -> Concat([.., -1]) -> Reshape`` is how exporters write "reshape keeping the
batch dim" for dynamic inputs. To reason about such a Reshape at conversion time (the layout pass
asks whether it can run on channels-last data) we need its target as dims: ints where known,
the symbolic dim names of the source model where the value comes from a dynamic dim, None where
unknown. Values are (rank, items) with rank 0 (one item) or 1.
"""

from __future__ import annotations

import operator
from collections.abc import Callable

import numpy as np

from lite_converter.ir import Dim, Graph, Node

Value = tuple[int, list[Dim]]

_ARITHMETIC: dict[str, Callable[[int, int], int]] = {
    "ADD": operator.add,
    "SUB": operator.sub,
    "MUL": operator.mul,
    "DIV": lambda a, b: int(a / b) if b else 0,  # C-style truncation, as the runtime
}


class ShapeValues:
    """Values of shape-computing tensors, recorded op by op in graph order (logical names)."""

    def __init__(self, graph: Graph, logical_shapes: dict[str, list[Dim] | None]) -> None:
        self.graph = graph
        self.logical_shapes = logical_shapes
        self.values: dict[str, Value] = {}

    def get(self, name: str) -> Value | None:
        if not name:
            return None
        if name in self.values:
            return self.values[name]
        data = self.graph.constant(name)
        if data is not None and data.dtype.kind in "iu" and data.ndim <= 1:
            return data.ndim, [int(v) for v in data.reshape(-1)]
        return None

    def _ints(self, name: str) -> list[int] | None:
        value = self.get(name)
        if value is None or not all(isinstance(v, int) for v in value[1]):
            return None
        return [int(v) for v in value[1]]  # type: ignore[arg-type]

    def record(self, node: Node) -> None:
        """Computes the value of ``node``'s output when it is a shape computation we follow."""
        if not node.outputs or not node.outputs[0]:
            return
        compute = getattr(self, f"_{node.op_type.lower()}", None)
        if node.op_type in _ARITHMETIC:
            compute = self._arithmetic
        value = compute(node) if compute is not None else None
        if value is not None:
            self.values[node.outputs[0]] = value

    def _shape(self, node: Node) -> Value | None:
        shape = self.logical_shapes.get(node.inputs[0])
        if shape is None or node.attrs.get("perm"):
            return None
        rank = len(shape)
        start, end = int(node.attrs.get("start", 0)), int(node.attrs.get("end", rank))
        start, end = (start + rank if start < 0 else start), (end + rank if end < 0 else end)
        return 1, list(shape[max(0, min(start, rank)) : max(0, min(end, rank))])

    def _cast(self, node: Node) -> Value | None:
        return self.get(node.inputs[0])

    def _identity(self, node: Node) -> Value | None:
        return self.get(node.inputs[0])

    def _slice(self, node: Node) -> Value | None:
        data = self.get(node.inputs[0])
        starts, ends = self._ints(node.inputs[1]), self._ints(node.inputs[2])
        axes = self._ints(node.inputs[3]) if len(node.inputs) > 3 and node.inputs[3] else [0]
        steps = self._ints(node.inputs[4]) if len(node.inputs) > 4 and node.inputs[4] else [1]
        if data is None or data[0] != 1 or starts is None or ends is None or axes not in ([0], [-1]):
            return None
        if steps is None or len(starts) != 1 or len(ends) != 1 or len(steps) != 1 or steps[0] == 0:
            return None
        return 1, data[1][slice(starts[0], ends[0], steps[0])]

    def _concat(self, node: Node) -> Value | None:
        parts = [self.get(name) for name in node.inputs]
        if any(p is None or p[0] != 1 for p in parts):
            return None
        return 1, [d for p in parts if p is not None for d in p[1]]

    def _gather(self, node: Node) -> Value | None:
        data = self.get(node.inputs[0])
        indices = self.graph.constant(node.inputs[1])
        if (
            data is None
            or data[0] != 1
            or indices is None
            or indices.ndim > 1
            or node.attrs.get("axis", 0) != 0
        ):
            return None
        items = data[1]
        if not all(-len(items) <= int(i) < len(items) for i in indices.reshape(-1)):
            return None
        picked = [items[int(i)] for i in indices.reshape(-1)]
        return indices.ndim, picked

    def _unsqueeze(self, node: Node) -> Value | None:
        value = self.get(node.inputs[0])
        return (1, value[1]) if value is not None and value[0] == 0 else None

    def _squeeze(self, node: Node) -> Value | None:
        value = self.get(node.inputs[0])
        return (0, value[1]) if value is not None and value[0] == 1 and len(value[1]) == 1 else None

    def _arithmetic(self, node: Node) -> Value | None:
        a, b = self.get(node.inputs[0]), self.get(node.inputs[1])
        if a is None or b is None:
            return None
        n = max(len(a[1]), len(b[1]))
        if len(a[1]) not in (1, n) or len(b[1]) not in (1, n):
            return None
        fn = _ARITHMETIC[node.op_type]
        items: list[Dim] = []
        for i in range(n):
            x, y = a[1][i % len(a[1])], b[1][i % len(b[1])]
            ok = isinstance(x, int) and isinstance(y, int) and not isinstance(x, bool | np.bool_)
            items.append(fn(x, y) if ok else None)  # type: ignore[arg-type]
        return max(a[0], b[0]), items
