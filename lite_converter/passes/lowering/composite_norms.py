"""Normalizations .lite has no kernel for, built from reductions and elementwise ops:
RMSNormalization, LpNormalization, MeanVarianceNormalization, and GroupNormalization (a
LAYER_NORM over [N, G, C/G * spatial] between two reshapes)."""

from __future__ import annotations

import numpy as np

from lite_converter.ir import ConversionError, Graph, Node
from lite_converter.passes.lowering.emitter import NO_ACTIVATION, Emitter, normalize_axis
from lite_converter.passes.lowering.registry import lowers


def _reduce(e: Emitter, op: str, x: str, axes: list[int]) -> str:
    shape = e.shape(x)
    kept = None if shape is None else [1 if i in axes else d for i, d in enumerate(shape)]
    return e.op(op, [x], e.dtype(x), kept, axes=axes, keepdims=True, noop_with_empty_axes=False)


def _binary(e: Emitter, op: str, a: str, b: str, out: str | None = None) -> str:
    if out is not None:
        e.emit(op, [a, b], [out], activation=dict(NO_ACTIVATION))
        return out
    shape = e.shape(a) if e.rank(a) is not None and e.rank(a) >= (e.rank(b) or 0) else e.shape(b)
    return e.op(op, [a, b], e.dtype(a), shape, activation=dict(NO_ACTIVATION))


@lowers("RMSNormalization")
def lower_rms_norm(graph: Graph, node: Node) -> list[Node]:
    """y = x / sqrt(mean(x^2 over [axis, rank)) + eps) * scale."""
    e = Emitter(graph, node)
    x, scale = node.inputs[0], node.inputs[1]
    rank = e.require_rank(x)
    axis = normalize_axis(int(node.attrs.get("axis", -1)), rank, node)
    dtype = e.dtype(x)
    mean_square = _reduce(e, "REDUCE_MEAN", _binary(e, "MUL", x, x), list(range(axis, rank)))
    eps = e.const("epsilon", np.array(float(node.attrs.get("epsilon", 1e-5)), dtype=dtype))
    inverse = e.op("RSQRT", [_binary(e, "ADD", mean_square, eps)], dtype, e.shape(mean_square))
    _binary(e, "MUL", _binary(e, "MUL", x, inverse), scale, node.outputs[0])
    return e.nodes


def _check_lp(graph: Graph, node: Node) -> list[str]:
    p = int(node.attrs.get("p", 2))
    return [] if p in (1, 2) else [f"p={p} is not supported (1 or 2)"]


@lowers("LpNormalization", check=_check_lp)
def lower_lp_norm(graph: Graph, node: Node) -> list[Node]:
    """y = x / ||x||_p along one axis, 0 where the norm is 0 (as ONNX's reference)."""
    e = Emitter(graph, node)
    x = node.inputs[0]
    rank = e.require_rank(x)
    axis = normalize_axis(int(node.attrs.get("axis", -1)), rank, node)
    op = "REDUCE_L1" if int(node.attrs.get("p", 2)) == 1 else "REDUCE_L2"
    dtype = e.dtype(x)
    norm = _reduce(e, op, x, [axis])
    zero = e.const("zero", np.array(0, dtype=dtype))
    is_zero = e.op("EQUAL", [norm, zero], np.bool_, e.shape(norm), activation=dict(NO_ACTIVATION))
    quotient = _binary(e, "DIV", x, norm)
    e.emit("WHERE", [is_zero, zero, quotient], node.outputs)
    return e.nodes



@lowers("MeanVarianceNormalization")
def lower_mvn(graph: Graph, node: Node) -> list[Node]:
    """y = (x - mean) / (std + 1e-9) over ``axes`` (default [0, 2, 3])."""
    e = Emitter(graph, node)
    x = node.inputs[0]
    rank = e.require_rank(x)
    axes = sorted(normalize_axis(int(a), rank, node) for a in node.attrs.get("axes", [0, 2, 3]))
    dtype = e.dtype(x)
    centered = _binary(e, "SUB", x, _reduce(e, "REDUCE_MEAN", x, axes))
    variance = _reduce(e, "REDUCE_MEAN", _binary(e, "MUL", centered, centered), axes)
    std = e.op("SQRT", [variance], dtype, e.shape(variance))
    eps = e.const("epsilon", np.array(1e-9, dtype=dtype))
    _binary(e, "DIV", centered, _binary(e, "ADD", std, eps), node.outputs[0])
    return e.nodes


def _channel_params(e: Emitter, node: Node, channels: int, groups: int, rank: int) -> list[str] | None:
    """scale and bias as [C, 1, ...] constants (opset 18 gives them per group: repeated per channel)."""
    params = []
    for index in (1, 2):
        value = e.constant(index)
        if value is None:
            return None
        value = value.reshape(-1)
        if value.size == groups and groups != channels:
            value = np.repeat(value, channels // groups)
        params.append(e.const(f"param{index}", value.reshape((channels,) + (1,) * (rank - 2))))
    return params


def _check_group_norm(graph: Graph, node: Node) -> list[str]:
    if any(graph.constant(n) is None for n in node.inputs[1:3]):
        return ["scale and bias must be constants"]
    return []


@lowers("GroupNormalization", check=_check_group_norm)
def lower_group_norm(graph: Graph, node: Node) -> list[Node]:
    """RESHAPE to [N, G, -1] -> LAYER_NORM(axis 2) -> RESHAPE back -> * scale + bias per channel."""
    e = Emitter(graph, node)
    x = node.inputs[0]
    rank = e.require_rank(x)
    shape = e.shape(x)
    channels = shape[1]
    groups = int(node.attrs["num_groups"])
    dtype = e.dtype(x)
    grouped = e.op("RESHAPE", [x, e.const("grouped_shape", np.array([0, groups, -1], dtype=np.int64))], dtype,
                   [shape[0], groups, None], allowzero=False)
    normalized = e.op("LAYER_NORM", [grouped], dtype, [shape[0], groups, None], axis=2,
                      epsilon=float(node.attrs.get("epsilon", 1e-5)))
    if all(isinstance(d, int) for d in shape):
        target = e.const("shape", np.array(shape, dtype=np.int64))
    else:
        target = e.op("SHAPE", [x], np.int64, [rank], start=0, end=rank)
    restored = e.op("RESHAPE", [normalized, target], dtype, shape, allowzero=False)
    params = _channel_params(e, node, int(channels), groups, rank) if isinstance(channels, int) else None
    if params is None:
        raise ConversionError(f"node '{node.name}' (GroupNormalization): needs a static channel count")
    _binary(e, "ADD", _binary(e, "MUL", restored, params[0]), params[1], node.outputs[0])
    return e.nodes
