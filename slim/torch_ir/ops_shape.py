"""Data movement and reductions: Shape, Reshape, Transpose, Concat, Split, Slice, Gather, Pad, Reduce*.

Shape arithmetic runs in torch on small int64 tensors, so models whose reshape targets are computed
from ``Shape`` at run time (PP-OCR's dynamic widths) keep working for any input size.
"""

from __future__ import annotations

from typing import Any

import torch
import torch.nn.functional as F

from lite_converter.ir import ConversionError, Node
from slim.slice_bounds import clamp_slice
from slim.torch_ir.registry import Value, floats, ints, optional, register


def _axis(axis: int, rank: int) -> int:
    return axis + rank if axis < 0 else axis


@register("Shape")
def shape(node: Node, inputs: list[Value], _module: object) -> torch.Tensor:
    dims = list(inputs[0].shape)
    start, end = int(node.attrs.get("start", 0)), node.attrs.get("end")
    dims = dims[start:] if end is None else dims[start:int(end)]
    return torch.tensor(dims, dtype=torch.int64)


@register("Size")
def size(_node: Node, inputs: list[Value], _module: object) -> torch.Tensor:
    return torch.tensor(inputs[0].numel(), dtype=torch.int64)


def onnx_reshape_target(node: Node, x: torch.Tensor, target: list[int]) -> list[int]:
    """ONNX Reshape's target with 0 (copy the input dim, unless allowzero) resolved; -1 stays."""
    if node.attrs.get("allowzero", 0):
        return target
    return [x.shape[i] if d == 0 else d for i, d in enumerate(target)]


@register("Reshape")
def reshape(node: Node, inputs: list[Value], _module: object) -> torch.Tensor:
    x = inputs[0]
    target = ints(inputs[1]) if len(inputs) > 1 else list(node.attrs["shape"])
    return x.reshape(onnx_reshape_target(node, x, target))


@register("Flatten")
def flatten(node: Node, inputs: list[Value], _module: object) -> torch.Tensor:
    x = inputs[0]
    axis = _axis(int(node.attrs.get("axis", 1)), x.dim())
    outer = 1
    for d in x.shape[:axis]:
        outer *= d
    return x.reshape(outer, -1)


@register("Transpose")
def transpose(node: Node, inputs: list[Value], _module: object) -> torch.Tensor:
    x = inputs[0]
    perm = node.attrs.get("perm") or list(reversed(range(x.dim())))
    return x.permute(*perm)


def _axes(node: Node, inputs: list[Value], index: int) -> list[int] | None:
    """Axes from the attribute (older opsets) or the optional input ``index`` (newer ones)."""
    if "axes" in node.attrs:
        return list(node.attrs["axes"])
    value = optional(inputs, index)
    return None if value is None else ints(value)


@register("Squeeze")
def squeeze(node: Node, inputs: list[Value], _module: object) -> torch.Tensor:
    x = inputs[0]
    axes = _axes(node, inputs, 1)
    if axes is None:
        return x.squeeze()
    keep = [d for i, d in enumerate(x.shape) if i not in {_axis(a, x.dim()) for a in axes}]
    return x.reshape(keep)


@register("Unsqueeze")
def unsqueeze(node: Node, inputs: list[Value], _module: object) -> torch.Tensor:
    x = inputs[0]
    axes = _axes(node, inputs, 1) or []
    rank = x.dim() + len(axes)
    shape = list(x.shape)
    for axis in sorted(_axis(a, rank) for a in axes):
        shape.insert(axis, 1)
    return x.reshape(shape)


@register("Concat")
def concat(node: Node, inputs: list[Value], _module: object) -> torch.Tensor:
    return torch.cat([v for v in inputs if v is not None], dim=int(node.attrs["axis"]))


