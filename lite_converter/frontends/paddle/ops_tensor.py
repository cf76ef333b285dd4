"""Paddle's tensor plumbing: reshapes, slices, concatenation, constants, casts, gathers.

The ``*2`` ops (reshape2, transpose2, squeeze2, unsqueeze2, flatten2) add an ``XShape`` output that
only training reads; it is left unproduced. Lists that Paddle accepts as an attribute, one tensor
or a list of 1-element tensors (shape, starts, ends, axes) go through ``MapContext.int_list``.
Paddle's ``shape`` op returns int32 (``shape64``, PIR: int64), so its users see int32 too.
"""

from __future__ import annotations

import numpy as np

from lite_converter.frontends.paddle.dtypes import numpy_dtype
from lite_converter.frontends.paddle.mapping import MapContext, Unsupported, maps, positive_axis
from lite_converter.frontends.paddle.program import PaddleOp

_INT32_MAX = 2**31 - 1


def _dtype_attr(value: object, default: np.dtype, where: str) -> np.dtype:
    """A dtype attribute: a numpy dtype (PIR) or a ProgramDesc code (legacy; -1 = default)."""
    if isinstance(value, np.dtype):
        return value
    if value is None or int(value) < 0:  # type: ignore[call-overload]
        return default
    return numpy_dtype(int(value), where)  # type: ignore[call-overload]


@maps("reshape2", "reshape")
def map_reshape(op: PaddleOp, ctx: MapContext) -> None:
    x, out = ctx.require(op, "X"), ctx.out(op)
    tensor, shape = ctx.int_list(op, "Shape", "ShapeTensor", "shape")
    if tensor is None:
        if shape is None:
            raise Unsupported("no target shape")
        tensor = ctx.ints(shape, "shape")
    ctx.emit("Reshape", [x, tensor], out)


@maps("transpose2", "transpose")
def map_transpose(op: PaddleOp, ctx: MapContext) -> None:
    ctx.emit("Transpose", [ctx.require(op, "X")], ctx.out(op), perm=[int(a) for a in op.attr("axis", [])])


@maps("flatten_contiguous_range")
def map_flatten_range(op: PaddleOp, ctx: MapContext) -> None:
    x, out = ctx.require(op, "X"), ctx.out(op)
    shape = ctx.shape(x)
    if shape is None:
        raise Unsupported("the input rank must be known")
    rank = len(shape)
    if rank == 0:
        ctx.emit("Reshape", [x, ctx.ints([1])], out)
        return
    start = positive_axis(int(op.attr("start_axis", 1)), rank)
    stop = positive_axis(int(op.attr("stop_axis", -1)), rank)
    trailing = shape[stop + 1 :]
    if all(d >= 0 for d in trailing):
        target = ctx.ints([0] * start + [-1] + trailing)
    else:
        head = ctx.ints([0] * start + [-1])
        target = ctx.emit("Concat", [head, ctx.emit("Shape", [x], start=stop + 1)], axis=0)
    ctx.emit("Reshape", [x, target], out)


@maps("flatten2", "flatten")
def map_flatten(op: PaddleOp, ctx: MapContext) -> None:
    ctx.emit("Flatten", [ctx.require(op, "X")], ctx.out(op), axis=int(op.attr("axis", 1)))


@maps("squeeze2", "squeeze")
def map_squeeze(op: PaddleOp, ctx: MapContext) -> None:
    x, out = ctx.require(op, "X"), ctx.out(op)
    tensor, axes = ctx.int_list(op, "AxesTensor", "AxesTensorList", "axes")
    if tensor is not None:
        raise Unsupported("squeeze axes computed at run time are not supported")
    shape = ctx.shape(x)
    axes = [int(a) for a in axes or []]
    if shape is not None and axes:
        # Paddle ignores listed axes whose size is not 1
        axes = [a for a in (positive_axis(a, len(shape)) for a in axes) if shape[a] in (1, -1)]
        if not axes:
            ctx.emit("Identity", [x], out)
            return
    ctx.emit("Squeeze", [x, ctx.ints(axes)] if axes else [x], out)


