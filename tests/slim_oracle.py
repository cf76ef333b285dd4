"""Checks every int8 tensor a quantized .lite model computes against slim's fake-quant simulation.

The runtime runs the quantized graph with every activation exposed as a graph output; each int8
op (and each QUANTIZE / DEQUANTIZE) is then re-computed by slim.fake_quant.simulate_node from the
runtime's own input values for that op, so an error is pinned to the op that made it.
"""

from __future__ import annotations

import numpy as np

from lite_converter.ir import Graph
from runtime_arm import Interpreter
from slim.calibrate import with_outputs
from slim.fake_quant import LOOKUP_OPS, simulate_node

SIMULATED_OPS = ("QUANTIZE", "DEQUANTIZE", "REQUANTIZE", "CONV_2D", "CONV_TRANSPOSE_2D", "FULLY_CONNECTED",
                 "ADD", "MUL", "MAX_POOL_2D", "GLOBAL_AVERAGE_POOL", "RESHAPE", "FLATTEN", "SQUEEZE",
                 "UNSQUEEZE", "TRANSPOSE", "CONCAT", "RESIZE", *LOOKUP_OPS)


def int8_mismatches(graph: Graph, feeds: dict[str, np.ndarray]) -> dict[str, float]:
    """{node name: max |runtime - simulation|} over the int8-related nodes (in LSB for int8 outputs)."""
    used = (t for node in graph.nodes for t in (*node.inputs, *node.outputs) if t)
    names = list(dict.fromkeys(t for t in used if not graph.tensors[t].is_constant))
    with Interpreter(model_content=with_outputs(graph, names)) as interpreter:
        values = dict(interpreter.run(feeds))
    values.update(feeds)
    values.update({name: t.data for name, t in graph.tensors.items() if t.data is not None})  # int8 weights
    return simulation_mismatches(graph, values)


def simulation_mismatches(graph: Graph, values: dict[str, np.ndarray]) -> dict[str, float]:
    """{node name: max |value - simulation|} over the int8-related nodes, each simulated from the run's
    own input ``values`` (in LSB for int8 outputs); shared by the host and the ARM (qemu) checks."""
    errors: dict[str, float] = {}
    for node in graph.nodes:
        int8_node = any(graph.tensors[t].dtype == np.int8 for t in (*node.inputs, *node.outputs) if t)
        if node.op_type not in SIMULATED_OPS or not int8_node:
            continue
        expected = simulate_node(graph, node, values).astype(np.float64)
        got = values[node.outputs[0]].astype(np.float64)
        assert got.shape == expected.shape, (node.name, got.shape, expected.shape)
        errors[node.name] = float(np.abs(got - expected).max()) if got.size else 0.0
    return errors
