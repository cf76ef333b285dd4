"""Layers with weights and windows: Conv, ConvTranspose, Gemm, MatMul, normalizations, pools, Resize.

Semantics are ONNX's (the IR's vocabulary before lowering); padding the way ONNX states it
(explicit ``pads`` begin/end per axis, or ``auto_pad``) is applied with ``F.pad`` when torch's
symmetric ``padding`` argument cannot say it.
"""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F

from lite_converter.ir import ConversionError, Node
from slim.torch_ir.registry import Value, floats, ints, optional, register


def _spatial_pads(node: Node, x: torch.Tensor, kernel: list[int], strides: list[int],
                  dilations: list[int]) -> list[int]:
    """ONNX begin/end pads [b0, b1, ..., e0, e1, ...] for the node's auto_pad / pads."""
    rank = x.dim() - 2
    auto_pad = node.attrs.get("auto_pad", "NOTSET")
    if auto_pad in ("SAME_UPPER", "SAME_LOWER"):
        begins, ends = [], []
        for i in range(rank):
            size = x.shape[2 + i]
            out = math.ceil(size / strides[i])
            total = max(0, (out - 1) * strides[i] + (kernel[i] - 1) * dilations[i] + 1 - size)
            small, large = total // 2, total - total // 2
            begins.append(small if auto_pad == "SAME_UPPER" else large)
            ends.append(large if auto_pad == "SAME_UPPER" else small)
        return begins + ends
    if auto_pad == "VALID":
        return [0] * (2 * rank)
    return list(node.attrs.get("pads", [0] * (2 * rank)))


def _torch_padding(x: torch.Tensor, pads: list[int], value: float = 0.0) -> tuple[torch.Tensor, list[int]]:
    """Symmetric pads go to torch's ``padding``; asymmetric ones are applied here with F.pad."""
    rank = len(pads) // 2
    begins, ends = pads[:rank], pads[rank:]
    if begins == ends:
        return x, begins
    flat: list[int] = []
    for i in reversed(range(rank)):  # F.pad wants the last axis first
        flat += [begins[i], ends[i]]
    return F.pad(x, flat, value=value), [0] * rank


def _window(node: Node, x: torch.Tensor, kernel: list[int] | None = None) -> tuple[list[int], ...]:
    rank = x.dim() - 2
    kernel = kernel or list(node.attrs["kernel_shape"])
    strides = list(node.attrs.get("strides", [1] * rank))
    dilations = list(node.attrs.get("dilations", [1] * rank))
    return kernel, strides, dilations


_CONV = {1: F.conv1d, 2: F.conv2d, 3: F.conv3d}
_CONV_TRANSPOSE = {1: F.conv_transpose1d, 2: F.conv_transpose2d, 3: F.conv_transpose3d}


@register("Conv")
def conv(node: Node, inputs: list[Value], _module: object) -> torch.Tensor:
    x, w, b = inputs[0], inputs[1], optional(inputs, 2)
    kernel, strides, dilations = _window(node, x, list(w.shape[2:]))
    x, padding = _torch_padding(x, _spatial_pads(node, x, kernel, strides, dilations))
    return _CONV[x.dim() - 2](x, w, b, strides, padding, dilations, int(node.attrs.get("group", 1)))


@register("ConvTranspose")
def conv_transpose(node: Node, inputs: list[Value], _module: object) -> torch.Tensor:
    x, w, b = inputs[0], inputs[1], optional(inputs, 2)
    rank = x.dim() - 2
    kernel, strides, dilations = _window(node, x, list(w.shape[2:]))
    if node.attrs.get("auto_pad", "NOTSET") not in ("NOTSET", "VALID") or "output_shape" in node.attrs:
        raise ConversionError(f"node '{node.name}' (ConvTranspose): auto_pad / output_shape are not "
                              "supported by the torch executor")
    pads = list(node.attrs.get("pads", [0] * (2 * rank)))
    output_padding = list(node.attrs.get("output_padding", [0] * rank))
    begins, ends = pads[:rank], pads[rank:]
    y = _CONV_TRANSPOSE[rank](x, w, b, strides, 0, output_padding, int(node.attrs.get("group", 1)), dilations)
    if any(begins) or any(ends):  # crop: ONNX pads remove output rows/cols at each end
        index = [slice(None), slice(None)] + [slice(begins[i], y.shape[2 + i] - ends[i]) for i in range(rank)]
        y = y[tuple(index)]
    return y


