"""BatchNormalization (inference), LayerNormalization, InstanceNormalization, LRN.

BatchNormalization with constant parameters is gone after optimize (folded into a conv or turned
into Mul+Add); what is left here has tensor parameters and becomes the same ``x * s + t`` computed
at run time: s = scale / sqrt(var + eps), t = bias - mean * s, reshaped to [C, 1, ...].
"""

from __future__ import annotations

import numpy as np

from lite_converter.ir import Graph, Node
from lite_converter.passes.lowering.emitter import NO_ACTIVATION, Emitter, dtype_name, normalize_axis
from lite_converter.passes.lowering.registry import lowers


def _check_batch_norm(graph: Graph, node: Node) -> list[str]:
    if node.attrs.get("training_mode", 0) or len([o for o in node.outputs if o]) > 1:
        return ["training-mode BatchNormalization (running statistics outputs) is not supported"]
    if node.attrs.get("spatial", 1) == 0:
        return ["spatial=0 (per-activation statistics, opset < 9) is not supported"]
    return []


@lowers("BatchNormalization", check=_check_batch_norm)
def lower_batch_norm(graph: Graph, node: Node) -> list[Node]:
    e = Emitter(graph, node)
    x, scale, bias, mean, var = node.inputs[:5]
    rank = e.require_rank(x)
    dtype = e.dtype(x)
    none = dict(NO_ACTIVATION)
    eps = e.const("epsilon", np.array(float(node.attrs.get("epsilon", 1e-5)), dtype=dtype))
    std = e.op("ADD", [var, eps], dtype, e.shape(var), activation=none)
    std = e.op("SQRT", [std], dtype, e.shape(var))
    s = e.op("DIV", [scale, std], dtype, e.shape(scale), activation=none)
    shifted = e.op("MUL", [mean, s], dtype, e.shape(mean), activation=none)
    t = e.op("SUB", [bias, shifted], dtype, e.shape(bias), activation=none)
    axes = list(range(1, rank - 1))
    if axes:
        s = e.op("UNSQUEEZE", [s], dtype, None, axes=axes)
        t = e.op("UNSQUEEZE", [t], dtype, None, axes=axes)
    scaled = e.op("MUL", [x, s], dtype, e.shape(x), activation=none)
    e.emit("ADD", [scaled, t], node.outputs[:1], activation=none)
    return e.nodes


@lowers("LayerNormalization")
def lower_layer_norm(graph: Graph, node: Node) -> list[Node]:
    """LAYER_NORM for Y; the optional Mean and InvStdDev outputs are computed beside it with
    reductions over the same axes (kept dims, as ONNX returns them)."""
    e = Emitter(graph, node)
    x = node.inputs[0]
    rank = e.rank(x)
    axis = normalize_axis(int(node.attrs.get("axis", -1)), rank, node)
    epsilon = float(node.attrs.get("epsilon", 1e-5))
    outputs = node.outputs + [""] * (3 - len(node.outputs))
    if outputs[0]:
        e.emit("LAYER_NORM", node.inputs[:3], outputs[:1], axis=axis, epsilon=epsilon)
    if not outputs[1] and not outputs[2]:
        return e.nodes
    rank = e.require_rank(x)
    axes = list(range(axis, rank))
    none = dict(NO_ACTIVATION)
    stats_dtype = e.dtype(outputs[1] or outputs[2])
    if e.dtype(x) != stats_dtype:
        x = e.op("CAST", [x], stats_dtype, e.shape(x), to=dtype_name(stats_dtype))
    reduced = [1 if i >= axis else d for i, d in enumerate(e.shape(x) or [None] * rank)]
    mean = outputs[1] or e.tensor("mean", stats_dtype, reduced)
    e.emit("REDUCE_MEAN", [x], [mean], axes=axes, keepdims=True, noop_with_empty_axes=False)
    if outputs[2]:
        centered = e.op("SUB", [x, mean], stats_dtype, e.shape(x), activation=none)
        squared = e.op("MUL", [centered, centered], stats_dtype, e.shape(x), activation=none)
        variance = e.op("REDUCE_MEAN", [squared], stats_dtype, reduced, axes=axes, keepdims=True,
                        noop_with_empty_axes=False)
        eps = e.const("epsilon", np.array(epsilon, dtype=stats_dtype))
        shifted = e.op("ADD", [variance, eps], stats_dtype, reduced, activation=none)
        e.emit("RSQRT", [shifted], [outputs[2]])
    return e.nodes


def _check_rank4(graph: Graph, node: Node) -> list[str]:
    x = graph.tensors.get(node.inputs[0])
    if x is None or x.shape is None:
        return []  # known after constant folding, or lowering says so
    return [] if len(x.shape) == 4 else [f"{node.op_type} is supported on rank-4 [N, C, H, W] inputs only"]


@lowers("InstanceNormalization", check=_check_rank4)
def lower_instance_norm(graph: Graph, node: Node) -> list[Node]:
    e = Emitter(graph, node)
    e.emit("INSTANCE_NORM_NHWC", node.inputs, node.outputs, epsilon=float(node.attrs.get("epsilon", 1e-5)),
           layout="NCHW")
    return e.nodes


@lowers("LRN", check=_check_rank4)
def lower_lrn(graph: Graph, node: Node) -> list[Node]:
    e = Emitter(graph, node)
    a = node.attrs
    e.emit("LRN_NHWC", node.inputs, node.outputs, size=int(a["size"]), alpha=float(a.get("alpha", 1e-4)),
           beta=float(a.get("beta", 0.75)), bias=float(a.get("bias", 1.0)), layout="NCHW")
    return e.nodes
