"""MobileNetV3-Small (Howard et al. 2019): hard-swish activations and hard-sigmoid-gated SE.

Exercises HardSwish and HardSigmoid (ONNX ops since opset 14 / 6), SE blocks with a ReLU squeeze,
a mix of ReLU and HardSwish blocks, and a two-layer classifier head with HardSwish between.
"""

from __future__ import annotations

import torch
from torch import nn

from tests.models.squeeze_excitation import SqueezeExcitation, make_divisible

# kernel, expanded channels, output channels, use SE, activation, stride (table 2 of the paper)
BNECK_SETTINGS = [
    (3, 16, 16, True, nn.ReLU, 2),
    (3, 72, 24, False, nn.ReLU, 2),
    (3, 88, 24, False, nn.ReLU, 1),
    (5, 96, 40, True, nn.Hardswish, 2),
    (5, 240, 40, True, nn.Hardswish, 1),
    (5, 240, 40, True, nn.Hardswish, 1),
    (5, 120, 48, True, nn.Hardswish, 1),
    (5, 144, 48, True, nn.Hardswish, 1),
    (5, 288, 96, True, nn.Hardswish, 2),
    (5, 576, 96, True, nn.Hardswish, 1),
    (5, 576, 96, True, nn.Hardswish, 1),
]


def conv_bn_act(
    in_ch: int, out_ch: int, kernel: int, activation: type[nn.Module], stride: int = 1, groups: int = 1
) -> nn.Sequential:
    """Conv (no bias) -> BatchNorm -> activation."""
    return nn.Sequential(
        nn.Conv2d(in_ch, out_ch, kernel, stride, kernel // 2, groups=groups, bias=False),
        nn.BatchNorm2d(out_ch),
        activation(),
    )


class Bneck(nn.Module):
    """Expand (1x1, skipped when not widening) -> depthwise -> optional SE -> linear project."""

    def __init__(
        self, in_ch: int, kernel: int, hidden: int, out_ch: int, use_se: bool,
        activation: type[nn.Module], stride: int,
    ) -> None:
        super().__init__()
        layers: list[nn.Module] = []
        if hidden != in_ch:
            layers.append(conv_bn_act(in_ch, hidden, 1, activation))
        layers.append(conv_bn_act(hidden, hidden, kernel, activation, stride, groups=hidden))
        if use_se:
            layers.append(SqueezeExcitation(hidden, make_divisible(hidden / 4), nn.ReLU, nn.Hardsigmoid))
        layers += [nn.Conv2d(hidden, out_ch, 1, bias=False), nn.BatchNorm2d(out_ch)]
        self.body = nn.Sequential(*layers)
        self.use_skip = stride == 1 and in_ch == out_ch

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x + self.body(x) if self.use_skip else self.body(x)


class MobileNetV3Small(nn.Module):
    """The ImageNet MobileNetV3-Small layout."""

    def __init__(self, num_classes: int = 1000) -> None:
        super().__init__()
        layers: list[nn.Module] = [conv_bn_act(3, 16, 3, nn.Hardswish, stride=2)]
        in_ch = 16
        for kernel, hidden, out_ch, use_se, activation, stride in BNECK_SETTINGS:
            layers.append(Bneck(in_ch, kernel, hidden, out_ch, use_se, activation, stride))
            in_ch = out_ch
        layers.append(conv_bn_act(in_ch, 576, 1, nn.Hardswish))
        self.features = nn.Sequential(*layers)
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.classifier = nn.Sequential(
            nn.Linear(576, 1024), nn.Hardswish(), nn.Dropout(0.2), nn.Linear(1024, num_classes)
        )
        for module in self.modules():
            if isinstance(module, nn.Conv2d):
                nn.init.kaiming_normal_(module.weight, mode="fan_out")

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.classifier(torch.flatten(self.pool(self.features(x)), 1))


def mobilenet_v3_small() -> nn.Module:
    """MobileNetV3-Small with 1000 classes."""
    return MobileNetV3Small()
