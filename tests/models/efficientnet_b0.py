"""EfficientNet-B0 (Tan & Le 2019): MBConv blocks with SiLU (Swish) and sigmoid-gated SE.

Exercises SiLU (Sigmoid + Mul in ONNX, or a fused pattern), 5x5 depthwise convolutions, squeeze-and-
excitation with a broadcast Mul, and residual Adds. Stochastic depth and dropout are training-only.
"""

from __future__ import annotations

import torch
from torch import nn

from tests.models.squeeze_excitation import SqueezeExcitation

# expansion, kernel, first stride, output channels, repeats (table 1 of the paper)
MBCONV_SETTINGS = [
    (1, 3, 1, 16, 1),
    (6, 3, 2, 24, 2),
    (6, 5, 2, 40, 2),
    (6, 3, 2, 80, 3),
    (6, 5, 1, 112, 3),
    (6, 5, 2, 192, 4),
    (6, 3, 1, 320, 1),
]


def conv_bn_silu(in_ch: int, out_ch: int, kernel: int, stride: int = 1, groups: int = 1) -> nn.Sequential:
    """Conv (no bias) -> BatchNorm -> SiLU."""
    return nn.Sequential(
        nn.Conv2d(in_ch, out_ch, kernel, stride, kernel // 2, groups=groups, bias=False),
        nn.BatchNorm2d(out_ch),
        nn.SiLU(inplace=True),
    )


class MBConv(nn.Module):
    """Expand (1x1) -> depthwise (kxk) -> SE -> project (1x1), skip when the shape is kept."""

    def __init__(self, in_ch: int, out_ch: int, kernel: int, stride: int, expansion: int) -> None:
        super().__init__()
        hidden = in_ch * expansion
        layers: list[nn.Module] = []
        if expansion != 1:
            layers.append(conv_bn_silu(in_ch, hidden, 1))
        layers += [
            conv_bn_silu(hidden, hidden, kernel, stride, groups=hidden),
            SqueezeExcitation(hidden, max(1, in_ch // 4), nn.SiLU, nn.Sigmoid),
            nn.Conv2d(hidden, out_ch, 1, bias=False),
            nn.BatchNorm2d(out_ch),
        ]
        self.body = nn.Sequential(*layers)
        self.use_skip = stride == 1 and in_ch == out_ch

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x + self.body(x) if self.use_skip else self.body(x)


class EfficientNetB0(nn.Module):
    """The B0 layout (width and depth multipliers 1.0)."""

    def __init__(self, num_classes: int = 1000) -> None:
        super().__init__()
        layers: list[nn.Module] = [conv_bn_silu(3, 32, 3, stride=2)]
        in_ch = 32
        for expansion, kernel, first_stride, out_ch, repeats in MBCONV_SETTINGS:
            for i in range(repeats):
                layers.append(MBConv(in_ch, out_ch, kernel, first_stride if i == 0 else 1, expansion))
                in_ch = out_ch
        layers.append(conv_bn_silu(in_ch, 1280, 1))
        self.features = nn.Sequential(*layers)
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.classifier = nn.Sequential(nn.Dropout(0.2), nn.Linear(1280, num_classes))
        for module in self.modules():
            if isinstance(module, nn.Conv2d):
                nn.init.kaiming_normal_(module.weight, mode="fan_out")

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.classifier(torch.flatten(self.pool(self.features(x)), 1))


def efficientnet_b0() -> nn.Module:
    """EfficientNet-B0 with 1000 classes."""
    return EfficientNetB0()
