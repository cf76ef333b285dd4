"""Layer normalization written out in primitive ops becomes one LAYER_NORM.

Exporters without a LayerNormalization op (opset < 17: Paddle's PP-OCRv4 rec, older torch) spell
it ``(x - mean(x)) / sqrt(mean((x - mean(x))^2) + eps) * gamma + beta`` over the last axes: nine
ops and five intermediate tensors instead of one kernel. Matched on lowered ops, so the rewrite
needs no ONNX op the source opset lacks.
"""

from __future__ import annotations

import numpy as np

from lite_converter.ir import Graph, Node


def _activation_kind(node: Node) -> str:
    return node.attrs.get("activation", {}).get("kind", "NONE")


class _Matcher:
    def __init__(self, graph: Graph) -> None:
        self.graph = graph
        self.producers = graph.producers()
        self.consumers = graph.consumers()

    def private(self, name: str, readers: int = 1) -> bool:
        """``name`` is read by exactly ``readers`` nodes and is no graph output."""
        return name not in self.graph.outputs and len(self.consumers.get(name, [])) == readers

    def produced_by(self, name: str, op: str) -> Node | None:
        node = self.producers.get(name)
        if node is None or node.op_type != op or _activation_kind(node) != "NONE":
            return None
        return node

    def scalar(self, name: str) -> float | None:
        value = self.graph.constant(name)
        return float(value.reshape(-1)[0]) if value is not None and value.size == 1 else None

    def only_reader(self, name: str, op: str) -> Node | None:
        readers = self.consumers.get(name, [])
        if len(readers) != 1 or name in self.graph.outputs or readers[0].op_type != op:
            return None
        node = readers[0]
        return node if _activation_kind(node) == "NONE" else None


def _suffix_axes(axes: list[int], rank: int | None) -> int | None:
    """The first axis when ``axes`` are exactly [a, rank) of a known rank, else None."""
    if rank is None or not axes or sorted(axes) != list(range(min(axes), rank)):
        return None
    return min(axes)


def _match(m: _Matcher, div: Node) -> tuple[list[Node], str, int, float] | None:
    """(matched nodes, x, axis, epsilon) when ``div`` is the normalization of a layer norm."""
    centered, std = div.inputs
    sqrt = m.produced_by(std, "SQRT")
    sub = m.produced_by(centered, "SUB")
    if sqrt is None or sub is None or not m.private(std) or not m.private(centered, 2):
        return None
    add = m.produced_by(sqrt.inputs[0], "ADD")
    if add is None or not m.private(add.outputs[0]):
        return None
    variance, eps_name = add.inputs if m.scalar(add.inputs[1]) is not None else add.inputs[::-1]
    epsilon = m.scalar(eps_name)
    var_mean = m.produced_by(variance, "REDUCE_MEAN")
    if epsilon is None or var_mean is None or not m.private(variance):
        return None
    square = m.produced_by(var_mean.inputs[0], "POW") or m.produced_by(var_mean.inputs[0], "MUL")
    if square is None or not m.private(square.outputs[0]):
        return None
    if square.op_type == "POW" and (square.inputs[0] != centered or m.scalar(square.inputs[1]) != 2.0):
        return None
    if square.op_type == "MUL" and square.inputs != [centered, centered]:
        return None
    x, mean_name = sub.inputs
    mean = m.produced_by(mean_name, "REDUCE_MEAN")
    if mean is None or mean.inputs[0] != x or not m.private(mean_name):
        return None
    tensor = m.graph.tensors.get(x)
    rank = None if tensor is None or tensor.shape is None else len(tensor.shape)
    axis = _suffix_axes(mean.attrs["axes"], rank)
    if axis is None or var_mean.attrs["axes"] != mean.attrs["axes"] or \
            not (mean.attrs["keepdims"] and var_mean.attrs["keepdims"]):
        return None
    if tensor.dtype != np.float32:
        return None
    return [mean, sub, square, var_mean, add, sqrt, div], x, axis, epsilon


def _affine(m: _Matcher, name: str, op: str, normalized_shape: list) -> tuple[Node, str] | None:
    """(node, constant) when ``name``'s only reader multiplies/adds a constant over the normalized dims."""
    node = m.only_reader(name, op)
    if node is None:
        return None
    other = node.inputs[1] if node.inputs[0] == name else node.inputs[0]
    value = m.graph.constant(other)
    if value is None or value.dtype != np.float32 or list(value.shape) != normalized_shape:
        return None
    return node, other


def fuse_layer_norm(graph: Graph) -> None:
    """Replaces every decomposed layer norm by LAYER_NORM(x, gamma?, beta?)."""
    m = _Matcher(graph)
    dead: set[int] = set()
    replacements: dict[int, Node] = {}
    for div in graph.nodes:
        if div.op_type != "DIV" or id(div) in dead or div.attrs["activation"]["kind"] != "NONE":
            continue
        found = _match(m, div)
        if found is None:
            continue
        nodes, x, axis, epsilon = found
        normalized = graph.tensors[x].shape[axis:]
        if not all(isinstance(d, int) for d in normalized):
            continue
        out, inputs = div.outputs[0], [x]
        scale = _affine(m, out, "MUL", normalized)
        if scale is not None:
            nodes.append(scale[0])
            out, inputs = scale[0].outputs[0], [x, scale[1]]
            shift = _affine(m, out, "ADD", normalized)
            if shift is not None:
                nodes.append(shift[0])
                out, inputs = shift[0].outputs[0], [x, scale[1], shift[1]]
        dead.update(id(n) for n in nodes)
        replacements[id(nodes[0])] = Node("LAYER_NORM", nodes[-1].name, inputs, [out],
                                          {"axis": axis, "epsilon": epsilon})
    kept = [n for n in graph.nodes if id(n) not in dead or id(n) in replacements]
    graph.nodes = [replacements.get(id(n), n) for n in kept]
