"""Tensors whose extremes are the model's answer, calibrated over their whole range.

A percentile range treats a tensor's largest values as rare noise. For the logits a SOFTMAX / ARG_MAX
reads, the largest value of each row *is* the prediction: PP-OCRv4 rec's CTC head emits 40 x 6,625
logits per line, so a batch of 8 lines has 320 winning logits among 2.1 M values, more than the 212
a 99.99% quantile leaves out. Clipped, the winners saturate together at one int8 level and the argmax
picks among ties (rec on 300 hard lines: -9.7 points of character accuracy with a 99.95% range on the
logits alone, against -1.0 with 99.99%, -0.9 with the observed min / max). Graph outputs are kept
whole for the same reason: whoever reads them decides on their values.

Reached through byte movers (RESHAPE, SQUEEZE, TRANSPOSE, ...): rec's logits pass a squeeze on the
way to the softmax in other exports.
"""

from __future__ import annotations

from lite_converter.ir import Graph
from lite_converter.passes.quantize_int8 import MOVE_OPS

DECIDING_OPS = frozenset({"SOFTMAX", "LOG_SOFTMAX", "HARDMAX", "ARG_MAX", "ARG_MIN", "TOP_K"})


def decision_tensors(graph: Graph) -> set[str]:
    """Names of the tensors that are graph outputs or reach a DECIDING_OPS input through byte movers,
    and of the byte movers' inputs along the way."""
    found = set(graph.outputs)
    for node in graph.nodes:
        if node.op_type in DECIDING_OPS and node.inputs:
            found.add(node.inputs[0])
    frontier = list(found)
    by_output = {name: node for node in graph.nodes for name in node.outputs}
    while frontier:  # walk back through byte movers: their input carries the same values
        node = by_output.get(frontier.pop())
        if node is not None and node.op_type in MOVE_OPS and node.inputs and node.inputs[0] not in found:
            found.add(node.inputs[0])
            frontier.append(node.inputs[0])
    return found
