"""Slice bounds as constants say them, clamped the way ONNX clamps them (shared by the pruning
rule and the pruning function that moves the bounds when channels before them go)."""

from __future__ import annotations

import numpy as np

from lite_converter.ir import Node
from slim.pruning.graph_view import GraphView
from slim.slice_bounds import clamp_slice


def _const_list(view: GraphView, node: Node, index: int) -> list[int] | None:
    if len(node.inputs) <= index or not node.inputs[index]:
        return []
    value = view.constant(node.inputs[index])
    return None if value is None else [int(v) for v in np.asarray(value).reshape(-1)]


def slice_arguments(view: GraphView, node: Node) -> tuple[list[int], list[int], list[int], list[int]] | None:
    """(starts, ends, axes, steps) of a Slice node, from attributes (opset < 10) or constant inputs."""
    rank = len(view.shape(node.inputs[0]))
    if len(node.inputs) == 1:
        starts, ends = list(node.attrs["starts"]), list(node.attrs["ends"])
        axes = list(node.attrs.get("axes", range(len(starts))))
        steps = [1] * len(starts)
    else:
        parts = [_const_list(view, node, i) for i in (1, 2, 3, 4)]
        if any(p is None for p in parts):
            return None
        starts, ends, axes, steps = parts  # type: ignore[misc]
        axes = axes or list(range(len(starts)))
        steps = steps or [1] * len(starts)
    return starts, ends, [a % rank for a in axes], steps


def constant_slice_bounds(view: GraphView, node: Node) -> dict[int, tuple[int, int, int]] | None:
    """axis -> (start, end, step) with positive steps clamped to [0, size]; None if not constant."""
    arguments = slice_arguments(view, node)
    if arguments is None:
        return None
    shape = view.shape(node.inputs[0])
    bounds: dict[int, tuple[int, int, int]] = {}
    for start, end, axis, step in zip(*arguments, strict=True):
        start, end = clamp_slice(start, end, step, shape[axis])
        bounds[axis] = (start, end, step)
    return bounds
