"""The int8 arithmetic of the scheme in torch, for quantization-aware training (slim/qat_module.py).

Two forms of each step:

* the **trainable** form on real values (float32): ``s * (clamp(round(x / s) + z, lo, hi) - z)``
  with a straight-through estimator for the rounding, so gradients reach the input, the weights and
  the range (learned step size, LSQ: d/ds of ``s * round(x / s)`` is ``round(x / s) - x / s``;
  values clipped at the range's ends pull the bound, as PACT's learned clip does);
* the **exact** form on integer codes (int64 tensors): the same integers as
  ``lite_converter.int8`` (the one home of the runtime's arithmetic) computes, step for step:
  QUANTIZE's float32 division and half-to-even rounding, requantization by a 64-bit multiply and a
  rounding shift, the average pool's half-away division, the fused activation's clamp.

The scalar parameters of the exact form (fixed-point multipliers, clamp bounds, lookup tables) come
from ``lite_converter.int8`` itself, computed from the current scales; only the element-wise
integer work is re-written here, in torch, where tests compare it with the runtime byte for byte.
"""

from __future__ import annotations

import numpy as np
import torch

from lite_converter.int8 import INT8_MAX, INT8_MIN, quantize_multiplier, quantize_multiplier_pair
from lite_converter.int8.params import BIAS_LIMIT, WEIGHT_MAX

INT32_MIN, INT32_MAX = -(1 << 31), (1 << 31) - 1


def round_ste(x: torch.Tensor) -> torch.Tensor:
    """Half-to-even rounding forward, identity backward (the straight-through estimator)."""
    return x + (torch.round(x) - x).detach()


def scale_grad(x: torch.Tensor, factor: float) -> torch.Tensor:
    """``x`` forward; its gradient times ``factor`` backward (LSQ's step-size gradient scale)."""
    return x * factor + (x - x * factor).detach()