@maps("unsqueeze2", "unsqueeze")
def map_unsqueeze(op: PaddleOp, ctx: MapContext) -> None:
    x, out = ctx.require(op, "X"), ctx.out(op)
    tensor, axes = ctx.int_list(op, "AxesTensor", "AxesTensorList", "axes")
    if tensor is not None or not axes:
        raise Unsupported("unsqueeze axes must be constants")
    # Paddle inserts one axis at a time, each position counted in the rank reached so far.
    marks = ["old"] * ctx.rank(x)
    for axis in axes:
        position = int(axis) + len(marks) + 1 if int(axis) < 0 else int(axis)
        if not 0 <= position <= len(marks):
            raise Unsupported(f"axis {axis} is out of range")
        marks.insert(position, "new")
    ctx.emit("Unsqueeze", [x, ctx.ints([i for i, m in enumerate(marks) if m == "new"])], out)


@maps("concat")
def map_concat(op: PaddleOp, ctx: MapContext) -> None:
    inputs = [n for n in op.inputs.get("X", []) if n]
    tensor, axis = ctx.int_list(op, "AxisTensor", "", "axis")
    if tensor is not None:
        raise Unsupported("a concat axis computed at run time is not supported")
    axis = axis[0] if isinstance(axis, list) else axis
    ctx.emit("Concat", inputs, ctx.out(op), axis=int(axis or 0))


@maps("split")
def map_split(op: PaddleOp, ctx: MapContext) -> None:
    x = ctx.require(op, "X")
    outputs = op.outputs.get("Out", [])
    tensor, axis = ctx.int_list(op, "AxisTensor", "", "axis")
    if tensor is not None:
        raise Unsupported("a split axis computed at run time is not supported")
    axis = int(axis[0] if isinstance(axis, list) else axis or 0)
    sections_tensor, sections = ctx.int_list(op, "", "SectionsTensorList", "sections")
    if sections_tensor is not None:
        raise Unsupported("split sections computed at run time are not supported")
    sections = [int(s) for s in sections or []]
    if not sections or len(sections) != len(outputs):
        ctx.emit("Split", [x], outputs, axis=axis, num_outputs=len(outputs))
        return
    if -1 in sections:
        shape = ctx.shape(x)
        size = shape[positive_axis(axis, len(shape))] if shape else -1
        if size < 0:
            declared = [ctx.shape(name) for name in outputs]
            if any(s is None for s in declared):
                raise Unsupported("a -1 section needs a static size along the axis")
            sections = [s[axis] for s in declared]  # type: ignore[index]
        else:
            sections[sections.index(-1)] = size - sum(s for s in sections if s != -1)
    ctx.emit("Split", [x, ctx.ints(sections)], outputs, axis=axis)


@maps("unstack", "unbind")
def map_unstack(op: PaddleOp, ctx: MapContext) -> None:
    x = ctx.require(op, "X")
    outputs = op.outputs.get("Y", op.outputs.get("Out", []))
    axis = positive_axis(int(op.attr("axis", 0)), ctx.rank(x))
    pieces = [ctx.temp(f"{name}_piece") for name in outputs]
    ctx.emit("Split", [x], pieces, axis=axis, num_outputs=len(outputs))
    for piece, name in zip(pieces, outputs, strict=True):
        ctx.emit("Squeeze", [piece, ctx.ints([axis])], name)


@maps("stack")
def map_stack(op: PaddleOp, ctx: MapContext) -> None:
    inputs = [n for n in op.inputs.get("X", []) if n]
    axis = int(op.attr("axis", 0))
    rank = ctx.rank(inputs[0]) + 1
    axis = positive_axis(axis, rank)
    expanded = [ctx.emit("Unsqueeze", [name, ctx.ints([axis])]) for name in inputs]
    ctx.emit("Concat", expanded, ctx.out(op, "Y"), axis=axis)


