"""Cutting the channels of a removal plan out of the IR, or zeroing them (the exactness reference).

A plan maps tracked tensor axes to the indices removed there. Removal deletes the slices the
weight table (slim/pruning/weights.py) names, then fixes what counts channels: a depthwise conv's
``group``, Split sizes, Slice bounds on a channel axis, constant entries of Reshape / Expand
targets and Resize sizes, and the IR's shapes. Zeroing writes zeros into the same slices (divisors
excepted) and keeps every shape: by the definition of a correct group, both models compute the same.
Both return a new graph; the input graph is not touched.
"""

from __future__ import annotations

import copy
from collections import defaultdict

import numpy as np

from lite_converter.ir import Graph, Node
from slim.pruning.channels import Axis
from slim.pruning.graph_view import GraphView
from slim.pruning.slicing import slice_arguments
from slim.pruning.weights import weight_axes

Plan = dict[Axis, np.ndarray]


def _cuts(view: GraphView, node: Node, plan: Plan, zeroing: bool) -> dict[int, dict[int, set[int]]]:
    cuts: dict[int, dict[int, set[int]]] = defaultdict(lambda: defaultdict(set))
    for wa in weight_axes(view, node):
        removed = plan.get(wa.axis)
        if removed is None or not len(removed) or zeroing and not wa.zero:
            continue
        indices = np.unique(removed % wa.per_group) if wa.per_group else removed
        cuts[wa.input_index][wa.const_axis].update(int(i) for i in indices)
    return cuts


def _cut_constants(graph: Graph, node: Node, cuts: dict[int, dict[int, set[int]]], zeroing: bool) -> None:
    for index, axes in cuts.items():
        value = np.array(graph.constant(node.inputs[index]), copy=True)
        for axis, indices in sorted(axes.items(), reverse=True):
            ordered = sorted(indices)
            if zeroing:
                where: list[object] = [slice(None)] * value.ndim
                where[axis] = ordered
                value[tuple(where)] = 0
            else:
                value = np.delete(value, ordered, axis=axis)
        node.inputs[index] = graph.add_constant(f"{node.inputs[index]}_pruned", value)


def _removed_before(plan: Plan, axis: Axis, position: int) -> int:
    removed = plan.get(axis)
    return 0 if removed is None else int(np.count_nonzero(removed < position))


def _new_size(view: GraphView, plan: Plan, axis: Axis) -> int:
    return view.shape(axis.tensor)[axis.axis] - len(plan.get(axis, ()))


def _edit_entries(graph: Graph, view: GraphView, node: Node, index: int, changes: dict[int, int],
                  producers: dict[str, Node]) -> None:
    """Sets entry b of the shape-like input ``index`` to ``changes[b]`` where it is a literal size:
    a constant, or a constant piece of a Concat building it. -1 and 0 entries (inferred, copied)
    and entries computed at run time follow by themselves."""
    name = node.inputs[index]
    value = graph.constant(name)
    if value is not None:
        array = np.array(value, copy=True).reshape(-1)
        for position, size in changes.items():
            if array[position] > 0:
                array[position] = size
        node.inputs[index] = graph.add_constant(f"{name}_pruned", array.reshape(value.shape))
        return
    concat = producers.get(name)
    if concat is None or concat.op_type != "Concat":
        return
    pieces = list(concat.inputs)
    offset, touched = 0, False
    for k, piece in enumerate(pieces):
        length = int(np.prod(view.shape(piece))) if view.shape(piece) else 1
        piece_value = graph.constant(piece)
        for position, size in changes.items():
            if offset <= position < offset + length and piece_value is not None:
                array = np.array(piece_value, copy=True).reshape(-1)
                if array[position - offset] > 0:
                    array[position - offset] = size
                    piece_value = array.reshape(np.shape(piece_value))
                    pieces[k] = graph.add_constant(f"{piece}_pruned", piece_value)
                    touched = True
        offset += length
    if not touched:
        return
    clone = Node("Concat", graph.unique_name(f"{concat.name}_pruned"), pieces,
                 [graph.add_tensor(f"{name}_pruned", graph.tensors[name].dtype, graph.tensors[name].shape)],
                 dict(concat.attrs))
    graph.nodes.insert(graph.nodes.index(concat) + 1, clone)
    node.inputs[index] = clone.outputs[0]


