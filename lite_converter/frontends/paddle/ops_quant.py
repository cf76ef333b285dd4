"""Paddle's quantization ops as ONNX QuantizeLinear / DequantizeLinear nodes.

PaddleSlim and paddle.quantization write ``quantize_linear`` / ``dequantize_linear`` pairs around
activations and a ``dequantize_linear`` after each weight, whose values are then stored already
quantized (integers held as float32). Paddle's ``Scale`` is the range (abs max), not the step:
q = round(x / Scale * (2^(bits-1) - 1)), so ONNX's scale is Scale / 127 for 8 bits. The older
``fake_*`` ops say the same with other names. Once in ONNX form, the QDQ import that serves
QDQ-ONNX models (frontends/onnx_qdq*.py) turns them into int8 ops with these scales.
"""

from __future__ import annotations

import numpy as np

from lite_converter.frontends.paddle.mapping import MapContext, Unsupported, maps
from lite_converter.frontends.paddle.program import PaddleOp


def _levels(bits: int) -> float:
    if bits != 8:
        raise Unsupported(f"{bits}-bit quantization is not supported (int8 only)")
    return float((1 << (bits - 1)) - 1)


def _scale(ctx: MapContext, name: str | None, levels: float, hint: str) -> tuple[str, int]:
    """ONNX's scale (the step) from a Paddle scale tensor (the range); returns (name, element count)."""
    value = ctx.constant(name)
    if value is None:
        raise Unsupported("the quantization scale must be a parameter")
    step = (value.astype(np.float64).reshape(-1) / levels).astype(np.float32)
    if not np.all(np.isfinite(step)) or np.any(step <= 0):
        raise Unsupported("quantization scales must be positive")
    return ctx.const(hint, step if step.size > 1 else step.reshape(())), int(step.size)


def _zero_point(ctx: MapContext, name: str | None, count: int) -> str:
    value = ctx.constant(name)
    zero = np.zeros(count, np.int64) if value is None else np.rint(value.astype(np.float64)).reshape(-1)
    if np.any(zero < -128) or np.any(zero > 127):
        raise Unsupported("zero points must be int8")
    zero = zero.astype(np.int8)
    return ctx.const("zero_point", zero if count > 1 else zero.reshape(()))


def _axis(op: PaddleOp, count: int) -> dict:
    if count == 1:
        return {}
    axis = int(op.attr("quant_axis", 0))
    return {"axis": axis}


def _quantized_input(ctx: MapContext, name: str) -> str:
    """A dequantize op's input: an int8 constant for stored weights, else the quantize op's output."""
    value = ctx.constant(name)
    if value is None:
        return name
    rounded = np.rint(value)
    if not np.array_equal(rounded, value) or np.any(rounded < -128) or np.any(rounded > 127):
        raise Unsupported(f"'{name}' is dequantized but does not hold int8 values")
    return ctx.const(f"{name}_int8", rounded.astype(np.int8))


@maps("quantize_linear")
def map_quantize_linear(op: PaddleOp, ctx: MapContext) -> None:
    levels = _levels(int(op.attr("bit_length", 8)))
    scale, count = _scale(ctx, op.input("Scale"), levels, "q_scale")
    ctx.emit(
        "QuantizeLinear",
        [ctx.require(op, "X"), scale, _zero_point(ctx, op.input("ZeroPoint"), count)],
        ctx.out(op, "Y"),
        **_axis(op, count),
    )


@maps("dequantize_linear")
def map_dequantize_linear(op: PaddleOp, ctx: MapContext) -> None:
    levels = _levels(int(op.attr("bit_length", 8)))
    scale, count = _scale(ctx, op.input("Scale"), levels, "dq_scale")
    x = _quantized_input(ctx, ctx.require(op, "X"))
    ctx.emit(
        "DequantizeLinear",
        [x, scale, _zero_point(ctx, op.input("ZeroPoint"), count)],
        ctx.out(op, "Y"),
        **_axis(op, count),
    )


@maps(
    "fake_quantize_dequantize_moving_average_abs_max",
    "fake_quantize_dequantize_abs_max",
    "fake_channel_wise_quantize_dequantize_abs_max",
)
def map_fake_quantize_dequantize(op: PaddleOp, ctx: MapContext) -> None:
    """A Q/DQ pair; the abs-max variants compute the range from a constant input (weights)."""
    x = ctx.require(op, "X")
    levels = _levels(int(op.attr("bit_length", 8)))
    if op.type == "fake_quantize_dequantize_moving_average_abs_max":
        scale, count = _scale(ctx, op.input("InScale"), levels, "fq_scale")
        axis: dict = {}
    else:
        value = ctx.constant(x)
        if value is None:
            raise Unsupported("an abs-max range measured at run time is not supported")
        if op.type == "fake_channel_wise_quantize_dequantize_abs_max":
            axis_index = int(op.attr("quant_axis", 0)) % max(value.ndim, 1)
            reduce = tuple(i for i in range(value.ndim) if i != axis_index)
            ranges = np.abs(value).max(axis=reduce) if reduce else np.abs(value)
            axis = {"axis": axis_index}
        else:
            ranges, axis = np.abs(value).max(keepdims=False), {}
        ranges = np.where(ranges > 0, ranges, 1.0).astype(np.float32)
        scale = ctx.const("fq_scale", (ranges / levels).astype(np.float32))
        count = int(np.asarray(ranges).size)
    zero = ctx.const("zero_point", np.zeros(count if count > 1 else (), np.int8))
    quantized = ctx.emit("QuantizeLinear", [x, scale, zero], **axis)
    ctx.emit("DequantizeLinear", [quantized, scale, zero], ctx.out(op), **axis)


@maps("fake_quantize_moving_average_abs_max", "fake_quantize_range_abs_max")
def map_fake_quantize(op: PaddleOp, ctx: MapContext) -> None:
    levels = _levels(int(op.attr("bit_length", 8)))
    scale, count = _scale(ctx, op.input("InScale"), levels, "fq_scale")
    ctx.emit("QuantizeLinear", [ctx.require(op, "X"), scale, _zero_point(ctx, None, count)], ctx.out(op))


@maps("fake_dequantize_max_abs")
def map_fake_dequantize(op: PaddleOp, ctx: MapContext) -> None:
    levels = float(op.attr("max_range", 127.0))
    if levels != 127.0:
        raise Unsupported(f"max_range {levels} is not int8 (127)")
    scale, count = _scale(ctx, op.input("Scale"), levels, "dq_scale")
    x = _quantized_input(ctx, ctx.require(op, "X"))
    ctx.emit("DequantizeLinear", [x, scale, _zero_point(ctx, None, count)], ctx.out(op))


@maps("fake_channel_wise_dequantize_max_abs")
def map_fake_channel_wise_dequantize(op: PaddleOp, ctx: MapContext) -> None:
    bits = op.attr("quant_bits", [8])
    scales = [n for n in op.inputs.get("Scales", []) if n]
    if len(scales) != 1:
        raise Unsupported("only weight dequantization (one scale tensor) is supported")
    levels = _levels(int(bits[0] if isinstance(bits, list) else bits))
    scale, count = _scale(ctx, scales[0], levels, "dq_scale")
    x = _quantized_input(ctx, ctx.require(op, "X"))
    ctx.emit("DequantizeLinear", [x, scale, _zero_point(ctx, None, count)], ctx.out(op), **_axis(op, count))
