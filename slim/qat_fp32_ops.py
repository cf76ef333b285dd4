"""The float32 ops of a lowered (channels-last, .lite-vocabulary) graph in torch, for QAT.

Quantization-aware training runs the graph the int8 pass rewrites (after the converter's front
half: BatchNorm folded, activations fused, NHWC), so its fp32 islands (SOFTMAX, LAYER_NORM, shape
arithmetic, a conv with a fused activation int8 has no form for ...) run here, differentiably, with
the runtime's semantics: 4-D activations are NHWC, CONV_2D weights [Co, KH, KW, Ci / group],
explicit pads, fused activations in the ``activation`` attribute. An op missing from the table is
reported by name before training starts (slim/qat_module.py).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch
import torch.nn.functional as F

from lite_converter.ir import Node

Values = list[torch.Tensor | None]
Fp32Op = Callable[[Node, Values], torch.Tensor]
FP32_OPS: dict[str, Fp32Op] = {}


def _register(*names: str) -> Callable[[Fp32Op], Fp32Op]:
    def decorate(function: Fp32Op) -> Fp32Op:
        for name in names:
            FP32_OPS[name] = function
        return function

    return decorate


def _ints(value: torch.Tensor | None) -> list[int]:
    return [] if value is None else [int(v) for v in value.reshape(-1).tolist()]


def activation(kind_attrs: dict[str, Any] | None, y: torch.Tensor) -> torch.Tensor:
    """A fused activation of a lowered op, on float values."""
    act = kind_attrs or {}
    kind = act.get("kind", "NONE")
    alpha, beta = float(act.get("alpha", 0.0)), float(act.get("beta", 0.0))
    if kind == "NONE":
        return y
    if kind == "RELU":
        return torch.relu(y)
    if kind == "RELU6":
        return torch.clamp(y, 0.0, 6.0)
    if kind == "CLIP":
        return torch.clamp(y, alpha, beta)
    if kind in UNARY:
        return UNARY[kind](y, alpha, beta)
    if kind == "LEAKY_RELU":
        return F.leaky_relu(y, alpha)
    raise ValueError(f"fused activation {kind} has no QAT form")


class _HardSwish(torch.autograd.Function):
    """``x * clamp(x / 6 + 0.5, 0, 1)`` (the runtime's formula, bit for bit) as one autograd node:
    the four-op chain kept three intermediates and ran four backward kernels per tensor."""

    @staticmethod
    def forward(ctx: torch.autograd.function.FunctionCtx, x: torch.Tensor) -> torch.Tensor:  # type: ignore[override]
        ctx.save_for_backward(x)
        return _hard_swish_values(x)

    @staticmethod
    def backward(ctx: torch.autograd.function.FunctionCtx, grad: torch.Tensor) -> torch.Tensor:  # type: ignore[override]
        (x,) = ctx.saved_tensors  # type: ignore[attr-defined]
        gate = torch.div(x, 6.0).add_(0.5)
        # d/dx x * clamp(g(x), 0, 1) = clamp(g, 0, 1) + x / 6 where 0 <= g <= 1 (clamp passes its ends)
        inner = x.div(6.0).mul_((gate >= 0.0) & (gate <= 1.0))
        return grad * gate.clamp_(0.0, 1.0).add_(inner)


def _hard_swish_values(x: torch.Tensor) -> torch.Tensor:
    return torch.div(x, 6.0).add_(0.5).clamp_(0.0, 1.0).mul_(x)


def hard_swish(x: torch.Tensor) -> torch.Tensor:
    """Hard-swish, one autograd node when a gradient is wanted."""
    if torch.is_grad_enabled() and x.requires_grad:
        return _HardSwish.apply(x)
    return _hard_swish_values(x)


UNARY: dict[str, Callable[[torch.Tensor, float, float], torch.Tensor]] = {
    "HARD_SWISH": lambda x, a, b: hard_swish(x),
    "HARD_SIGMOID": lambda x, a, b: torch.clamp(a * x + b, 0.0, 1.0),
    "SIGMOID": lambda x, a, b: torch.sigmoid(x),
    "TANH": lambda x, a, b: torch.tanh(x),
    "SILU": lambda x, a, b: x * torch.sigmoid(x),
    "RELU": lambda x, a, b: torch.relu(x),
    "RELU6": lambda x, a, b: torch.clamp(x, 0.0, 6.0),
    "GELU": lambda x, a, b: F.gelu(x),
    "EXP": lambda x, a, b: torch.exp(x),
    "SQRT": lambda x, a, b: torch.sqrt(x),
    "ABS": lambda x, a, b: torch.abs(x),
    "NEG": lambda x, a, b: -x,
}


@_register(*UNARY)
def unary(node: Node, values: Values) -> torch.Tensor:
    attrs = node.attrs
    return UNARY[node.op_type](values[0], float(attrs.get("alpha", 0.2)), float(attrs.get("beta", 0.5)))


@_register("CLIP")
def clip(node: Node, values: Values) -> torch.Tensor:
    return torch.clamp(
        values[0],
        float(node.attrs.get("alpha", node.attrs.get("min", -float("inf")))),
        float(node.attrs.get("beta", node.attrs.get("max", float("inf")))),
    )


_BINARY = {
    "ADD": torch.add,
    "SUB": torch.sub,
    "MUL": torch.mul,
    "DIV": torch.div,
    "MAXIMUM": torch.maximum,
    "MINIMUM": torch.minimum,
    "POW": torch.pow,
}


@_register(*_BINARY)
def binary(node: Node, values: Values) -> torch.Tensor:
    a, b = values[0], values[1]
    assert a is not None and b is not None
    return activation(node.attrs.get("activation"), _BINARY[node.op_type](a, b))


def nhwc_conv(
    x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor | None, attrs: dict[str, Any]
) -> torch.Tensor:
    """CONV_2D on NHWC ``x`` with an [Co, KH, KW, Ci / group] weight and explicit pads (zero padding;
    symmetric pads go to the convolution itself, saving a copy of the input)."""
    top, bottom = int(attrs.get("pad_top", 0)), int(attrs.get("pad_bottom", 0))
    left, right = int(attrs.get("pad_left", 0)), int(attrs.get("pad_right", 0))
    nchw = x.permute(0, 3, 1, 2)
    if (top, left) == (bottom, right):
        padding = (top, left)
    else:
        nchw, padding = F.pad(nchw, [left, right, top, bottom]), (0, 0)
    y = F.conv2d(
        nchw,
        weight.permute(0, 3, 1, 2),
        bias,
        stride=(int(attrs.get("stride_h", 1)), int(attrs.get("stride_w", 1))),
        padding=padding,
        dilation=(int(attrs.get("dilation_h", 1)), int(attrs.get("dilation_w", 1))),
        groups=int(attrs.get("group", 1)),
    )
    return y.permute(0, 2, 3, 1)


@_register("CONV_2D")
def conv2d(node: Node, values: Values) -> torch.Tensor:
    x, weight = values[0], values[1]
    assert x is not None and weight is not None
    bias = values[2] if len(values) > 2 else None
    return activation(node.attrs.get("activation"), nhwc_conv(x, weight, bias, node.attrs))


@_register("FULLY_CONNECTED")
def fully_connected(node: Node, values: Values) -> torch.Tensor:
    x, weight = values[0], values[1]
    assert x is not None and weight is not None
    bias = values[2] if len(values) > 2 else None
    return activation(node.attrs.get("activation"), F.linear(x, weight, bias))


@_register("MATMUL")
def matmul(node: Node, values: Values) -> torch.Tensor:
    a, b = values[0], values[1]
    assert a is not None and b is not None
    return activation(node.attrs.get("activation"), torch.matmul(a, b))


def _pool_window(node: Node, x: torch.Tensor, fill: float) -> tuple[torch.Tensor, dict[str, Any]]:
    a = node.attrs
    pads = [
        int(a.get("pad_left", 0)),
        int(a.get("pad_right", 0)),
        int(a.get("pad_top", 0)),
        int(a.get("pad_bottom", 0)),
    ]
    return F.pad(x.permute(0, 3, 1, 2), pads, value=fill), a


@_register("MAX_POOL_2D")
def max_pool(node: Node, values: Values) -> torch.Tensor:
    x = values[0]
    assert x is not None
    padded, a = _pool_window(node, x, -float("inf"))
    y = F.max_pool2d(
        padded,
        (int(a["kernel_h"]), int(a["kernel_w"])),
        (int(a.get("stride_h", 1)), int(a.get("stride_w", 1))),
        dilation=(int(a.get("dilation_h", 1)), int(a.get("dilation_w", 1))),
        ceil_mode=bool(a.get("ceil_mode", False)),
    )
    return activation(a.get("activation"), y.permute(0, 2, 3, 1))


@_register("AVERAGE_POOL_2D")
def average_pool(node: Node, values: Values) -> torch.Tensor:
    x = values[0]
    assert x is not None
    a = node.attrs
    kernel, stride = (
        (int(a["kernel_h"]), int(a["kernel_w"])),
        (int(a.get("stride_h", 1)), int(a.get("stride_w", 1))),
    )
    padded, _ = _pool_window(node, x, 0.0)
    total = F.avg_pool2d(
        padded, kernel, stride, ceil_mode=bool(a.get("ceil_mode", False)), divisor_override=1
    )
    if a.get("count_include_pad", False):
        count = torch.full_like(total[:1, :1], float(kernel[0] * kernel[1]))
    else:
        ones, _ = _pool_window(node, torch.ones_like(x[:1, :, :, :1]), 0.0)
        count = F.avg_pool2d(
            ones, kernel, stride, ceil_mode=bool(a.get("ceil_mode", False)), divisor_override=1
        )
    return activation(a.get("activation"), (total / count).permute(0, 2, 3, 1))


@_register("GLOBAL_AVERAGE_POOL")
def global_average_pool(_node: Node, values: Values) -> torch.Tensor:
    x = values[0]
    assert x is not None
    return x.mean(dim=(1, 2), keepdim=True)


@_register("SOFTMAX")
def softmax(node: Node, values: Values) -> torch.Tensor:
    x = values[0]
    assert x is not None
    return torch.softmax(x * float(node.attrs.get("beta", 1.0)), dim=int(node.attrs.get("axis", -1)))


@_register("LAYER_NORM")
def layer_norm(node: Node, values: Values) -> torch.Tensor:
    x = values[0]
    assert x is not None
    axis = int(node.attrs.get("axis", -1)) % x.dim()
    return F.layer_norm(
        x,
        tuple(x.shape[axis:]),
        values[1],
        values[2] if len(values) > 2 else None,
        float(node.attrs.get("epsilon", 1e-5)),
    )


@_register("TRANSPOSE")
def transpose(node: Node, values: Values) -> torch.Tensor:
    x = values[0]
    assert x is not None
    return x.permute(*node.attrs["perm"])


@_register("RESHAPE")
def reshape(node: Node, values: Values) -> torch.Tensor:
    x = values[0]
    assert x is not None
    target = _ints(values[1]) if len(values) > 1 and values[1] is not None else list(node.attrs["shape"])
    if not node.attrs.get("allowzero", False):
        target = [x.shape[i] if d == 0 else d for i, d in enumerate(target)]
    return x.reshape(target)


@_register("FLATTEN")
def flatten(node: Node, values: Values) -> torch.Tensor:
    x = values[0]
    assert x is not None
    axis = int(node.attrs.get("axis", 1)) % max(x.dim(), 1)
    return x.reshape(int(torch.tensor(x.shape[:axis]).prod()), -1)


@_register("SQUEEZE")
def squeeze(node: Node, values: Values) -> torch.Tensor:
    x = values[0]
    assert x is not None
    axes = {a % x.dim() for a in node.attrs.get("axes", [])} or {i for i, d in enumerate(x.shape) if d == 1}
    return x.reshape([d for i, d in enumerate(x.shape) if i not in axes])


@_register("UNSQUEEZE")
def unsqueeze(node: Node, values: Values) -> torch.Tensor:
    x = values[0]
    assert x is not None
    rank = x.dim() + len(node.attrs["axes"])
    shape = list(x.shape)
    for axis in sorted(a % rank for a in node.attrs["axes"]):
        shape.insert(axis, 1)
    return x.reshape(shape)


@_register("CONCAT")
def concat(node: Node, values: Values) -> torch.Tensor:
    parts = [v for v in values if v is not None]
    return torch.cat(parts, dim=int(node.attrs["axis"]))


@_register("SHAPE")
def shape(node: Node, values: Values) -> torch.Tensor:
    x = values[0]
    assert x is not None
    dims = list(x.shape)
    if node.attrs.get("perm"):
        dims = [dims[p] for p in node.attrs["perm"]]
    start, end = int(node.attrs.get("start", 0)), int(node.attrs.get("end", len(dims)))
    return torch.tensor(dims[start:end], dtype=torch.int64)


_CASTS = {"INT32": torch.int32, "INT64": torch.int64, "FLOAT32": torch.float32, "BOOL": torch.bool}


@_register("CAST")
def cast(node: Node, values: Values) -> torch.Tensor:
    x = values[0]
    assert x is not None
    return x.to(_CASTS[str(node.attrs["to"])])


@_register("SLICE")
def slice_(_node: Node, values: Values) -> torch.Tensor:
    x = values[0]
    assert x is not None
    starts, ends = _ints(values[1]), _ints(values[2])
    axes = _ints(values[3]) if len(values) > 3 and values[3] is not None else list(range(len(starts)))
    steps = _ints(values[4]) if len(values) > 4 and values[4] is not None else [1] * len(starts)
    for start, end, axis, step in zip(starts, ends, axes, steps, strict=True):
        if step <= 0:
            raise ValueError("negative slice steps have no QAT form")
        axis %= x.dim()
        size = x.shape[axis]
        start = min(max(start + size if start < 0 else start, 0), size)
        end = min(max(end + size if end < 0 else end, 0), size)
        x = x[(slice(None),) * axis + (slice(start, end, step),)]
    return x


@_register("GATHER")
def gather(node: Node, values: Values) -> torch.Tensor:
    x, indices = values[0], values[1]
    assert x is not None and indices is not None
    axis = int(node.attrs.get("axis", 0)) % x.dim()
    index = indices.to(torch.int64)
    index = torch.where(index < 0, index + x.shape[axis], index)
    flat = x.index_select(axis, index.reshape(-1))
    return flat.reshape(tuple(x.shape[:axis]) + tuple(index.shape) + tuple(x.shape[axis + 1 :]))


@_register("RESIZE")
def resize(_node: Node, values: Values) -> torch.Tensor:
    """Nearest, integer scales only (the form the int8 pass moves bytes through)."""
    x, scales = values[0], values[1]
    assert x is not None and scales is not None
    sh, sw = (int(s) for s in scales.reshape(-1).tolist())
    return x.repeat_interleave(sh, dim=1).repeat_interleave(sw, dim=2)


_REDUCTIONS = {
    "REDUCE_MEAN": torch.mean,
    "REDUCE_SUM": torch.sum,
    "REDUCE_MAX": torch.amax,
    "REDUCE_MIN": torch.amin,
}


@_register(*_REDUCTIONS)
def reduce(node: Node, values: Values) -> torch.Tensor:
    x = values[0]
    assert x is not None
    axes = node.attrs.get("axes")
    if axes is None and len(values) > 1 and values[1] is not None:
        axes = _ints(values[1])
    dims = tuple(sorted(a % x.dim() for a in axes)) if axes else tuple(range(x.dim()))
    return _REDUCTIONS[node.op_type](x, dim=dims, keepdim=bool(node.attrs.get("keepdims", True)))
