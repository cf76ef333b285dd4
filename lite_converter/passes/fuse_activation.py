"""Fuses an activation into the op producing its input (the ``fused_activation`` attribute).

Producers that accept one (their .lite options have an ``activation``): Conv, ConvTranspose,
Gemm, MatMul, Add, Sub, Mul, Div. Activations: Relu, Clip with constant bounds, Sigmoid, Tanh,
HardSigmoid, HardSwish, LeakyRelu, PRelu (constant slope: a single value becomes LEAKY_RELU, a
per-channel one fuses into Conv only, whose CONV_2D has the ``prelu_slope`` input), and SiLU written
as ``x * Sigmoid(x)``. Decomposed hard-swish is recognized by an earlier pass.

A fusion happens only when the producer's output is read by the activation alone and is not a
graph output: otherwise the pre-activation value is still needed.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from lite_converter.frontends import fused_activation
from lite_converter.ir import Graph, Node
from lite_converter.passes.clip_bounds import clip_bounds
from lite_converter.passes.graph_queries import only_consumer, per_channel_vector, rank_of

PRODUCERS = {"Conv", "ConvTranspose", "Gemm", "MatMul", "Add", "Sub", "Mul", "Div"}


def activation_of(graph: Graph, producer: Node, act: Node) -> dict[str, Any] | None:
    """The fused-activation value equivalent to node ``act`` applied to ``producer``'s output."""
    op, attrs = act.op_type, act.attrs
    if op == "Relu":
        return fused_activation.make("RELU")
    if op == "Sigmoid":
        return fused_activation.make("SIGMOID")
    if op == "Tanh":
        return fused_activation.make("TANH")
    if op == "HardSwish":
        return fused_activation.make("HARD_SWISH")
    if op == "HardSigmoid":
        return fused_activation.make("HARD_SIGMOID", attrs.get("alpha", 0.2), attrs.get("beta", 0.5))
    if op == "LeakyRelu":
        return fused_activation.make("LEAKY_RELU", attrs.get("alpha", 0.01))
    if op == "Clip":
        bounds = clip_bounds(graph, act)
        return None if bounds is None else fused_activation.make("CLIP", *bounds)
    if op == "PRelu":
        slope = graph.constant(act.inputs[1])
        if slope is None:
            return None
        if slope.size == 1:
            return fused_activation.make("LEAKY_RELU", float(slope.reshape(-1)[0]))
        rank = rank_of(graph, act.inputs[0])
        weight = graph.constant(producer.inputs[1]) if producer.op_type == "Conv" else None
        if weight is None or rank is None or per_channel_vector(slope, int(weight.shape[0]), rank) is None:
            return None
        return fused_activation.make("PRELU", slope=act.inputs[1])
    return None


def _float_output(graph: Graph, node: Node) -> bool:
    dtype = graph.tensors[node.outputs[0]].dtype
    return dtype is not None and np.dtype(dtype).kind == "f"


def _fuse_silu(graph: Graph, mul: Node, producers: dict[str, Node], consumers: dict[str, list[Node]],
               dead: set[int]) -> bool:
    """Fuses ``Mul(x, Sigmoid(x))`` into x's producer."""
    for gate_name in mul.inputs:
        gate = producers.get(gate_name)
        if gate is None or gate.op_type != "Sigmoid" or id(gate) in dead or \
                only_consumer(graph, gate_name, consumers) is not mul:
            continue
        x = gate.inputs[0]
        others = [n for n in mul.inputs if n != gate_name]
        producer = producers.get(x)
        readers = {id(n) for n in consumers.get(x, [])}
        if others != [x] or producer is None or producer.op_type not in PRODUCERS or \
                fused_activation.ATTR in producer.attrs or x in graph.outputs or \
                readers != {id(gate), id(mul)} or not _float_output(graph, producer):
            continue
        producer.attrs[fused_activation.ATTR] = fused_activation.make("SILU")
        producer.outputs[0] = mul.outputs[0]
        producers[mul.outputs[0]] = producer
        dead.update((id(gate), id(mul)))
        return True
    return False


def fuse_activation(graph: Graph) -> bool:
    """Fuses every fusable activation in one sweep; True when anything changed.

    After a fusion the producer writes the activation's output name, so a following activation
    sees a producer that already has one and stays a node.
    """
    producers = graph.producers()
    consumers = graph.consumers()
    dead: set[int] = set()
    for act in graph.nodes:
        if id(act) in dead:
            continue
        if act.op_type == "Mul" and _fuse_silu(graph, act, producers, consumers, dead):
            continue
        if not act.inputs or act.inputs[0] not in producers:
            continue
        producer = producers[act.inputs[0]]
        if producer.op_type not in PRODUCERS or fused_activation.ATTR in producer.attrs or \
                only_consumer(graph, act.inputs[0], consumers) is not act or \
                not _float_output(graph, producer) or producer.domain:
            continue
        value = activation_of(graph, producer, act)
        if value is None:
            continue
        producer.attrs[fused_activation.ATTR] = value
        if value["kind"] == "PRELU":  # the slope becomes input 3, where CONV_2D takes it
            producer.inputs = (producer.inputs + ["", ""])[:3] + [value["slope"]]
        producer.outputs[0] = act.outputs[0]
        producers[act.outputs[0]] = producer
        dead.add(id(act))
    graph.nodes = [n for n in graph.nodes if id(n) not in dead]
    return bool(dead)
