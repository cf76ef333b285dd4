"""QAT's fused autograd ops (slim/qat_arith.py's fake-quantize, slim/qat_fp32_ops.py's hard-swish)
against torch autograd differentiating their defining element-wise formulas.

The fused forms exist for speed (one autograd node instead of a chain of element-wise ops); what they
must keep is the chain's values bit for bit and its gradients: to the input (straight-through inside
the range, zero where clamped), to the learned range through the scale (LSQ's ``q - x / s``) and the
zero point. Inputs include exact rounding ties, values at the clamp ends and fused-activation bounds.
Gradients agree within float32 summation order (the fused form sums the per-element terms in another
order): 1e-5 relative on the range, 1 ulp-level on the input.
"""

from __future__ import annotations

import pytest

torch = pytest.importorskip("torch")

from slim import qat_arith as qa  # noqa: E402
from slim.qat_fp32_ops import UNARY  # noqa: E402


def chain_fake_quantize(x: torch.Tensor, scale: torch.Tensor, zero_point: torch.Tensor,
                        low: int, high: int) -> torch.Tensor:
    """The definition: scale * (clamp(round(x / scale) + zp, low, high) - zp), STE rounding."""
    s, zp = scale.to(torch.float32), zero_point.to(torch.float32)
    steps = x / s
    rounded = steps + (torch.round(steps) - steps).detach()
    return (torch.clamp(rounded + zp, low, high) - zp) * s


def _run(function, x0: torch.Tensor, low_high: tuple[float, float], bounds: tuple[int, int],
         upstream: torch.Tensor) -> tuple[torch.Tensor, ...]:
    x = x0.clone().requires_grad_(True)
    low = torch.tensor(low_high[0], dtype=torch.float64, requires_grad=True)
    high = torch.tensor(low_high[1], dtype=torch.float64, requires_grad=True)
    scale, zero_point = qa.activation_scale_zero_point(low, high)
    y = function(x, scale, zero_point, *bounds)
    (y * upstream).sum().backward()
    assert x.grad is not None and low.grad is not None and high.grad is not None
    return y.detach(), x.grad, low.grad, high.grad


@pytest.mark.parametrize("bounds", [(-128, 127), (-40, 127), (-128, 90)])
@pytest.mark.parametrize("low_high", [(-4.0, 5.0), (-0.3, 7.1), (0.0, 2.5)])
def test_fused_fake_quantize_equals_the_chain(bounds: tuple[int, int], low_high: tuple[float, float]) -> None:
    generator = torch.Generator().manual_seed(7)
    x0 = torch.randn(3, 11, 13, 6, generator=generator) * 4
    scale, zero_point = qa.activation_scale_zero_point(torch.tensor(low_high[0], dtype=torch.float64),
                                                      torch.tensor(low_high[1], dtype=torch.float64))
    ties = (torch.arange(-6, 6, dtype=torch.float32) + 0.5) * scale  # x / s exactly half-way (mostly)
    x0.view(-1)[: ties.numel()] = ties
    upstream = torch.randn(x0.shape, generator=generator)
    fused = _run(qa.fake_quantize, x0, low_high, bounds, upstream)
    chain = _run(chain_fake_quantize, x0, low_high, bounds, upstream)
    assert torch.equal(fused[0], chain[0])
    assert torch.equal(fused[1] != 0, chain[1] != 0)  # the same elements pass the gradient
    torch.testing.assert_close(fused[1], chain[1], rtol=1e-6, atol=1e-6)
    for ours, reference in zip(fused[2:], chain[2:], strict=True):
        assert abs(float(ours) - float(reference)) <= 1e-5 * max(abs(float(reference)), 1e-3)


