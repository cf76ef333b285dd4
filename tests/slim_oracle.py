"""Checks every int8 tensor a quantized .lite model computes against slim's fake-quant simulation.

The runtime runs the quantized graph with every activation exposed as a graph output; each int8
op (and each QUANTIZE / DEQUANTIZE) is then re-computed by slim.fake_quant.simulate_node from the
runtime's own input values for that op, so an error is pinned to the op that made it.

Errors are in LSB of the node's own quantization: int8 outputs in steps of the int8 grid, DEQUANTIZE
outputs (float32) divided by their input's scale. The int8 arithmetic is integer (or one IEEE
float32 operation in QUANTIZE / DEQUANTIZE, done the same way on both sides), so the expected error
is 0 everywhere (``assert_exact``).
"""

from __future__ import annotations

import numpy as np

from lite_converter.ir import Graph, Node
from runtime_arm import Interpreter
from slim.calibrate import with_outputs
from slim.fake_quant import LOOKUP_OPS, simulate_node, simulate_split

SIMULATED_OPS = ("QUANTIZE", "DEQUANTIZE", "REQUANTIZE", "CONV_2D", "CONV_TRANSPOSE_2D", "FULLY_CONNECTED",
                 "ADD", "MUL", "MAX_POOL_2D", "GLOBAL_AVERAGE_POOL", "RESHAPE", "FLATTEN", "SQUEEZE",
                 "UNSQUEEZE", "TRANSPOSE", "CONCAT", "RESIZE", "SPLIT", *LOOKUP_OPS)


def runtime_values(graph: Graph, feeds: dict[str, np.ndarray], threads: int = 1) -> dict[str, np.ndarray]:
    """Every tensor of ``graph`` as the runtime computes it (each activation exposed as a graph output),
    with the feeds and the constants (int8 weights, tables) added."""
    used = (t for node in graph.nodes for t in (*node.inputs, *node.outputs) if t)
    names = list(dict.fromkeys(t for t in used if not graph.tensors[t].is_constant))
    with Interpreter(model_content=with_outputs(graph, names), threads=threads) as interpreter:
        values = {name: np.array(value) for name, value in interpreter.run(feeds).items()}
    values.update(feeds)
    values.update({name: t.data for name, t in graph.tensors.items() if t.data is not None})
    return values


def int8_mismatches(graph: Graph, feeds: dict[str, np.ndarray]) -> dict[str, float]:
    """{node name: max |runtime - simulation| in LSB} over the int8-related nodes."""
    return simulation_mismatches(graph, runtime_values(graph, feeds))


def lsb(graph: Graph, node: Node, shape: tuple[int, ...]) -> np.ndarray | float:
    """The size of one LSB of ``node``'s output: 1 for int8 outputs; for DEQUANTIZE the input's scale
    (per tensor, or per index of its axis, shaped to broadcast against ``shape``)."""
    if node.op_type != "DEQUANTIZE":
        return 1.0
    quant = graph.tensors[node.inputs[0]].quant
    assert quant is not None, f"DEQUANTIZE input {node.inputs[0]} has no quantization"
    scale = np.asarray(quant.scale, np.float64).reshape(-1)
    if scale.size == 1 or quant.axis is None:
        return float(scale[0])
    axis_shape = [1] * len(shape)
    axis_shape[quant.axis] = -1
    return scale.reshape(axis_shape)


def simulation_mismatches(graph: Graph, values: dict[str, np.ndarray]) -> dict[str, float]:
    """{node name: max |value - simulation| in LSB} over the int8-related nodes (:func:`lsb`), each
    simulated from the run's own input ``values``; shared by the host and the ARM (qemu) checks.
    A NaN on one side only counts as an infinite error."""
    errors: dict[str, float] = {}
    for node in graph.nodes:
        int8_node = any(graph.tensors[t].dtype == np.int8 for t in (*node.inputs, *node.outputs) if t)
        if node.op_type not in SIMULATED_OPS or not int8_node:
            continue
        expected_parts = (simulate_split(node, values) if node.op_type == "SPLIT"
                          else [simulate_node(graph, node, values)])
        worst = 0.0
        for out, part in zip(node.outputs, expected_parts, strict=True):
            expected = part.astype(np.float64)
            got = values[out].astype(np.float64)
            assert got.shape == expected.shape, (node.name, got.shape, expected.shape)
            diff = np.abs(got - expected) / lsb(graph, node, got.shape)
            diff = np.where(np.isnan(got) & np.isnan(expected), 0.0, diff)
            worst = max(worst, float(np.nan_to_num(diff, nan=np.inf).max()) if got.size else 0.0)
        errors[node.name] = worst
    return errors


def assert_exact(errors: dict[str, float], minimum_nodes: int = 1) -> None:
    """Every checked node equals the simulation (0 LSB), and at least ``minimum_nodes`` were checked."""
    assert len(errors) >= minimum_nodes, f"only {len(errors)} int8 nodes checked: {sorted(errors)}"
    wrong = {name: error for name, error in errors.items() if error != 0.0}
    assert not wrong, f"{len(wrong)} of {len(errors)} int8 nodes differ from the simulation (LSB): {wrong}"
