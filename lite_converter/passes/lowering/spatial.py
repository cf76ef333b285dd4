"""What convolutions and pools share: ONNX spatial attributes -> the 2-D option fields, and the
wrapping of 1-D ops (rank-3 [N, C, L] tensors) as 2-D ones over a unit H axis."""

from __future__ import annotations

from typing import Any

from lite_converter.ir import ConversionError, Graph, Node
from lite_converter.passes.lowering.emitter import Emitter

PADDING = {"NOTSET": "EXPLICIT", "": "EXPLICIT", "VALID": "VALID", "SAME_UPPER": "SAME_UPPER",
           "SAME_LOWER": "SAME_LOWER"}


def spatial_rank(graph: Graph, node: Node) -> int | None:
    """Number of spatial dims (2 for NCHW) from the kernel attribute, weights or input rank."""
    if "kernel_shape" in node.attrs:
        return len(node.attrs["kernel_shape"])
    if node.op_type in ("Conv", "ConvTranspose") and len(node.inputs) > 1:
        weight = graph.tensors.get(node.inputs[1])
        if weight is not None and weight.shape is not None:
            return len(weight.shape) - 2
    x = graph.tensors.get(node.inputs[0])
    return None if x is None or x.shape is None else len(x.shape) - 2


def require_spatial_rank(graph: Graph, node: Node) -> int:
    """spatial_rank, or a ConversionError when it cannot be known."""
    rank = spatial_rank(graph, node)
    if rank is None:
        raise ConversionError(f"node '{node.name}' ({node.op_type}): the number of spatial dims is "
                              "unknown; give input_shapes")
    return rank


def check_2d(graph: Graph, node: Node) -> list[str]:
    """Reasons a conv/pool cannot become a 2-D .lite op."""
    rank = spatial_rank(graph, node)
    if rank is not None and rank not in (1, 2):
        return [f"{rank}-D {node.op_type} is not supported (only 1-D and 2-D)"]
    if PADDING.get(str(node.attrs.get("auto_pad", "NOTSET"))) is None:
        return [f"auto_pad='{node.attrs['auto_pad']}' is not supported"]
    return []


def window_attrs(node: Node, rank: int) -> dict[str, Any]:
    """stride/dilation/pad/padding fields of a 2-D op from ONNX attributes of a 1-D or 2-D op.

    1-D ops become 2-D ones with H = 1 (stride 1, dilation 1, no padding along H).
    """
    ones = [1] * rank
    strides = [int(v) for v in node.attrs.get("strides", ones)]
    dilations = [int(v) for v in node.attrs.get("dilations", ones)]
    pads = [int(v) for v in node.attrs.get("pads", [0] * 2 * rank)]
    if rank == 1:
        strides, dilations, pads = [1, *strides], [1, *dilations], [0, pads[0], 0, pads[1]]
    padding = PADDING[str(node.attrs.get("auto_pad", "NOTSET"))]
    if padding == "VALID":
        pads = [0, 0, 0, 0]
    return {"stride_h": strides[0], "stride_w": strides[1], "dilation_h": dilations[0],
            "dilation_w": dilations[1], "pad_top": pads[0], "pad_left": pads[1], "pad_bottom": pads[2],
            "pad_right": pads[3], "padding": padding}


def as_2d_input(e: Emitter, x: str) -> str:
    """[N, C, L] -> [N, C, 1, L] (an UNSQUEEZE), for a 1-D op run as a 2-D one."""
    shape = e.shape(x)
    new_shape = None if shape is None else [shape[0], shape[1], 1, shape[2]]
    return e.op("UNSQUEEZE", [x], e.dtype(x), new_shape, axes=[2])


def from_2d_output(e: Emitter, out: str) -> str:
    """A temporary [N, C, 1, L] tensor whose SQUEEZE writes ``out`` ([N, C, L])."""
    shape = e.shape(out)
    new_shape = None if shape is None else [shape[0], shape[1], 1, shape[2]]
    return e.tensor("as_2d", e.dtype(out), new_shape)
