"""int8 ADD and MUL of two quantized operands (``b`` broadcasts against ``a`` like numpy), each with
one rounding step. ``qa``, ``qb``, ``qy``: (scale, zero point) per tensor of a, b and the output;
[low, high]: the output's clamp (:func:`lite_converter.int8.activation_range`). C: ``ref/qs8_add_ref.c``,
``ref/qs8_mul_ref.c`` (parameters at prepare: ``ops/binary_int8.cc``)."""

from __future__ import annotations

import numpy as np

from lite_converter.int8.fixed_point import (
    quantize_multiplier,
    quantize_multiplier_pair,
    requantize,
    rounding_shift_right,
)

QParams = tuple[float, int]


def add(a: np.ndarray, qa: QParams, b: np.ndarray, qb: QParams, qy: QParams,
        low: int, high: int) -> np.ndarray:
    """``clamp(rounding_shift_right((a - za) * M_a + (b - zb) * M_b, shift) + zy, low, high)``, int8.

    (M_a, M_b, shift) = :func:`quantize_multiplier_pair` of s_a / s_y and s_b / s_y (double divisions
    of the float32 scales): both operands are scaled into one int64 sum and rounded once (half toward
    +infinity); the sum is not saturated to int32 (|sum| < 2^40 for int8 operands)."""
    s_y = float(np.float32(qy[0]))
    ma, mb, shift = quantize_multiplier_pair(float(np.float32(qa[0])) / s_y, float(np.float32(qb[0])) / s_y)
    total = (np.asarray(a, np.int64) - qa[1]) * ma + (np.asarray(b, np.int64) - qb[1]) * mb
    return np.clip(rounding_shift_right(total, shift) + qy[1], low, high).astype(np.int8)


def mul(a: np.ndarray, qa: QParams, b: np.ndarray, qb: QParams, qy: QParams,
        low: int, high: int) -> np.ndarray:
    """``requantize((a - za) * (b - zb), multiplier, shift, zy, low, high)``, int8, with (multiplier,
    shift) = :func:`quantize_multiplier` of ``s_a * s_b / s_y`` (double, this order)."""
    multiplier, shift = quantize_multiplier(float(np.float32(qa[0])) * float(np.float32(qb[0]))
                                            / float(np.float32(qy[0])))
    product = (np.asarray(a, np.int64) - qa[1]) * (np.asarray(b, np.int64) - qb[1])
    return requantize(product, multiplier, shift, qy[1], low, high)
