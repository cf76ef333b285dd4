"""ShuffleNetV2 1.0x (Ma et al. 2018): channel split, two branches, concat and channel shuffle.

Exercises the data-movement patterns that a channels-last layout pass must get right: the
channel split (Split or Slice on the channel axis), Concat on channels, and the channel shuffle
written as reshape -> transpose -> reshape on an NCHW tensor.
"""

from __future__ import annotations

import torch
from torch import nn

STAGE_REPEATS = (4, 8, 4)
STAGE_CHANNELS = (24, 116, 232, 464, 1024)


def channel_shuffle(x: torch.Tensor, groups: int) -> torch.Tensor:
    """Interleaves the channels of ``groups`` groups: [N, g*c, H, W] -> [N, c*g, H, W]."""
    n, channels, h, w = x.shape
    x = x.reshape(n, groups, channels // groups, h, w)
    x = x.transpose(1, 2).contiguous()
    return x.reshape(n, channels, h, w)


def conv_bn(
    in_ch: int, out_ch: int, kernel: int, stride: int = 1, groups: int = 1, relu: bool = True
) -> nn.Sequential:
    """Conv (no bias) -> BatchNorm, optionally -> ReLU."""
    layers: list[nn.Module] = [
        nn.Conv2d(in_ch, out_ch, kernel, stride, kernel // 2, groups=groups, bias=False),
        nn.BatchNorm2d(out_ch),
    ]
    if relu:
        layers.append(nn.ReLU(inplace=True))
    return nn.Sequential(*layers)


class ShuffleUnit(nn.Module):
    """Stride 1: split channels in half, transform one half; stride 2: two downsampling branches."""

    def __init__(self, in_ch: int, out_ch: int, stride: int) -> None:
        super().__init__()
        self.stride = stride
        branch_ch = out_ch // 2
        if stride > 1:
            self.branch1 = nn.Sequential(
                conv_bn(in_ch, in_ch, 3, stride, groups=in_ch, relu=False),
                conv_bn(in_ch, branch_ch, 1),
            )
        branch2_in = in_ch if stride > 1 else branch_ch
        self.branch2 = nn.Sequential(
            conv_bn(branch2_in, branch_ch, 1),
            conv_bn(branch_ch, branch_ch, 3, stride, groups=branch_ch, relu=False),
            conv_bn(branch_ch, branch_ch, 1),
        )

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if self.stride == 1:
            kept, transformed = x.chunk(2, dim=1)
            out = torch.cat((kept, self.branch2(transformed)), dim=1)
        else:
            out = torch.cat((self.branch1(x), self.branch2(x)), dim=1)
        return channel_shuffle(out, 2)


class ShuffleNetV2(nn.Module):
    """The 1.0x ImageNet layout, with a ReduceMean global pool as in the reference implementation."""

    def __init__(self, num_classes: int = 1000) -> None:
        super().__init__()
        self.stem = nn.Sequential(conv_bn(3, STAGE_CHANNELS[0], 3, 2), nn.MaxPool2d(3, 2, 1))
        units: list[nn.Module] = []
        in_ch = STAGE_CHANNELS[0]
        for repeats, out_ch in zip(STAGE_REPEATS, STAGE_CHANNELS[1:4], strict=True):
            for i in range(repeats):
                units.append(ShuffleUnit(in_ch, out_ch, 2 if i == 0 else 1))
                in_ch = out_ch
        self.stages = nn.Sequential(*units)
        self.head = conv_bn(in_ch, STAGE_CHANNELS[4], 1)
        self.fc = nn.Linear(STAGE_CHANNELS[4], num_classes)
        for module in self.modules():
            if isinstance(module, nn.Conv2d):
                nn.init.kaiming_normal_(module.weight, mode="fan_out", nonlinearity="relu")

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        features = self.head(self.stages(self.stem(x)))
        return self.fc(features.mean(dim=(2, 3)))


def shufflenet_v2() -> nn.Module:
    """ShuffleNetV2 1.0x with 1000 classes."""
    return ShuffleNetV2()
