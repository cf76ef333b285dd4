"""Weight-only int8: constant weights of ops that stay fp32 are stored as int8 (docs/INT8_OPS.md).

A CONV_2D / CONV_TRANSPOSE_2D / FULLY_CONNECTED that the int8 pass leaves in fp32 (a fused
HARD_SWISH, for instance) still reads a float32 weight, which is most of a PP-OCR file. This pass
stores such a weight as symmetric per-channel int8 along axis 0 (lite_converter.int8.params.
weight_per_channel) followed by a DEQUANTIZE whose output is the fp32 weight the op reads: a quarter
of the bytes.

The runtime decodes a DEQUANTIZE of a constant once at prepare, whatever its size
(runtime_arm/src/interpreter.cc, evaluated_at_prepare_at_any_size), so the op reads a constant fp32
weight and keeps its fast algorithm (packed GEMM, Winograd, depthwise); only the file shrinks, the
memory at run time is that of the fp32 model.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from lite_converter.int8.params import weight_per_channel
from lite_converter.ir import Graph, Node

MIN_ELEMENTS = 256  # below this the per-channel scales and the extra node cost about what they save
WEIGHT_RANK = {"CONV_2D": 4, "CONV_TRANSPOSE_2D": 4, "FULLY_CONNECTED": 2}  # weight = input 1


def _eligible_weight(graph: Graph, node: Node, max_elements: int | None) -> str | None:
    """The name of ``node``'s float32 constant weight when it is worth storing as int8."""
    rank = WEIGHT_RANK.get(node.op_type)
    weight = graph.constant(node.inputs[1]) if rank is not None and len(node.inputs) > 1 else None
    if weight is None or weight.dtype != np.float32 or weight.ndim != rank:
        return None
    small_enough = max_elements is None or weight.size <= max_elements
    return node.inputs[1] if MIN_ELEMENTS <= weight.size and small_enough else None


def store_weights_int8(graph: Graph, max_elements: int | None = None) -> list[str]:
    """Rewrites eligible fp32 weights as int8 + DEQUANTIZE; returns the names of the nodes reading them.

    The DEQUANTIZE output keeps the weight's name, so readers stay wired as they were (every reader
    of a shared weight reads the dequantized values); the int8 constant is named ``<weight>_q``.
    """
    readers: dict[str, list[str]] = {}
    for node in graph.nodes:
        name = _eligible_weight(graph, node, max_elements)
        if name is not None:
            readers.setdefault(name, []).append(node.name)
    dequantize_nodes = []
    for name in readers:
        weight = graph.tensors[name]
        assert weight.data is not None
        q_weight, params = weight_per_channel(weight.data)
        q_name = graph.add_constant(name + "_q", q_weight)
        graph.tensors[q_name].quant = params
        graph.tensors[name] = dataclasses.replace(weight, data=None, dtype=np.dtype(np.float32),
                                                  shape=list(weight.data.shape))
        dequantize_nodes.append(Node("DEQUANTIZE", graph.unique_name(name + "_dq"), [q_name], [name]))
    graph.nodes = dequantize_nodes + graph.nodes
    return [node for names in readers.values() for node in names]
