"""Quantization parameters of the int8 scheme (docs/QUANTIZATION.md), from calibrated ranges and fp32
constants: what the converter's int8 pass writes and slim's simulation reads.

* activations: asymmetric per-tensor int8, the calibrated range widened to contain 0 (so that
  zero padding and ReLU's 0 are exact), scale = (max - min) / 255 as float32, zero point rounded;
* weights: symmetric per output channel, scale = max|w[c]| / 127, values in [-127, 127];
* bias: int32 with scale s_in * s_w[c] (double product of the float32 scales), zero point 0.
"""

from __future__ import annotations

import numpy as np

from lite_converter.int8.rounding import INT8_MAX, INT8_MIN, quantize
from lite_converter.ir import QuantParams

WEIGHT_MAX = 127  # symmetric weights avoid -128, so |w| <= 127 and negation never overflows


def activation_params(low: float, high: float) -> QuantParams:
    """Per-tensor asymmetric int8 parameters covering [low, high] and 0: ``scale = float32((high' -
    low') / 255)`` (1.0 for an empty range, the smallest normal float32 if that underflows),
    ``zero_point = clamp(round(-128 - low' / double(scale)), -128, 127)`` rounded half to even."""
    low, high = min(float(low), 0.0), max(float(high), 0.0)
    if not (np.isfinite(low) and np.isfinite(high)):
        raise ValueError(f"calibrated range [{low}, {high}] is not finite")
    span = high - low
    scale = np.float32(span / (INT8_MAX - INT8_MIN)) if span > 0 else np.float32(1.0)
    if scale <= 0 or not np.isfinite(scale):  # a range so small that float32 underflows
        scale = np.float32(np.finfo(np.float32).tiny)
    zero_point = int(np.clip(np.round(INT8_MIN - low / float(scale)), INT8_MIN, INT8_MAX))
    return QuantParams(np.array([scale], np.float32), np.array([zero_point], np.int64), None)


def weight_per_channel(weight: np.ndarray, min_scale: np.ndarray | None = None,
                       axis: int = 0) -> tuple[np.ndarray, QuantParams]:
    """Symmetric per-output-channel int8 weights and their parameters; the output channel is ``axis``
    (0 for CONV_2D / FULLY_CONNECTED, 3 for CONV_TRANSPOSE_2D's [Ci, KH, KW, Co]); ``min_scale`` (per
    channel) bounds the scales from below. ``s_w[c] = float32(max|w[c]|) / 127`` in float32 (1.0 for an
    all-zero channel); ``q = clamp(rint(w / s_w[c]), -127, 127)``, QUANTIZE's rounding with zero point 0."""
    w = np.moveaxis(np.asarray(weight, np.float32), axis, 0)
    channels = w.shape[0]
    abs_max = np.abs(w.reshape(channels, -1)).max(axis=1) if w.size else np.zeros(channels, np.float32)
    scale = (abs_max / WEIGHT_MAX).astype(np.float32)
    if min_scale is not None:
        scale = np.maximum(scale, np.asarray(min_scale, np.float32))
    scale[~(scale > 0)] = np.float32(1.0)  # an all-zero channel: any scale, its values are 0
    q = np.clip(quantize(w, scale, 0, axis=0), -WEIGHT_MAX, WEIGHT_MAX)
    params = QuantParams(scale, np.zeros(channels, np.int64), axis)
    return np.ascontiguousarray(np.moveaxis(q, 0, axis)), params


# |int32 bias| stays below 2^30: with the products of up to 32,896 int8 pairs the int32 accumulator of
# the fast kernels cannot overflow (lite_qs8_gemm_is_exact), so no layer falls back to the reference.
BIAS_LIMIT = float(1 << 30)


def bias_weight_scale_floor(bias: np.ndarray, input_scale: np.float32) -> np.ndarray:
    """The smallest weight scale per channel that keeps the int32 bias within BIAS_LIMIT. It matters
    only for channels whose weights are ~0 next to their bias (e.g. after BatchNorm folding), where a
    coarser weight step costs nothing and an unbounded bias would saturate int32."""
    return (np.abs(np.asarray(bias, np.float64)) / (np.float64(input_scale) * BIAS_LIMIT)).astype(np.float32)


def bias_int32(bias: np.ndarray, input_scale: np.float32, weight_scale: np.ndarray) -> np.ndarray:
    """int32 bias with scale s_in * s_w[c], the double product of the float32 scales (quantize_bias)."""
    return quantize_bias(bias, np.float64(input_scale) * weight_scale.astype(np.float64))


def quantize_bias(bias: np.ndarray, scale: np.ndarray) -> np.ndarray:
    """``clamp(rint(b / scale), INT32)`` in double (rint half to even), per channel: int32."""
    q = np.rint(np.asarray(bias, np.float64) / np.asarray(scale, np.float64))
    return np.clip(q, np.iinfo(np.int32).min, np.iinfo(np.int32).max).astype(np.int32)


def constant_per_tensor(value: np.ndarray) -> tuple[np.ndarray, QuantParams]:
    """A float32 constant operand (of int8 ADD / MUL) as int8 with per-tensor parameters covering its
    values and 0 (:func:`activation_params`), quantized like QUANTIZE."""
    value = np.asarray(value, np.float32)
    params = activation_params(float(value.min(initial=0.0)), float(value.max(initial=0.0)))
    return quantize(value, params.scale[0], params.zero_point[0]), params


def per_tensor(quant: QuantParams) -> tuple[float, int]:
    """(scale, zero point) of per-tensor parameters, as the Python numbers the int8 functions take."""
    return float(quant.scale.reshape(-1)[0]), int(quant.zero_point.reshape(-1)[0])
