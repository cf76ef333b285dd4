"""The int8 clamp of an activation fused into an int8 op, applied on the quantized axis."""

from __future__ import annotations

from typing import Any

import numpy as np

from lite_converter.int8.rounding import INT8_MAX, INT8_MIN, quantize


def activation_range(activation: dict[str, Any] | None, scale: float, zero_point: int) -> tuple[int, int]:
    """[low, high] of a fused activation on an output with ``scale`` / ``zero_point``: NONE (or no
    activation) -> [-128, 127]; RELU -> [Q(0), 127]; CLIP(alpha, beta) -> [Q(alpha), Q(beta)], with Q
    the QUANTIZE rounding (:func:`lite_converter.int8.quantize`) of the float32 bound. Raises
    ValueError for a kind that has no int8 form. C: ``quant_params_int8.h::activation_range_int8``."""
    kind = (activation or {}).get("kind", "NONE")
    if kind == "NONE":
        return INT8_MIN, INT8_MAX
    if kind == "RELU":
        return int(quantize(np.float32(0.0), scale, zero_point)), INT8_MAX
    if kind == "CLIP":
        return (int(quantize(np.float32(activation["alpha"]), scale, zero_point)),
                int(quantize(np.float32(activation["beta"]), scale, zero_point)))
    raise ValueError(f"activation {kind} has no int8 form")
