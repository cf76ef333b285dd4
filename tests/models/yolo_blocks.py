"""Building blocks shared by the YOLO-style detectors (tests/models/yolo_v8.py, yolox.py).

Conv = convolution (no bias) -> BatchNorm -> SiLU, the unit both families are made of; the
bottleneck is two such convs with an optional residual Add. Written from the published
descriptions (YOLOv4/YOLOv5 CSP, Ultralytics' YOLOv8 documentation, the YOLOX paper).
"""

from __future__ import annotations

import torch
from torch import nn


class ConvBnSiLU(nn.Module):
    """k x k convolution, BatchNorm, SiLU (exported as Sigmoid * x or a fused SiLU)."""

    def __init__(self, in_ch: int, out_ch: int, kernel: int = 1, stride: int = 1) -> None:
        super().__init__()
        self.conv = nn.Conv2d(in_ch, out_ch, kernel, stride, kernel // 2, bias=False)
        self.bn = nn.BatchNorm2d(out_ch)
        self.act = nn.SiLU()

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.act(self.bn(self.conv(x)))


class Bottleneck(nn.Module):
    """Two convs (k1 then k2) with a residual Add when the shapes allow and ``shortcut`` is set."""

    def __init__(self, channels: int, shortcut: bool = True, kernels: tuple[int, int] = (3, 3)) -> None:
        super().__init__()
        self.cv1 = ConvBnSiLU(channels, channels, kernels[0])
        self.cv2 = ConvBnSiLU(channels, channels, kernels[1])
        self.shortcut = shortcut

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.cv2(self.cv1(x))
        return x + y if self.shortcut else y


class SPPF(nn.Module):
    """Spatial pyramid pooling, fast: three chained 5x5 stride-1 max pools, all four maps concatenated."""

    def __init__(self, in_ch: int, out_ch: int) -> None:
        super().__init__()
        hidden = in_ch // 2
        self.cv1 = ConvBnSiLU(in_ch, hidden)
        self.pool = nn.MaxPool2d(5, 1, 2)
        self.cv2 = ConvBnSiLU(hidden * 4, out_ch)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.cv1(x)
        p1 = self.pool(x)
        p2 = self.pool(p1)
        return self.cv2(torch.cat([x, p1, p2, self.pool(p2)], 1))


def upsample2x(x: torch.Tensor) -> torch.Tensor:
    """Nearest 2x upsampling (ONNX Resize, nearest, scales 2)."""
    return nn.functional.interpolate(x, scale_factor=2.0, mode="nearest")


def flatten_level(*maps: torch.Tensor) -> torch.Tensor:
    """Concatenates one level's head maps on channels and flattens them to [N, C, H*W]."""
    joined = torch.cat(maps, 1)
    return joined.reshape(joined.shape[0], joined.shape[1], -1)
