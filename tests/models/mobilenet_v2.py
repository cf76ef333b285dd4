"""MobileNetV2 (Sandler et al. 2018), width 1.0: inverted residual blocks with linear bottlenecks.

Exercises depthwise 3x3 convolutions, ReLU6 (exported as Clip), residual Adds only where the
block keeps its shape, and the global-average-pool + classifier head.
"""

from __future__ import annotations

import torch
from torch import nn

# expansion t, output channels c, repeats n, first stride s (table 2 of the paper)
INVERTED_RESIDUAL_SETTINGS = [
    (1, 16, 1, 1),
    (6, 24, 2, 2),
    (6, 32, 3, 2),
    (6, 64, 4, 2),
    (6, 96, 3, 1),
    (6, 160, 3, 2),
    (6, 320, 1, 1),
]


def conv_bn_relu6(in_ch: int, out_ch: int, kernel: int, stride: int = 1, groups: int = 1) -> nn.Sequential:
    """Conv (no bias) -> BatchNorm -> ReLU6, the unit MobileNetV2 is made of."""
    return nn.Sequential(
        nn.Conv2d(in_ch, out_ch, kernel, stride, kernel // 2, groups=groups, bias=False),
        nn.BatchNorm2d(out_ch),
        nn.ReLU6(inplace=True),
    )


class InvertedResidual(nn.Module):
    """Expand (1x1) -> depthwise (3x3) -> linear project (1x1), with a skip when shapes allow."""

    def __init__(self, in_ch: int, out_ch: int, stride: int, expansion: int) -> None:
        super().__init__()
        hidden = in_ch * expansion
        layers: list[nn.Module] = []
        if expansion != 1:
            layers.append(conv_bn_relu6(in_ch, hidden, 1))
        layers += [
            conv_bn_relu6(hidden, hidden, 3, stride, groups=hidden),
            nn.Conv2d(hidden, out_ch, 1, bias=False),
            nn.BatchNorm2d(out_ch),
        ]
        self.body = nn.Sequential(*layers)
        self.use_skip = stride == 1 and in_ch == out_ch

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x + self.body(x) if self.use_skip else self.body(x)


class MobileNetV2(nn.Module):
    """The ImageNet MobileNetV2 layout: 32-channel stem, 17 inverted residuals, 1280-channel head."""

    def __init__(self, num_classes: int = 1000) -> None:
        super().__init__()
        layers: list[nn.Module] = [conv_bn_relu6(3, 32, 3, stride=2)]
        in_ch = 32
        for expansion, out_ch, repeats, first_stride in INVERTED_RESIDUAL_SETTINGS:
            for i in range(repeats):
                layers.append(InvertedResidual(in_ch, out_ch, first_stride if i == 0 else 1, expansion))
                in_ch = out_ch
        layers.append(conv_bn_relu6(in_ch, 1280, 1))
        self.features = nn.Sequential(*layers)
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.classifier = nn.Sequential(nn.Dropout(0.2), nn.Linear(1280, num_classes))
        for module in self.modules():
            if isinstance(module, nn.Conv2d):
                nn.init.kaiming_normal_(module.weight, mode="fan_out")

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.classifier(torch.flatten(self.pool(self.features(x)), 1))


def mobilenet_v2() -> nn.Module:
    """MobileNetV2, width multiplier 1.0, 1000 classes."""
    return MobileNetV2()
