"""The int8 oracle: numpy code reproducing the runtime's int8 ops bit for bit.

The arithmetic (rounding, requantization, activation clamps, tables, ADD / MUL) is
lite_converter.int8's, the one home the converter's int8 pass uses too; this module adds what
only the simulation needs: the accumulators of CONV_2D / CONV_TRANSPOSE_2D / FULLY_CONNECTED, the
pools, and ``simulate_node``, which evaluates one int8 node of a quantized IR graph from its input
values (how tests check every int8 tensor the runtime produces). docs/QUANTIZATION.md states the
arithmetic once for both.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from lite_converter.int8 import (
    INT8_MAX,
    INT8_MIN,
    activation_range,
    add,
    channel_multipliers,
    dequantize,
    divide_round_half_away,
    lookup,
    lookup_table,
    mul,
    quantize,
    requantize,
)
from lite_converter.int8.params import per_tensor
from lite_converter.ir import Graph, Node
from lite_converter.lite_ops import OPS, Int8Role, int8_ops
from lite_converter.passes.split_lookup_activation import LOOKUP_OPS


# -- ops (ref/qs8_*.c) -----------------------------------------------------------------------------
def conv2d_nhwc(x: np.ndarray, weight: np.ndarray, bias: np.ndarray | None, attrs: dict[str, Any],
                input_zero_point: int) -> np.ndarray:
    """The int64 accumulators of an int8 NHWC convolution (padding = input zero point)."""
    n, h, w, ci = x.shape
    co, kh, kw, cig = weight.shape
    groups = int(attrs.get("group", 1))
    sh, sw = int(attrs.get("stride_h", 1)), int(attrs.get("stride_w", 1))
    dh, dw = int(attrs.get("dilation_h", 1)), int(attrs.get("dilation_w", 1))
    pt, pl = int(attrs.get("pad_top", 0)), int(attrs.get("pad_left", 0))
    pb, pr = int(attrs.get("pad_bottom", 0)), int(attrs.get("pad_right", 0))
    oh = (h + pt + pb - (dh * (kh - 1) + 1)) // sh + 1
    ow = (w + pl + pr - (dw * (kw - 1) + 1)) // sw + 1
    centered = np.asarray(x, np.int64) - input_zero_point
    padded = np.pad(centered, ((0, 0), (pt, pb), (pl, pr), (0, 0)))  # real 0 == zero point
    wg = np.asarray(weight, np.int64).reshape(groups, co // groups, kh, kw, cig)
    acc = np.zeros((n, oh, ow, groups, co // groups), np.int64)
    for i in range(kh):
        for j in range(kw):
            window = padded[:, i * dh: i * dh + sh * (oh - 1) + 1: sh,
                            j * dw: j * dw + sw * (ow - 1) + 1: sw, :]
            acc += np.einsum("nhwgc,goc->nhwgo", window.reshape(n, oh, ow, groups, cig), wg[:, :, i, j, :])
    acc = acc.reshape(n, oh, ow, co)
    if bias is not None:
        acc += np.asarray(bias, np.int64)
    return acc


def conv_transpose2d_nhwc(x: np.ndarray, weight: np.ndarray, bias: np.ndarray | None, attrs: dict[str, Any],
                          input_zero_point: int) -> np.ndarray:
    """The int64 accumulators of an int8 NHWC transposed convolution, weight [Ci, KH, KW, Co], groups 1:
    each input pixel's tap (i, j) adds into output (ih * stride + i * dilation - pad_top, ...)."""
    n, h, w, _ = x.shape
    _, kh, kw, co = weight.shape
    sh, sw = int(attrs.get("stride_h", 1)), int(attrs.get("stride_w", 1))
    dh, dw = int(attrs.get("dilation_h", 1)), int(attrs.get("dilation_w", 1))
    pt, pl = int(attrs.get("pad_top", 0)), int(attrs.get("pad_left", 0))
    pb, pr = int(attrs.get("pad_bottom", 0)), int(attrs.get("pad_right", 0))
    full_h = sh * (h - 1) + dh * (kh - 1) + 1 + int(attrs.get("output_padding_h", 0))
    full_w = sw * (w - 1) + dw * (kw - 1) + 1 + int(attrs.get("output_padding_w", 0))
    centered = np.asarray(x, np.int64) - input_zero_point
    full = np.zeros((n, full_h, full_w, co), np.int64)
    for i in range(kh):
        for j in range(kw):
            taps = np.einsum("nhwc,co->nhwo", centered, np.asarray(weight[:, i, j, :], np.int64))
            full[:, i * dh: i * dh + sh * (h - 1) + 1: sh, j * dw: j * dw + sw * (w - 1) + 1: sw, :] += taps
    acc = full[:, pt: full_h - pb, pl: full_w - pr, :]
    return acc + (np.asarray(bias, np.int64) if bias is not None else 0)


def fully_connected(x: np.ndarray, weight: np.ndarray, bias: np.ndarray | None,
                    input_zero_point: int) -> np.ndarray:
    acc = (np.asarray(x, np.int64) - input_zero_point) @ np.asarray(weight, np.int64).T
    return acc + (np.asarray(bias, np.int64) if bias is not None else 0)


def global_average_pool(x: np.ndarray, zero_point: int) -> np.ndarray:
    """zero_point + the mean of (x - zero_point) over H x W rounded half away from zero, clamped, int8."""
    _, h, w, _ = x.shape
    total = (np.asarray(x, np.int64) - zero_point).sum(axis=(1, 2), keepdims=True)
    return np.clip(divide_round_half_away(total, h * w) + zero_point, INT8_MIN, INT8_MAX).astype(np.int8)


