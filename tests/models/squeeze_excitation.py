"""Squeeze-and-excitation (Hu et al. 2018) as used by EfficientNet and MobileNetV3.

Global average pool -> 1x1 conv reduce -> activation -> 1x1 conv expand -> gate -> rescale the
input. In ONNX this is ReduceMean/GlobalAveragePool, two Convs, a gate (Sigmoid or HardSigmoid)
and a broadcast Mul of an [N, C, 1, 1] tensor with the [N, C, H, W] input.
"""

from __future__ import annotations

import torch
from torch import nn


class SqueezeExcitation(nn.Module):
    """Channel attention; ``activation`` and ``gate`` are module classes (e.g. nn.SiLU, nn.Sigmoid)."""

    def __init__(
        self, channels: int, squeeze: int, activation: type[nn.Module], gate: type[nn.Module]
    ) -> None:
        super().__init__()
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.reduce = nn.Conv2d(channels, squeeze, 1)
        self.activation = activation()
        self.expand = nn.Conv2d(squeeze, channels, 1)
        self.gate = gate()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        scale = self.gate(self.expand(self.activation(self.reduce(self.pool(x)))))
        return x * scale


def make_divisible(value: float, divisor: int = 8) -> int:
    """Rounds a channel count to a multiple of ``divisor`` without dropping more than 10%."""
    rounded = max(divisor, int(value + divisor / 2) // divisor * divisor)
    return rounded + divisor if rounded < 0.9 * value else rounded
