"""Resize and Upsample -> RESIZE, whose scales/sizes inputs are 2-element (h, w) vectors.

ONNX gives one scale or size per input dim (or per ``axes`` entry, opset 18); only H and W may
change. Constant vectors are cut down here; computed ones get a GATHER of their [2, 3] entries.
Upsample and Resize-10 resize with asymmetric coordinates and floor rounding for nearest.
"""

from __future__ import annotations

import numpy as np

from lite_converter.ir import ConversionError, Graph, Node
from lite_converter.passes.lowering.emitter import Emitter
from lite_converter.passes.lowering.registry import lowers

MODES = {"nearest": "NEAREST", "linear": "LINEAR", "bilinear": "LINEAR", "cubic": "CUBIC"}
COORDINATE_MODES = {"half_pixel": "HALF_PIXEL", "asymmetric": "ASYMMETRIC", "align_corners": "ALIGN_CORNERS",
                    "pytorch_half_pixel": "PYTORCH_HALF_PIXEL",
                    "tf_half_pixel_for_nn": "TF_HALF_PIXEL_FOR_NN",
                    "half_pixel_symmetric": "HALF_PIXEL_SYMMETRIC"}
NEAREST_MODES = {"round_prefer_floor": "ROUND_PREFER_FLOOR", "round_prefer_ceil": "ROUND_PREFER_CEIL",
                 "floor": "FLOOR", "ceil": "CEIL"}


def _operands(node: Node) -> tuple[str, str]:
    """(scales, sizes) input names ("" when absent) for every Resize/Upsample version."""
    inputs = node.inputs
    if node.op_type == "Upsample" or len(inputs) == 2:
        return (inputs[1] if len(inputs) > 1 else ""), ""
    return (inputs[2] if len(inputs) > 2 else ""), (inputs[3] if len(inputs) > 3 else "")


def _axes(graph: Graph, node: Node) -> list[int]:
    x = graph.tensors.get(node.inputs[0])
    rank = 4 if x is None or x.shape is None else len(x.shape)
    return [a % rank for a in node.attrs.get("axes", range(rank))]


def _check_resize(graph: Graph, node: Node) -> list[str]:
    a = node.attrs
    problems = []
    x = graph.tensors.get(node.inputs[0])
    if x is not None and x.shape is not None and len(x.shape) != 4:
        problems.append(f"{node.op_type} of a rank-{len(x.shape)} tensor (only rank 4 NCHW)")
    if str(a.get("mode", "nearest")) not in MODES:
        problems.append(f"mode='{a.get('mode')}' is not supported")
    coordinate_mode = str(a.get("coordinate_transformation_mode", "half_pixel"))
    if coordinate_mode not in COORDINATE_MODES:
        problems.append(f"coordinate_transformation_mode='{coordinate_mode}' is not supported")
    if str(a.get("nearest_mode", "round_prefer_floor")) not in NEAREST_MODES:
        problems.append(f"nearest_mode='{a['nearest_mode']}' is not supported")
    if a.get("antialias", 0):
        problems.append("antialias=1 is not supported")
    if str(a.get("keep_aspect_ratio_policy", "stretch")) != "stretch":
        problems.append(f"keep_aspect_ratio_policy='{a['keep_aspect_ratio_policy']}' is not supported")
    if [float(v) for v in a.get("scales", [1.0, 1.0])[:2]] != [1.0, 1.0]:  # Upsample-7
        problems.append("resizing the batch or channel axis is not supported")
    scales, sizes = _operands(node)
    axes = _axes(graph, node)
    for name, neutral in ((scales, 1.0), (sizes, None)):
        value = graph.constant(name) if name else None
        if value is None or value.size == 0:
            continue
        for axis, v in zip(axes, value.reshape(-1), strict=False):
            if axis < 2 and neutral is not None and float(v) != neutral:
                problems.append("resizing the batch or channel axis is not supported")
            if axis < 2 and neutral is None and x is not None and x.shape is not None and \
                    isinstance(x.shape[axis], int) and int(v) != x.shape[axis]:
                problems.append("resizing the batch or channel axis is not supported")
    return problems


def _hw_vector(e: Emitter, name: str, axes: list[int], dtype: type) -> str:
    """The (h, w) entries of a per-axis scales/sizes input."""
    value = e.graph.constant(name)
    if value is not None:
        if value.size == 0:
            return ""
        full = {2: 1, 3: 1} if dtype is np.float32 else {}
        full.update({axis: v for axis, v in zip(axes, value.reshape(-1).tolist(), strict=False)})
        if 2 not in full or 3 not in full:
            x_shape = e.shape(e.source.inputs[0])
            for axis in (2, 3):
                if axis not in full:
                    if x_shape is None or not isinstance(x_shape[axis], int):
                        raise ConversionError(f"node '{e.source.name}': sizes without H or W need "
                                              "a static input shape")
                    full[axis] = x_shape[axis]
        return e.const("hw", np.array([full[2], full[3]], dtype=dtype))
    if 2 not in axes or 3 not in axes:
        raise ConversionError(f"node '{e.source.name}': computed scales/sizes with axes {axes} "
                              "are not supported")
    index = [axes.index(2), axes.index(3)]
    if index == [0, 1] and len(axes) == 2:
        picked = name
    else:
        picked = e.op("GATHER", [name, e.const("hw_index", np.array(index, dtype=np.int64))], e.dtype(name),
                      [2], axis=0)
    return picked if e.dtype(picked) == dtype else e.op("CAST", [picked], dtype, [2], to=_dtype_name(dtype))


def _dtype_name(dtype: type) -> str:
    return "FLOAT32" if dtype is np.float32 else "INT64"


@lowers("Resize", "Upsample", check=_check_resize, shape_inputs=(1, 2, 3))
def lower_resize(graph: Graph, node: Node) -> list[Node]:
    e = Emitter(graph, node)
    a = node.attrs
    legacy = node.op_type == "Upsample" or graph.opset < 11
    scales, sizes = _operands(node)
    axes = _axes(graph, node)
    if node.op_type == "Upsample" and "scales" in a:  # Upsample-7
        scales = e.const("scales", np.array(a["scales"], dtype=np.float32))
    if node.op_type == "Upsample" and "height_scale" in a:  # Upsample-1
        scales = e.const("scales", np.array([1, 1, a["height_scale"], a["width_scale"]], dtype=np.float32))
    scales_hw = _hw_vector(e, scales, axes, np.float32) if scales else ""
    sizes_hw = _hw_vector(e, sizes, axes, np.int64) if sizes else ""
    if sizes_hw:
        scales_hw = ""
    attrs = {
        "mode": MODES[str(a.get("mode", "nearest"))],
        "coordinate_mode": "ASYMMETRIC" if legacy else
        COORDINATE_MODES[str(a.get("coordinate_transformation_mode", "half_pixel"))],
        "nearest_mode": "FLOOR" if legacy else
        NEAREST_MODES[str(a.get("nearest_mode", "round_prefer_floor"))],
        "cubic_coeff_a": float(a.get("cubic_coeff_a", -0.75)),
        "exclude_outside": bool(a.get("exclude_outside", 0)),
        "extrapolation_value": float(a.get("extrapolation_value", 0.0)),
        "layout": "NCHW",
    }
    e.emit("RESIZE", [node.inputs[0], scales_hw, sizes_hw], node.outputs, **attrs)
    return e.nodes
