"""Whole networks in the style of PaddleClas / PaddleDetection / PaddleOCR models, built in Paddle.

Small (random weights, few channels) but with the op patterns of the real ones: PP-LCNet's
depthwise-separable blocks with squeeze-excitation and hard_swish; PP-PicoDet's backbone, a
PAN-like neck (nearest upsampling, concat) and a GFL-style head (sigmoid scores, a softmax
distribution over box bins, reshapes and transposes across levels); SVTR's convolutional stem
and global-mixing transformer blocks (layer_norm, attention, GELU MLP) before a CTC head.
Imported only where Paddle is (tests/paddle_oracle.py's export subprocess).
"""

from __future__ import annotations

# ruff: noqa: B905 - dy2static rewrites zip() and does not accept its strict argument
from typing import Any

import numpy as np
import paddle
import paddle.nn.functional as F
from paddle import nn


def _legacy_op(op_type: str, inputs: dict[str, Any], attrs: dict[str, Any], dtype: Any) -> Any:
    from paddle.base.layer_helper import LayerHelper

    helper = LayerHelper(op_type)
    out = helper.create_variable_for_type_inference(dtype)
    helper.append_op(type=op_type, inputs=inputs, outputs={"Out": out}, attrs=attrs)
    return out


def _tracing_legacy() -> bool:
    """True inside a legacy (ProgramDesc) trace, where Paddle 3's API lacks some ops (PIR only)."""
    return not (paddle.in_dynamic_mode() or paddle.framework.in_pir_mode())


def sigmoid(x: Any) -> Any:
    return _legacy_op("sigmoid", {"X": x}, {}, x.dtype) if _tracing_legacy() else F.sigmoid(x)


def gelu(x: Any) -> Any:
    return _legacy_op("gelu", {"X": x}, {"approximate": False}, x.dtype) if _tracing_legacy() else F.gelu(x)


def matmul(x: Any, y: Any, transpose_y: bool = False) -> Any:
    if _tracing_legacy():
        return _legacy_op("matmul_v2", {"X": x, "Y": y}, {"trans_x": False, "trans_y": transpose_y}, x.dtype)
    return paddle.matmul(x, y, transpose_y=transpose_y)


