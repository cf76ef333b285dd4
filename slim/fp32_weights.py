"""Layers kept in fp32 by mixed precision keep fp32 *weights* too.

The int8 pass stores the constant weight of every op it leaves in fp32 as int8 + DEQUANTIZE
(weight-only int8, lite_converter/passes/weight_only_int8.py) to shrink the file. For a layer that
mixed precision keeps in fp32 to win accuracy back, that weight rounding is error it cannot remove:
on PP-OCR cls it caps the output SQNR at 23.8 dB with every int8 layer skipped (fp32 weights: exact).
So mixed precision restores the fp32 weight of the layers it keeps, and also counts the weight-only
layers among its candidates, ranked by their weight SQNR.
"""

from __future__ import annotations

import dataclasses
import math

import numpy as np

from lite_converter.ir import Graph, Node


def _weight_dequantize(graph: Graph, node: Node, producers: dict[str, Node]) -> Node | None:
    """The DEQUANTIZE of a constant that makes ``node``'s weight (input 1), if there is one."""
    if len(node.inputs) < 2 or not node.inputs[1]:
        return None
    producer = producers.get(node.inputs[1])
    if producer is None or producer.op_type != "DEQUANTIZE" or graph.constant(producer.inputs[0]) is None:
        return None
    return producer


def weight_only_sqnr(quantized: Graph, fp32: Graph, int8_nodes: set[str]) -> dict[str, float]:
    """Node name -> SQNR (dB) of its int8-stored weight, for the fp32 ops reading one."""
    producers = {out: node for node in quantized.nodes for out in node.outputs}
    result: dict[str, float] = {}
    for node in quantized.nodes:
        dequantize = None if node.name in int8_nodes else _weight_dequantize(quantized, node, producers)
        original = fp32.constant(node.inputs[1]) if dequantize is not None else None
        if dequantize is None or original is None:
            continue
        stored = quantized.tensors[dequantize.inputs[0]]
        assert stored.data is not None and stored.quant is not None
        scale = stored.quant.scale.astype(np.float64).reshape((-1,) + (1,) * (stored.data.ndim - 1))
        error = original.astype(np.float64) - stored.data.astype(np.float64) * scale
        noise, signal = float(np.square(error).sum()), float(np.square(original.astype(np.float64)).sum())
        if noise == 0 or signal == 0:
            result[node.name] = math.inf  # nothing lost (or nothing there to lose)
        else:
            result[node.name] = 10 * math.log10(signal / noise)
    return result


def restore_fp32_weights(quantized: Graph, fp32: Graph, names: set[str]) -> None:
    """Gives the nodes ``names`` of ``quantized`` their fp32 weight back (from ``fp32``, the graph
    before the int8 pass) in place of weight-only int8 + DEQUANTIZE."""
    producers = {out: node for node in quantized.nodes for out in node.outputs}
    dropped: set[int] = set()
    for node in quantized.nodes:
        dequantize = _weight_dequantize(quantized, node, producers) if node.name in names else None
        tensor = fp32.tensors.get(node.inputs[1]) if dequantize is not None else None
        if dequantize is None or tensor is None or tensor.data is None:
            continue
        quantized.tensors[node.inputs[1]] = dataclasses.replace(tensor)  # the DEQUANTIZE output kept its name
        dropped.add(id(dequantize))
    quantized.nodes = [node for node in quantized.nodes if id(node) not in dropped]
    quantized.remove_unused_tensors()
