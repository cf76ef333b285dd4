"""TFLite data-movement and reduction builtins -> .lite SLICE, SPLIT, CONCAT, GATHER, REDUCE_*, ...

A .tflite's shapes are fixed by the file, so index arithmetic is done here, once: STRIDED_SLICE
(begin / end / ellipsis / new-axis / shrink masks, negative strides) becomes one SLICE with
resolved bounds plus a RESHAPE for the dims it adds or drops; PACK / UNPACK become UNSQUEEZE +
CONCAT / SPLIT + SQUEEZE; REVERSE_V2 a SLICE with step -1. Operands that say where to cut (begin,
axes, sizes...) must be constants: ops computing them at run time are refused by name.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from lite_converter.frontends.tflite_ops import constant_operand, fp32_op, move_op, same_params, static_shape

if TYPE_CHECKING:
    from lite_converter.frontends.tflite_frontend import TfliteGraphBuilder

# TFLite reduction builtin -> .lite op (MEAN is tflite_ops._mean: it becomes a global pool when it can).
REDUCTIONS = {
    "SUM": "REDUCE_SUM",
    "REDUCE_MAX": "REDUCE_MAX",
    "REDUCE_MIN": "REDUCE_MIN",
    "REDUCE_PROD": "REDUCE_PROD",
}


def _int64(b: TfliteGraphBuilder, name: str, values: list[int] | np.ndarray) -> str:
    return b.graph.add_constant(name, np.asarray(values, np.int64).reshape(-1))


def _bit(mask: int, index: int) -> bool:
    return bool((mask >> index) & 1)


def _strided_slice(b: TfliteGraphBuilder, op: Any, inputs: list[str], outputs: list[str]) -> None:  # noqa: ANN401
    x, out = inputs[0], outputs[0]
    begin, end, strides = (
        constant_operand(b, inputs[i], what, out)
        for i, what in ((1, "STRIDED_SLICE begin"), (2, "STRIDED_SLICE end"), (3, "STRIDED_SLICE strides"))
    )
    if begin is None or end is None or strides is None:
        return
    o = op.builtinOptions
    masks = {
        k: int(getattr(o, k, 0) or 0) if o is not None else 0
        for k in ("beginMask", "endMask", "ellipsisMask", "newAxisMask", "shrinkAxisMask")
    }
    offset = bool(getattr(o, "offset", False)) if o is not None else False
    resolved = resolve_strided_slice(static_shape(b, x), begin, end, strides, masks, offset)
    if isinstance(resolved, str):
        b.problems.append(f"op writing '{out}': STRIDED_SLICE {resolved}")
        return
    starts, ends, steps, shape = resolved
    if shape != static_shape(b, out):
        b.problems.append(
            f"op writing '{out}': STRIDED_SLICE gives shape {shape}, the file says {static_shape(b, out)}"
        )
        return
    axes = list(range(len(starts)))
    sliced = b.graph.add_tensor(
        f"{out}_sliced",
        b.graph.tensors[out].dtype,
        [len(range(s, e, t)) for s, e, t in zip(starts, ends, steps, strict=True)],
    )
    b.graph.tensors[sliced].quant = b.graph.tensors[out].quant
    ends = [e if e >= 0 else -(static_shape(b, x)[i] + 1) for i, e in enumerate(ends)]  # -1: past index 0
    operands = [
        x,
        _int64(b, f"{out}_starts", starts),
        _int64(b, f"{out}_ends", ends),
        _int64(b, f"{out}_axes", axes),
        _int64(b, f"{out}_steps", steps),
    ]
    if b.graph.tensors[sliced].shape == shape:
        move_op(b, "SLICE", out, operands, [out])
        return
    move_op(b, "SLICE", f"{out}_slice", operands, [sliced])
    move_op(b, "RESHAPE", out, [sliced, _int64(b, f"{out}_shape", shape)], [out], allowzero=False)


def resolve_strided_slice(
    shape: list[int],
    begin: np.ndarray,
    end: np.ndarray,
    strides: np.ndarray,
    masks: dict[str, int],
    offset: bool = False,
) -> tuple[list[int], list[int], list[int], list[int]] | str:
    """TF's StridedSlice on a known shape: (starts, ends, steps) per input dim, with ``end`` -1 meaning
    "through index 0" for a negative step, and the output shape; or why it cannot be done."""
    if not len(begin) == len(end) == len(strides):
        return "begin, end and strides differ in length"
    if any(s == 0 for s in strides):
        return "has a zero stride"
    starts, ends, steps, out_shape = [], [], [], []
    dim = 0
    ellipsis_seen = False
    real_dims = sum(
        1
        for i in range(len(begin))
        if not _bit(masks["newAxisMask"], i) and not _bit(masks["ellipsisMask"], i)
    )
    for i in range(len(begin)):
        if _bit(masks["ellipsisMask"], i) and not ellipsis_seen:
            ellipsis_seen = True
            for _ in range(len(shape) - real_dims):
                if dim >= len(shape):
                    return "has more dims than its input"
                starts.append(0), ends.append(shape[dim]), steps.append(1), out_shape.append(shape[dim])
                dim += 1
            continue
        if _bit(masks["newAxisMask"], i):
            out_shape.append(1)
            continue
        if dim >= len(shape):
            return f"indexes {dim + 1} dims of a rank-{len(shape)} input"
        size, step = shape[dim], int(strides[i])
        first, last = int(begin[i]), int(end[i])
        if offset:
            last += first
        if _bit(masks["shrinkAxisMask"], i):
            index = first + size if first < 0 else first
            if not 0 <= index < size:
                return f"index {first} is out of range for a dim of {size}"
            starts.append(index), ends.append(index + 1), steps.append(1)
        else:
            low, high = (0, size) if step > 0 else (-1, size - 1)
            first = (
                (low if step > 0 else high)
                if _bit(masks["beginMask"], i)
                else min(max(first + size if first < 0 else first, low), high)
            )
            last = (
                (high if step > 0 else low)
                if _bit(masks["endMask"], i)
                else min(max(last + size if last < 0 else last, low), high)
            )
            starts.append(first), ends.append(last), steps.append(step)
            out_shape.append(len(range(first, last, step)))
        dim += 1
    for rest in shape[dim:]:  # an implicit ellipsis at the end
        starts.append(0), ends.append(rest), steps.append(1), out_shape.append(rest)
    return starts, ends, steps, out_shape


def _slice(b: TfliteGraphBuilder, op: Any, inputs: list[str], outputs: list[str]) -> None:  # noqa: ANN401
    x, out = inputs[0], outputs[0]
    begin, size = (
        constant_operand(b, inputs[1], "SLICE begin", out),
        constant_operand(b, inputs[2], "SLICE size", out),
    )
    if begin is None or size is None:
        return
    shape = static_shape(b, x)
    ends = [shape[i] if s < 0 else int(begin[i] + s) for i, s in enumerate(size)]
    move_op(
        b,
        "SLICE",
        out,
        [
            x,
            _int64(b, f"{out}_starts", begin),
            _int64(b, f"{out}_ends", ends),
            _int64(b, f"{out}_axes", list(range(len(ends)))),
        ],
        [out],
    )


def _split_to(
    b: TfliteGraphBuilder, x: str, axis: int, sizes: list[int], outputs: list[str], name: str
) -> None:
    move_op(b, "SPLIT", name, [x, _int64(b, f"{name}_sizes", sizes)], outputs, axis=axis)


def _split(b: TfliteGraphBuilder, op: Any, inputs: list[str], outputs: list[str]) -> None:  # noqa: ANN401
    is_v = b.opcode_name(op) == "SPLIT_V"
    x, axis_name = (inputs[0], inputs[2]) if is_v else (inputs[1], inputs[0])
    axis = constant_operand(b, axis_name, "split axis", outputs[0])
    if axis is None:
        return
    shape = static_shape(b, x)
    axis_value = int(axis[0]) % len(shape)
    sizes = [static_shape(b, o)[axis_value] for o in outputs]
    _split_to(b, x, axis_value, sizes, outputs, outputs[0])


def _pack(b: TfliteGraphBuilder, op: Any, inputs: list[str], outputs: list[str]) -> None:  # noqa: ANN401
    out = outputs[0]
    axis = int(op.builtinOptions.axis) % len(static_shape(b, out))
    expanded = []
    for index, name in enumerate(inputs):
        shape = static_shape(b, name)
        one = b.graph.add_tensor(
            f"{out}_part{index}", b.graph.tensors[name].dtype, shape[:axis] + [1] + shape[axis:]
        )
        b.graph.tensors[one].quant = b.graph.tensors[name].quant
        move_op(b, "UNSQUEEZE", f"{out}_unsqueeze{index}", [name], [one], axes=[axis])
        expanded.append(one)
    int8 = [b.is_int8(n) for n in [*expanded, out]]
    if not any(int8) or all(int8) and same_params(b, [*expanded, out]):
        b.add_node("CONCAT", out, expanded, [out], axis=axis)
    else:
        fp32_op(b, "CONCAT", out, expanded, out, axis=axis)


def _unpack(b: TfliteGraphBuilder, op: Any, inputs: list[str], outputs: list[str]) -> None:  # noqa: ANN401
    x = inputs[0]
    shape = static_shape(b, x)
    axis = int(op.builtinOptions.axis) % len(shape)
    parts = []
    for index, name in enumerate(outputs):
        part = b.graph.add_tensor(
            f"{name}_part{index}", b.graph.tensors[x].dtype, shape[:axis] + [1] + shape[axis + 1 :]
        )
        b.graph.tensors[part].quant = b.graph.tensors[x].quant
        parts.append(part)
    _split_to(b, x, axis, [1] * len(outputs), parts, f"{outputs[0]}_split")
    for part, name in zip(parts, outputs, strict=True):
        move_op(b, "SQUEEZE", name, [part], [name], axes=[axis])


def _gather(b: TfliteGraphBuilder, op: Any, inputs: list[str], outputs: list[str]) -> None:  # noqa: ANN401
    x, out = inputs[0], outputs[0]
    o = op.builtinOptions
    axis = int(o.axis) if o is not None else 0
    batch_dims = int(getattr(o, "batchDims", 0) or 0) if o is not None else 0
    rank = len(static_shape(b, x))
    move_op(
        b,
        "GATHER",
        out,
        [x, inputs[1]],
        [out],
        axis=axis % rank,
        batch_dims=batch_dims % max(len(static_shape(b, inputs[1])), 1) if batch_dims < 0 else batch_dims,
    )


def _embedding_lookup(b: TfliteGraphBuilder, op: Any, inputs: list[str], outputs: list[str]) -> None:  # noqa: ANN401
    move_op(b, "GATHER", outputs[0], [inputs[1], inputs[0]], outputs, axis=0, batch_dims=0)


def _gather_nd(b: TfliteGraphBuilder, op: Any, inputs: list[str], outputs: list[str]) -> None:  # noqa: ANN401
    move_op(b, "GATHER_ND", outputs[0], inputs[:2], outputs, batch_dims=0)


def _expand_dims(b: TfliteGraphBuilder, op: Any, inputs: list[str], outputs: list[str]) -> None:  # noqa: ANN401
    out = outputs[0]
    move_op(
        b,
        "RESHAPE",
        out,
        [inputs[0], _int64(b, f"{out}_shape", static_shape(b, out))],
        [out],
        allowzero=False,
    )


def _tile(b: TfliteGraphBuilder, op: Any, inputs: list[str], outputs: list[str]) -> None:  # noqa: ANN401
    repeats = constant_operand(b, inputs[1], "TILE multiples", outputs[0])
    if repeats is not None:
        move_op(b, "TILE", outputs[0], [inputs[0], _int64(b, f"{outputs[0]}_repeats", repeats)], outputs)


def _broadcast_to(b: TfliteGraphBuilder, op: Any, inputs: list[str], outputs: list[str]) -> None:  # noqa: ANN401
    out = outputs[0]
    move_op(b, "EXPAND", out, [inputs[0], _int64(b, f"{out}_shape", static_shape(b, out))], outputs)


def _reverse(b: TfliteGraphBuilder, op: Any, inputs: list[str], outputs: list[str]) -> None:  # noqa: ANN401
    x, out = inputs[0], outputs[0]
    axes = constant_operand(b, inputs[1], "REVERSE_V2 axes", out)
    if axes is None:
        return
    shape = static_shape(b, x)
    axes_list = sorted({int(a) % len(shape) for a in axes})
    move_op(
        b,
        "SLICE",
        out,
        [
            x,
            _int64(b, f"{out}_starts", [shape[a] - 1 for a in axes_list]),
            _int64(b, f"{out}_ends", [-(shape[a] + 1) for a in axes_list]),
            _int64(b, f"{out}_axes", axes_list),
            _int64(b, f"{out}_steps", [-1] * len(axes_list)),
        ],
        [out],
    )


def _mirror_pad(b: TfliteGraphBuilder, op: Any, inputs: list[str], outputs: list[str]) -> None:  # noqa: ANN401
    x, out = inputs[0], outputs[0]
    mode = int(op.builtinOptions.mode) if op.builtinOptions is not None else 0
    if mode != b.s.MirrorPadMode.REFLECT:
        b.problems.append(f"op writing '{out}': MIRROR_PAD mode SYMMETRIC has no .lite kernel (REFLECT has)")
        return
    amounts = constant_operand(b, inputs[1], "MIRROR_PAD paddings", out)
    if amounts is None:
        return
    pairs = amounts.reshape(-1, 2)
    move_op(
        b,
        "PAD",
        out,
        [x, _int64(b, f"{out}_pads", np.concatenate([pairs[:, 0], pairs[:, 1]]))],
        [out],
        mode="REFLECT",
    )


def _reduce(b: TfliteGraphBuilder, op: Any, inputs: list[str], outputs: list[str]) -> None:  # noqa: ANN401
    x, out = inputs[0], outputs[0]
    axes = constant_operand(b, inputs[1], "reduction axes", out)
    if axes is None:
        return
    keep = bool(op.builtinOptions.keepDims) if op.builtinOptions is not None else False
    rank = max(len(static_shape(b, x)), 1)
    fp32_op(
        b,
        REDUCTIONS[b.opcode_name(op)],
        out,
        [x],
        out,
        axes=sorted({int(a) % rank for a in axes}),
        keepdims=keep,
        noop_with_empty_axes=True,
    )


def _arg(b: TfliteGraphBuilder, op: Any, inputs: list[str], outputs: list[str]) -> None:  # noqa: ANN401
    x, out = inputs[0], outputs[0]
    axis = constant_operand(b, inputs[1], "ARG_MAX / ARG_MIN axis", out)
    if axis is None:
        return
    op_type = "ARG_MAX" if b.opcode_name(op) == "ARG_MAX" else "ARG_MIN"
    attrs = {"axis": int(axis[0]) % len(static_shape(b, x)), "keepdims": False, "select_last_index": False}
    source = b.dequantized(x)
    if b.graph.tensors[out].dtype == np.int64:
        b.add_node(op_type, out, [source], [out], **attrs)
        return
    wide = b.graph.add_tensor(f"{out}_int64", np.int64, static_shape(b, out))
    b.add_node(op_type, f"{out}_{op_type.lower()}", [source], [wide], **attrs)
    b.add_node("CAST", out, [wide], [out], to="INT32")


def _densify(b: TfliteGraphBuilder, op: Any, inputs: list[str], outputs: list[str]) -> None:  # noqa: ANN401
    """DENSIFY of a sparse constant (read densified by the frontend): its output is that constant."""
    source, target = b.graph.tensors[inputs[0]], b.graph.tensors[outputs[0]]
    if source.data is None:
        b.problems.append(f"op writing '{outputs[0]}': DENSIFY of a tensor that is not a constant")
        return
    target.data, target.dtype, target.quant = source.data.copy(), source.data.dtype, source.quant


CONVERTERS = {
    "DENSIFY": _densify,
    "STRIDED_SLICE": _strided_slice,
    "SLICE": _slice,
    "SPLIT": _split,
    "SPLIT_V": _split,
    "PACK": _pack,
    "UNPACK": _unpack,
    "GATHER": _gather,
    "GATHER_ND": _gather_nd,
    "EMBEDDING_LOOKUP": _embedding_lookup,
    "EXPAND_DIMS": _expand_dims,
    "TILE": _tile,
    "BROADCAST_TO": _broadcast_to,
    "REVERSE_V2": _reverse,
    "MIRROR_PAD": _mirror_pad,
    **dict.fromkeys(REDUCTIONS, _reduce),
    "ARG_MAX": _arg,
    "ARG_MIN": _arg,
}
