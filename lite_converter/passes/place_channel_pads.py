"""Schedules a channel PAD right before the ADD that reads it, as that ADD's first operand.

MediaPipe's residual blocks (BlazeFace, hand recrop, palm detection) widen the shortcut with a
constant PAD along the channels and add it to the block's output. The runtime's fp32 ADD computes
such a PAD itself and the padded tensor is never written (runtime_arm/src/ops/binary.cc,
``absorb_producer``), but the interpreter only offers an op the op right before it, as its input 0.
The .tflite files put the block's convolutions between the PAD and the ADD, so this pass moves the
PAD down to the ADD (its input is ready earlier, and only the ADD reads its output) and swaps the
ADD's operands when the PAD is the second one (IEEE addition is commutative): no value changes.
"""

from __future__ import annotations

import numpy as np

from lite_converter.ir import Graph, Node


def _channel_pad(graph: Graph, node: Node) -> bool:
    """A constant-mode float32 PAD whose constant pads touch the last axis only."""
    if node.op_type != "PAD" or len(node.outputs) != 1 or node.attrs.get("mode", "CONSTANT") != "CONSTANT":
        return False
    if len(node.inputs) > 3 and node.inputs[3]:  # an `axes` input
        return False
    out = graph.tensors[node.outputs[0]]
    pads = graph.constant(node.inputs[1]) if len(node.inputs) > 1 and node.inputs[1] else None
    if out.dtype != np.float32 or out.shape is None or pads is None:
        return False
    pads = np.asarray(pads).reshape(-1)
    rank = len(out.shape)
    if rank == 0 or pads.size != 2 * rank:
        return False
    others = np.delete(pads, [rank - 1, 2 * rank - 1])
    return bool(np.all(others == 0) and pads[rank - 1] >= 0 and pads[2 * rank - 1] >= 0)


def _sole_add_reader(graph: Graph, name: str, readers: dict[str, list[Node]]) -> Node | None:
    """The ADD of two same-shaped operands that alone reads ``name`` (once, as one of them), if any;
    a third input is a fused PRELU's slopes."""
    if name in graph.outputs or len(readers.get(name, [])) != 1:
        return None
    add = readers[name][0]
    if add.op_type != "ADD" or len(add.inputs) not in (2, 3) or add.inputs.count(name) != 1 or \
            name not in add.inputs[:2]:
        return None
    shapes = [graph.tensors[i].shape for i in add.inputs[:2]]
    return add if shapes[0] == shapes[1] == graph.tensors[add.outputs[0]].shape else None


def place_channel_pads(graph: Graph) -> int:
    """Moves each channel PAD read only by an ADD to right before it, as its input 0 (also in the
    bodies of control-flow ops); returns how many were placed."""
    placed = 0
    for node in graph.nodes:
        for value in node.attrs.values():
            if isinstance(value, Graph):
                placed += place_channel_pads(value)
    readers: dict[str, list[Node]] = {}
    for node in graph.nodes:
        for name in dict.fromkeys(node.inputs):
            if name:
                readers.setdefault(name, []).append(node)
    for pad in [n for n in graph.nodes if _channel_pad(graph, n)]:
        add = _sole_add_reader(graph, pad.outputs[0], readers)
        if add is None:
            continue
        graph.nodes.remove(pad)
        graph.nodes.insert(graph.nodes.index(add), pad)
        if add.inputs[1] == pad.outputs[0]:
            add.inputs = [add.inputs[1], add.inputs[0], *add.inputs[2:]]
        placed += 1
    return placed