def _decrease(ctx: MapContext, op: PaddleOp, sliced: str, out: str) -> None:
    """Drops ``decrease_axis`` dims; a rank-1 result Paddle declares as [1] stays [1]."""
    axes = [int(a) for a in op.attr("decrease_axis", []) or []]
    if not axes:
        ctx.emit("Identity", [sliced], out)
        return
    declared = ctx.shape(out)
    squeezed_rank = ctx.rank(ctx.require(op, "Input")) - len(axes)
    if squeezed_rank == 0 and declared is not None and len(declared) == 1:
        ctx.emit("Reshape", [sliced, ctx.ints([1])], out)
        return
    ctx.emit("Squeeze", [sliced, ctx.ints(axes)], out)


def _slice_inputs(ctx: MapContext, op: PaddleOp, count: int) -> tuple[str, str, str]:
    starts_tensor, starts = ctx.int_list(op, "StartsTensor", "StartsTensorList", "starts")
    ends_tensor, ends = ctx.int_list(op, "EndsTensor", "EndsTensorList", "ends")
    axes = [int(a) for a in op.attr("axes", [])]
    if len(axes) != count:
        raise Unsupported(f"{len(axes)} axes for {count} starts")
    return (
        (starts_tensor or ctx.ints([int(s) for s in starts or []])),
        (ends_tensor or ctx.ints([min(int(e), 2**62) for e in ends or []])),
        ctx.ints(axes),
    )


@maps("slice")
def map_slice(op: PaddleOp, ctx: MapContext) -> None:
    x, out = ctx.require(op, "Input"), ctx.out(op)
    count = len(op.attr("axes", []))
    starts, ends, axes = _slice_inputs(ctx, op, count)
    sliced = ctx.emit("Slice", [x, starts, ends, axes])
    _decrease(ctx, op, sliced, out)


@maps("strided_slice")
def map_strided_slice(op: PaddleOp, ctx: MapContext) -> None:
    x, out = ctx.require(op, "Input"), ctx.out(op)
    count = len(op.attr("axes", []))
    starts, ends, axes = _slice_inputs(ctx, op, count)
    strides_tensor, strides = ctx.int_list(op, "StridesTensor", "StridesTensorList", "strides")
    steps = strides_tensor or ctx.ints([int(s) for s in strides or []])
    sliced = ctx.emit("Slice", [x, starts, ends, axes, steps])
    _decrease(ctx, op, sliced, out)


@maps("flip")
def map_flip(op: PaddleOp, ctx: MapContext) -> None:
    axes = op.attr("axis", [])
    axes = [int(a) for a in (axes if isinstance(axes, list) else [axes])]
    count = len(axes)
    big = 2**62
    ctx.emit(
        "Slice",
        [
            ctx.require(op, "X"),
            ctx.ints([-1] * count),
            ctx.ints([-big] * count),
            ctx.ints(axes),
            ctx.ints([-1] * count),
        ],
        ctx.out(op),
    )


@maps("shape")
def map_shape(op: PaddleOp, ctx: MapContext) -> None:
    x, out = ctx.require(op, "Input"), ctx.out(op)
    if op.attr("__int64__", False):
        ctx.emit("Shape", [x], out)
    else:
        ctx.cast(ctx.emit("Shape", [x]), np.int32, out)


@maps("size")
def map_size(op: PaddleOp, ctx: MapContext) -> None:
    ctx.emit("Size", [ctx.require(op, "Input")], ctx.out(op))