@register("Gemm")
def gemm(node: Node, inputs: list[Value], _module: object) -> torch.Tensor:
    a, b, c = inputs[0], inputs[1], optional(inputs, 2)
    a = a.t() if node.attrs.get("transA", 0) else a
    b = b.t() if node.attrs.get("transB", 0) else b
    y = float(node.attrs.get("alpha", 1.0)) * (a @ b)
    if c is not None:
        y = y + float(node.attrs.get("beta", 1.0)) * c
    return y


@register("MatMul")
def matmul(_node: Node, inputs: list[Value], _module: object) -> torch.Tensor:
    return torch.matmul(inputs[0], inputs[1])


@register("BatchNormalization")
def batch_norm(node: Node, inputs: list[Value], module: object) -> torch.Tensor:
    """Frozen statistics (inference BN) unless the module trains its BatchNorms (bn_train)."""
    x, scale, bias, mean, var = inputs[:5]
    eps = float(node.attrs.get("epsilon", 1e-5))
    if getattr(module, "bn_train", False) and module.training:  # type: ignore[attr-defined]
        momentum = 1.0 - float(node.attrs.get("momentum", 0.9))  # ONNX: running = m * running + (1-m) * batch
        return F.batch_norm(x, mean, var, scale, bias, True, momentum, eps)
    shape = (1, -1) + (1,) * (x.dim() - 2)
    inv = torch.rsqrt(var + eps) * scale
    return x * inv.reshape(shape) + (bias - mean * inv).reshape(shape)


@register("InstanceNormalization")
def instance_norm(node: Node, inputs: list[Value], _module: object) -> torch.Tensor:
    x, scale, bias = inputs[:3]
    return F.instance_norm(x, weight=scale, bias=bias, eps=float(node.attrs.get("epsilon", 1e-5)))


@register("LayerNormalization")
def layer_norm(node: Node, inputs: list[Value], _module: object) -> torch.Tensor:
    x, scale, bias = inputs[0], inputs[1], optional(inputs, 2)
    axis = int(node.attrs.get("axis", -1))
    axis = axis + x.dim() if axis < 0 else axis
    return F.layer_norm(x, tuple(x.shape[axis:]), scale, bias, float(node.attrs.get("epsilon", 1e-5)))


@register("MaxPool")
def max_pool(node: Node, inputs: list[Value], _module: object) -> torch.Tensor:
    x = inputs[0]
    kernel, strides, dilations = _window(node, x)
    pads = _spatial_pads(node, x, kernel, strides, dilations)
    x, padding = _torch_padding(x, pads, value=float("-inf"))
    pool = {1: F.max_pool1d, 2: F.max_pool2d, 3: F.max_pool3d}[x.dim() - 2]
    return pool(x, kernel, strides, padding, dilations, ceil_mode=bool(node.attrs.get("ceil_mode", 0)))


@register("AveragePool")
def average_pool(node: Node, inputs: list[Value], _module: object) -> torch.Tensor:
    x = inputs[0]
    kernel, strides, dilations = _window(node, x)
    if any(d != 1 for d in dilations):
        raise ConversionError(f"node '{node.name}' (AveragePool): dilations are not supported by the torch "
                              "executor")
    pads = _spatial_pads(node, x, kernel, strides, dilations)
    include_pad = bool(node.attrs.get("count_include_pad", 0))
    rank = x.dim() - 2
    ceil_mode = bool(node.attrs.get("ceil_mode", 0))
    pool = {1: F.avg_pool1d, 2: F.avg_pool2d, 3: F.avg_pool3d}[rank]
    if pads[:rank] == pads[rank:] and all(2 * p <= k for p, k in zip(pads[:rank], kernel, strict=True)):
        return pool(x, kernel, strides, pads[:rank], ceil_mode, include_pad)
    padded, _ = _torch_padding(x, pads)
    total = pool(padded, kernel, strides, 0, ceil_mode, True)
    if include_pad:
        return total
    ones, _ = _torch_padding(torch.ones_like(x[:1, :1]), pads)
    count = pool(ones, kernel, strides, 0, ceil_mode, True)
    return total / count