@register("Split")
def split(node: Node, inputs: list[Value], _module: object) -> list[torch.Tensor]:
    x = inputs[0]
    axis = _axis(int(node.attrs.get("axis", 0)), x.dim())
    sizes = ints(optional(inputs, 1)) or list(node.attrs.get("split", []))
    count = len(node.outputs)
    if not sizes:
        total = x.shape[axis]
        step = -(-total // count)  # ceil: the last part may be smaller (opset 18 num_outputs)
        sizes = [min(step, total - i * step) for i in range(count)]
    return list(torch.split(x, sizes, dim=axis))


def slice_bounds(node: Node, inputs: list[Value], shape: list[int]) -> list[tuple[int, int, int, int]]:
    """(axis, start, end, step) per sliced axis, clamped the way ONNX clamps them."""
    if len(inputs) > 1:
        starts, ends = ints(inputs[1]), ints(inputs[2])
        axes = ints(optional(inputs, 3)) or list(range(len(starts)))
        steps = ints(optional(inputs, 4)) or [1] * len(starts)
    else:
        starts, ends = list(node.attrs["starts"]), list(node.attrs["ends"])
        axes = list(node.attrs.get("axes", range(len(starts))))
        steps = [1] * len(starts)
    result = []
    for start, end, axis, step in zip(starts, ends, axes, steps, strict=True):
        axis = _axis(axis, len(shape))
        if step == 0:
            raise ConversionError(f"node '{node.name}' (Slice): step 0")
        start, end = clamp_slice(start, end, step, shape[axis])
        result.append((axis, start, end, step))
    return result


@register("Slice")
def slice_(node: Node, inputs: list[Value], _module: object) -> torch.Tensor:
    result = inputs[0]
    for axis, start, end, step in slice_bounds(node, inputs, list(result.shape)):
        if step > 0:
            result = result[(slice(None),) * axis + (slice(start, end, step),)]
        else:  # torch has no negative steps: gather the positions
            positions = torch.tensor(list(range(start, end, step)), dtype=torch.long)
            result = result.index_select(axis, positions)
    return result


@register("Gather")
def gather(node: Node, inputs: list[Value], _module: object) -> torch.Tensor:
    x, indices = inputs[0], inputs[1].long()
    axis = _axis(int(node.attrs.get("axis", 0)), x.dim())
    indices = torch.where(indices < 0, indices + x.shape[axis], indices)
    flat = x.index_select(axis, indices.reshape(-1))
    return flat.reshape(tuple(x.shape[:axis]) + tuple(indices.shape) + tuple(x.shape[axis + 1:]))


@register("Expand")
def expand(_node: Node, inputs: list[Value], _module: object) -> torch.Tensor:
    x, target = inputs[0], ints(inputs[1])
    rank = max(x.dim(), len(target))
    shape = [1] * (rank - x.dim()) + list(x.shape)
    target = [1] * (rank - len(target)) + target
    out = [max(a, b) if b != 1 else a for a, b in zip(shape, target, strict=True)]
    return x.reshape(shape).expand(out)


@register("Tile")
def tile(_node: Node, inputs: list[Value], _module: object) -> torch.Tensor:
    return inputs[0].repeat(*ints(inputs[1]))


@register("ConstantOfShape")
def constant_of_shape(node: Node, inputs: list[Value], module: Any) -> torch.Tensor:  # noqa: ANN401
    value = node.attrs.get("value")
    fill = 0.0 if value is None else value.reshape(-1)[0].item()
    dtype = module.float_dtype if value is None or value.dtype.kind == "f" else \
        getattr(torch, str(value.dtype))
    return torch.full(ints(inputs[0]), fill, dtype=dtype)


@register("Range")
def range_(_node: Node, inputs: list[Value], _module: object) -> torch.Tensor:
    start, limit, delta = (v.reshape(()) for v in inputs[:3])
    return torch.arange(start.item(), limit.item(), delta.item(), dtype=inputs[0].dtype)


@register("Pad")
def pad(node: Node, inputs: list[Value], _module: object) -> torch.Tensor:
    x = inputs[0]
    pads = ints(optional(inputs, 1)) if len(inputs) > 1 else list(node.attrs["pads"])
    value = floats(optional(inputs, 2)) if len(inputs) > 2 else [float(node.attrs.get("value", 0.0))]
    axes = ints(optional(inputs, 3)) if len(inputs) > 3 else list(range(x.dim()))
    rank = x.dim()
    full = [0] * (2 * rank)
    for i, axis in enumerate(_axis(a, rank) for a in axes):
        full[axis], full[rank + axis] = pads[i], pads[len(axes) + i]
    flat: list[int] = []
    for axis in reversed(range(rank)):
        flat += [full[axis], full[rank + axis]]
    mode = node.attrs.get("mode", "constant")
    if mode == "constant":
        return F.pad(x, flat, value=value[0] if value else 0.0)
    torch_mode = {"reflect": "reflect", "edge": "replicate"}.get(mode)
    if torch_mode is None:
        raise ConversionError(f"node '{node.name}' (Pad): mode {mode!r} is not supported")
    spatial = flat[: 2 * (rank - 2)]
    if any(flat[2 * (rank - 2):]):
        raise ConversionError(f"node '{node.name}' (Pad): {mode} padding of batch or channels")
    return F.pad(x, spatial, mode=torch_mode)


_REDUCTIONS = {"ReduceMean", "ReduceSum", "ReduceMax", "ReduceMin", "ReduceProd", "ReduceL1", "ReduceL2",
               "ReduceSumSquare", "ReduceLogSumExp"}


@register(*_REDUCTIONS)
def reduce(node: Node, inputs: list[Value], _module: object) -> torch.Tensor:
    x = inputs[0]
    axes = _axes(node, inputs, 1)
    keep = bool(node.attrs.get("keepdims", 1))
    if not axes:
        if node.attrs.get("noop_with_empty_axes", 0):
            return x
        axes = list(range(x.dim()))
    dims = tuple(sorted(_axis(a, x.dim()) for a in axes))
    op = node.op_type
    if op == "ReduceMean":
        return x.mean(dim=dims, keepdim=keep)
    if op == "ReduceSum":
        return x.sum(dim=dims, keepdim=keep)
    if op == "ReduceMax":
        return x.amax(dim=dims, keepdim=keep)
    if op == "ReduceMin":
        return x.amin(dim=dims, keepdim=keep)
    if op == "ReduceProd":
        result = x
        for dim in reversed(dims):
            result = result.prod(dim=dim, keepdim=keep)
        return result
    if op == "ReduceL1":
        return x.abs().sum(dim=dims, keepdim=keep)
    if op == "ReduceL2":
        return x.square().sum(dim=dims, keepdim=keep).sqrt()
    if op == "ReduceSumSquare":
        return x.square().sum(dim=dims, keepdim=keep)
    return torch.logsumexp(x, dim=dims, keepdim=keep)


@register("ArgMax", "ArgMin")
def arg_extreme(node: Node, inputs: list[Value], _module: object) -> torch.Tensor:
    x = inputs[0]
    axis = int(node.attrs.get("axis", 0))
    keep = bool(node.attrs.get("keepdims", 1))
    if node.attrs.get("select_last_index", 0):
        flipped = x.flip(axis)
        found = flipped.argmax(axis, keep) if node.op_type == "ArgMax" else flipped.argmin(axis, keep)
        return x.shape[axis] - 1 - found
    return x.argmax(axis, keep) if node.op_type == "ArgMax" else x.argmin(axis, keep)


@register("DepthToSpace")
def depth_to_space(node: Node, inputs: list[Value], _module: object) -> torch.Tensor:
    x = inputs[0]
    b = int(node.attrs["blocksize"])
    n, c, h, w = x.shape
    if node.attrs.get("mode", "DCR") == "DCR":
        y = x.reshape(n, b, b, c // (b * b), h, w).permute(0, 3, 4, 1, 5, 2)
    else:
        y = x.reshape(n, c // (b * b), b, b, h, w).permute(0, 1, 4, 2, 5, 3)
    return y.reshape(n, c // (b * b), h * b, w * b)


@register("SpaceToDepth")
def space_to_depth(node: Node, inputs: list[Value], _module: object) -> torch.Tensor:
    x = inputs[0]
    b = int(node.attrs["blocksize"])
    n, c, h, w = x.shape
    y = x.reshape(n, c, h // b, b, w // b, b).permute(0, 3, 5, 1, 2, 4)
    return y.reshape(n, c * b * b, h // b, w // b)
