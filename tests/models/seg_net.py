"""A small encoder-decoder segmentation net (U-Net-like): stride-2 conv stages down, nearest 2x
resize + concat with the skip + convs up, a 1x1 classifier at full resolution.

Exercises what segmentation adds to a detector's op mix: Resize of feature maps, Concat of a
decoder map with an encoder skip, and a per-pixel output. Output: [N, classes, H, W] logits
(class 0 = background).
"""

from __future__ import annotations

import torch
from torch import nn

from tests.models.yolo_blocks import ConvBnSiLU, upsample2x


class SegNet(nn.Module):
    """Encoder at strides 1, 2, 4, 8, 16; decoder back to stride 1 through skip concats."""

    def __init__(self, num_classes: int = 5, width: int = 16, stem_stride: int = 1) -> None:
        super().__init__()
        w = (width, 2 * width, 4 * width, 8 * width, 8 * width)
        self.stem_stride = stem_stride
        self.enc = nn.ModuleList([
            nn.Sequential(ConvBnSiLU(3, w[0], 3, stem_stride), ConvBnSiLU(w[0], w[0], 3)),
            *(nn.Sequential(ConvBnSiLU(w[i - 1], w[i], 3, 2), ConvBnSiLU(w[i], w[i], 3))
              for i in range(1, 5)),
        ])
        self.dec = nn.ModuleList(
            nn.Sequential(ConvBnSiLU(w[i + 1] + w[i], w[i], 3), ConvBnSiLU(w[i], w[i], 3)) for i in range(4))
        self.classify = nn.Conv2d(w[0], num_classes, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        skips = []
        for stage in self.enc:
            x = stage(x)
            skips.append(x)
        x = skips.pop()
        for i in reversed(range(4)):
            x = self.dec[i](torch.cat([upsample2x(x), skips[i]], 1))
        logits = self.classify(x)
        if self.stem_stride == 1:
            return logits
        return nn.functional.interpolate(logits, scale_factor=float(self.stem_stride), mode="bilinear",
                                         align_corners=False)
