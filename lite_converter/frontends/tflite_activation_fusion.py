"""A TFLite activation op folded into the fp32 ADD / SUB / MUL / DIV producing its input.

MediaPipe's models (BlazeFace, iris, palm, hand landmarks) end each residual block with an ADD and
then a RELU or PRELU of its own: a second pass over the block's output. The binary op's fused
activation does it while the sum is still in cache (the ONNX path's activation fusion does the
same for Relu/Clip/LeakyRelu after Add). A per-channel PRELU's slopes become the binary op's input 2.

Only when the producer is fp32 with no activation of its own, and its output is read by this
activation alone and is not a graph output (otherwise the pre-activation value is still needed).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    from lite_converter.frontends.tflite_frontend import TfliteGraphBuilder
    from lite_converter.ir import Node

BINARY_PRODUCERS = {"ADD", "SUB", "MUL", "DIV"}


def _fusable_producer(b: TfliteGraphBuilder, x: str, out: str) -> Node | None:
    producer = next((n for n in reversed(b.graph.nodes) if x in n.outputs), None)
    if producer is None or producer.op_type not in BINARY_PRODUCERS or len(producer.inputs) != 2 or \
            producer.attrs.get("activation", {}).get("kind", "NONE") != "NONE":
        return None
    if b.is_int8(x) or b.is_int8(out) or any(b.graph.tensors[n].dtype != np.float32 for n in (x, out)):
        return None
    graph_outputs = {b.name(i) for i in b.subgraph.outputs if 0 <= i < len(b.names)}
    if len(b.readers.get(x, [])) != 1 or x in graph_outputs:
        return None
    return producer


def fuse_into_binary(b: TfliteGraphBuilder, x: str, out: str, activation: dict[str, Any]) -> bool:
    """Makes ``activation`` (RELU, CLIP, LEAKY_RELU, ...) the fused activation of the binary op
    writing ``x``, which then writes ``out``; False (nothing changed) when it cannot."""
    producer = _fusable_producer(b, x, out)
    if producer is None:
        return False
    producer.attrs["activation"] = dict(activation)
    producer.outputs = [out]
    return True


def fuse_prelu_into_binary(b: TfliteGraphBuilder, x: str, slope: str, out: str) -> bool:
    """PRELU(x, slope) after a binary op: a single slope becomes LEAKY_RELU, one per channel (the
    output's last axis, broadcast over the others) a fused PRELU reading the slopes as input 2."""
    value = b.graph.tensors[slope].data
    shape = b.graph.tensors[out].shape
    if value is None or not shape or not isinstance(shape[-1], int):
        return False
    channels = int(shape[-1])
    if value.size == 1:
        alpha = float(np.asarray(value, np.float32).reshape(-1)[0])
        return fuse_into_binary(b, x, out, {"kind": "LEAKY_RELU", "alpha": alpha, "beta": 0.0})
    if value.size != channels or value.shape[-1] != channels:
        return False
    producer = _fusable_producer(b, x, out)
    if producer is None:
        return False
    per_channel = b.graph.add_constant(f"{slope}_per_channel", value.reshape(channels).astype(np.float32))
    producer.inputs = [*producer.inputs, per_channel]
    producer.attrs["activation"] = {"kind": "PRELU", "alpha": 0.0, "beta": 0.0}
    producer.outputs = [out]
    return True
