"""Between real numbers and int8: QUANTIZE, DEQUANTIZE, their round trip, and the integer division of
the average pool. Each function is the C code's arithmetic, in the same dtype and rounding.

A scale / zero point is per tensor (a scalar or a one-element array, ``axis=None``) or per index of
``axis`` (vectors as long as that dimension), the layout of :class:`lite_converter.ir.QuantParams`.
"""

from __future__ import annotations

import numpy as np

INT8_MIN, INT8_MAX = -128, 127


def _along(values: np.ndarray | float | int, ndim: int, axis: int | None,
           dtype: type) -> np.ndarray | np.generic:
    """``values`` as ``dtype``, shaped to broadcast along ``axis`` of an ``ndim``-dimensional array
    (a numpy scalar when ``axis`` is None: then ``values`` must hold one number, or none for 0)."""
    array = np.asarray(values, dtype)
    if axis is None or array.size == 1:
        flat = array.reshape(-1)
        if flat.size > 1:
            raise ValueError(f"{flat.size} per-axis values given without an axis")
        return flat[0] if flat.size else np.zeros((), dtype)[()]
    shape = [1] * ndim
    shape[axis] = -1
    return array.reshape(shape)


def quantize_steps(x: np.ndarray, scale: np.ndarray | float, zero_point: np.ndarray | int,
                   axis: int | None = None) -> np.ndarray:
    """float32 ``rint(x / scale) + zero_point`` before saturation (NaN stays NaN): where a real value
    falls on the int8 grid, for callers that must know whether it is inside [-128, 127] (importers
    checking that a model's constant is exactly representable). See :func:`quantize`."""
    x = np.asarray(x, np.float32)
    s = _along(scale, x.ndim, axis, np.float32)
    zp = _along(zero_point, x.ndim, axis, np.int64).astype(np.float32)
    return np.rint(x / s) + zp


def quantize(x: np.ndarray, scale: np.ndarray | float, zero_point: np.ndarray | int,
             axis: int | None = None) -> np.ndarray:
    """QUANTIZE: float -> int8, ``clamp(rint(x / scale) + zero_point, -128, 127)``.

    Dtypes and rounding: ``x`` and ``scale`` as float32; the quotient is the IEEE float32 division
    (rounded to nearest); ``rint`` rounds half to even (C's ``nearbyintf`` in the default rounding
    mode); the zero point is added in float32 (exact: |value| < 2^24 or already saturated); NaN gives
    the zero point. Returns int8 of ``x``'s shape. C: ``lite_qs8_quantize_f32_ref``,
    ``quant_params_int8.h::quantize_value_int8``.
    """
    steps = quantize_steps(x, scale, zero_point, axis)
    zp = _along(zero_point, steps.ndim, axis, np.int64).astype(np.float32)
    steps = np.where(np.isnan(steps), zp, steps)
    return np.clip(steps, INT8_MIN, INT8_MAX).astype(np.int8)


def dequantize(q: np.ndarray, scale: np.ndarray | float, zero_point: np.ndarray | int,
               axis: int | None = None) -> np.ndarray:
    """DEQUANTIZE: integers -> float32, ``scale * float32(q - zero_point)``.

    ``q - zero_point`` in int32 (int8 values, or an int32 bias with zero point 0), converted to
    float32 (rounded to nearest; exact for |q - zp| <= 2^24), times the float32 scale, rounded once.
    Returns float32.
    C: ``lite_qs8_dequantize_f32_ref``.
    """
    q = np.asarray(q)
    s = _along(scale, q.ndim, axis, np.float32)
    zp = _along(zero_point, q.ndim, axis, np.int32)
    return s * (q.astype(np.int32) - zp).astype(np.float32)


def fake_quantize(x: np.ndarray, scale: np.ndarray | float, zero_point: np.ndarray | int,
                  axis: int | None = None) -> np.ndarray:
    """``dequantize(quantize(x))``: the float32 value an fp32 tensor has after an int8 round trip
    (what QDQ models and QAT's fake-quant nodes compute)."""
    return dequantize(quantize(x, scale, zero_point, axis), scale, zero_point, axis)


def divide_round_half_away(total: np.ndarray, count: int) -> np.ndarray:
    """``total / count`` on int64, rounded half away from zero: ``(total + count/2) / count`` for
    total >= 0, ``-((-total + count/2) / count)`` below, with truncating division, count > 0 (the
    mean of GLOBAL_AVERAGE_POOL, ``ref/qs8_pool2d_nhwc_ref.c``). Returns int64."""
    total = np.asarray(total, np.int64)
    half = np.int64(count // 2)
    return np.where(total >= 0, (total + half) // count, -((-total + half) // count))
