"""Paddle's image ops: convolutions, pooling, normalizations, interpolation, padding.

Paddle and ONNX agree on NCHW layouts and OIHW weights (transposed convolutions: IOHW); what
differs is spelled out per op: padding lists ([ph, pw] or [top, bottom, left, right]),
``padding_algorithm`` SAME (ONNX SAME_UPPER: the extra row goes at the end) and VALID, pooling's
``exclusive`` (= not count_include_pad) and ``adaptive``, and interpolation's coordinate rules.
Only NCHW (``data_format`` / ``data_layout``) is mapped; NHWC Paddle ops are reported.
"""

from __future__ import annotations

import numpy as np

from lite_converter.frontends.paddle.mapping import MapContext, Unsupported, maps, pads_2d, positive_axis
from lite_converter.frontends.paddle.program import PaddleOp


def _require_nchw(op: PaddleOp) -> None:
    layout = op.attr("data_format", op.attr("data_layout", "NCHW"))
    if layout not in ("NCHW", "AnyLayout", "NCDHW", "NCL"):
        raise Unsupported(f"data layout {layout} is not supported (only channels-first)")


def _conv_padding(op: PaddleOp, attrs: dict) -> None:
    algorithm = op.attr("padding_algorithm", "EXPLICIT")
    if algorithm == "SAME":  # Paddle ignores the dilations there
        attrs["auto_pad"] = "SAME_UPPER"
        if "dilations" in attrs:
            attrs["dilations"] = [1] * len(attrs["dilations"])
    elif algorithm == "VALID":
        attrs["pads"] = [0, 0, 0, 0]
    else:
        attrs["pads"] = pads_2d(op.attr("paddings", [0, 0]))


def _conv_attrs(op: PaddleOp, ctx: MapContext) -> tuple[str, list[int], dict]:
    """(filter, filter shape, ONNX attributes) shared by convolutions and transposed ones."""
    _require_nchw(op)
    weight = ctx.require(op, "Filter")
    wshape = ctx.shape(weight)
    if wshape is None or len(wshape) != 4:
        raise Unsupported("the filter must be a 4-D tensor")
    attrs = {
        "strides": list(op.attr("strides", [1, 1])),
        "dilations": list(op.attr("dilations", [1, 1])),
        "group": int(op.attr("groups", 1) or 1),
        "kernel_shape": wshape[2:],
    }
    return weight, wshape, attrs


@maps("conv2d", "depthwise_conv2d")
def map_conv2d(op: PaddleOp, ctx: MapContext) -> None:
    weight, wshape, attrs = _conv_attrs(op, ctx)
    x_shape = ctx.shape(ctx.require(op, "Input"))
    if x_shape is None or len(x_shape) != 4 or (x_shape[1] > 0 and x_shape[1] != wshape[1] * attrs["group"]):
        raise Unsupported(
            f"input of shape {x_shape} does not fit filter {wshape} with {attrs['group']} groups"
        )
    _conv_padding(op, attrs)
    inputs = [ctx.require(op, "Input"), weight]
    if op.input("Bias"):
        inputs.append(op.input("Bias"))  # type: ignore[arg-type]
    ctx.emit("Conv", inputs, ctx.out(op, "Output"), **attrs)


@maps("conv2d_transpose", "depthwise_conv2d_transpose")
def map_conv2d_transpose(op: PaddleOp, ctx: MapContext) -> None:
    weight, wshape, attrs = _conv_attrs(op, ctx)
    _conv_padding(op, attrs)
    output_padding = list(op.attr("output_padding", []) or [])
    if output_padding:
        attrs["output_padding"] = output_padding
    output_size = list(op.attr("output_size", []) or [])
    if op.input("OutputSize") or any(isinstance(v, str) for v in output_size):
        raise Unsupported("an output size given as a tensor is not supported")
    if output_size:
        attrs["output_shape"] = [int(v) for v in output_size]
        attrs.pop("pads", None)
        if "auto_pad" not in attrs:
            explicit = pads_2d(op.attr("paddings", [0, 0]))
            if any(explicit):
                raise Unsupported("output_size together with explicit paddings is not supported")
    ctx.emit("ConvTranspose", [ctx.require(op, "Input"), weight], ctx.out(op, "Output"), **attrs)