def chain_relu_fake_quantize(x: torch.Tensor, scale: torch.Tensor, zero_point: torch.Tensor,
                             low: int, high: int) -> torch.Tensor:
    """A fused ReLU's clamp as the function it is: its low end is the zero point itself (the code of
    0.0), so it moves with the range and the clipped values stay 0 whatever the range."""
    s, zp = scale.to(torch.float32), zero_point.to(torch.float32)
    steps = x / s
    rounded = steps + (torch.round(steps) - steps).detach()
    return (torch.clamp(torch.maximum(rounded + zp, zp), max=high) - zp) * s


@pytest.mark.parametrize("low_high", [(-0.3, 7.1), (0.0, 2.5), (-2.0, 1.0)])
def test_relu_clipped_values_give_the_range_no_gradient(low_high: tuple[float, float]) -> None:
    generator = torch.Generator().manual_seed(11)
    x0 = torch.randn(2, 9, 7, 5, generator=generator) * 3
    upstream = torch.randn(x0.shape, generator=generator)
    scale, zero_point = qa.activation_scale_zero_point(torch.tensor(low_high[0], dtype=torch.float64),
                                                      torch.tensor(low_high[1], dtype=torch.float64))
    bounds = (int(zero_point), 127)  # activation_range's RELU clamp: [Q(0), 127] = [zp, 127]
    # no value exactly at the ReLU's code (where torch.maximum splits the gradient between its operands)
    at_zero = torch.round(x0 / scale) == 0
    x0 = torch.where(at_zero, x0 + 2 * scale, x0)

    def fused(x: torch.Tensor, s: torch.Tensor, zp: torch.Tensor, low: int, high: int) -> torch.Tensor:
        return qa.fake_quantize(x, s, zp, low, high, (True, False))

    ours = _run(fused, x0, low_high, bounds, upstream)
    reference = _run(chain_relu_fake_quantize, x0, low_high, bounds, upstream)
    assert torch.equal(ours[0], reference[0])  # (the input's gradient: the test above)
    for got, expected in zip(ours[2:], reference[2:], strict=True):
        assert abs(float(got) - float(expected)) <= 1e-5 * max(abs(float(expected)), 1.0)
    # the old behaviour (every clipped value pulls the zero point) differs: the test can fail
    plain = _run(qa.fake_quantize, x0, low_high, bounds, upstream)
    assert any(abs(float(a) - float(b)) > 1e-2 * max(abs(float(b)), 1.0)
               for a, b in zip(plain[2:], reference[2:], strict=True))


def test_fused_fake_quantize_without_a_range_gradient() -> None:
    x = (torch.linspace(-3, 3, 101)).requires_grad_(True)
    y = qa.fake_quantize(x, torch.tensor(0.05), torch.tensor(3.0))
    y.sum().backward()
    assert x.grad is not None
    inside = (torch.round(x.detach() / 0.05) + 3 >= -128) & (torch.round(x.detach() / 0.05) + 3 <= 127)
    assert torch.equal(x.grad, inside.to(torch.float32))


def test_fused_hard_swish_equals_the_formula() -> None:
    x0 = torch.cat([torch.randn(4000, generator=torch.Generator().manual_seed(3)) * 4,
                    torch.tensor([-3.0, 3.0, 0.0, -6.0, 6.0, -2.999, 2.999])])
    upstream = torch.randn(x0.shape, generator=torch.Generator().manual_seed(4))
    x, reference = x0.clone().requires_grad_(True), x0.clone().requires_grad_(True)
    y = UNARY["HARD_SWISH"](x, 0.0, 0.0)
    expected = reference * torch.clamp(reference / 6.0 + 0.5, 0.0, 1.0)
    (y * upstream).sum().backward()
    (expected * upstream).sum().backward()
    assert torch.equal(y.detach(), expected.detach())
    assert x.grad is not None and reference.grad is not None
    torch.testing.assert_close(x.grad, reference.grad, rtol=1e-6, atol=1e-6)
    with torch.no_grad():
        assert torch.equal(UNARY["HARD_SWISH"](x0, 0.0, 0.0), expected.detach())
