"""A small CNN with every block the pruning tests need, sized for Fashion-MNIST (1x28x28, 10 classes).

Residual blocks (Add), a concat of two branches, depthwise-separable convolutions, an SE block
(global pool -> 1x1 -> ReLU -> 1x1 -> sigmoid -> scale) and a flatten before the classifier.
"""

from __future__ import annotations

import torch
from torch import nn


def conv_bn(in_ch: int, out_ch: int, kernel: int = 3, stride: int = 1, groups: int = 1,
            relu: bool = True) -> nn.Sequential:
    conv = nn.Conv2d(in_ch, out_ch, kernel, stride, kernel // 2, groups=groups, bias=False)
    layers: list[nn.Module] = [conv, nn.BatchNorm2d(out_ch)]
    if relu:
        layers.append(nn.ReLU())
    return nn.Sequential(*layers)


class SqueezeExcite(nn.Module):
    def __init__(self, channels: int, reduced: int) -> None:
        super().__init__()
        self.reduce = nn.Conv2d(channels, reduced, 1)
        self.expand = nn.Conv2d(reduced, channels, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        scale = torch.sigmoid(self.expand(torch.relu(self.reduce(x.mean((2, 3), keepdim=True)))))
        return x * scale


class Residual(nn.Module):
    def __init__(self, channels: int) -> None:
        super().__init__()
        self.body = nn.Sequential(conv_bn(channels, channels), conv_bn(channels, channels, relu=False))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.relu(x + self.body(x))


class InvertedResidualSE(nn.Module):
    """1x1 expand -> depthwise 3x3 -> SE -> 1x1 project, with a skip."""

    def __init__(self, channels: int, expansion: int = 4) -> None:
        super().__init__()
        hidden = channels * expansion
        self.expand = conv_bn(channels, hidden, 1)
        self.depthwise = conv_bn(hidden, hidden, 3, groups=hidden)
        self.se = SqueezeExcite(hidden, hidden // 4)
        self.project = conv_bn(hidden, channels, 1, relu=False)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x + self.project(self.se(self.depthwise(self.expand(x))))


class TwoBranchConcat(nn.Module):
    def __init__(self, in_ch: int, branch_ch: int) -> None:
        super().__init__()
        self.left = conv_bn(in_ch, branch_ch, 1)
        self.right = nn.Sequential(conv_bn(in_ch, branch_ch, 1), conv_bn(branch_ch, branch_ch, 3))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return torch.cat((self.left(x), self.right(x)), dim=1)


class PruningCNN(nn.Module):
    """28x28 -> residual at 14x14 -> concat at 7x7 -> inverted residual + SE -> 3x3 pool -> flatten -> FC."""

    def __init__(self, num_classes: int = 10, width: int = 32) -> None:
        super().__init__()
        self.stem = conv_bn(1, width, 3, stride=2)
        self.residual = Residual(width)
        self.down = conv_bn(width, width, 3, stride=2)
        self.concat = TwoBranchConcat(width, width)
        self.block = InvertedResidualSE(2 * width)
        self.head = conv_bn(2 * width, 2 * width, 1)
        self.pool = nn.AvgPool2d(3, 2)
        self.classifier = nn.Linear(2 * width * 9, num_classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.block(self.concat(self.down(self.residual(self.stem(x)))))
        return self.classifier(torch.flatten(self.pool(self.head(x)), 1))
