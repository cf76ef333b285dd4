"""The int8 oracle: numpy code reproducing the runtime's integer arithmetic bit for bit.

Every function mirrors one C function of kernels_neon (ref/qs8_*.c, requantize.h) and the
prepare-time parameter computation of runtime_arm/src/ops/quant_params_int8.h; docs/QUANTIZATION.md
states the arithmetic once for both. ``simulate_node`` evaluates one int8 node of a quantized IR
graph from its input values, which is how tests check every int8 tensor the runtime produces.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from lite_converter.ir import Graph, Node
from lite_converter.passes.split_lookup_activation import LOOKUP_OPS


# -- fixed-point parameters (quant_params_int8.h, ref/qs8_requantize_ref.c) ----------------------------
def quantize_multiplier(real: float) -> tuple[int, int]:
    """(multiplier, shift) with real ~= multiplier * 2^-shift, multiplier in [2^30, 2^31)."""
    if not real >= 0.0 or math.isinf(real):
        raise ValueError(f"multiplier {real} is not a finite non-negative number")
    if real == 0.0:
        return 0, 1
    q, e = math.frexp(real)
    m = math.floor(q * 2147483648.0 + 0.5)
    if m == 1 << 31:
        m //= 2
        e += 1
    shift = 31 - e
    if shift < 1:
        raise ValueError(f"multiplier {real} is too large (>= 2^30)")
    if shift > 62:
        return 0, 1
    return m, shift


def quantize_multiplier_pair(real_a: float, real_b: float) -> tuple[int, int, int]:
    """(multiplier_a, multiplier_b, shared shift), the shift chosen from the larger multiplier."""
    top, shift = quantize_multiplier(max(real_a, real_b))
    if top == 0:
        return 0, 0, 1
    return math.floor(math.ldexp(real_a, shift) + 0.5), math.floor(math.ldexp(real_b, shift) + 0.5), shift


def channel_multipliers(input_scale: float, weight_scales: np.ndarray,
                        output_scale: float) -> tuple[np.ndarray, ...]:
    """Per-channel (multiplier, shift) of s_in * s_w[c] / s_out, in double from the float32 scales."""
    s_in, s_out = float(np.float32(input_scale)), float(np.float32(output_scale))
    pairs = [quantize_multiplier(s_in * float(sw) / s_out)
             for sw in np.asarray(weight_scales, np.float32).reshape(-1)]
    return np.array([m for m, _ in pairs], np.int64), np.array([s for _, s in pairs], np.int64)


# -- integer arithmetic (requantize.h) -------------------------------------------------------------
def rounding_shift_right(value: np.ndarray, shift: np.ndarray | int) -> np.ndarray:
    """floor((value + 2^(shift-1)) / 2^shift) on int64 (numpy's >> on int64 is that floor)."""
    value = np.asarray(value, np.int64)
    shift = np.asarray(shift, np.int64)
    return (value + (np.int64(1) << (shift - 1))) >> shift


def requantize(acc: np.ndarray, multiplier: np.ndarray, shift: np.ndarray, zero_point: int,
               low: int, high: int) -> np.ndarray:
    saturated = np.clip(np.asarray(acc, np.int64), np.iinfo(np.int32).min, np.iinfo(np.int32).max)
    product = saturated * np.asarray(multiplier, np.int64)
    out = rounding_shift_right(product, shift) + zero_point
    return np.clip(out, low, high).astype(np.int8)


def quantize(x: np.ndarray, scale: float, zero_point: int) -> np.ndarray:
    """clamp(rint(x / scale) + zp) computed in float32 like lite_qs8_quantize_f32_ref."""
    r = np.rint(np.asarray(x, np.float32) / np.float32(scale)) + np.float32(zero_point)
    r = np.where(np.isnan(r), np.float32(zero_point), r)
    return np.clip(r, -128, 127).astype(np.int8)


def dequantize(q: np.ndarray, scale: float | np.ndarray, zero_point: int | np.ndarray,
               axis: int | None = None) -> np.ndarray:
    """scale * float(q - zp) in float32; per index of ``axis`` when scale / zero_point are vectors."""
    scale = np.asarray(scale, np.float32)
    zero_point = np.asarray(zero_point, np.int32)
    if axis is not None and scale.size > 1:
        shape = [1] * np.ndim(q)
        shape[axis] = -1
        scale = scale.reshape(shape)
        zero_point = np.broadcast_to(zero_point.reshape(-1), (scale.size,)).reshape(shape)
    else:
        scale, zero_point = scale.reshape(()), zero_point.reshape(-1)[0] if zero_point.size else np.int32(0)
    return scale * (np.asarray(q, np.int32) - zero_point).astype(np.float32)


def activation_range(activation: dict[str, Any] | None, scale: float, zero_point: int) -> tuple[int, int]:
    """The int8 clamp of a fused NONE / RELU / CLIP activation (quantize of 0, alpha, beta)."""
    kind = (activation or {}).get("kind", "NONE")
    if kind == "NONE":
        return -128, 127
    if kind == "RELU":
        return int(quantize(np.float32(0.0), scale, zero_point)), 127
    if kind == "CLIP":
        return (int(quantize(np.float32(activation["alpha"]), scale, zero_point)),
                int(quantize(np.float32(activation["beta"]), scale, zero_point)))
    raise ValueError(f"activation {kind} has no int8 form")


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


def add(a: np.ndarray, qa: tuple[float, int], b: np.ndarray, qb: tuple[float, int], qy: tuple[float, int],
        low: int, high: int) -> np.ndarray:
    ma, mb, shift = quantize_multiplier_pair(float(np.float32(qa[0])) / float(np.float32(qy[0])),
                                             float(np.float32(qb[0])) / float(np.float32(qy[0])))
    total = (np.asarray(a, np.int64) - qa[1]) * ma + (np.asarray(b, np.int64) - qb[1]) * mb
    return np.clip(rounding_shift_right(total, shift) + qy[1], low, high).astype(np.int8)


def mul(a: np.ndarray, qa: tuple[float, int], b: np.ndarray, qb: tuple[float, int], qy: tuple[float, int],
        low: int, high: int) -> np.ndarray:
    """(a - za) * (b - zb) requantized once by s_a * s_b / s_y (b broadcasts like numpy)."""
    multiplier, shift = quantize_multiplier(float(np.float32(qa[0])) * float(np.float32(qb[0]))
                                            / float(np.float32(qy[0])))
    product = (np.asarray(a, np.int64) - qa[1]) * (np.asarray(b, np.int64) - qb[1])
    return requantize(product, multiplier, shift, qy[1], low, high)


def global_average_pool(x: np.ndarray, zero_point: int) -> np.ndarray:
    n, h, w, c = x.shape
    total = (np.asarray(x, np.int64) - zero_point).sum(axis=(1, 2), keepdims=True)
    count = h * w
    rounded = np.where(total >= 0, (total + count // 2) // count, -((-total + count // 2) // count))
    return np.clip(rounded + zero_point, -128, 127).astype(np.int8)


def max_pool(x: np.ndarray, attrs: dict[str, Any]) -> np.ndarray:
    n, h, w, c = x.shape
    kh, kw = int(attrs["kernel_h"]), int(attrs["kernel_w"])
    sh, sw = int(attrs.get("stride_h", 1)), int(attrs.get("stride_w", 1))
    dh, dw = int(attrs.get("dilation_h", 1)), int(attrs.get("dilation_w", 1))
    pt, pl = int(attrs.get("pad_top", 0)), int(attrs.get("pad_left", 0))
    pb, pr = int(attrs.get("pad_bottom", 0)), int(attrs.get("pad_right", 0))
    oh = (h + pt + pb - (dh * (kh - 1) + 1)) // sh + 1
    ow = (w + pl + pr - (dw * (kw - 1) + 1)) // sw + 1
    padded = np.pad(np.asarray(x, np.int8), ((0, 0), (pt, pb), (pl, pr), (0, 0)), constant_values=-128)
    out = np.full((n, oh, ow, c), -128, np.int8)
    for i in range(kh):
        for j in range(kw):
            window = padded[:, i * dh: i * dh + sh * (oh - 1) + 1: sh,
                            j * dw: j * dw + sw * (ow - 1) + 1: sw, :]
            out = np.maximum(out, window)
    return out


# -- lookup-table activations (runtime_arm/src/ops/lookup_int8.cc) ---------------------------------


def _real_function(op: str, alpha: float, beta: float, x: float) -> float:
    """The op in double precision, written as the C++ table builder writes it (math = the C library)."""
    if op == "HARD_SWISH":
        return x * max(0.0, min(1.0, x / 6.0 + 0.5))
    if op == "HARD_SIGMOID":
        return max(0.0, min(1.0, alpha * x + beta))
    if op == "SIGMOID":
        return 1.0 / (1.0 + math.exp(-x))
    if op == "TANH":
        return math.tanh(x)
    if op == "SILU":
        return x / (1.0 + math.exp(-x))
    raise ValueError(f"{op} has no int8 lookup table")


def lookup_table(op: str, attrs: dict[str, Any], qx: tuple[float, int], qy: tuple[float, int]) -> np.ndarray:
    """The 256 int8 outputs for inputs -128..127: quantize(f(dequantize(q))) in double, half to even."""
    alpha = float(np.float32(attrs.get("alpha", 0.0)))  # the file stores float32 options
    beta = float(np.float32(attrs.get("beta", 0.0)))
    s_in, s_out = float(np.float32(qx[0])), float(np.float32(qy[0]))
    table = np.empty(256, np.int8)
    for q in range(-128, 128):
        real = _real_function(op, alpha, beta, s_in * (q - qx[1]))
        steps = min(max(real / s_out, -1e6), 1e6)  # saturates like the C clamp (and keeps round() finite)
        table[q + 128] = min(max(round(steps) + qy[1], -128), 127)
    return table


def lookup(x: np.ndarray, table: np.ndarray) -> np.ndarray:
    return table[np.asarray(x, np.int16) + 128]


def map_table(graph: Graph, node: Node) -> np.ndarray | None:
    """The int8 outputs for the inputs -128..127 of an int8 ``node`` that maps one tensor element by
    element (a table activation, ADD / MUL by a one-element constant with its clamp, a REQUANTIZE
    table), computed by this module's own simulation of the node; None for any other node.
    lite_converter/passes/compose_tables_int8.py composes chains of such nodes from these tables."""
    op = node.op_type
    if not node.inputs or not node.outputs or graph.tensors[node.inputs[0]].is_constant:
        return None
    if op == "REQUANTIZE" and len(node.inputs) == 2:
        return np.asarray(graph.constant(node.inputs[1]), np.int8).reshape(-1)
    x, y = graph.tensors[node.inputs[0]], graph.tensors[node.outputs[0]]
    if x.dtype != np.int8 or y.dtype != np.int8 or x.quant is None or y.quant is None:
        return None
    every_byte = np.arange(-128, 128, dtype=np.int8)
    if op in LOOKUP_OPS and len(node.inputs) == 1:
        return lookup_table(op, node.attrs, _per_tensor(graph, node.inputs[0]),
                            _per_tensor(graph, node.outputs[0]))
    if op in ("ADD", "MUL") and len(node.inputs) == 2:
        b = graph.constant(node.inputs[1])
        b_quant = graph.tensors[node.inputs[1]].quant
        if b is None or b.size != 1 or b.dtype != np.int8 or b_quant is None or b_quant.scale.size != 1:
            return None
        return simulate_node(graph, node, {node.inputs[0]: every_byte, node.inputs[1]: b.reshape(1)})
    return None


# -- one node of a quantized graph ------------------------------------------------------------------
def _per_tensor(graph: Graph, name: str) -> tuple[float, int]:
    quant = graph.tensors[name].quant
    assert quant is not None, f"tensor {name} has no quantization"
    return float(quant.scale.reshape(-1)[0]), int(quant.zero_point.reshape(-1)[0])


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
    if op == "CONCAT":
        return np.concatenate([values[name] for name in node.inputs], axis=int(node.attrs["axis"]))
    if op == "TRANSPOSE":
        return np.transpose(x, node.attrs["perm"])
    if op == "RESIZE":  # nearest, asymmetric, floor, integer scales: each pixel repeated (NHWC)
        scale_h, scale_w = (int(v) for v in np.asarray(graph.constant(node.inputs[1])).reshape(-1))
        return np.repeat(np.repeat(x, scale_h, axis=1), scale_w, axis=2)
    if op == "REQUANTIZE":  # with a table: a composed chain of int8 maps (compose_tables_int8.py)
        return lookup(x, np.asarray(graph.constant(node.inputs[1]), np.int8).reshape(-1))
    if op in ("RESHAPE", "FLATTEN", "SQUEEZE", "UNSQUEEZE"):
        return x.reshape(values[node.outputs[0]].shape)  # the shape logic is the fp32 op's, tested elsewhere
    qx, qy = _per_tensor(graph, node.inputs[0]), _per_tensor(graph, node.outputs[0])
    low, high = activation_range(node.attrs.get("activation"), *qy)
    if op in ("CONV_2D", "FULLY_CONNECTED", "CONV_TRANSPOSE_2D"):
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