@maps("pool2d", "max_pool2d_with_index")
def map_pool2d(op: PaddleOp, ctx: MapContext) -> None:
    """pool2d, and max_pool2d_with_index (adaptive max pooling) without its Mask output."""
    _require_nchw(op)
    x, out = ctx.require(op, "X"), ctx.out(op)
    kind = "max" if op.type == "max_pool2d_with_index" else op.attr("pooling_type", "max")
    if kind not in ("max", "avg"):
        raise Unsupported(f"pooling_type {kind} is not supported")
    ksize = [int(k) for k in op.attr("ksize", [1, 1])]
    if op.attr("global_pooling", False) or (op.attr("adaptive", False) and ksize == [1, 1]):
        ctx.emit("GlobalMaxPool" if kind == "max" else "GlobalAveragePool", [x], out)
        return
    if op.attr("adaptive", False):
        shape = ctx.shape(x)
        if shape is None or len(shape) != 4 or any(d <= 0 for d in shape[2:]):
            raise Unsupported(f"adaptive pooling to {ksize} needs a static input height and width")
        if any(size % k for size, k in zip(shape[2:], ksize, strict=True)):
            raise Unsupported(f"adaptive pooling of {shape[2:]} to {ksize} has uneven windows")
        window = [size // k for size, k in zip(shape[2:], ksize, strict=True)]
        ctx.emit("MaxPool" if kind == "max" else "AveragePool", [x], out, kernel_shape=window, strides=window)
        return
    attrs: dict = {
        "kernel_shape": ksize,
        "strides": [int(s) for s in op.attr("strides", [1, 1])],
        "ceil_mode": int(bool(op.attr("ceil_mode", False))),
    }
    _conv_padding(op, attrs)
    if kind == "avg":
        attrs["count_include_pad"] = 0 if op.attr("exclusive", True) else 1
    ctx.emit("MaxPool" if kind == "max" else "AveragePool", [x], out, **attrs)


def _per_channel_sizes(ctx: MapContext, x: str, names: list[str]) -> None:
    """Parameters of a per-channel op must be [C] vectors of the input's channel count."""
    shape = ctx.shape(x)
    channels = shape[1] if shape is not None and len(shape) > 1 and shape[1] > 0 else None
    for name in names:
        declared = ctx.shape(name)
        if declared is not None and (
            len(declared) != 1 or (channels is not None and declared[0] not in (channels, -1))
        ):
            raise Unsupported(f"'{name}' has shape {declared}, not [{channels}]")


@maps("batch_norm", "sync_batch_norm")
def map_batch_norm(op: PaddleOp, ctx: MapContext) -> None:
    _require_nchw(op)
    inputs = [ctx.require(op, slot) for slot in ("X", "Scale", "Bias", "Mean", "Variance")]
    _per_channel_sizes(ctx, inputs[0], inputs[1:])
    ctx.emit("BatchNormalization", inputs, ctx.out(op, "Y"), epsilon=float(op.attr("epsilon", 1e-5)))


def _ones_or(ctx: MapContext, op: PaddleOp, slot: str, size: int, fill: float) -> str:
    name = op.input(slot)
    return name if name is not None else ctx.const(f"{slot.lower()}_default", np.full(size, fill, np.float32))


def _channels(ctx: MapContext, x: str) -> int:
    shape = ctx.shape(x)
    if shape is None or len(shape) < 2 or shape[1] <= 0:
        raise Unsupported("the channel count must be known")
    return shape[1]


@maps("instance_norm")
def map_instance_norm(op: PaddleOp, ctx: MapContext) -> None:
    x = ctx.require(op, "X")
    channels = _channels(ctx, x)
    ctx.emit(
        "InstanceNormalization",
        [x, _ones_or(ctx, op, "Scale", channels, 1.0), _ones_or(ctx, op, "Bias", channels, 0.0)],
        ctx.out(op, "Y"),
        epsilon=float(op.attr("epsilon", 1e-5)),
    )


@maps("group_norm")
def map_group_norm(op: PaddleOp, ctx: MapContext) -> None:
    _require_nchw(op)
    x = ctx.require(op, "X")
    channels = _channels(ctx, x)
    ctx.emit(
        "GroupNormalization",
        [x, _ones_or(ctx, op, "Scale", channels, 1.0), _ones_or(ctx, op, "Bias", channels, 0.0)],
        ctx.out(op, "Y"),
        epsilon=float(op.attr("epsilon", 1e-5)),
        num_groups=int(op.attr("groups", 1)),
    )


@maps("layer_norm")
def map_layer_norm(op: PaddleOp, ctx: MapContext) -> None:
    x = ctx.require(op, "X")
    shape = ctx.shape(x)
    if shape is None:
        raise Unsupported("the input rank must be known")
    axis = positive_axis(int(op.attr("begin_norm_axis", 1)), len(shape))
    normalized = shape[axis:]
    if any(d <= 0 for d in normalized):
        raise Unsupported(f"the normalized dims {normalized} must be static")
    params = []
    for slot, fill in (("Scale", 1.0), ("Bias", 0.0)):
        name = op.input(slot)
        value = ctx.constant(name)
        if name is None:
            params.append(ctx.const(f"{slot.lower()}_default", np.full(normalized, fill, np.float32)))
        elif value is not None:
            params.append(ctx.const(f"{name}_shaped", value.reshape(normalized).astype(np.float32)))
        elif len(normalized) == 1:
            params.append(name)
        else:
            params.append(ctx.emit("Reshape", [name, ctx.ints(normalized)]))
    ctx.emit(
        "LayerNormalization",
        [x, *params],
        ctx.out(op, "Y"),
        axis=axis,
        epsilon=float(op.attr("epsilon", 1e-5)),
    )


@maps("affine_channel")
def map_affine_channel(op: PaddleOp, ctx: MapContext) -> None:
    _require_nchw(op)
    x = ctx.require(op, "X")
    rank = ctx.rank(x)
    scaled = ctx.emit("Mul", [x, _per_channel(ctx, ctx.require(op, "Scale"), rank)])
    ctx.emit("Add", [scaled, _per_channel(ctx, ctx.require(op, "Bias"), rank)], ctx.out(op))


def _per_channel(ctx: MapContext, name: str, rank: int) -> str:
    value = ctx.constant(name)
    if value is None:
        return ctx.emit("Reshape", [name, ctx.ints([-1] + [1] * (rank - 2))])
    return ctx.const(f"{name}_c11", value.reshape([-1] + [1] * (rank - 2)))


@maps("pixel_shuffle")
def map_pixel_shuffle(op: PaddleOp, ctx: MapContext) -> None:
    _require_nchw(op)
    ctx.emit(
        "DepthToSpace",
        [ctx.require(op, "X")],
        ctx.out(op),
        blocksize=int(op.attr("upscale_factor", 1)),
        mode="CRD",
    )


_PAD_MODES = {"constant": "constant", "reflect": "reflect", "replicate": "edge", "circular": "wrap"}


@maps("pad3d")
def map_pad3d(op: PaddleOp, ctx: MapContext) -> None:
    _require_nchw(op)
    x = ctx.require(op, "X")
    tensor, paddings = ctx.int_list(op, "Paddings", "", "paddings")
    if tensor is not None or paddings is None or len(paddings) != 6:
        raise Unsupported("paddings must be 6 constant values")
    mode = op.attr("mode", "constant")
    if mode not in _PAD_MODES:
        raise Unsupported(f"mode {mode} is not supported")
    left, right, top, bottom, front, back = (int(p) for p in paddings)
    pads = ctx.ints([0, 0, front, top, left, 0, 0, back, bottom, right])
    value = ctx.const("pad_value", np.asarray(float(op.attr("value", 0.0)), ctx.dtype(x)))
    ctx.emit("Pad", [x, pads, value], ctx.out(op), mode=_PAD_MODES[mode])


@maps("pad")
def map_pad(op: PaddleOp, ctx: MapContext) -> None:
    x = ctx.require(op, "X")
    paddings = [int(p) for p in op.attr("paddings", [])]
    rank = ctx.rank(x)
    if len(paddings) != 2 * rank:
        raise Unsupported(f"paddings {paddings} do not match rank {rank}")
    pads = ctx.ints(paddings[0::2] + paddings[1::2])
    value = ctx.const("pad_value", np.asarray(float(op.attr("pad_value", 0.0)), ctx.dtype(x)))
    ctx.emit("Pad", [x, pads, value], ctx.out(op), mode="constant")


# -- interpolation ------------------------------------------------------------------------------
def _interp_modes(op: PaddleOp, method: str) -> dict:
    align_corners = bool(op.attr("align_corners", False))
    if method == "nearest":
        if align_corners:  # src = round(dst * (in - 1) / (out - 1)), halves up
            return {
                "mode": "nearest",
                "coordinate_transformation_mode": "align_corners",
                "nearest_mode": "round_prefer_ceil",
            }
        return {"mode": "nearest", "coordinate_transformation_mode": "asymmetric", "nearest_mode": "floor"}
    mode = "linear" if method in ("bilinear", "linear") else "cubic"
    if align_corners:
        coordinates = "align_corners"
    elif method == "bicubic":
        coordinates = "half_pixel"
    else:
        coordinates = "asymmetric" if int(op.attr("align_mode", 1)) == 1 else "half_pixel"
    attrs = {"mode": mode, "coordinate_transformation_mode": coordinates}
    if mode == "cubic":
        attrs["cubic_coeff_a"] = -0.75
    return attrs


@maps(
    "nearest_interp",
    "nearest_interp_v2",
    "bilinear_interp",
    "bilinear_interp_v2",
    "bicubic_interp_v2",
    "linear_interp_v2",
)
def map_interp(op: PaddleOp, ctx: MapContext) -> None:
    _require_nchw(op)
    x, out = ctx.require(op, "X"), ctx.out(op)
    method = op.type.split("_interp")[0]
    rank = ctx.rank(x)
    spatial = rank - 2
    attrs = _interp_modes(op, method)
    size_tensor, sizes = ctx.int_list(op, "OutSize", "SizeTensor", "")
    if size_tensor is None and sizes is None:
        names = {1: ["out_w"], 2: ["out_h", "out_w"], 3: ["out_d", "out_h", "out_w"]}.get(spatial, [])
        sizes = [int(op.attr(n, -1)) for n in names]
        if not all(s > 0 for s in sizes):
            sizes = None
    if size_tensor is not None or sizes is not None:
        shape_of_x = ctx.emit("Shape", [x], None, start=0, end=2)
        target = size_tensor if size_tensor is not None else ctx.ints(sizes)  # type: ignore[arg-type]
        full = ctx.emit("Concat", [shape_of_x, target], axis=0)
        ctx.emit("Resize", [x, "", "", full], out, **attrs)
        return
    scale_name = op.input("Scale")
    scale_value = ctx.constant(scale_name)
    if scale_name is not None and scale_value is None:
        raise Unsupported("a scale computed at run time is not supported")
    scales = scale_value.reshape(-1).tolist() if scale_value is not None else op.attr("scale", [])
    if not isinstance(scales, list):
        scales = [scales]
    scales = [float(s) for s in scales if s is not None]
    if len(scales) == 1:
        scales = scales * spatial
    if len(scales) != spatial or any(s <= 0 for s in scales):
        raise Unsupported("neither an output size nor a positive scale is given")
    # Paddle derives the output size as floor(in * scale) and maps back with 1 / scale.
    ctx.emit(
        "Resize", [x, "", ctx.const("scales", np.asarray([1.0, 1.0] + scales, np.float32))], out, **attrs
    )
