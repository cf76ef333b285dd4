"""One small torch model per structural pattern the pruning dependency groups must handle.

Each model is exported to ONNX and pruned without fine-tuning; the pruned model must equal the
original with the same channels' weights zeroed (tests/test_prune_groups.py). Channel counts are
deliberately uneven (12, 20, 24, 36) so an offset or a size computed from the wrong tensor shows.
"""

from __future__ import annotations

import torch
from torch import nn
from torch.nn import functional as F


def conv_bn_relu(in_ch: int, out_ch: int, kernel: int = 3, stride: int = 1, groups: int = 1) -> nn.Sequential:
    return nn.Sequential(nn.Conv2d(in_ch, out_ch, kernel, stride, kernel // 2, groups=groups, bias=False),
                         nn.BatchNorm2d(out_ch), nn.ReLU())


class Head(nn.Module):
    """Global pool + classifier, the common ending."""

    def __init__(self, channels: int) -> None:
        super().__init__()
        self.fc = nn.Linear(channels, 10)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fc(x.mean((2, 3)))


class ResidualAdd(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.stem = conv_bn_relu(3, 20)
        self.a = nn.Sequential(conv_bn_relu(20, 12), nn.Conv2d(12, 20, 3, padding=1), nn.BatchNorm2d(20))
        self.b = nn.Sequential(conv_bn_relu(20, 12), nn.Conv2d(12, 20, 3, padding=1))
        self.head = Head(20)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.stem(x)
        x = torch.relu(x + self.a(x))
        x = x + self.b(x)
        return self.head(x)


class ResidualMul(nn.Module):
    """A gated unit: the product of two conv branches, then a residual-style product with the input."""

    def __init__(self) -> None:
        super().__init__()
        self.stem = conv_bn_relu(3, 24)
        self.value = nn.Conv2d(24, 24, 3, padding=1)
        self.gate = nn.Conv2d(24, 24, 1)
        self.head = Head(24)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.stem(x)
        y = self.value(x) * torch.sigmoid(self.gate(x))
        return self.head(x * y)


class ConcatOffsets(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.stem = conv_bn_relu(3, 16)
        self.branches = nn.ModuleList([conv_bn_relu(16, 12, 1), conv_bn_relu(16, 20, 3),
                                       conv_bn_relu(16, 8, 5)])
        self.mix = conv_bn_relu(12 + 20 + 8 + 16, 24, 1)
        self.head = Head(24)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.stem(x)
        x = torch.cat([branch(x) for branch in self.branches] + [x], dim=1)
        return self.head(self.mix(x))


class SplitChannels(nn.Module):
    """torch.split with uneven sizes (ONNX Split) and a slice by indexing (ONNX Slice)."""

    def __init__(self) -> None:
        super().__init__()
        self.stem = conv_bn_relu(3, 36)
        self.left = conv_bn_relu(12, 12)
        self.right = conv_bn_relu(24, 16)
        self.mix = conv_bn_relu(12 + 16 + 10, 20, 1)
        self.head = Head(20)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.stem(x)
        left, right = torch.split(x, [12, 24], dim=1)
        middle = x[:, 20:30]
        return self.head(self.mix(torch.cat((self.left(left), self.right(right), middle), dim=1)))


class DepthwiseGrouped(nn.Module):
    """Depthwise (multiplier 1 and 2) and grouped (4 groups) convolutions."""

    def __init__(self) -> None:
        super().__init__()
        self.stem = conv_bn_relu(3, 24)
        self.depthwise = conv_bn_relu(24, 24, 3, groups=24)
        self.multiplier = nn.Conv2d(24, 48, 3, padding=1, groups=24)
        self.grouped = conv_bn_relu(48, 32, 3, groups=4)
        self.grouped_again = nn.Conv2d(32, 36, 1, groups=4)
        self.head = Head(36)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.multiplier(self.depthwise(self.stem(x)))
        return self.head(self.grouped_again(self.grouped(x)))


class ChannelShuffle(nn.Module):
    """ShuffleNet's reshape -> transpose -> reshape between two grouped convolutions."""

    def __init__(self) -> None:
        super().__init__()
        self.stem = conv_bn_relu(3, 24)
        self.first = conv_bn_relu(24, 36, 1, groups=3)
        self.second = conv_bn_relu(36, 24, 1, groups=3)
        self.head = Head(24)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.first(self.stem(x))
        n, c, h, w = x.shape
        x = x.reshape(n, 3, c // 3, h, w).transpose(1, 2).reshape(n, c, h, w)
        return self.head(self.second(x))


class SqueezeExcitation(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.stem = conv_bn_relu(3, 32)
        self.reduce = nn.Conv2d(32, 8, 1)
        self.expand = nn.Conv2d(8, 32, 1)
        self.project = conv_bn_relu(32, 20, 1)
        self.head = Head(20)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.stem(x)
        scale = F.hardsigmoid(self.expand(torch.relu(self.reduce(F.adaptive_avg_pool2d(x, 1)))))
        return self.head(self.project(x * scale))


class Normalizations(nn.Module):
    """BatchNorm standing alone (after a pool, not foldable), InstanceNorm and a per-channel affine."""

    def __init__(self) -> None:
        super().__init__()
        self.stem = nn.Conv2d(3, 20, 3, padding=1)
        self.bn = nn.BatchNorm2d(20)
        self.conv = nn.Conv2d(20, 12, 3, padding=1)
        self.instance = nn.InstanceNorm2d(12, affine=True)
        self.scale = nn.Parameter(torch.rand(1, 12, 1, 1) + 0.5)
        self.head = Head(12)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.bn(F.max_pool2d(self.stem(x), 2))
        return self.head(torch.relu(self.instance(self.conv(x))) * self.scale)


class FlattenLinear(nn.Module):
    """Flatten of a 3x3 map (16x16 input) before a fully connected layer: channel c owns 9 of its inputs."""

    def __init__(self) -> None:
        super().__init__()
        self.features = nn.Sequential(conv_bn_relu(3, 16, 3, 2), conv_bn_relu(16, 20, 3, 2),
                                      nn.MaxPool2d(2, 1))
        self.fc1 = nn.Linear(20 * 9, 36)
        self.fc2 = nn.Linear(36, 10)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fc2(torch.relu(self.fc1(torch.flatten(self.features(x), 1))))


class Attention(nn.Module):
    """A transformer block on conv features: LayerNorm, multi-head self-attention with a fused qkv
    projection (reshape to heads, transpose, scaled q.k, softmax, .v), an MLP, residuals."""

    def __init__(self, dim: int = 24, heads: int = 4, hidden: int = 40) -> None:
        super().__init__()
        self.heads = heads
        self.stem = conv_bn_relu(3, dim, 3, 2)
        self.norm1 = nn.LayerNorm(dim)
        self.qkv = nn.Linear(dim, 3 * dim)
        self.proj = nn.Linear(dim, dim)
        self.norm2 = nn.LayerNorm(dim)
        self.fc1 = nn.Linear(dim, hidden)
        self.fc2 = nn.Linear(hidden, dim)
        self.out = nn.Linear(dim, 10)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.stem(x).flatten(2).transpose(1, 2)  # [N, T, dim]
        n, t, d = x.shape
        qkv = self.qkv(self.norm1(x)).reshape(n, t, 3, self.heads, d // self.heads).permute(2, 0, 3, 1, 4)
        q, k, v = qkv[0], qkv[1], qkv[2]
        attention = torch.softmax(q @ k.transpose(-2, -1) * (d // self.heads) ** -0.5, dim=-1)
        x = x + self.proj((attention @ v).transpose(1, 2).reshape(n, t, d))
        x = x + self.fc2(F.gelu(self.fc1(self.norm2(x))))
        return self.out(x.mean(1))


class UpsampleConcat(nn.Module):
    """An FPN-like top-down path: upsample (nearest) + concat, and a transposed convolution."""

    def __init__(self) -> None:
        super().__init__()
        self.c1 = conv_bn_relu(3, 12)
        self.c2 = conv_bn_relu(12, 20, 3, 2)
        self.up = nn.ConvTranspose2d(20, 16, 2, 2)
        self.fuse = conv_bn_relu(12 + 20 + 16, 8, 1)
        self.out = nn.Conv2d(8, 1, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        a = self.c1(x)
        b = self.c2(a)
        x = torch.cat((a, F.interpolate(b, scale_factor=2.0, mode="nearest"), self.up(b)), dim=1)
        return torch.sigmoid(self.out(self.fuse(x)))


PATTERNS: dict[str, type[nn.Module]] = {
    "residual_add": ResidualAdd, "residual_mul": ResidualMul, "concat_offsets": ConcatOffsets,
    "split_slice": SplitChannels, "depthwise_grouped": DepthwiseGrouped, "channel_shuffle": ChannelShuffle,
    "squeeze_excitation": SqueezeExcitation, "normalizations": Normalizations,
    "flatten_linear": FlattenLinear,
    "attention": Attention, "upsample_concat": UpsampleConcat,
}
