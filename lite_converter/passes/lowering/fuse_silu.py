"""``x * sigmoid(x)`` left unfused (x has no producer that takes an activation, e.g. a graph input
or a RESHAPE) becomes one SILU op instead of two ops and an intermediate tensor."""

from __future__ import annotations

from lite_converter.ir import Graph


def fuse_silu(graph: Graph) -> None:
    """Rewrites MUL(x, SIGMOID(x)) as SILU(x) where the sigmoid is read by that MUL alone."""
    producers = graph.producers()
    consumers = graph.consumers()
    dead: set[int] = set()
    for mul in graph.nodes:
        if mul.op_type != "MUL" or mul.attrs["activation"]["kind"] != "NONE" or len(set(mul.inputs)) != 2:
            continue
        for gate_name in mul.inputs:
            gate = producers.get(gate_name)
            x = mul.inputs[1] if mul.inputs[0] == gate_name else mul.inputs[0]
            if gate is None or gate.op_type != "SIGMOID" or gate.inputs[0] != x or id(gate) in dead:
                continue
            if gate_name in graph.outputs or len(consumers.get(gate_name, [])) != 1:
                continue
            dead.add(id(gate))
            mul.op_type, mul.inputs, mul.attrs = "SILU", [x], {}
            break
    graph.nodes = [n for n in graph.nodes if id(n) not in dead]

