"""Per-op dependency rules: which channel slots an op couples, and where pruning must stop.

``links(view, node, axis)`` answers for one tracked axis of one of the node's tensors (input or
output): the slots of the node's other tensors that must be removed together with each index of
``axis`` (a Coupling), or that ``axis`` cannot be pruned here (a Blocking, with the reason a user
reads in the group report). Constant inputs are never tracked: the pruning functions of
slim/pruning/weights.py cut them.

Exactness is the criterion: a channel may be removed only where removing it equals zeroing its
weights. So reductions that average or normalize over channels (ReduceMean over channels,
LayerNorm's hidden axis, Softmax over channels) block, while ReduceSum does not (a zero adds
nothing).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable

import numpy as np

from lite_converter.ir import Node
from slim.pruning import reshape_map
from slim.pruning.channels import Axis
from slim.pruning.graph_view import GraphView
from slim.pruning.slicing import constant_slice_bounds


@dataclasses.dataclass
class Coupling:
    """Slot ``a[ia[k]]`` goes with slot ``b[ib[k]]``."""

    a: Axis
    ia: np.ndarray
    b: Axis
    ib: np.ndarray


@dataclasses.dataclass
class Blocking:
    axis: Axis
    indices: np.ndarray | None  # None: the whole axis
    reason: str


Link = Coupling | Blocking
Rule = Callable[[GraphView, Node, Axis], list[Link]]


def _same(a: Axis, b: Axis, size: int) -> Coupling:
    index = np.arange(size, dtype=np.int64)
    return Coupling(a, index, b, index)


def _block(axis: Axis, node: Node, why: str) -> list[Link]:
    return [Blocking(axis, None, f"{why} ({node.op_type} '{node.name}')")]


def _activation_inputs(view: GraphView, node: Node) -> list[str]:
    return [name for name in node.inputs if name and not view.is_constant(name)]


# -- elementwise and per-channel ops ----------------------------------------------------------------
def elementwise(view: GraphView, node: Node, axis: Axis) -> list[Link]:
    """Numpy broadcasting: axes aligned from the right couple index by index where sizes agree."""
    out = node.outputs[0]
    out_rank = len(view.shape(out))
    if axis.tensor == out and axis.tensor not in node.inputs:
        position = axis.axis
    else:
        position = axis.axis + out_rank - len(view.shape(axis.tensor))
    size = view.shape(out)[position]
    links: list[Link] = []
    for name in [*_activation_inputs(view, node), out]:
        shape = view.shape(name)
        aligned = position - (out_rank - len(shape))
        if aligned < 0 or shape[aligned] == 1 and size != 1:
            continue  # broadcast along this axis: no channel of its own
        other = Axis(name, aligned)
        if other != axis:
            links.append(_same(axis, other, size))
    return links


def channel_only(spatial_reason: str) -> Rule:
    """Ops that act per channel (axis 1) and per sample (axis 0) but mix the other axes."""

    def rule(view: GraphView, node: Node, axis: Axis) -> list[Link]:
        if axis.axis >= 2:
            return _block(axis, node, spatial_reason)
        return [_same(axis, Axis(name, axis.axis), view.shape(axis.tensor)[axis.axis])
                for name in [node.inputs[0], node.outputs[0]] if name != axis.tensor]

    return rule


def softmax(view: GraphView, node: Node, axis: Axis) -> list[Link]:
    rank = len(view.shape(node.inputs[0]))
    default = -1 if (view.graph.opset or 13) >= 13 else 1
    softmax_axis = int(node.attrs.get("axis", default)) % rank
    legacy = (view.graph.opset or 13) < 13
    if axis.axis == softmax_axis or legacy and axis.axis >= softmax_axis:
        return _block(axis, node, "normalizes over these channels")
    return elementwise(view, node, axis)


def pad(view: GraphView, node: Node, axis: Axis) -> list[Link]:
    rank = len(view.shape(node.inputs[0]))
    has_input = len(node.inputs) > 1 and bool(node.inputs[1])
    pads = view.constant(node.inputs[1]) if has_input else node.attrs.get("pads")
    axes_input = view.constant(node.inputs[3]) if len(node.inputs) > 3 and node.inputs[3] else None
    if pads is None:
        return _block(axis, node, "pads computed at run time")
    pads = [int(p) for p in np.asarray(pads).reshape(-1)]
    axes = [int(a) % rank for a in axes_input.reshape(-1)] if axes_input is not None else list(range(rank))
    if axis.axis in axes:
        i = axes.index(axis.axis)
        if pads[i] or pads[len(axes) + i]:
            return _block(axis, node, "pads these channels")
    return elementwise(view, node, axis)


def _resize_factor_is_one(view: GraphView, node: Node, axis: int) -> bool:
    for index in (2, 3) if node.op_type == "Resize" else (1,):
        value = view.constant(node.inputs[index]) if len(node.inputs) > index and node.inputs[index] else None
        if value is not None and value.size:
            if index == 3:  # sizes: the output size equals the input size on this axis
                return int(value.reshape(-1)[axis]) == view.shape(node.inputs[0])[axis]
            return float(value.reshape(-1)[axis]) == 1.0
    return axis < 2


def resize(view: GraphView, node: Node, axis: Axis) -> list[Link]:
    if not _resize_factor_is_one(view, node, axis.axis):
        return _block(axis, node, "resizes along these channels")
    other = node.outputs[0] if axis.tensor == node.inputs[0] else node.inputs[0]
    return [_same(axis, Axis(other, axis.axis), view.shape(axis.tensor)[axis.axis])]


def expand(view: GraphView, node: Node, axis: Axis) -> list[Link]:
    x, out = node.inputs[0], node.outputs[0]
    out_rank = len(view.shape(out))
    shift = out_rank - len(view.shape(x))
    out_axis = axis.axis if axis.tensor == out else axis.axis + shift
    x_axis = out_axis - shift
    if x_axis < 0 or view.shape(x)[x_axis] != view.shape(out)[out_axis]:
        return _block(axis, node, "broadcasts into these channels")
    other = Axis(out, out_axis) if axis.tensor == x else Axis(x, x_axis)
    return [_same(axis, other, view.shape(out)[out_axis])]


# -- reductions -----------------------------------------------------------------------------------
_EXACT_WHEN_ZERO = {"ReduceSum", "ReduceSumSquare", "ReduceL1", "ReduceL2"}


def _reduced_axes(view: GraphView, node: Node) -> tuple[list[int], bool]:
    rank = len(view.shape(node.inputs[0]))
    if node.op_type in ("GlobalAveragePool", "GlobalMaxPool"):
        return list(range(2, rank)), True
    if node.op_type in ("ArgMax", "ArgMin"):
        return [int(node.attrs.get("axis", 0)) % rank], bool(node.attrs.get("keepdims", 1))
    axes = node.attrs.get("axes")
    if axes is None and len(node.inputs) > 1 and node.inputs[1]:
        value = view.constant(node.inputs[1])
        axes = None if value is None else value.reshape(-1).tolist()
    if axes is None or len(axes) == 0:
        axes = list(range(rank))
    return sorted(int(a) % rank for a in axes), bool(node.attrs.get("keepdims", 1))


def reduction(view: GraphView, node: Node, axis: Axis) -> list[Link]:
    reduced, keep = _reduced_axes(view, node)
    x, out = node.inputs[0], node.outputs[0]
    if axis.tensor == x:
        if axis.axis in reduced:
            if node.op_type in _EXACT_WHEN_ZERO:
                return []
            return _block(axis, node, "reduces over these channels")
        out_axis = axis.axis if keep else axis.axis - sum(1 for r in reduced if r < axis.axis)
        return [_same(axis, Axis(out, out_axis), view.shape(x)[axis.axis])]
    kept_axes = list(range(len(view.shape(x)))) if keep else \
        [a for a in range(len(view.shape(x))) if a not in reduced]
    x_axis = kept_axes[axis.axis]
    if x_axis in reduced:
        return _block(axis, node, "reduced axis")
    return [_same(axis, Axis(x, x_axis), view.shape(out)[axis.axis])]


def layer_norm(view: GraphView, node: Node, axis: Axis) -> list[Link]:
    rank = len(view.shape(node.inputs[0]))
    first = int(node.attrs.get("axis", -1)) % rank
    if axis.axis >= first:
        return _block(axis, node, "normalizes over these channels")
    other = node.outputs[0] if axis.tensor == node.inputs[0] else node.inputs[0]
    return [_same(axis, Axis(other, axis.axis), view.shape(axis.tensor)[axis.axis])]


# -- weighted layers --------------------------------------------------------------------------------
def conv(view: GraphView, node: Node, axis: Axis) -> list[Link]:
    """Channels of a convolution's input and output are independent (a weighted layer ends and
    another starts), except in depthwise convolutions (input channel c makes outputs c*m..c*m+m-1)
    and grouped ones (every group must keep the same count: the same in-group index goes in all)."""
    x, out = node.inputs[0], node.outputs[0]
    if axis.axis == 0:  # the batch
        return [_same(axis, Axis(out if axis.tensor == x else x, 0), view.shape(axis.tensor)[0])]
    if axis.axis >= 2:
        return _block(axis, node, "spatial axis")
    groups = int(node.attrs.get("group", 1))
    c_in, c_out = view.shape(x)[1], view.shape(out)[1]
    if groups == 1:
        return []
    if groups == c_in:  # depthwise (with a channel multiplier when c_out > c_in)
        multiplier = c_out // c_in
        inputs = np.repeat(np.arange(c_in, dtype=np.int64), multiplier)
        return [Coupling(Axis(x, 1), inputs, Axis(out, 1), np.arange(c_out, dtype=np.int64))]
    size = c_in if axis.tensor == x else c_out
    index = np.arange(size, dtype=np.int64)
    return [Coupling(axis, index, axis, index % (size // groups))]


def gemm(view: GraphView, node: Node, axis: Axis) -> list[Link]:
    a, b, out = node.inputs[0], node.inputs[1], node.outputs[0]
    trans_a, trans_b = int(node.attrs.get("transA", 0)), int(node.attrs.get("transB", 0))
    c = node.inputs[2] if len(node.inputs) > 2 else ""
    links: list[Link] = []
    if c and not view.is_constant(c):
        links += _block(axis, node, "bias computed at run time")
        return links
    m_axis_a, k_axis_a = (1, 0) if trans_a else (0, 1)
    k_axis_b, n_axis_b = (1, 0) if trans_b else (0, 1)
    b_const = view.is_constant(b)
    if view.is_constant(a):
        return _block(axis, node, "constant first operand")
    if axis.tensor == a:
        if axis.axis == m_axis_a:
            return [_same(axis, Axis(out, 0), view.shape(a)[m_axis_a])]
        return [] if b_const else [_same(axis, Axis(b, k_axis_b), view.shape(a)[k_axis_a])]
    if axis.tensor == b:
        if axis.axis == k_axis_b:
            return [_same(axis, Axis(a, k_axis_a), view.shape(b)[k_axis_b])]
        return [_same(axis, Axis(out, 1), view.shape(b)[n_axis_b])]
    if axis.axis == 0:
        return [_same(axis, Axis(a, m_axis_a), view.shape(out)[0])]
    return [] if b_const else [_same(axis, Axis(b, n_axis_b), view.shape(out)[1])]


def matmul(view: GraphView, node: Node, axis: Axis) -> list[Link]:
    a, b, out = node.inputs[0], node.inputs[1], node.outputs[0]
    sa, sb, so = view.shape(a), view.shape(b), view.shape(out)
    if len(sa) < 2 or len(sb) < 2:
        return _block(axis, node, "matrix-vector product")
    ra, rb, ro = len(sa), len(sb), len(so)
    const_a, const_b = view.is_constant(a), view.is_constant(b)
    if axis.tensor == out and out not in (a, b):
        if axis.axis == ro - 1:
            return [] if const_b else [_same(axis, Axis(b, rb - 1), so[-1])]
        if axis.axis == ro - 2:
            return [] if const_a else [_same(axis, Axis(a, ra - 2), so[-2])]
        links: list[Link] = []
        for name, shape in ((a, sa), (b, sb)):
            aligned = axis.axis - (ro - len(shape))
            if aligned >= 0 and shape[aligned] == so[axis.axis] and not view.is_constant(name):
                links.append(_same(axis, Axis(name, aligned), so[axis.axis]))
        return links
    is_a = axis.tensor == a
    rank = ra if is_a else rb
    if is_a and axis.axis == rank - 1 or not is_a and axis.axis == rank - 2:  # the contracted axis
        other_const = const_b if is_a else const_a
        if other_const:
            return []
        other = Axis(b, rb - 2) if is_a else Axis(a, ra - 1)
        return [_same(axis, other, sa[-1])]
    if is_a and axis.axis == rank - 2:
        return [_same(axis, Axis(out, ro - 2), sa[-2])]
    if not is_a and axis.axis == rank - 1:
        return [_same(axis, Axis(out, ro - 1), sb[-1])]
    shape = sa if is_a else sb
    out_axis = axis.axis + ro - rank
    if so[out_axis] != shape[axis.axis]:
        return _block(axis, node, "broadcast batch axis")
    return [_same(axis, Axis(out, out_axis), so[out_axis])]


# -- data movement ----------------------------------------------------------------------------------
def transpose(view: GraphView, node: Node, axis: Axis) -> list[Link]:
    x, out = node.inputs[0], node.outputs[0]
    rank = len(view.shape(x))
    perm = list(node.attrs.get("perm") or reversed(range(rank)))
    if axis.tensor == x:
        return [_same(axis, Axis(out, perm.index(axis.axis)), view.shape(x)[axis.axis])]
    return [_same(axis, Axis(x, perm[axis.axis]), view.shape(out)[axis.axis])]


def reshape_like(view: GraphView, node: Node, axis: Axis, tracked: set[Axis]) -> list[Link]:
    """Reshape, Flatten, Squeeze, Unsqueeze: follow the axis through its block of axes."""
    x, out = node.inputs[0], node.outputs[0]
    sx, so = view.shape(x), view.shape(out)
    blocks = reshape_map.reshape_blocks(sx, so)
    if blocks is None:
        return _block(axis, node, "reshape the channel axis cannot be followed through")
    side = 0 if axis.tensor == x else 1
    ins, outs = reshape_map.block_of(blocks, axis.axis, side)
    here, there = (ins, outs) if side == 0 else (outs, ins)
    shape_here, shape_there = (sx, so) if side == 0 else (so, sx)
    other_name = out if side == 0 else x
    if len(here) == 1 and len(there) == 1:
        return [_same(axis, Axis(other_name, there[0]), shape_here[axis.axis])]
    if len(here) == 1:  # this axis is split into several: follow one of them
        followed = reshape_map.follow_axis(there, shape_there,
                                           {a.axis for a in tracked if a.tensor == other_name})
        if followed is None:
            return _block(axis, node, "reshape of the channel axis")
        index = np.arange(shape_here[axis.axis], dtype=np.int64)
        coords = reshape_map.coordinates(index, there, shape_there, followed)
        return [Coupling(axis, index, Axis(other_name, followed), coords)]
    if len(there) == 1:  # this axis is merged with others: every merged index holding it
        flat = np.arange(shape_there[there[0]], dtype=np.int64)
        coords = reshape_map.coordinates(flat, here, shape_here, axis.axis)
        return [Coupling(axis, coords, Axis(other_name, there[0]), flat)]
    return _block(axis, node, "reshape regroups the channel axis")


def concat(view: GraphView, node: Node, axis: Axis) -> list[Link]:
    out = node.outputs[0]
    rank = len(view.shape(out))
    cat_axis = int(node.attrs["axis"]) % rank
    links: list[Link] = []
    offset = 0
    for name in node.inputs:
        size = view.shape(name)[cat_axis]
        if axis.axis != cat_axis:
            if name != axis.tensor and not view.is_constant(name):
                links.append(_same(axis, Axis(name, axis.axis), view.shape(out)[axis.axis]))
        else:
            index = np.arange(size, dtype=np.int64)
            if view.is_constant(name):
                if axis.tensor == out:
                    reason = f"concatenated constant (Concat '{node.name}')"
                    links.append(Blocking(axis, offset + index, reason))
            elif axis.tensor == out or axis.tensor == name:
                links.append(Coupling(Axis(out, cat_axis), offset + index, Axis(name, cat_axis), index))
        offset += size
    if axis.tensor != out and axis.axis != cat_axis:
        links.append(_same(axis, Axis(out, axis.axis), view.shape(out)[axis.axis]))
    return links


def split(view: GraphView, node: Node, axis: Axis) -> list[Link]:
    x = node.inputs[0]
    rank = len(view.shape(x))
    split_axis = int(node.attrs.get("axis", 0)) % rank
    links: list[Link] = []
    offset = 0
    for name in node.outputs:
        size = view.shape(name)[split_axis]
        if axis.axis != split_axis:
            if name != axis.tensor:
                links.append(_same(axis, Axis(name, axis.axis), view.shape(x)[axis.axis]))
        elif axis.tensor in (x, name):
            index = np.arange(size, dtype=np.int64)
            links.append(Coupling(Axis(x, split_axis), offset + index, Axis(name, split_axis), index))
        offset += size
    if axis.tensor != x and axis.axis != split_axis:
        links.append(_same(axis, Axis(x, axis.axis), view.shape(x)[axis.axis]))
    return links


def slice_rule(view: GraphView, node: Node, axis: Axis) -> list[Link]:
    x, out = node.inputs[0], node.outputs[0]
    bounds = constant_slice_bounds(view, node)
    if bounds is None:
        return _block(axis, node, "slice bounds computed at run time")
    size_x = view.shape(x)[axis.axis]
    start, end, step = bounds.get(axis.axis, (0, size_x, 1))
    if (start, end, step) == (0, size_x, 1):
        return [_same(axis, Axis(out if axis.tensor == x else x, axis.axis), size_x)]
    if step != 1:
        return _block(axis, node, "strided slice of the channel axis")
    index = np.arange(end - start, dtype=np.int64)
    return [Coupling(Axis(x, axis.axis), start + index, Axis(out, axis.axis), index)]


def gather(view: GraphView, node: Node, axis: Axis) -> list[Link]:
    x, indices, out = node.inputs[0], node.inputs[1], node.outputs[0]
    rank = len(view.shape(x))
    gather_axis = int(node.attrs.get("axis", 0)) % rank
    index_rank = len(view.shape(indices))
    if axis.tensor == indices:
        return _block(axis, node, "gather indices")
    if axis.tensor == x:
        if axis.axis == gather_axis:
            return _block(axis, node, "gathers along these channels")
        out_axis = axis.axis if axis.axis < gather_axis else axis.axis + index_rank - 1
        return [_same(axis, Axis(out, out_axis), view.shape(x)[axis.axis])]
    if gather_axis <= axis.axis < gather_axis + index_rank:
        return _block(axis, node, "gathered axis")
    x_axis = axis.axis if axis.axis < gather_axis else axis.axis - index_rank + 1
    return [_same(axis, Axis(x, x_axis), view.shape(out)[axis.axis])]


def shape_of(_view: GraphView, _node: Node, _axis: Axis) -> list[Link]:
    """Shape reads the (pruned) size at run time; the pruned graph is checked by a probe run."""
    return []


def unknown(_view: GraphView, node: Node, axis: Axis) -> list[Link]:
    return _block(axis, node, "no pruning rule for this op")


_ELEMENTWISE = {
    "Add", "Sub", "Mul", "Div", "Pow", "Max", "Min", "Sum", "Mean", "Where", "PRelu", "Equal", "Less",
    "LessOrEqual", "Greater", "GreaterOrEqual", "And", "Or", "Xor", "Relu", "Sigmoid", "Tanh", "Exp", "Log",
    "Sqrt", "Abs", "Neg", "Reciprocal", "Floor", "Ceil", "Round", "Sign", "Erf", "Sin", "Cos", "Not",
    "Softplus", "Softsign", "HardSwish", "Mish", "LeakyRelu", "Elu", "HardSigmoid", "Gelu", "Clip", "Cast",
    "Identity", "Dropout", "BatchNormalization",
}
RULES: dict[str, Rule] = {op: elementwise for op in _ELEMENTWISE}
RULES.update({
    "Conv": conv, "ConvTranspose": conv, "Gemm": gemm, "MatMul": matmul,
    "MaxPool": channel_only("pooling window"), "AveragePool": channel_only("pooling window"),
    "InstanceNormalization": channel_only("normalizes over the spatial axes"),
    "LRN": lambda v, n, a: _block(a, n, "normalizes across channels"),
    "GlobalAveragePool": reduction, "GlobalMaxPool": reduction, "ArgMax": reduction, "ArgMin": reduction,
    "ReduceMean": reduction, "ReduceSum": reduction, "ReduceMax": reduction, "ReduceMin": reduction,
    "ReduceProd": reduction, "ReduceL1": reduction, "ReduceL2": reduction, "ReduceSumSquare": reduction,
    "ReduceLogSumExp": reduction,
    "LayerNormalization": layer_norm, "Softmax": softmax, "LogSoftmax": softmax, "Pad": pad,
    "Resize": resize, "Upsample": resize, "Expand": expand, "Transpose": transpose, "Concat": concat,
    "Split": split, "Slice": slice_rule, "Gather": gather, "Shape": shape_of, "Size": shape_of,
})
RESHAPES = {"Reshape", "Flatten", "Squeeze", "Unsqueeze"}


def links(view: GraphView, node: Node, axis: Axis, tracked: set[Axis]) -> list[Link]:
    """The couplings and blockings of ``node`` for the tracked ``axis`` of one of its tensors."""
    if node.domain:
        return unknown(view, node, axis)
    if node.op_type in RESHAPES:
        if axis.tensor not in (node.inputs[0], node.outputs[0]):
            return _block(axis, node, "reshape target")
        return reshape_like(view, node, axis, tracked)
    if node.op_type in ("Conv", "ConvTranspose") and axis.tensor not in (node.inputs[0], node.outputs[0]):
        return _block(axis, node, "weights computed at run time")
    if node.op_type == "Shape" or node.op_type == "Size":
        return []
    return RULES.get(node.op_type, unknown)(view, node, axis)
