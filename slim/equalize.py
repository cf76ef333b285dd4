"""Cross-layer equalization (Nagel et al. 2019, "Data-Free Quantization", section 3): rescale the channels
between two convolutions so that int8 rounds neither layer's small channels away.

BatchNorm folding leaves the output channels of a convolution with very different weight ranges (a
channel whose BN scale was 0.01 next to one at 3). With one weight scale per layer the small channels
keep a few int8 levels, and whatever the weights, the activation between the two layers is quantized
per tensor, so the small channels' activations keep a few levels too. For a pair ``A -> act -> B``
where ``act`` is positively homogeneous (none, ReLU, leaky ReLU, PReLU: ``act(s * x) = s * act(x)``
for s > 0), dividing A's output channel i (weights and bias) by ``s_i`` and multiplying B's input
channel i by ``s_i`` leaves the fp32 function unchanged; ``s_i = sqrt(r_A,i / r_B,i)`` (r: the largest
|weight| of the channel in each layer) gives both layers the range ``sqrt(r_A,i * r_B,i)`` in that
channel, the choice that maximizes the product of the two layers' relative precisions. Chains
(A -> B -> C) are swept until the scales settle.

ReLU6 / clip, hard-swish, SiLU and the like are not homogeneous: pairs through them are left alone,
as are tensors read by more than one node or by the graph's outputs, and weights shared between nodes.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from lite_converter.ir import Graph, Node

# activations with act(s * x) == s * act(x) for every s > 0
HOMOGENEOUS = (None, "NONE", "RELU", "LEAKY_RELU", "PRELU")


@dataclasses.dataclass
class Pair:
    """Two convolutions that share one channel axis: ``first``'s output channels are ``second``'s input
    channels along ``second_axis`` of its weight (3 for a full conv, OHWI; 0 for a depthwise one)."""

    first: Node
    second: Node
    second_axis: int


def equalize(graph: Graph, sweeps: int = 20, tolerance: float = 1e-3) -> int:
    """Equalizes every eligible pair of ``graph`` in place (a lowered, channels-last fp32 graph: CONV_2D
    weights [Co, KH, KW, Ci / group]). Returns the number of pairs rescaled."""
    pairs = find_pairs(graph)
    for _ in range(sweeps):
        largest = 0.0
        for pair in pairs:
            largest = max(largest, _rescale(graph, pair))
        if largest < tolerance:
            break
    return len(pairs)


def find_pairs(graph: Graph) -> list[Pair]:
    """The CONV_2D -> CONV_2D pairs whose in-between tensor only the second reads, through a homogeneous
    fused activation, with weights (and the first's bias) owned by one node each."""
    consumers = graph.consumers()
    producers = graph.producers()
    outputs = set(graph.outputs)
    pairs: list[Pair] = []
    for second in graph.nodes:
        if not _has_weight(graph, second, consumers):
            continue
        first = producers.get(second.inputs[0])
        if first is None or not _has_weight(graph, first, consumers) or first.outputs[0] in outputs:
            continue
        if len(consumers.get(first.outputs[0], [])) != 1 or _activation(first) not in HOMOGENEOUS:
            continue
        if len(first.inputs) > 2 and first.inputs[2] and len(consumers.get(first.inputs[2], [])) != 1:
            continue
        axis = _input_channel_axis(graph, second)
        channels = graph.constant(first.inputs[1]).shape[0]
        if axis is not None and graph.constant(second.inputs[1]).shape[axis] == channels:
            pairs.append(Pair(first, second, axis))
    return pairs


def _has_weight(graph: Graph, node: Node, consumers: dict[str, list[Node]]) -> bool:
    if node.op_type != "CONV_2D" or len(node.inputs) < 2 or graph.constant(node.inputs[0]) is not None:
        return False
    weight = graph.constant(node.inputs[1])
    return weight is not None and weight.ndim == 4 and len(consumers.get(node.inputs[1], [])) == 1


def _activation(node: Node) -> str | None:
    activation = node.attrs.get("activation")
    return activation.get("kind") if isinstance(activation, dict) else activation


def _input_channel_axis(graph: Graph, node: Node) -> int | None:
    """3 for a full convolution, 0 for a depthwise one (multiplier 1); None for other groupings."""
    weight = graph.constant(node.inputs[1])
    group = int(node.attrs.get("group", 1))
    if group == 1:
        return 3
    if weight.shape[3] == 1 and group == weight.shape[0]:
        return 0
    return None


def _rescale(graph: Graph, pair: Pair) -> float:
    """One equalization step of ``pair``; returns the largest |log s| applied (0 when settled)."""
    first_weight = graph.constant(pair.first.inputs[1])
    second_weight = graph.constant(pair.second.inputs[1])
    other_axes = tuple(a for a in range(4) if a != pair.second_axis)
    first_range = np.abs(first_weight).max(axis=(1, 2, 3)).astype(np.float64)
    second_range = np.abs(second_weight).max(axis=other_axes).astype(np.float64)
    usable = (first_range > 0) & (second_range > 0)
    scale = np.ones_like(first_range)
    scale[usable] = np.sqrt(first_range[usable] / second_range[usable])
    shape = [1, 1, 1, 1]
    shape[pair.second_axis] = -1
    _store(graph, pair.first.inputs[1], first_weight / scale.reshape(-1, 1, 1, 1))
    _store(graph, pair.second.inputs[1], second_weight * scale.reshape(shape))
    if len(pair.first.inputs) > 2 and pair.first.inputs[2]:
        _store(graph, pair.first.inputs[2], graph.constant(pair.first.inputs[2]) / scale)
    return float(np.abs(np.log(scale)).max(initial=0.0))


def _store(graph: Graph, name: str, value: np.ndarray) -> None:
    tensor = graph.tensors[name]
    tensor.data = value.astype(tensor.data.dtype)