# -- activation parameters (lite_converter.int8.params.activation_params, differentiable) -----------
def activation_scale_zero_point(low: torch.Tensor, high: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """(scale float32, zero point float64 holding an integer) of a float64 range [low, high], the
    arithmetic of ``activation_params``: widened to contain 0, ``scale = float32((high - low) / 255)``
    (1.0 for an empty range), ``zero point = clamp(round(-128 - low / scale), -128, 127)`` in double,
    rounded half to even. Differentiable in low / high (the rounding through the STE)."""
    low, high = torch.clamp(low, max=0.0), torch.clamp(high, min=0.0)
    span = high - low
    scale = torch.where(span > 0, span / (INT8_MAX - INT8_MIN), torch.ones_like(span)).to(torch.float32)
    tiny = torch.finfo(torch.float32).tiny
    scale = torch.where(scale > 0, scale, torch.full_like(scale, tiny))
    zero_point = torch.clamp(round_ste(INT8_MIN - low / scale.to(torch.float64)), INT8_MIN, INT8_MAX)
    return scale, zero_point


# -- trainable (real-valued) forms -------------------------------------------------------------------
class _FakeQuantize(torch.autograd.Function):
    """:func:`fake_quantize` as one autograd node. The chain of element-wise ops it replaces saved
    seven intermediates and ran a backward kernel for each; here the forward keeps what the
    gradients need (which elements are inside the range, which are held by a fused activation,
    LSQ's slope) and the backward is a masked copy and two reductions."""

    @staticmethod
    def forward(  # type: ignore[override]
        ctx: torch.autograd.function.FunctionCtx,
        x: torch.Tensor,
        s: torch.Tensor,
        zp: torch.Tensor,
        low: int,
        high: int,
        held_ends: tuple[bool, bool],
    ) -> torch.Tensor:
        steps = torch.div(x, s)
        shifted = torch.round(steps).add_(zp)
        codes = shifted.clamp(low, high)
        inside = codes == shifted  # NaN: outside, as the clamp's gradient treats it
        # elements clipped by a fused activation (ReLU's 0, a CLIP's bound) sit at a value the range
        # does not set: they pull neither the scale nor the zero point
        range_end = inside.logical_not()
        if held_ends[0]:
            range_end &= shifted >= low
        if held_ends[1]:
            range_end &= shifted <= high
        centered = codes.sub_(zp)
        out = centered * s
        # d/ds of s * (q - zp): (q - zp) - x / s inside the range (LSQ), the clipped end outside
        slope = None
        if ctx.needs_input_grad[1]:  # type: ignore[attr-defined]
            slope = centered.sub_(steps.mul_(inside))
            if held_ends[0] or held_ends[1]:
                slope.mul_(inside | range_end)
        ctx.save_for_backward(inside, range_end, slope, s)
        return out

    @staticmethod
    def backward(  # type: ignore[override]
        ctx: torch.autograd.function.FunctionCtx, grad: torch.Tensor
    ) -> tuple[torch.Tensor | None, ...]:
        inside, range_end, slope, s = ctx.saved_tensors  # type: ignore[attr-defined]
        needs = ctx.needs_input_grad  # type: ignore[attr-defined]
        grad_x = grad * inside if needs[0] else None
        grad_s = grad_zp = None
        if needs[1]:
            grad_s = torch.dot(grad.reshape(-1), slope.reshape(-1)).reshape(s.shape)
        if needs[2]:
            grad_zp = (grad * range_end).sum().mul_(-s).reshape(s.shape)
        return grad_x, grad_s, grad_zp, None, None, None


def fake_quantize(
    x: torch.Tensor,
    scale: torch.Tensor,
    zero_point: torch.Tensor,
    low: int = INT8_MIN,
    high: int = INT8_MAX,
    held_ends: tuple[bool, bool] = (False, False),
) -> torch.Tensor:
    """``scale * (clamp(round(x / scale) + zp, low, high) - zp)`` in float32, STE rounding; [low, high]:
    the int8 range or a fused activation's clamp. Gradients: to ``x`` inside the range, to ``scale``
    LSQ's ``q - x / s`` (the clipped end outside), to ``zero_point`` from the clipped values.
    ``held_ends`` (low, high): that end is a fused activation's bound (ReLU's 0), whose clipped
    values give the range no gradient (a ReLU's negatives are 0 whatever the range). ``scale`` and
    ``zero_point`` are scalars (one per tensor)."""
    s, zp = scale.to(torch.float32), zero_point.to(torch.float32)
    x = x.to(torch.float32)
    if torch.is_grad_enabled() and (x.requires_grad or s.requires_grad or zp.requires_grad):
        return _FakeQuantize.apply(x, s, zp, low, high, held_ends)
    return torch.div(x, s).round_().add_(zp).clamp_(low, high).sub_(zp).mul_(s)


def weight_scales(weight: torch.Tensor, floor: torch.Tensor | None) -> torch.Tensor:
    """Per-output-channel (axis 0) float32 scales ``max|w[c]| / 127``, at least ``floor``, 1.0 for an
    all-zero channel (``weight_per_channel``); detached: the weights move, the grid follows."""
    with torch.no_grad():
        w = weight.detach().to(torch.float32).reshape(weight.shape[0], -1)
        scale = w.abs().amax(dim=1) / WEIGHT_MAX
        if floor is not None:
            scale = torch.maximum(scale, floor.to(torch.float32))
        return torch.where(scale > 0, scale, torch.ones_like(scale))


def bias_scale_floor(bias: torch.Tensor, input_scale: torch.Tensor) -> torch.Tensor:
    """``bias_weight_scale_floor``: |b| / (double(s_in) * 2^30) as float32 (detached)."""
    with torch.no_grad():
        return (
            bias.detach().to(torch.float64).abs() / (input_scale.detach().to(torch.float64) * BIAS_LIMIT)
        ).to(torch.float32)


def weight_codes(weight: torch.Tensor, scale: torch.Tensor) -> torch.Tensor:
    """``clamp(rint(w / s_w[c]), -127, 127)`` as float32 integers, STE (gradient to the weight)."""
    shape = (-1,) + (1,) * (weight.dim() - 1)
    return torch.clamp(round_ste(weight.to(torch.float32) / scale.reshape(shape)), -WEIGHT_MAX, WEIGHT_MAX)


def bias_codes(bias: torch.Tensor, input_scale: torch.Tensor, weight_scale: torch.Tensor) -> torch.Tensor:
    """int32 bias ``clamp(rint(b / (double(s_in) * double(s_w[c]))))`` as float64 integers, STE."""
    step = input_scale.detach().to(torch.float64) * weight_scale.to(torch.float64)
    return torch.clamp(round_ste(bias.to(torch.float64) / step), INT32_MIN, INT32_MAX)


# -- exact (integer) forms ---------------------------------------------------------------------------
def quantize_exact(x: torch.Tensor, scale: float, zero_point: int) -> torch.Tensor:
    """QUANTIZE: int64 ``clamp(rint(float32(x) / float32(s)) + zp, -128, 127)``, NaN -> zp."""
    steps = torch.round(x.detach().to(torch.float32) / torch.tensor(scale, dtype=torch.float32))
    steps = torch.where(torch.isnan(steps), torch.zeros_like(steps), steps + zero_point)
    steps = torch.where(torch.isnan(x.detach()), torch.full_like(steps, zero_point), steps)
    return torch.clamp(steps, INT8_MIN, INT8_MAX).to(torch.int64)


def dequantize_exact(codes: torch.Tensor, scale: float, zero_point: int) -> torch.Tensor:
    """DEQUANTIZE: ``float32(s) * float32(q - zp)``, rounded once, float32."""
    return torch.tensor(scale, dtype=torch.float32) * (codes - zero_point).to(torch.float32)


def rounding_shift_right(value: torch.Tensor, shift: torch.Tensor) -> torch.Tensor:
    """``floor((value + 2^(shift-1)) / 2^shift)`` on int64 (round half toward +infinity)."""
    return torch.bitwise_right_shift(
        value + torch.bitwise_left_shift(torch.ones_like(shift), shift - 1), shift
    )


def requantize_exact(
    acc: torch.Tensor, multiplier: np.ndarray, shift: np.ndarray, zero_point: int, low: int, high: int
) -> torch.Tensor:
    """int64 ``clamp(rounding_shift_right(saturate_int32(acc) * M, shift) + zp, low, high)``; M / shift
    per channel along the last axis (``lite_converter.int8.requantize``)."""
    m = torch.from_numpy(np.asarray(multiplier, np.int64))
    s = torch.from_numpy(np.asarray(shift, np.int64))
    product = torch.clamp(acc.to(torch.int64), INT32_MIN, INT32_MAX) * m
    return torch.clamp(rounding_shift_right(product, s) + zero_point, low, high)


def add_exact(
    a: torch.Tensor,
    qa: tuple[float, int],
    b: torch.Tensor,
    qb: tuple[float, int],
    qy: tuple[float, int],
    low: int,
    high: int,
) -> torch.Tensor:
    """int8 ADD (``lite_converter.int8.add``): both operands scaled into one int64 sum, one rounding."""
    s_y = float(np.float32(qy[0]))
    ma, mb, shift = quantize_multiplier_pair(float(np.float32(qa[0])) / s_y, float(np.float32(qb[0])) / s_y)
    total = (a - qa[1]) * ma + (b - qb[1]) * mb
    return torch.clamp(rounding_shift_right(total, torch.tensor(shift, dtype=torch.int64)) + qy[1], low, high)


def mul_exact(
    a: torch.Tensor,
    qa: tuple[float, int],
    b: torch.Tensor,
    qb: tuple[float, int],
    qy: tuple[float, int],
    low: int,
    high: int,
) -> torch.Tensor:
    """int8 MUL (``lite_converter.int8.mul``): the product requantized by s_a * s_b / s_y."""
    multiplier, shift = quantize_multiplier(
        float(np.float32(qa[0])) * float(np.float32(qb[0])) / float(np.float32(qy[0]))
    )
    return requantize_exact(
        (a - qa[1]) * (b - qb[1]), np.array(multiplier), np.array(shift), qy[1], low, high
    )


def divide_round_half_away(total: torch.Tensor, count: int) -> torch.Tensor:
    """int64 ``total / count`` rounded half away from zero (GLOBAL_AVERAGE_POOL's mean)."""
    half = count // 2
    return torch.where(
        total >= 0,
        torch.div(total + half, count, rounding_mode="floor"),
        -torch.div(-total + half, count, rounding_mode="floor"),
    )
