"""ResNet-18 (He et al. 2016): BasicBlocks in four stages of two, 7x7 stem and max pool.

Exercises a large-kernel strided convolution, MaxPool with padding, residual Adds followed by
ReLU, 1x1 strided projection shortcuts, and a Gemm classifier.
"""

from __future__ import annotations

import torch
from torch import nn

STAGE_CHANNELS = (64, 128, 256, 512)
BLOCKS_PER_STAGE = (2, 2, 2, 2)


class BasicBlock(nn.Module):
    """Two 3x3 conv-BN layers and a shortcut (a 1x1 conv-BN projection when the shape changes)."""

    def __init__(self, in_ch: int, out_ch: int, stride: int) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(in_ch, out_ch, 3, stride, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(out_ch)
        self.conv2 = nn.Conv2d(out_ch, out_ch, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(out_ch)
        self.relu = nn.ReLU(inplace=True)
        self.shortcut: nn.Module = nn.Identity()
        if stride != 1 or in_ch != out_ch:
            self.shortcut = nn.Sequential(
                nn.Conv2d(in_ch, out_ch, 1, stride, bias=False), nn.BatchNorm2d(out_ch)
            )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        return self.relu(out + self.shortcut(x))


class ResNet18(nn.Module):
    """The ImageNet ResNet-18 layout."""

    def __init__(self, num_classes: int = 1000) -> None:
        super().__init__()
        self.stem = nn.Sequential(
            nn.Conv2d(3, 64, 7, 2, 3, bias=False),
            nn.BatchNorm2d(64),
            nn.ReLU(inplace=True),
            nn.MaxPool2d(3, 2, 1),
        )
        blocks: list[nn.Module] = []
        in_ch = 64
        for stage, (out_ch, count) in enumerate(zip(STAGE_CHANNELS, BLOCKS_PER_STAGE, strict=True)):
            for i in range(count):
                blocks.append(BasicBlock(in_ch, out_ch, 2 if i == 0 and stage > 0 else 1))
                in_ch = out_ch
        self.stages = nn.Sequential(*blocks)
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(512, num_classes)
        for module in self.modules():
            if isinstance(module, nn.Conv2d):
                nn.init.kaiming_normal_(module.weight, mode="fan_out", nonlinearity="relu")

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fc(torch.flatten(self.pool(self.stages(self.stem(x))), 1))


def resnet18() -> nn.Module:
    """ResNet-18 with 1000 classes."""
    return ResNet18()