@maps("fill_constant")
def map_fill_constant(op: PaddleOp, ctx: MapContext) -> None:
    out = ctx.out(op)
    dtype = _dtype_attr(op.attr("dtype"), np.dtype(np.float32), op.label)
    text = op.attr("str_value", "") or ""
    value = op.attr("value", 0.0)
    if op.input("ValueTensor"):
        raise Unsupported("a value computed at run time is not supported")
    number: float | int = (
        int(text)
        if text and dtype.kind in "iu" and text.lstrip("-").isdigit()
        else float(text)
        if text
        else value
    )
    tensor, shape = ctx.int_list(op, "ShapeTensor", "ShapeTensorList", "shape")
    if tensor is None:
        dims = [int(d) for d in shape or []]
        if any(d < 0 for d in dims) or int(np.prod(dims, dtype=np.float64)) > 1 << 24:
            raise Unsupported(f"shape {dims} is refused")
        tensor = ctx.graph.tensor(out)
        tensor.data, tensor.dtype, tensor.shape = np.full(dims, number, dtype=dtype), dtype, dims
        return
    ctx.emit("ConstantOfShape", [tensor], out, value=np.asarray([number], dtype))


@maps("fill_any_like", "full_like")
def map_fill_any_like(op: PaddleOp, ctx: MapContext) -> None:
    x = ctx.require(op, "X")
    dtype = _dtype_attr(op.attr("dtype"), ctx.dtype(x), op.label)
    value = op.attr("value", 0.0)
    value = value[0] if isinstance(value, list) else value
    ctx.emit("ConstantOfShape", [ctx.emit("Shape", [x])], ctx.out(op), value=np.asarray([value], dtype))


@maps("assign_value")
def map_assign_value(op: PaddleOp, ctx: MapContext) -> None:
    out = ctx.out(op)
    dtype = _dtype_attr(op.attr("dtype"), np.dtype(np.float32), op.label)
    for key in ("fp32_values", "int32_values", "int64_values", "bool_values", "values"):
        values = op.attr(key)
        if values:
            break
    shape = [int(d) for d in op.attr("shape", [])]
    array = np.asarray(values or [], dtype=np.float64)
    if array.size != int(np.prod(shape)):
        raise Unsupported(f"{array.size} values for shape {shape}")
    tensor = ctx.graph.tensor(out)
    tensor.data = array.reshape(shape).astype(dtype)
    tensor.dtype, tensor.shape = dtype, shape


@maps("cast")
def map_cast(op: PaddleOp, ctx: MapContext) -> None:
    ctx.cast(
        ctx.require(op, "X"), _dtype_attr(op.attr("out_dtype"), np.dtype(np.float32), op.label), ctx.out(op)
    )


@maps("dropout")
def map_dropout(op: PaddleOp, ctx: MapContext) -> None:
    x, out = ctx.require(op, "X"), ctx.out(op)
    if op.attr("dropout_implementation", "downgrade_in_infer") == "upscale_in_train":
        ctx.emit("Identity", [x], out)
        return
    probability = op.attr("dropout_prob", 0.5)
    probability = float(probability[0] if isinstance(probability, list) else probability)
    ctx.emit("Mul", [x, ctx.const("keep", np.asarray(1.0 - probability, ctx.dtype(x)))], out)


@maps("gather")
def map_gather(op: PaddleOp, ctx: MapContext) -> None:
    x, index = ctx.require(op, "X"), ctx.require(op, "Index")
    tensor, axis = ctx.int_list(op, "Axis", "", "axis")
    if tensor is not None:
        raise Unsupported("a gather axis computed at run time is not supported")
    axis = axis[0] if isinstance(axis, list) else axis
    ctx.emit("Gather", [x, index], ctx.out(op), axis=int(axis or 0))


@maps("index_select")
def map_index_select(op: PaddleOp, ctx: MapContext) -> None:
    ctx.emit(
        "Gather", [ctx.require(op, "X"), ctx.require(op, "Index")], ctx.out(op), axis=int(op.attr("dim", 0))
    )


@maps("gather_nd")
def map_gather_nd(op: PaddleOp, ctx: MapContext) -> None:
    ctx.emit("GatherND", [ctx.require(op, "X"), ctx.as_int64(ctx.require(op, "Index"))], ctx.out(op))


