"""QDQ import: undo a per-channel affine (BatchNorm, Mul/Add) folded across a quantization boundary.

A QDQ model that was not pre-processed has ``Conv -> Q/DQ -> BatchNormalization -> Q/DQ``: the
conv's output is rounded to int8 *before* the BatchNorm, which onnxruntime runs in fp32. Our
optimizer folds the BatchNorm into the conv (weights and bias scaled per output channel) and that
rounding step disappears; where the BatchNorm's scale is large the results then differ by several
LSBs. So the conv's original weights and bias are recorded by node name before the passes run, and
after them the folded conv is split again into the original int8 conv (with its own QDQ output
parameters) and an fp32 ``MUL k, ADD t`` per channel, recovered from the folded weights.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from lite_converter.ir import Graph, QuantParams

# relative error allowed between the folded weights and k * the original ones
AFFINE_TOLERANCE = 1e-4


@dataclasses.dataclass
class ConvOriginal:
    """A conv's weights (each output channel's values sorted: independent of the weight layout the
    passes choose) and bias before any folding, and the weight's quantization tag."""

    sorted_channels: np.ndarray  # [C, K] float64
    bias: np.ndarray | None
    quant: QuantParams


def record_conv_originals(graph: Graph) -> dict[str, ConvOriginal]:
    """The originals of every Conv whose weight is tagged int8 (call right after strip_qdq)."""
    originals: dict[str, ConvOriginal] = {}
    for node in graph.nodes:
        if node.op_type != "Conv" or len(node.inputs) < 2:
            continue
        weight = graph.tensors.get(node.inputs[1])
        if weight is None or weight.data is None or weight.quant is None:
            continue
        channels = weight.data.shape[0]
        flat = np.sort(weight.data.reshape(channels, -1).astype(np.float64), axis=1)
        bias = graph.constant(node.inputs[2]) if len(node.inputs) > 2 and node.inputs[2] else None
        bias_values = None if bias is None else bias.astype(np.float64).reshape(-1)
        originals[node.name] = ConvOriginal(flat, bias_values, weight.quant)
    return originals


def channel_affine(original: ConvOriginal, weight: np.ndarray,
                   bias: np.ndarray | None) -> tuple[np.ndarray, np.ndarray] | None:
    """(k, t) per output channel with folded = original * k (+ t for the bias), or None when the
    folded weights are not a per-channel multiple of the original ones."""
    channels = weight.shape[0]
    if original.sorted_channels.shape != (channels, weight.size // max(channels, 1)):
        return None
    folded = np.sort(weight.reshape(channels, -1).astype(np.float64), axis=1)
    base = original.sorted_channels
    norm_base = np.sqrt((base * base).sum(axis=1))
    norm_folded = np.sqrt((folded * folded).sum(axis=1))
    k = np.divide(norm_folded, norm_base, out=np.ones(channels), where=norm_base > 0)
    positive_error = np.abs(folded - k[:, None] * base).max(axis=1)
    negative_error = np.abs(folded[:, ::-1] + k[:, None] * base).max(axis=1)
    k = np.where(negative_error < positive_error, -k, k)
    error = np.minimum(positive_error, negative_error)
    if (error > AFFINE_TOLERANCE * np.maximum(norm_folded, 1e-30)).any():
        return None
    original_bias = original.bias if original.bias is not None else np.zeros(channels)
    folded_bias = bias.astype(np.float64).reshape(-1) if bias is not None else np.zeros(channels)
    if original_bias.size != channels or folded_bias.size != channels:
        return None
    return k, folded_bias - k * original_bias
