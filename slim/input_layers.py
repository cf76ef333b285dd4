"""The layers nearest the input kept in fp32 (``QuantConfig.fp32_input_share``): a bounded mixed precision.

Why these layers. On PP-OCRv4 rec and the hard rendered lines (training seed, 600 lines, 64
calibration lines), int8's extra character errors sit on the weak-signal inputs: +6.35 per 100
characters on lines with under 60 grey levels of contrast, +1.13 at 60-100, none above 100; +3.26
on light-on-dark lines against +0.57 on dark-on-light (benchmarks/COMPRESSION.md, "Session ptq14").
The first layers' activations scale with the input's contrast, and one per-tensor int8 step per
activation, sized by the high-contrast inputs, leaves a low-contrast input a few dozen levels; the
first pointwise conv then amplifies that rounding (rec's analysis: cumulative SQNR 26 -> 16 dB at the
first pointwise conv, whose own local SQNR is 26 dB). Deeper layers see features, not pixels.
Keeping the stem and the first block(s) in fp32 removed most of the gap on those lines (convs 0-2,
0.6% of the MACs: -1.03 -> -0.31 points; convs 0-10, 11.6%: -0.13), while any single deeper layer
moved nothing (docs/QUANTIZATION.md, "Where rec's error comes from").

The rule is a prefix in graph order, bounded by compute: every node before the first weighted op
(CONV_2D, FULLY_CONNECTED, ...) that would take the weighted ops' multiply-accumulates over
``share`` of the model's (at the calibration shapes). The non-weighted ops inside the prefix stay fp32
too, so the fp32 / int8 border is crossed once. It needs no trial run (compress time unchanged) and
its speed cost is bounded by ``share``; its weights stay fp32 (slim/fp32_weights.py: the int8 copy a
skipped layer would store adds a rounding the fp32 layer is kept to avoid).
"""

from __future__ import annotations

import math

from lite_converter.ir import Graph, Node
from lite_converter.passes.quantize_int8 import WEIGHTED_OPS

Shapes = dict[str, set[tuple[int, ...]]]


def multiply_accumulates(graph: Graph, node: Node, shapes: Shapes) -> int:
    """MACs of a weighted op at its largest calibrated output shape: output elements x the weight's
    elements per output channel (axis 0: CONV_2D [Co, KH, KW, Ci/g], FULLY_CONNECTED [out, in]);
    0 when calibration saw no shape for its output or the weight is not a constant."""
    weight = graph.constant(node.inputs[1]) if len(node.inputs) > 1 and node.inputs[1] else None
    seen = shapes.get(node.outputs[0], set()) if node.outputs else set()
    if weight is None or weight.ndim < 2 or not seen:
        return 0
    return max(math.prod(shape) for shape in seen) * math.prod(weight.shape[1:])


def input_layers(graph: Graph, shapes: Shapes, share: float) -> tuple[list[str], list[str]]:
    """(every node of the prefix, its weighted ops) whose weighted ops' MACs are at most ``share`` of
    all weighted ops' (see the module docstring). Empty when ``share`` is 0 or the first weighted op
    alone is over it."""
    weighted = {node.name: multiply_accumulates(graph, node, shapes)
                for node in graph.nodes if node.op_type in WEIGHTED_OPS}
    total = sum(weighted.values())
    if share <= 0.0 or total == 0:
        return [], []
    budget = share * total
    prefix: list[str] = []
    spent = 0
    for node in graph.nodes:
        if node.name in weighted:
            if spent + weighted[node.name] > budget:
                break
            spent += weighted[node.name]
        prefix.append(node.name)
    last = max((i for i, name in enumerate(prefix) if name in weighted), default=-1)
    prefix = prefix[: last + 1]  # nothing after the last weighted op of the prefix
    return prefix, [name for name in prefix if name in weighted]
