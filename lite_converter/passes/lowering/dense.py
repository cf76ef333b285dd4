"""Gemm and MatMul -> FULLY_CONNECTED (constant weights) or MATMUL.

FULLY_CONNECTED computes ``x [..., K] . w[N, K]^T + b[N]``: ONNX's B is transposed into that layout
at conversion time and Gemm's alpha and beta are folded into the constants. A bias of any shape
other than [N] (or one broadcasting to it) becomes a separate ADD, which then carries the fused
activation.
"""

from __future__ import annotations

import numpy as np

from lite_converter.ir import Graph, Node
from lite_converter.passes.lowering.emitter import NO_ACTIVATION, Emitter, activation_of
from lite_converter.passes.lowering.registry import lowers


def _transposed(e: Emitter, name: str) -> str:
    shape = e.shape(name)
    return e.op("TRANSPOSE", [name], e.dtype(name), None if shape is None else shape[::-1], perm=[1, 0])


def _bias_vector(c: np.ndarray, n: int) -> np.ndarray | None:
    """C as a [N] vector when broadcasting it over [M, N] only varies along N, else None."""
    if c.ndim > 2 or (c.ndim == 2 and c.shape[0] != 1) or (c.ndim >= 1 and c.shape[-1] not in (1, n)):
        return None
    return np.broadcast_to(c.reshape(-1), (n,)).copy()


def _check_gemm(graph: Graph, node: Node) -> list[str]:
    for name in node.inputs[:2]:
        tensor = graph.tensors.get(name)
        if tensor is not None and tensor.shape is not None and len(tensor.shape) != 2:
            return [f"Gemm input '{name}' has rank {len(tensor.shape)} (must be 2)"]
    return []


@lowers("Gemm", check=_check_gemm)
def lower_gemm(graph: Graph, node: Node) -> list[Node]:
    e = Emitter(graph, node)
    a, b, c = node.inputs[0], node.inputs[1], e.input(2)
    alpha, beta = float(node.attrs.get("alpha", 1.0)), float(node.attrs.get("beta", 1.0))
    trans_a, trans_b = int(node.attrs.get("transA", 0)), int(node.attrs.get("transB", 0))
    act, _ = activation_of(node)
    out = node.outputs[0]
    dtype = e.dtype(out)
    if trans_a:
        a = _transposed(e, a)
    weight = graph.constant(b)
    c_value = graph.constant(c) if c else None
    if c and beta == 0.0:
        c, c_value = "", None
    if weight is not None and dtype.kind == "f":
        w = weight if trans_b else weight.T
        n = w.shape[0]
        w_name = e.const("weight", (w * alpha if alpha != 1.0 else w).astype(weight.dtype))
        bias = _bias_vector(c_value * beta, n) if c_value is not None else None
        if bias is not None or not c:
            inputs = [a, w_name] + ([e.const("bias", bias.astype(dtype))] if bias is not None else [])
            e.emit("FULLY_CONNECTED", inputs, [out], activation=act)
            return e.nodes
        product = e.op("FULLY_CONNECTED", [a, w_name], dtype, e.shape(out), activation=dict(NO_ACTIVATION))
    else:
        if trans_b:
            b = _transposed(e, b)
        has_tail = bool(c) or alpha != 1.0
        product = e.op("MATMUL", [a, b], dtype, e.shape(out), activation=dict(NO_ACTIVATION)) if has_tail \
            else out
        if not has_tail:
            e.emit("MATMUL", [a, b], [out], activation=act)
            return e.nodes
        if alpha != 1.0:
            scaled_out = out if not c else e.tensor("scaled", dtype, e.shape(out))
            e.emit("MUL", [product, e.const("alpha", np.array(alpha, dtype=dtype))], [scaled_out],
                   activation=act if not c else dict(NO_ACTIVATION))
            product = scaled_out
            if not c:
                return e.nodes
    if c_value is not None:
        c = e.const("c", (c_value * beta).astype(dtype))
    elif beta != 1.0:
        c = e.op("MUL", [c, e.const("beta", np.array(beta, dtype=dtype))], dtype, e.shape(c),
                 activation=dict(NO_ACTIVATION))
    e.emit("ADD", [product, c], [out], activation=act)
    return e.nodes


@lowers("MatMul")
def lower_matmul(graph: Graph, node: Node) -> list[Node]:
    e = Emitter(graph, node)
    a, b = node.inputs
    act, _ = activation_of(node)
    weight = graph.constant(b)
    a_rank = e.rank(a)
    if weight is not None and weight.ndim == 2 and a_rank is not None and a_rank >= 2 \
            and weight.dtype.kind == "f" and e.dtype(a) == weight.dtype:
        e.emit("FULLY_CONNECTED", [a, e.const("weight", np.ascontiguousarray(weight.T))], node.outputs,
               activation=act)
    else:
        e.emit("MATMUL", [a, b], node.outputs, activation=act)
    return e.nodes