@register("GlobalAveragePool")
def global_average_pool(_node: Node, inputs: list[Value], _module: object) -> torch.Tensor:
    x = inputs[0]
    return x.mean(dim=tuple(range(2, x.dim())), keepdim=True)


@register("GlobalMaxPool")
def global_max_pool(_node: Node, inputs: list[Value], _module: object) -> torch.Tensor:
    x = inputs[0]
    return x.amax(dim=tuple(range(2, x.dim())), keepdim=True)


@register("Softmax", "LogSoftmax")
def softmax(node: Node, inputs: list[Value], module: object) -> torch.Tensor:
    x = inputs[0]
    default = -1 if getattr(module, "opset", 13) >= 13 else 1
    axis = int(node.attrs.get("axis", default))
    if getattr(module, "opset", 13) < 13 and axis != x.dim() - 1 and axis != -1:
        # opset < 13: softmax over the flattened trailing axes from ``axis``
        flat = x.reshape(tuple(x.shape[:axis]) + (-1,))
        y = F.softmax(flat, -1) if node.op_type == "Softmax" else F.log_softmax(flat, -1)
        return y.reshape(x.shape)
    return F.softmax(x, axis) if node.op_type == "Softmax" else F.log_softmax(x, axis)


_RESIZE_LINEAR = {"linear": {1: "linear", 2: "bilinear", 3: "trilinear"}}


@register("Resize", "Upsample")
def resize(node: Node, inputs: list[Value], _module: object) -> torch.Tensor:
    """Nearest (asymmetric + floor, or half_pixel + round_prefer_ceil) and linear (half_pixel,
    pytorch_half_pixel, align_corners) resizing of the spatial axes."""
    x = inputs[0]
    rank = x.dim() - 2
    if node.op_type == "Upsample":
        scales = floats(inputs[1]) if len(inputs) > 1 else list(node.attrs["scales"])
        sizes: list[int] = []
    else:
        scales, sizes = floats(optional(inputs, 2)), ints(optional(inputs, 3))
    if sizes:
        out_size = sizes[2:]
        if sizes[:2] != list(x.shape[:2]):
            raise ConversionError(f"node '{node.name}' (Resize): resizing batch or channels is not supported")
    elif scales:
        if scales[:2] != [1.0, 1.0]:
            raise ConversionError(f"node '{node.name}' (Resize): resizing batch or channels is not supported")
        out_size = [int(math.floor(x.shape[2 + i] * scales[2 + i])) for i in range(rank)]
    else:
        raise ConversionError(f"node '{node.name}' (Resize): neither scales nor sizes given")
    mode = node.attrs.get("mode", "nearest")
    transform = node.attrs.get("coordinate_transformation_mode", "half_pixel")
    if mode == "nearest":
        nearest = node.attrs.get("nearest_mode", "round_prefer_floor")
        if transform == "asymmetric" and nearest == "floor":
            return F.interpolate(x, size=out_size, mode="nearest")
        if transform in ("half_pixel", "pytorch_half_pixel") and nearest in ("round_prefer_ceil",
                                                                             "round_prefer_floor"):
            return F.interpolate(x, size=out_size, mode="nearest-exact")
    elif mode == "linear" and rank in (1, 2, 3):
        torch_mode = _RESIZE_LINEAR["linear"][rank]
        if transform == "align_corners":
            return F.interpolate(x, size=out_size, mode=torch_mode, align_corners=True)
        if transform in ("half_pixel", "pytorch_half_pixel"):
            if transform == "pytorch_half_pixel" and any(s == 1 for s in out_size):
                raise ConversionError(f"node '{node.name}' (Resize): pytorch_half_pixel to size 1 is not "
                                      "supported by the torch executor")
            return F.interpolate(x, size=out_size, mode=torch_mode, align_corners=False)
    raise ConversionError(f"node '{node.name}' (Resize): mode {mode!r} with coordinate transformation "
                          f"{transform!r} is not supported by the torch executor")


@register("Dropout")
def dropout(_node: Node, inputs: list[Value], _module: object) -> torch.Tensor:
    return inputs[0]


@register("LRN")
def lrn(node: Node, inputs: list[Value], _module: object) -> torch.Tensor:
    return F.local_response_norm(inputs[0], int(node.attrs["size"]), float(node.attrs.get("alpha", 1e-4)),
                                 float(node.attrs.get("beta", 0.75)), float(node.attrs.get("bias", 1.0)))
