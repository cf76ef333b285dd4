"""A YOLOX-style detector (nano/tiny-like widths): CSPDarknet with CSP layers, SPP, PAFPN, decoupled head.

After the YOLOX paper (Ge et al. 2021): CSP layers (two 1x1 branches, bottlenecks on one,
concatenated, 1x1 fuse), an SPP bottleneck with parallel 5/9/13 max pools, a PAFPN neck with
nearest upsampling + concat, and per level a decoupled head: a 1x1 stem, then a class branch and
a regression branch (two 3x3 convs each) predicting classes, the box (4) and objectness (1).
The box is predicted as distances to the sides, as in tests/models/yolo_v8.py (one decoder for
both: tests/models/detection_decode.py); class and objectness go through a sigmoid and the
class scores are multiplied by objectness inside the model. Output: [N, 4 + classes, cells].
"""

from __future__ import annotations

import torch
from torch import nn

from tests.models.yolo_blocks import Bottleneck, ConvBnSiLU, flatten_level, upsample2x

STRIDES = (8, 16, 32)


class CSPLayer(nn.Module):
    """Two 1x1 branches; n bottlenecks (1x1 then 3x3) on the first; concat; 1x1 fuse."""

    def __init__(self, in_ch: int, out_ch: int, repeats: int = 1, shortcut: bool = True) -> None:
        super().__init__()
        hidden = out_ch // 2
        self.main = ConvBnSiLU(in_ch, hidden)
        self.bypass = ConvBnSiLU(in_ch, hidden)
        self.blocks = nn.Sequential(*(Bottleneck(hidden, shortcut, (1, 3)) for _ in range(repeats)))
        self.fuse = ConvBnSiLU(2 * hidden, out_ch)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.fuse(torch.cat([self.blocks(self.main(x)), self.bypass(x)], 1))


class SPPBottleneck(nn.Module):
    """1x1 conv, max pools of 5, 9, 13 (stride 1) in parallel, concat with the input, 1x1 conv."""

    def __init__(self, in_ch: int, out_ch: int) -> None:
        super().__init__()
        hidden = in_ch // 2
        self.cv1 = ConvBnSiLU(in_ch, hidden)
        self.pools = nn.ModuleList(nn.MaxPool2d(k, 1, k // 2) for k in (5, 9, 13))
        self.cv2 = ConvBnSiLU(hidden * 4, out_ch)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.cv1(x)
        return self.cv2(torch.cat([x] + [pool(x) for pool in self.pools], 1))


class YoloXHead(nn.Module):
    """Decoupled head per level: 1x1 stem; class branch and regression branch of two 3x3 convs each."""

    def __init__(self, in_channels: tuple[int, ...], num_classes: int, width: int) -> None:
        super().__init__()
        self.stems = nn.ModuleList(ConvBnSiLU(c, width) for c in in_channels)
        self.cls_convs = nn.ModuleList(
            nn.Sequential(ConvBnSiLU(width, width, 3), ConvBnSiLU(width, width, 3)) for _ in in_channels)
        self.reg_convs = nn.ModuleList(
            nn.Sequential(ConvBnSiLU(width, width, 3), ConvBnSiLU(width, width, 3)) for _ in in_channels)
        self.cls_preds = nn.ModuleList(nn.Conv2d(width, num_classes, 1) for _ in in_channels)
        self.reg_preds = nn.ModuleList(nn.Conv2d(width, 4, 1) for _ in in_channels)
        self.obj_preds = nn.ModuleList(nn.Conv2d(width, 1, 1) for _ in in_channels)

    def forward(self, levels: list[torch.Tensor]) -> torch.Tensor:
        outs = []
        for i, x in enumerate(levels):
            x = self.stems[i](x)
            cls_feat = self.cls_convs[i](x)
            reg_feat = self.reg_convs[i](x)
            box = nn.functional.softplus(self.reg_preds[i](reg_feat))
            score = torch.sigmoid(self.cls_preds[i](cls_feat)) * torch.sigmoid(self.obj_preds[i](reg_feat))
            outs.append(flatten_level(box, score))
        return torch.cat(outs, 2)


class YoloX(nn.Module):
    """YOLOX-style detector; ``width`` scales the channels (16, 32, 64, 128, 256 at 1.0)."""

    def __init__(self, num_classes: int = 4, width: float = 1.0, depth: int = 1) -> None:
        super().__init__()
        c1, c2, c3, c4, c5 = (max(8, int(c * width)) for c in (16, 32, 64, 128, 256))
        self.stem = ConvBnSiLU(3, c1, 3, 2)
        self.dark2 = nn.Sequential(ConvBnSiLU(c1, c2, 3, 2), CSPLayer(c2, c2, depth))
        self.dark3 = nn.Sequential(ConvBnSiLU(c2, c3, 3, 2), CSPLayer(c3, c3, 3 * depth))
        self.dark4 = nn.Sequential(ConvBnSiLU(c3, c4, 3, 2), CSPLayer(c4, c4, 3 * depth))
        self.dark5 = nn.Sequential(ConvBnSiLU(c4, c5, 3, 2), SPPBottleneck(c5, c5),
                                   CSPLayer(c5, c5, depth, False))
        self.lateral5 = ConvBnSiLU(c5, c4)
        self.td4 = CSPLayer(2 * c4, c4, depth, False)
        self.lateral4 = ConvBnSiLU(c4, c3)
        self.td3 = CSPLayer(2 * c3, c3, depth, False)
        self.down3 = ConvBnSiLU(c3, c3, 3, 2)
        self.bu4 = CSPLayer(2 * c3, c4, depth, False)
        self.down4 = ConvBnSiLU(c4, c4, 3, 2)
        self.bu5 = CSPLayer(2 * c4, c5, depth, False)
        self.head = YoloXHead((c3, c4, c5), num_classes, c3)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        p3 = self.dark3(self.dark2(self.stem(x)))
        p4 = self.dark4(p3)
        p5 = self.dark5(p4)
        l5 = self.lateral5(p5)
        t4 = self.td4(torch.cat([upsample2x(l5), p4], 1))
        l4 = self.lateral4(t4)
        n3 = self.td3(torch.cat([upsample2x(l4), p3], 1))
        n4 = self.bu4(torch.cat([self.down3(n3), l4], 1))
        n5 = self.bu5(torch.cat([self.down4(n4), l5], 1))
        return self.head([n3, n4, n5])