def max_pool(x: np.ndarray, attrs: dict[str, Any]) -> np.ndarray:
    n, h, w, c = x.shape
    kh, kw = int(attrs["kernel_h"]), int(attrs["kernel_w"])
    sh, sw = int(attrs.get("stride_h", 1)), int(attrs.get("stride_w", 1))
    dh, dw = int(attrs.get("dilation_h", 1)), int(attrs.get("dilation_w", 1))
    pt, pl = int(attrs.get("pad_top", 0)), int(attrs.get("pad_left", 0))
    pb, pr = int(attrs.get("pad_bottom", 0)), int(attrs.get("pad_right", 0))
    oh = (h + pt + pb - (dh * (kh - 1) + 1)) // sh + 1
    ow = (w + pl + pr - (dw * (kw - 1) + 1)) // sw + 1
    padded = np.pad(np.asarray(x, np.int8), ((0, 0), (pt, pb), (pl, pr), (0, 0)), constant_values=INT8_MIN)
    out = np.full((n, oh, ow, c), INT8_MIN, np.int8)
    for i in range(kh):
        for j in range(kw):
            window = padded[:, i * dh: i * dh + sh * (oh - 1) + 1: sh,
                            j * dw: j * dw + sw * (ow - 1) + 1: sw, :]
            out = np.maximum(out, window)
    return out


# -- one node of a quantized graph ------------------------------------------------------------------
def _per_tensor(graph: Graph, name: str) -> tuple[float, int]:
    quant = graph.tensors[name].quant
    assert quant is not None, f"tensor {name} has no quantization"
    return per_tensor(quant)


def simulate_split(node: Node, values: dict[str, np.ndarray]) -> list[np.ndarray]:
    """An int8 SPLIT's parts: its input cut along its axis into the sizes of the parts (the size
    logic is the fp32 op's, tested elsewhere; bytes only move)."""
    x, axis = values[node.inputs[0]], int(node.attrs.get("axis", 0)) % values[node.inputs[0]].ndim
    ends = np.cumsum([values[name].shape[axis] for name in node.outputs])[:-1]
    return np.split(x, ends, axis=axis)


def simulate_node(graph: Graph, node: Node, values: dict[str, np.ndarray]) -> np.ndarray:
    """The output of int8 ``node`` (or a QUANTIZE / DEQUANTIZE) from its input ``values``."""
    op = node.op_type
    x = values[node.inputs[0]]
    if op == "QUANTIZE":
        return quantize(x, *_per_tensor(graph, node.outputs[0]))
    if op == "DEQUANTIZE":
        quant = graph.tensors[node.inputs[0]].quant
        assert quant is not None, f"tensor {node.inputs[0]} has no quantization"
        zero_point = quant.zero_point if quant.zero_point is not None and quant.zero_point.size else 0
        return dequantize(x, quant.scale, zero_point, quant.axis)
    if op == "SPLIT":  # the first part (simulate_split gives them all)
        return simulate_split(node, values)[0]
    if op == "CONCAT":
        return np.concatenate([values[name] for name in node.inputs], axis=int(node.attrs["axis"]))
    if op == "TRANSPOSE":
        return np.transpose(x, node.attrs["perm"])
    if op == "RESIZE":  # nearest, asymmetric, floor, integer scales: each pixel repeated (NHWC)
        scale_h, scale_w = (int(v) for v in np.asarray(graph.constant(node.inputs[1])).reshape(-1))
        return np.repeat(np.repeat(x, scale_h, axis=1), scale_w, axis=2)
    if op == "REQUANTIZE":  # with a table: a composed chain of int8 maps (compose_tables_int8.py)
        return lookup(x, graph.constant(node.inputs[1]))
    if op in int8_ops(Int8Role.MOVE) and OPS[op].aliases_input:  # reshape-like: the bytes stay in order
        return x.reshape(values[node.outputs[0]].shape)  # the shape logic is the fp32 op's, tested elsewhere
    qx, qy = _per_tensor(graph, node.inputs[0]), _per_tensor(graph, node.outputs[0])
    low, high = activation_range(node.attrs.get("activation"), *qy)
    if op in int8_ops(Int8Role.WEIGHTED):
        weight_tensor = graph.tensors[node.inputs[1]]
        assert weight_tensor.data is not None and weight_tensor.quant is not None
        bias = graph.constant(node.inputs[2]) if len(node.inputs) > 2 and node.inputs[2] else None
        multiplier, shift = channel_multipliers(qx[0], weight_tensor.quant.scale, qy[0])
        if op == "CONV_2D":
            acc = conv2d_nhwc(x, weight_tensor.data, bias, node.attrs, qx[1])
        elif op == "CONV_TRANSPOSE_2D":
            acc = conv_transpose2d_nhwc(x, weight_tensor.data, bias, node.attrs, qx[1])
        else:
            acc = fully_connected(x, weight_tensor.data, bias, qx[1])
        return requantize(acc, multiplier, shift, qy[1], low, high)
    if op == "ADD":
        return add(x, qx, values[node.inputs[1]], _per_tensor(graph, node.inputs[1]), qy, low, high)
    if op == "MUL":
        return mul(x, qx, values[node.inputs[1]], _per_tensor(graph, node.inputs[1]), qy, low, high)
    if op == "GLOBAL_AVERAGE_POOL":
        return global_average_pool(x, qx[1])
    if op in LOOKUP_OPS:
        return lookup(x, lookup_table(op, node.attrs, qx, qy))
    if op == "MAX_POOL_2D":
        return max_pool(x, node.attrs)
    raise ValueError(f"no int8 simulation for {op}")
