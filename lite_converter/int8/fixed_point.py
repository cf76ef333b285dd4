"""Fixed-point requantization: a real multiplier as (multiplier, shift), applied with one 64-bit
multiply and one rounding shift (kernels_neon/include/lite_kernels/requantize.h, ref/qs8_requantize_ref.c).

A real multiplier m >= 0 (s_in * s_w / s_out, s_a / s_out, ...) is ``multiplier * 2^-shift`` with
``multiplier`` in [2^30, 2^31) and ``shift`` in [1, 62] (0 and 1 for a multiplier that is 0 or below
2^-32). Applying it: ``floor((acc * multiplier + 2^(shift-1)) / 2^shift)``, i.e. round half toward
+infinity, with no intermediate rounding (unlike gemmlowp's doubling high multiply + rounding divide).
"""

from __future__ import annotations

import math

import numpy as np

INT32_MIN, INT32_MAX = int(np.iinfo(np.int32).min), int(np.iinfo(np.int32).max)
TWO_POW_31 = 2147483648.0
MAX_SHIFT = 62


def quantize_multipliers(real: np.ndarray | float) -> tuple[np.ndarray, np.ndarray]:
    """(multiplier, shift) per element of ``real`` (float64), both int64 arrays of its shape.

    ``real = q * 2^e`` with q in [0.5, 1) (frexp); ``multiplier = floor(q * 2^31 + 0.5)`` (exact in
    double: q * 2^31 has its last bit at 2^-22), halved with e + 1 when it reaches 2^31;
    ``shift = 31 - e``. ``real == 0`` or ``shift > 62`` gives (0, 1). Raises ValueError for a negative
    or non-finite value or one >= 2^30 (shift < 1). C: ``lite_quantize_multiplier``.
    """
    real = np.asarray(real, np.float64)
    bad = ~(real >= 0.0) | np.isinf(real)
    if bad.any():
        raise ValueError(f"multiplier {real[bad].reshape(-1)[0]} is not a finite non-negative number")
    fraction, exponent = np.frexp(real)
    multiplier = np.floor(fraction * TWO_POW_31 + 0.5).astype(np.int64)
    carried = multiplier == np.int64(1) << 31
    multiplier = np.where(carried, multiplier // 2, multiplier)
    shift = 31 - (exponent.astype(np.int64) + carried)
    too_large = (real > 0.0) & (shift < 1)
    if too_large.any():
        raise ValueError(f"multiplier {real[too_large].reshape(-1)[0]} is too large (>= 2^30)")
    zero = (real == 0.0) | (shift > MAX_SHIFT)
    return np.where(zero, 0, multiplier), np.where(zero, 1, shift)


def quantize_multiplier(real: float) -> tuple[int, int]:
    """(multiplier, shift) of one real multiplier, as Python ints (:func:`quantize_multipliers`)."""
    multiplier, shift = quantize_multipliers(float(real))
    return int(multiplier), int(shift)


def quantize_multiplier_pair(real_a: float, real_b: float) -> tuple[int, int, int]:
    """(multiplier_a, multiplier_b, shared shift) of int8 ADD: the shift is the larger multiplier's
    (:func:`quantize_multiplier`); each multiplier is ``floor(real * 2^shift + 0.5)`` in double (exact:
    scaling by a power of two). C: ``lite_quantize_multiplier_pair``."""
    top, shift = quantize_multiplier(max(real_a, real_b))
    if top == 0:
        return 0, 0, 1
    return math.floor(math.ldexp(real_a, shift) + 0.5), math.floor(math.ldexp(real_b, shift) + 0.5), shift


def channel_multipliers(input_scale: float, weight_scales: np.ndarray,
                        output_scale: float) -> tuple[np.ndarray, np.ndarray]:
    """Per-channel (multiplier, shift), int64, of ``s_in * s_w[c] / s_out``: the float32 scales of the
    file, multiplied then divided in double (this order). C: ``ops/quant_params_int8.h``."""
    s_in, s_out = np.float64(np.float32(input_scale)), np.float64(np.float32(output_scale))
    weights = np.asarray(weight_scales, np.float32).reshape(-1).astype(np.float64)
    return quantize_multipliers(s_in * weights / s_out)


def saturate_int32(value: np.ndarray) -> np.ndarray:
    """int64 values clamped to the int32 range (what an int32 accumulator holds). Returns int64."""
    return np.clip(np.asarray(value, np.int64), INT32_MIN, INT32_MAX)


def rounding_shift_right(value: np.ndarray, shift: np.ndarray | int) -> np.ndarray:
    """``floor((value + 2^(shift-1)) / 2^shift)`` on int64, shift in [1, 62]: round half toward
    +infinity (numpy's ``>>`` on int64 is the floor). Returns int64. C: ``lite_rounding_shift_right``."""
    value = np.asarray(value, np.int64)
    shift = np.asarray(shift, np.int64)
    return (value + (np.int64(1) << (shift - 1))) >> shift


def requantize(acc: np.ndarray, multiplier: np.ndarray | int, shift: np.ndarray | int, zero_point: int,
               low: int, high: int) -> np.ndarray:
    """int8 ``clamp(rounding_shift_right(saturate_int32(acc) * multiplier, shift) + zero_point, low, high)``.

    ``acc``: int64 accumulators (saturated to int32 first, as the kernels' int32 accumulator holds
    them; this also keeps the product below 2^62); ``multiplier`` / ``shift``: scalars or per-channel
    vectors broadcasting against ``acc``'s last axis; [low, high]: the int8 range or a fused
    activation's (:func:`lite_converter.int8.activation_range`). Returns int8.
    C: ``lite_requantize_to_int8``.
    """
    product = saturate_int32(acc) * np.asarray(multiplier, np.int64)
    out = rounding_shift_right(product, shift) + zero_point
    return np.clip(out, low, high).astype(np.int8)
