"""Decomposed hard-swish chains (paddle2onnx: ``Add 3 -> Clip 0..6 -> Mul x -> Div 6``) found in the
IR so that GraphModule runs each as one ``F.hardswish``: one forward kernel and one backward kernel
instead of four of each, the same function. The IR is not changed (write_back and the converter
see the original nodes); a run that asks to keep a tensor inside a chain runs it unfused.
"""

from __future__ import annotations

import collections

import numpy as np

from lite_converter.frontends import fused_activation
from lite_converter.ir import Graph, Node


def _scalar(graph: Graph, name: str) -> float | None:
    value = graph.constant(name) if name else None
    if value is None or value.size != 1 or value.dtype.kind != "f":
        return None
    return float(np.asarray(value).reshape(-1)[0])


def _clip_bounds(graph: Graph, node: Node) -> tuple[float | None, float | None]:
    low = _scalar(graph, node.inputs[1]) if len(node.inputs) > 1 else node.attrs.get("min")
    high = _scalar(graph, node.inputs[2]) if len(node.inputs) > 2 else node.attrs.get("max")
    return low, high


def hard_swish_chains(graph: Graph) -> dict[int, tuple[str, str, frozenset[str], frozenset[int]]]:
    """Index of each chain's Add -> (input x, the Div's output, the chain's inner tensors, the indices
    of its other three nodes)."""
    uses: collections.Counter[str] = collections.Counter(n for node in graph.nodes for n in node.inputs if n)
    uses.update(graph.outputs)
    consumers: dict[str, list[int]] = collections.defaultdict(list)
    for index, node in enumerate(graph.nodes):
        for name in node.inputs:
            if name:
                consumers[name].append(index)
    nodes = graph.nodes
    chains = {}
    for index, add in enumerate(nodes):
        if add.op_type != "Add" or len(add.inputs) != 2 or _scalar(graph, add.inputs[1]) != 3.0:
            continue
        x = add.inputs[0]
        if graph.constant(x) is not None or uses[add.outputs[0]] != 1:
            continue
        clip = nodes[consumers[add.outputs[0]][0]]
        if clip.op_type != "Clip" or _clip_bounds(graph, clip) != (0.0, 6.0) or uses[clip.outputs[0]] != 1:
            continue
        mul_index = consumers[clip.outputs[0]][0]
        mul = nodes[mul_index]
        if mul.op_type != "Mul" or sorted(mul.inputs) != sorted([x, clip.outputs[0]]):
            continue
        if uses[mul.outputs[0]] != 1:
            continue
        div_index = consumers[mul.outputs[0]][0]
        div = nodes[div_index]
        if div.op_type != "Div" or div.inputs[0] != mul.outputs[0] or _scalar(graph, div.inputs[1]) != 6.0:
            continue
        if any(fused_activation.ATTR in n.attrs for n in (add, clip, mul, div)):
            continue
        inner = frozenset((add.outputs[0], clip.outputs[0], mul.outputs[0]))
        others = frozenset((consumers[add.outputs[0]][0], mul_index, div_index))
        chains[index] = (x, div.outputs[0], inner, others)
    return chains