@maps("lookup_table_v2")
def map_embedding(op: PaddleOp, ctx: MapContext) -> None:
    weight = ctx.require(op, "W")
    padding = op.attr("padding_idx", -1)
    value = ctx.constant(weight)
    if padding is not None and int(padding) != -1:
        if value is None:
            raise Unsupported("padding_idx with a computed table is not supported")
        value = value.copy()
        value[int(padding)] = 0  # Paddle returns zeros for the padding id
        weight = ctx.const(f"{weight}_padded", value)
    ctx.emit("Gather", [weight, ctx.require(op, "Ids")], ctx.out(op), axis=0)


@maps("tile")
def map_tile(op: PaddleOp, ctx: MapContext) -> None:
    x = ctx.require(op, "X")
    tensor, repeats = ctx.int_list(op, "RepeatTimes", "repeat_times_tensor", "repeat_times")
    if tensor is not None:
        raise Unsupported("repeat times computed at run time are not supported")
    repeats = [int(r) for r in repeats or []]
    rank = ctx.rank(x)
    if len(repeats) > rank:
        x = ctx.emit("Unsqueeze", [x, ctx.ints(range(len(repeats) - rank))])
    repeats = [1] * (rank - len(repeats)) + repeats
    ctx.emit("Tile", [x, ctx.ints(repeats)], ctx.out(op))


@maps("expand_v2")
def map_expand(op: PaddleOp, ctx: MapContext) -> None:
    x = ctx.require(op, "X")
    tensor, shape = ctx.int_list(op, "Shape", "expand_shapes_tensor", "shape")
    if tensor is not None:
        raise Unsupported("an expand shape computed at run time is not supported")
    # -1 keeps the input dim, which ONNX's bidirectional broadcast does for a 1
    ctx.emit("Expand", [x, ctx.ints([1 if int(d) == -1 else int(d) for d in shape or []])], ctx.out(op))


@maps("expand_as_v2")
def map_expand_as(op: PaddleOp, ctx: MapContext) -> None:
    x = ctx.require(op, "X")
    target = op.input("Y") or op.input("target_tensor")
    if target is not None:
        shape = ctx.emit("Shape", [target])
    else:
        shape = ctx.ints([int(d) for d in op.attr("target_shape", [])])
    ctx.emit("Expand", [x, shape], ctx.out(op))


@maps("range")
def map_range(op: PaddleOp, ctx: MapContext) -> None:
    scalars = []
    for slot in ("Start", "End", "Step"):
        name = ctx.require(op, slot)
        value = ctx.constant(name)
        scalars.append(
            ctx.const(f"{name}_scalar", value.reshape(()))
            if value is not None
            else ctx.emit("Reshape", [name, ctx.ints([])])
        )
    ctx.emit("Range", scalars, ctx.out(op))


@maps("top_k_v2")
def map_top_k(op: PaddleOp, ctx: MapContext) -> None:
    x = ctx.require(op, "X")
    tensor, k = ctx.int_list(op, "K", "", "k")
    k_name = (
        ctx.as_vector(tensor) if tensor is not None else ctx.ints([int(k[0] if isinstance(k, list) else k)])
    )
    ctx.emit(
        "TopK",
        [x, k_name],
        [ctx.out(op), ctx.out(op, "Indices")],
        axis=int(op.attr("axis", -1)),
        largest=int(bool(op.attr("largest", True))),
        sorted=int(bool(op.attr("sorted", True))),
    )


@maps("one_hot_v2")
def map_one_hot(op: PaddleOp, ctx: MapContext) -> None:
    tensor, depth = ctx.int_list(op, "depth_tensor", "", "depth")
    if tensor is not None:
        raise Unsupported("a depth computed at run time is not supported")
    depth = int(depth[0] if isinstance(depth, list) else depth)
    dtype = _dtype_attr(op.attr("dtype"), np.dtype(np.float32), op.label)
    ctx.emit(
        "OneHot",
        [
            ctx.require(op, "X"),
            ctx.const("depth", np.asarray(depth, np.int64)),
            ctx.const("values", np.asarray([0, 1], dtype)),
        ],
        ctx.out(op),
        axis=-1,
    )
