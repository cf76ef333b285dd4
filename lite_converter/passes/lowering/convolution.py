"""Conv -> CONV_2D and ConvTranspose -> CONV_TRANSPOSE_2D.

Emitted in the logical NCHW layout (``layout="NCHW"``) with ONNX weight layouts (Conv OIHW,
ConvTranspose [Cin, Cout/group, KH, KW]); the layout pass transposes data and weights. 1-D
convolutions run as 2-D ones over a unit H axis. ConvTranspose's ``output_shape`` becomes explicit
pads (it needs static spatial input dims).
"""

from __future__ import annotations

import numpy as np

from lite_converter.ir import ConversionError, Graph, Node
from lite_converter.passes.lowering.emitter import Emitter, activation_of
from lite_converter.passes.lowering.registry import lowers
from lite_converter.passes.lowering.spatial import (
    as_2d_input,
    check_2d,
    from_2d_output,
    require_spatial_rank,
    window_attrs,
)


def _weight_2d(e: Emitter, weight: str) -> str:
    """A rank-3 1-D conv weight [A, B, K] as [A, B, 1, K]."""
    value = e.graph.constant(weight)
    if value is not None:
        return e.const("weight_2d", value.reshape(value.shape[:2] + (1,) + value.shape[2:]))
    shape = e.shape(weight)
    new_shape = None if shape is None else [shape[0], shape[1], 1, shape[2]]
    return e.op("UNSQUEEZE", [weight], e.dtype(weight), new_shape, axes=[2])


def _prelu_vector(e: Emitter, slope: str, channels: int) -> str:
    value = e.graph.constant(slope)
    return e.const("prelu_slope", np.broadcast_to(value.reshape(-1), (channels,)).astype(value.dtype))


@lowers("Conv", check=check_2d)
def lower_conv(graph: Graph, node: Node) -> list[Node]:
    e = Emitter(graph, node)
    rank = require_spatial_rank(graph, node)
    x, weight, bias = node.inputs[0], node.inputs[1], e.input(2)
    out = node.outputs[0]
    attrs = window_attrs(node, rank)
    act, slope = activation_of(node)
    attrs.update(group=int(node.attrs.get("group", 1)), activation=act, layout="NCHW")
    if rank == 1:
        x, weight, out = as_2d_input(e, x), _weight_2d(e, weight), from_2d_output(e, out)
    inputs = [x, weight, bias]
    if slope:
        w_shape = e.shape(weight)
        inputs.append(_prelu_vector(e, slope, int(w_shape[0])))
    e.emit("CONV_2D", inputs, [out], **attrs)
    if rank == 1:
        e.emit("SQUEEZE", [out], node.outputs, axes=[2])
    return e.nodes


def _transpose_pads(e: Emitter, node: Node, rank: int) -> tuple[list[int], list[int]]:
    """(pads [t, l, b, r] of the 2-D op, output_padding [h, w]) from output_shape/auto_pad."""
    a = node.attrs
    ones = [1] * rank
    strides = [int(v) for v in a.get("strides", ones)]
    dilations = [int(v) for v in a.get("dilations", ones)]
    out_pad = [int(v) for v in a.get("output_padding", [0] * rank)]
    pads = [int(v) for v in a.get("pads", [0] * 2 * rank)]
    auto_pad = str(a.get("auto_pad", "NOTSET"))
    output_shape = a.get("output_shape")
    if output_shape is not None or auto_pad in ("SAME_UPPER", "SAME_LOWER"):
        x_shape = e.shape(node.inputs[0])
        w_shape = e.shape(node.inputs[1])
        spatial = None if x_shape is None else x_shape[2:]
        kernel = a.get("kernel_shape") or (None if w_shape is None else w_shape[2:])
        if spatial is None or kernel is None or not all(isinstance(d, int) for d in [*spatial, *kernel]):
            raise ConversionError(f"node '{node.name}' (ConvTranspose): output_shape/auto_pad need static "
                                  "spatial input dims; give input_shapes")
        targets = [int(v) for v in output_shape[-rank:]] if output_shape is not None else \
            [int(d) * s for d, s in zip(spatial, strides, strict=True)]
        pads = [0] * 2 * rank
        for i in range(rank):
            extent = (kernel[i] - 1) * dilations[i] + 1
            total = strides[i] * (spatial[i] - 1) + out_pad[i] + extent - targets[i]
            if total < 0:  # the requested output is larger: extra rows at the end
                out_pad[i] -= total
                total = 0
            small, large = total // 2, total - total // 2
            if auto_pad == "SAME_UPPER":
                pads[i], pads[i + rank] = small, large
            else:
                pads[i], pads[i + rank] = large, small
    if rank == 1:
        return [0, pads[0], 0, pads[1]], [0, out_pad[0]]
    return pads, out_pad


@lowers("ConvTranspose", check=check_2d)
def lower_conv_transpose(graph: Graph, node: Node) -> list[Node]:
    e = Emitter(graph, node)
    rank = require_spatial_rank(graph, node)
    x, weight, bias = node.inputs[0], node.inputs[1], e.input(2)
    out = node.outputs[0]
    attrs = window_attrs(node, rank)
    pads, out_pad = _transpose_pads(e, node, rank)
    act, _ = activation_of(node)
    attrs.update(pad_top=pads[0], pad_left=pads[1], pad_bottom=pads[2], pad_right=pads[3],
                 output_padding_h=out_pad[0], output_padding_w=out_pad[1], padding="EXPLICIT",
                 group=int(node.attrs.get("group", 1)), activation=act, layout="NCHW")
    if rank == 1:
        x, weight, out = as_2d_input(e, x), _weight_2d(e, weight), from_2d_output(e, out)
    e.emit("CONV_TRANSPOSE_2D", [x, weight, bias], [out], **attrs)
    if rank == 1:
        e.emit("SQUEEZE", [out], node.outputs, axes=[2])
    return e.nodes
