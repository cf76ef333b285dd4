"""A YOLOv8-style detector (n-like widths): C2f backbone, SPPF, PAN neck, decoupled anchor-free head.

Layout after Ultralytics' description of YOLOv8: a stride-2 stem, four stages of (stride-2 conv,
C2f), SPPF; a top-down path (nearest 2x upsample + concat + C2f) and a bottom-up one (stride-2
conv + concat + C2f); at strides 8, 16, 32 a decoupled head with a box branch and a class branch
(two 3x3 convs and a 1x1 predictor each). The box branch predicts the four distances from the cell
centre to the box sides in units of the stride (softplus of the raw value, decoded outside the
model: tests/models/detection_decode.py) instead of YOLOv8's distribution focal loss bins, to keep
the short training in benchmarks/yolo_train.py stable. Output: [N, 4 + classes, cells], the
classes already through a sigmoid.
"""

from __future__ import annotations

import torch
from torch import nn

from tests.models.yolo_blocks import SPPF, Bottleneck, ConvBnSiLU, flatten_level, upsample2x

STRIDES = (8, 16, 32)


class C2f(nn.Module):
    """1x1 conv, split in two halves, n bottlenecks chained on the second half, every partial output
    concatenated, 1x1 conv (the cross-stage partial block of YOLOv8)."""

    def __init__(self, in_ch: int, out_ch: int, repeats: int = 1, shortcut: bool = False) -> None:
        super().__init__()
        self.hidden = out_ch // 2
        self.cv1 = ConvBnSiLU(in_ch, 2 * self.hidden)
        self.blocks = nn.ModuleList(Bottleneck(self.hidden, shortcut) for _ in range(repeats))
        self.cv2 = ConvBnSiLU((2 + repeats) * self.hidden, out_ch)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        parts = list(self.cv1(x).split((self.hidden, self.hidden), 1))
        for block in self.blocks:
            parts.append(block(parts[-1]))
        return self.cv2(torch.cat(parts, 1))


class DecoupledHead(nn.Module):
    """Per level: box branch (2 x 3x3 conv, 1x1 -> 4) and class branch (2 x 3x3 conv, 1x1 -> classes)."""

    def __init__(self, in_channels: tuple[int, ...], num_classes: int) -> None:
        super().__init__()
        box_ch = max(16, in_channels[0] // 4)
        cls_ch = max(in_channels[0], num_classes)
        self.box = nn.ModuleList(
            nn.Sequential(ConvBnSiLU(c, box_ch, 3), ConvBnSiLU(box_ch, box_ch, 3), nn.Conv2d(box_ch, 4, 1))
            for c in in_channels)
        self.cls = nn.ModuleList(
            nn.Sequential(ConvBnSiLU(c, cls_ch, 3), ConvBnSiLU(cls_ch, cls_ch, 3),
                          nn.Conv2d(cls_ch, num_classes, 1))
            for c in in_channels)

    def forward(self, levels: list[torch.Tensor]) -> torch.Tensor:
        outs = [flatten_level(nn.functional.softplus(box(x)), torch.sigmoid(cls(x)))
                for x, box, cls in zip(levels, self.box, self.cls, strict=True)]
        return torch.cat(outs, 2)


class YoloV8(nn.Module):
    """YOLOv8-style detector; ``width`` scales the n-model channels (16, 32, 64, 128, 256)."""

    def __init__(self, num_classes: int = 4, width: float = 1.0, depth: int = 1) -> None:
        super().__init__()
        c1, c2, c3, c4, c5 = (max(8, int(c * width)) for c in (16, 32, 64, 128, 256))
        self.stem = ConvBnSiLU(3, c1, 3, 2)
        self.stage2 = nn.Sequential(ConvBnSiLU(c1, c2, 3, 2), C2f(c2, c2, depth, True))
        self.stage3 = nn.Sequential(ConvBnSiLU(c2, c3, 3, 2), C2f(c3, c3, 2 * depth, True))
        self.stage4 = nn.Sequential(ConvBnSiLU(c3, c4, 3, 2), C2f(c4, c4, 2 * depth, True))
        self.stage5 = nn.Sequential(ConvBnSiLU(c4, c5, 3, 2), C2f(c5, c5, depth, True), SPPF(c5, c5))
        self.top_down4 = C2f(c5 + c4, c4, depth)
        self.top_down3 = C2f(c4 + c3, c3, depth)
        self.down3 = ConvBnSiLU(c3, c3, 3, 2)
        self.bottom_up4 = C2f(c3 + c4, c4, depth)
        self.down4 = ConvBnSiLU(c4, c4, 3, 2)
        self.bottom_up5 = C2f(c4 + c5, c5, depth)
        self.head = DecoupledHead((c3, c4, c5), num_classes)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        p3 = self.stage3(self.stage2(self.stem(x)))
        p4 = self.stage4(p3)
        p5 = self.stage5(p4)
        t4 = self.top_down4(torch.cat([upsample2x(p5), p4], 1))
        n3 = self.top_down3(torch.cat([upsample2x(t4), p3], 1))
        n4 = self.bottom_up4(torch.cat([self.down3(n3), t4], 1))
        n5 = self.bottom_up5(torch.cat([self.down4(n4), p5], 1))
        return self.head([n3, n4, n5])
