"""Decomposed hard-swish / hard-sigmoid (paddle2onnx: ``Add 3 -> Clip 0..6 -> Mul x -> Div 6``, and the
other spellings the converter's lite_converter/passes/recognize_hard_swish.py matches) found in the IR
so that GraphModule runs each as one ``F.hardswish`` / ``F.hardsigmoid``: one forward kernel and one
backward kernel instead of four of each, the same function. The IR is not changed (write_back and the
converter see the original nodes); a run that asks to keep a tensor inside a chain runs it unfused.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

import torch
import torch.nn.functional as F

from lite_converter.frontends import fused_activation
from lite_converter.ir import Graph
from lite_converter.passes.recognize_hard_swish import match_hard_activation

FUSED: dict[str, Callable[[torch.Tensor], torch.Tensor]] = {"HardSwish": F.hardswish,
                                                          "HardSigmoid": F.hardsigmoid}


class Chain(NamedTuple):
    """One decomposed activation: its input, its output, the tensors inside it, the indices of its
    nodes after the first, and the torch function computing it."""

    x: str
    output: str
    inner: frozenset[str]
    others: frozenset[int]
    function: Callable[[torch.Tensor], torch.Tensor]


def hard_swish_chains(graph: Graph) -> dict[int, Chain]:
    """Index of each chain's first node (in graph order) -> the chain; chains do not overlap."""
    producers, consumers = graph.producers(), graph.consumers()
    position = {id(node): index for index, node in enumerate(graph.nodes)}
    taken: set[int] = set()
    chains: dict[int, Chain] = {}
    for node in graph.nodes:
        found = match_hard_activation(graph, node, producers, consumers)
        if found is None:
            continue
        removed, replacement = found
        indices = sorted(position[id(n)] for n in removed)
        if taken.intersection(indices) or any(fused_activation.ATTR in n.attrs for n in removed):
            continue
        taken.update(indices)
        output = replacement.outputs[0]
        inner = frozenset(n.outputs[0] for n in removed) - {output}
        chains[indices[0]] = Chain(replacement.inputs[0], output, inner, frozenset(indices[1:]),
                                   FUSED[replacement.op_type])
    return chains
