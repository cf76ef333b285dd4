"""Lookup-table int8 activations: a conv's fused HARD_SWISH / HARD_SIGMOID / SIGMOID becomes its own op.

The int8 CONV_2D / FULLY_CONNECTED apply only RELU / CLIP as an output clamp; any other activation
needs a separate int8 op, which the runtime runs through a 256-entry table (ops/lookup_int8.cc,
docs/INT8_OPS.md). Splitting ``y = act(conv(x))`` into ``z = conv(x); y = act(z)`` needs a range for
the new tensor ``z``, which calibration never saw (it observed the fused op's output ``y``). The range
is derived from ``y``'s range instead, and the derivation loses nothing: where it cuts ``z`` off, the
activation is constant (or, for SIGMOID, within a small fraction of an int8 step of constant):

* HARD_SWISH(z) = 0 for z <= -3 and = z for z >= 3: z in [-3, hswish^-1(max y)];
* HARD_SIGMOID(z) = clamp(alpha * z + beta, 0, 1): z in [(min y - beta) / alpha, (max y - beta) / alpha];
* SIGMOID: z in [logit(min y), logit(max y)], at most 8 in magnitude: 1 - sigmoid(8) < 3.4e-4, a
  tenth of the int8 step of an output range [0, 1], so the cut moves an output by at most 1 LSB.
"""

from __future__ import annotations

import copy
import math
from collections.abc import Callable

from lite_converter.ir import Graph, Node
from lite_converter.lite_ops import Int8Role, int8_ops

LOOKUP_OPS = int8_ops(Int8Role.LOOKUP)  # int8 through a table
SPLIT_KINDS = ("HARD_SWISH", "HARD_SIGMOID", "SIGMOID")  # fused kinds whose input range can be derived
SPLIT_OPS = int8_ops(Int8Role.WEIGHTED)  # producers whose activation may split off
SIGMOID_LIMIT = 8.0


def preactivation_range(activation: dict, low: float, high: float) -> tuple[float, float] | None:
    """A range for z given act(z) in [low, high], or None when it cannot be derived."""
    kind = activation.get("kind")
    if kind == "HARD_SWISH":
        if high >= 3.0:
            return -3.0, high
        top = (-3.0 + math.sqrt(9.0 + 24.0 * high)) / 2.0 if high > 0.0 else 0.0  # z (z + 3) / 6 = high
        return -3.0, top
    if kind == "HARD_SIGMOID":
        alpha, beta = float(activation.get("alpha", 0.2)), float(activation.get("beta", 0.5))
        if not alpha > 0.0:
            return None
        return (min(max(low, 0.0), 1.0) - beta) / alpha, (min(max(high, 0.0), 1.0) - beta) / alpha
    if kind == "SIGMOID":
        def logit(p: float) -> float:
            p = min(max(p, 1e-6), 1.0 - 1e-6)
            return min(max(math.log(p / (1.0 - p)), -SIGMOID_LIMIT), SIGMOID_LIMIT)
        return logit(low), logit(high)
    return None


def split_lookup_activations(graph: Graph, ranges: dict[str, tuple[float, float]],
                             runs_int8: Callable[[Node], bool]) -> list[str]:
    """Splits ``act(op(x))`` for each op of SPLIT_OPS that ``runs_int8`` accepts once its activation is
    NONE; adds the derived range of the new tensor to ``ranges``; returns the new
    activation nodes' names."""
    new_nodes: list[Node] = []
    added: list[str] = []
    for node in graph.nodes:
        new_nodes.append(node)
        activation = node.attrs.get("activation") or {}
        out = node.outputs[0] if node.outputs else ""
        if (node.op_type not in SPLIT_OPS or activation.get("kind") not in SPLIT_KINDS
                or out not in ranges):
            continue
        derived = preactivation_range(activation, *ranges[out])
        probe = copy.copy(node)
        probe.attrs = {**node.attrs, "activation": None}
        if derived is None or not runs_int8(probe):
            continue
        source = graph.tensors[out]
        z = graph.add_tensor(out + "_preact", source.dtype, source.shape)
        ranges.setdefault(z, derived)  # a range given for z (learned by QAT, slim/qat.py) is kept
        node.attrs = probe.attrs
        node.outputs = [z, *node.outputs[1:]]
        attrs = {}
        if activation["kind"] == "HARD_SIGMOID":
            attrs = {"alpha": float(activation.get("alpha", 0.2)), "beta": float(activation.get("beta", 0.5))}
        act_node = Node(activation["kind"], graph.unique_name(node.name + "_act"), [z], [out], attrs)
        new_nodes.append(act_node)
        added.append(act_node.name)
    graph.nodes = new_nodes
    return added


UNDERIVED_KINDS = ("SILU", "TANH")  # table activations whose input range cannot be derived from the output's


def unfuse_underived_activations(graph: Graph) -> list[str]:
    """Before calibration: ``act(op(x))`` with a fused SILU / TANH becomes ``z = op(x); y = act(z)`` so
    calibration observes ``z`` itself. SILU's output range says nothing about how negative ``z`` goes
    (SILU returns towards 0 below -1.28), so split_lookup_activations cannot derive it afterwards and
    the fused conv would stay fp32 (YOLO-style nets: every conv fuses SILU). Returns the new nodes' names."""
    new_nodes: list[Node] = []
    added: list[str] = []
    for node in graph.nodes:
        new_nodes.append(node)
        activation = node.attrs.get("activation") or {}
        if (node.op_type not in SPLIT_OPS or activation.get("kind") not in UNDERIVED_KINDS
                or len(node.outputs) != 1):
            continue
        out = node.outputs[0]
        source = graph.tensors[out]
        z = graph.add_tensor(out + "_preact", source.dtype, source.shape)
        node.attrs = {**node.attrs, "activation": None}
        node.outputs = [z]
        act_node = Node(activation["kind"], graph.unique_name(node.name + "_act"), [z], [out], {})
        new_nodes.append(act_node)
        added.append(act_node.name)
    graph.nodes = new_nodes
    return added