class ConvBNAct(nn.Layer):
    def __init__(
        self, cin: int, cout: int, k: int = 3, stride: int = 1, groups: int = 1, act: str | None = "hardswish"
    ) -> None:
        super().__init__()
        self.conv = nn.Conv2D(cin, cout, k, stride, (k - 1) // 2, groups=groups, bias_attr=False)
        self.bn = nn.BatchNorm2D(cout)
        self.act = act

    def forward(self, x: Any) -> Any:
        x = self.bn(self.conv(x))
        if self.act == "hardswish":
            return F.hardswish(x)
        if self.act == "relu":
            return F.relu(x)
        if self.act == "leaky_relu":
            return F.leaky_relu(x, 0.1)
        return x


class SqueezeExcite(nn.Layer):
    def __init__(self, channels: int) -> None:
        super().__init__()
        self.reduce = nn.Conv2D(channels, channels // 4, 1)
        self.expand = nn.Conv2D(channels // 4, channels, 1)

    def forward(self, x: Any) -> Any:
        scale = F.adaptive_avg_pool2d(x, 1)
        scale = F.hardsigmoid(self.expand(F.relu(self.reduce(scale))))
        return x * scale


class DepthwiseSeparable(nn.Layer):
    def __init__(self, cin: int, cout: int, stride: int, k: int = 3, se: bool = False) -> None:
        super().__init__()
        self.dw = ConvBNAct(cin, cin, k, stride, groups=cin)
        self.se = SqueezeExcite(cin) if se else None
        self.pw = ConvBNAct(cin, cout, 1)

    def forward(self, x: Any) -> Any:
        x = self.dw(x)
        if self.se is not None:
            x = self.se(x)
        return self.pw(x)


class LCNetStyle(nn.Layer):
    """PP-LCNet x0.25-like: stem, DepthwiseSeparable stages (5x5 + SE at the end), pool, FC head."""

    def __init__(self, classes: int = 10) -> None:
        super().__init__()
        self.stem = ConvBNAct(3, 8, 3, 2)
        self.blocks = nn.Sequential(
            DepthwiseSeparable(8, 16, 1),
            DepthwiseSeparable(16, 24, 2),
            DepthwiseSeparable(24, 24, 1),
            DepthwiseSeparable(24, 32, 2, k=5),
            DepthwiseSeparable(32, 48, 2, k=5, se=True),
        )
        self.last = nn.Conv2D(48, 64, 1)
        self.fc = nn.Linear(64, classes)

    def forward(self, x: Any) -> Any:
        x = F.adaptive_avg_pool2d(self.blocks(self.stem(x)), 1)
        x = F.hardswish(self.last(x))
        x = paddle.flatten(x, start_axis=1, stop_axis=-1)
        return F.softmax(self.fc(F.dropout(x, 0.2, training=False)), axis=-1)


class PicoDetStyle(nn.Layer):
    """PP-PicoDet-like: a 3-level backbone, top-down neck, shared-structure GFL heads per level."""

    def __init__(self, classes: int = 4, bins: int = 8) -> None:
        super().__init__()
        self.classes, self.bins = classes, bins
        self.stem = ConvBNAct(3, 8, 3, 2)
        self.c3 = DepthwiseSeparable(8, 16, 2)
        self.c4 = DepthwiseSeparable(16, 24, 2, k=5, se=True)
        self.c5 = DepthwiseSeparable(24, 32, 2, k=5)
        self.lateral = nn.LayerList([ConvBNAct(c, 16, 1, act="leaky_relu") for c in (16, 24, 32)])
        self.fuse = nn.LayerList([ConvBNAct(32, 16, 3, act="leaky_relu") for _ in range(2)])
        self.heads = nn.LayerList([nn.Conv2D(16, classes + 4 * bins, 1) for _ in range(3)])

    def forward(self, x: Any) -> Any:
        p3 = self.c3(self.stem(x))
        p4 = self.c4(p3)
        p5 = self.c5(p4)
        l3, l4, l5 = (layer(p) for layer, p in zip(self.lateral, (p3, p4, p5)))
        l4 = self.fuse[0](paddle.concat([l4, F.interpolate(l5, scale_factor=2, mode="nearest")], axis=1))
        l3 = self.fuse[1](paddle.concat([l3, F.interpolate(l4, scale_factor=2, mode="nearest")], axis=1))
        scores, boxes = [], []
        for head, level in zip(self.heads, (l3, l4, l5)):
            out = head(level)
            cls, reg = paddle.split(out, [self.classes, 4 * self.bins], axis=1)
            scores.append(paddle.transpose(paddle.flatten(sigmoid(cls), 2), [0, 2, 1]))
            reg = paddle.transpose(paddle.flatten(reg, 2), [0, 2, 1])
            reg = F.softmax(paddle.reshape(reg, [0, -1, 4, self.bins]), axis=-1)
            distance = matmul(reg, paddle.arange(self.bins, dtype="float32").unsqueeze(-1))
            boxes.append(paddle.squeeze(distance, -1))
        return paddle.concat(scores, axis=1), paddle.concat(boxes, axis=1)


class MixingBlock(nn.Layer):
    def __init__(self, dim: int, heads: int) -> None:
        super().__init__()
        self.heads = heads
        self.norm1, self.norm2 = nn.LayerNorm(dim, epsilon=1e-6), nn.LayerNorm(dim, epsilon=1e-6)
        self.qkv, self.proj = nn.Linear(dim, 3 * dim), nn.Linear(dim, dim)
        self.fc1, self.fc2 = nn.Linear(dim, 2 * dim), nn.Linear(2 * dim, dim)

    def forward(self, x: Any) -> Any:
        dim = x.shape[-1]
        qkv = paddle.reshape(self.qkv(self.norm1(x)), [0, -1, 3, self.heads, dim // self.heads])
        qkv = paddle.transpose(qkv, [2, 0, 3, 1, 4])
        q, k, v = qkv[0] * (dim // self.heads) ** -0.5, qkv[1], qkv[2]
        attention = F.softmax(matmul(q, k, transpose_y=True), axis=-1)
        mixed = paddle.reshape(paddle.transpose(matmul(attention, v), [0, 2, 1, 3]), [0, -1, dim])
        x = x + self.proj(mixed)
        return x + self.fc2(gelu(self.fc1(self.norm2(x))))


class SVTRStyle(nn.Layer):
    """SVTR-tiny-like recognizer: conv stem to 1/4 height, 2 mixing blocks, pool height, CTC head."""

    def __init__(self, classes: int = 37, dim: int = 32) -> None:
        super().__init__()
        self.stem = nn.Sequential(ConvBNAct(3, 16, 3, 2, act="relu"), ConvBNAct(16, dim, 3, 2, act="relu"))
        self.blocks = nn.LayerList([MixingBlock(dim, 4) for _ in range(2)])
        self.norm = nn.LayerNorm(dim, epsilon=1e-6)
        self.head = nn.Linear(dim, classes)

    def forward(self, x: Any) -> Any:
        x = self.stem(x)
        height = x.shape[2]
        tokens = paddle.transpose(paddle.flatten(x, 2), [0, 2, 1])
        for block in self.blocks:
            tokens = block(tokens)
        x = paddle.transpose(self.norm(tokens), [0, 2, 1])
        x = paddle.reshape(x, [0, 0, height, -1])
        x = paddle.mean(x, axis=2, keepdim=True)
        x = paddle.transpose(paddle.squeeze(x, axis=2), [0, 2, 1])
        return F.softmax(self.head(x), axis=-1)


class QuantTarget(nn.Layer):
    """The float network the quantized case starts from: convs, depthwise, a residual add, FC."""

    def __init__(self) -> None:
        super().__init__()
        self.stem = nn.Conv2D(3, 16, 3, 2, 1)
        self.dw = nn.Conv2D(16, 16, 3, 1, 1, groups=16)
        self.pw = nn.Conv2D(16, 16, 1)
        self.head = nn.Conv2D(16, 8, 1)
        self.fc = nn.Linear(8, 64)
        self.out = paddle.nn.quant.Stub()  # a quantizer on the logits: the output is on an int8 grid

    def forward(self, x: Any) -> Any:
        y = F.relu(self.stem(x))
        y = y + F.relu(self.pw(F.relu(self.dw(y))))
        y = F.adaptive_avg_pool2d(F.relu(self.head(y)), 1)
        return self.out(self.fc(paddle.flatten(y, 1)))


def quantized_net() -> Any:
    """QuantTarget after paddle.quantization PTQ (abs-max observers, per tensor: Paddle's core has no
    per-channel weight observer, PaddleSlim does), calibrated on 8 random batches and converted:
    quantize_linear / dequantize_linear in the export, weights stored as int8 values."""
    from paddle.quantization import PTQ, QuantConfig
    from paddle.quantization.observers import AbsmaxObserver

    paddle.seed(5)
    net = QuantTarget()
    net.eval()
    config = QuantConfig(activation=AbsmaxObserver(quant_bits=8), weight=AbsmaxObserver(quant_bits=8))
    ptq = PTQ(config)
    observed = ptq.quantize(net, inplace=False)
    rng = np.random.default_rng(3)
    for _ in range(8):
        observed(paddle.to_tensor(rng.uniform(-1, 1, (2, 3, 32, 32)).astype("float32")))
    return ptq.convert(observed, inplace=False)