def _fix_structure(graph: Graph, view: GraphView, node: Node, original: Node, plan: Plan,
                   producers: dict[str, Node]) -> None:
    op = node.op_type
    if op in ("Conv", "ConvTranspose"):
        groups = int(node.attrs.get("group", 1))
        x = original.inputs[0]
        if groups > 1 and groups == view.shape(x)[1]:
            node.attrs["group"] = _new_size(view, plan, Axis(x, 1))
    elif op == "Split":
        x = original.inputs[0]
        axis = int(node.attrs.get("axis", 0)) % len(view.shape(x))
        if plan.get(Axis(x, axis)) is None:
            return
        sizes = [_new_size(view, plan, Axis(out, axis)) for out in original.outputs]
        node.attrs.pop("num_outputs", None)
        if graph.opset >= 13:
            sizes_name = graph.add_constant(f"{node.name}_split", np.array(sizes, np.int64))
            node.inputs = [node.inputs[0], sizes_name]
        else:
            node.attrs["split"] = sizes
    elif op == "Slice":
        _fix_slice(graph, view, node, original, plan)
    elif op == "Reshape" or op == "Expand":
        out = original.outputs[0]
        changes = {b: _new_size(view, plan, Axis(out, b)) for b in range(len(view.shape(out)))
                   if len(plan.get(Axis(out, b), ()))}
        if changes and len(node.inputs) > 1:
            if op == "Expand":  # the target aligns with the output from the right
                shift = len(view.shape(out)) - view.shape(original.inputs[1])[0]
                changes = {b - shift: s for b, s in changes.items() if b >= shift}
            _edit_entries(graph, view, node, 1, changes, producers)
    elif op == "Resize" and len(node.inputs) > 3 and node.inputs[3]:
        out = original.outputs[0]
        changes = {b: _new_size(view, plan, Axis(out, b)) for b in range(len(view.shape(out)))
                   if len(plan.get(Axis(out, b), ()))}
        if changes:
            _edit_entries(graph, view, node, 3, changes, producers)


def _fix_slice(graph: Graph, view: GraphView, node: Node, original: Node, plan: Plan) -> None:
    x = original.inputs[0]
    arguments = slice_arguments(view, original)
    if arguments is None:
        return
    starts, ends, axes, steps = arguments
    changed = False
    new_starts, new_ends = list(starts), list(ends)
    for k, axis in enumerate(axes):
        tracked = Axis(x, axis)
        if not len(plan.get(tracked, ())):
            continue
        size = view.shape(x)[axis]
        start = starts[k] + size if starts[k] < 0 else starts[k]
        end = ends[k] + size if ends[k] < 0 else ends[k]
        start, end = min(max(start, 0), size), min(max(end, 0), size)
        new_starts[k] = start - _removed_before(plan, tracked, start)
        new_ends[k] = end - _removed_before(plan, tracked, end)
        changed = True
    if not changed:
        return
    if len(node.inputs) == 1:
        node.attrs["starts"], node.attrs["ends"] = new_starts, new_ends
        return
    dtype = graph.constant(node.inputs[1]).dtype
    node.inputs[1] = graph.add_constant(f"{node.name}_starts", np.array(new_starts, dtype))
    node.inputs[2] = graph.add_constant(f"{node.name}_ends", np.array(new_ends, dtype))


def _fix_shapes(graph: Graph, view: GraphView, plan: Plan) -> None:
    for axis, removed in plan.items():
        tensor = graph.tensors.get(axis.tensor)
        if tensor is None or tensor.shape is None or not len(removed) or axis.axis >= len(tensor.shape):
            continue
        if isinstance(tensor.shape[axis.axis], int):
            tensor.shape = list(tensor.shape)
            tensor.shape[axis.axis] = _new_size(view, plan, axis)


def apply_plan(view: GraphView, plan: Plan, zeroing: bool = False) -> Graph:
    """A copy of ``view.graph`` with the plan's channels removed (or zeroed when ``zeroing``)."""
    graph = copy.deepcopy(view.graph)
    producers = graph.producers()
    originals = list(view.graph.nodes)
    for node, original in zip(list(graph.nodes), originals, strict=True):
        cuts = _cuts(view, original, plan, zeroing)
        _cut_constants(graph, node, cuts, zeroing)
        if not zeroing:
            _fix_structure(graph, view, node, original, plan, producers)
    if not zeroing:
        _fix_shapes(graph, view, plan)
    graph.remove_unused_tensors()
    return graph


def plan_of(units: list) -> Plan:  # list[groups.Unit]
    """The removal plan of a list of units: every index each removes, per axis."""
    merged: dict[Axis, list[np.ndarray]] = defaultdict(list)
    for unit in units:
        for axis, indices in unit.indices.items():
            merged[axis].append(indices)
    return {axis: np.unique(np.concatenate(parts)) for axis, parts in merged.items()}
