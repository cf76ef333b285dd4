"""Lowering of data-movement and shape ops: Reshape, Flatten, Squeeze, Unsqueeze, Transpose,
Concat, Split, Slice, Pad, Expand, Tile, Shape, Size, Range, ConstantOfShape, DepthToSpace,
SpaceToDepth.

Older opsets passed some operands as attributes (Slice-1 starts/ends/axes, Pad-2 pads/value,
Split-2 split); they become constant inputs here, the form the .lite ops take. Axes that newer
opsets pass as inputs (Squeeze/Unsqueeze-13) must be known at conversion time and become options.
"""

from __future__ import annotations

import numpy as np

from lite_converter.ir import ConversionError, Graph, Node
from lite_converter.passes.lowering.conversion_time import input_known_at_prepare
from lite_converter.passes.lowering.emitter import Emitter, normalize_axis
from lite_converter.passes.lowering.registry import lowers

INT32_MAX = 2147483647


@lowers("Reshape", shape_inputs=(1,))
def lower_reshape(graph: Graph, node: Node) -> list[Node]:
    e = Emitter(graph, node)
    if "shape" in node.attrs:  # Reshape-1
        shape = e.const("shape", np.array(node.attrs["shape"], dtype=np.int64))
    else:
        shape = e.as_int64(node.inputs[1])
    e.emit("RESHAPE", [node.inputs[0], shape], node.outputs, allowzero=bool(node.attrs.get("allowzero", 0)))
    return e.nodes


@lowers("Flatten")
def lower_flatten(graph: Graph, node: Node) -> list[Node]:
    e = Emitter(graph, node)
    rank = e.rank(node.inputs[0])
    axis = int(node.attrs.get("axis", 1))
    if rank is not None and axis != rank:
        axis = normalize_axis(axis, rank, node)
    e.emit("FLATTEN", node.inputs[:1], node.outputs, axis=axis)
    return e.nodes


def _check_axes_input(graph: Graph, node: Node) -> list[str]:
    if "axes" in node.attrs or input_known_at_prepare(graph, node.inputs, 1):
        return []
    return [f"axes ('{node.inputs[1]}') come from graph input data; they must be known at conversion time"]


def _axes(e: Emitter, node: Node) -> list[int] | None:
    if "axes" in node.attrs:
        return [int(v) for v in node.attrs["axes"]]
    if len(node.inputs) > 1 and node.inputs[1]:
        return [int(v) for v in e.require_constant(1, "axes").reshape(-1)]
    return None


@lowers("Squeeze", check=_check_axes_input)
def lower_squeeze(graph: Graph, node: Node) -> list[Node]:
    e = Emitter(graph, node)
    x = node.inputs[0]
    axes = _axes(e, node)
    shape = e.shape(x)
    if axes is None:
        static = shape is not None and all(isinstance(d, int) for d in shape)
        axes = [i for i, d in enumerate(shape) if d == 1] if static else []
    elif shape is not None:
        axes = sorted(normalize_axis(a, len(shape), node) for a in axes)
    e.emit("SQUEEZE", [x], node.outputs, axes=axes)
    return e.nodes


@lowers("Unsqueeze", check=_check_axes_input)
def lower_unsqueeze(graph: Graph, node: Node) -> list[Node]:
    e = Emitter(graph, node)
    axes = _axes(e, node)
    if axes is None:
        raise ConversionError(f"node '{node.name}' (Unsqueeze) has no axes")
    rank = e.rank(node.inputs[0])
    if rank is not None:
        axes = sorted(normalize_axis(a, rank + len(axes), node) for a in axes)
    e.emit("UNSQUEEZE", node.inputs[:1], node.outputs, axes=axes)
    return e.nodes


@lowers("Transpose")
def lower_transpose(graph: Graph, node: Node) -> list[Node]:
    e = Emitter(graph, node)
    rank = e.rank(node.inputs[0])
    perm = node.attrs.get("perm")
    if perm is None:
        perm = [] if rank is None else list(range(rank))[::-1]
    e.emit("TRANSPOSE", node.inputs[:1], node.outputs, perm=[int(p) for p in perm])
    return e.nodes


@lowers("Concat")
def lower_concat(graph: Graph, node: Node) -> list[Node]:
    e = Emitter(graph, node)
    inputs = [n for n in node.inputs if n]
    rank = next((e.rank(n) for n in inputs if e.rank(n) is not None), None)
    e.emit("CONCAT", inputs, node.outputs, axis=normalize_axis(int(node.attrs.get("axis", 0)), rank, node))
    return e.nodes


@lowers("Split", shape_inputs=(1,))
def lower_split(graph: Graph, node: Node) -> list[Node]:
    e = Emitter(graph, node)
    x = node.inputs[0]
    axis = normalize_axis(int(node.attrs.get("axis", 0)), e.rank(x), node)
    if "split" in node.attrs:  # Split-2/11
        sizes = e.const("split", np.array(node.attrs["split"], dtype=np.int64))
    else:
        sizes = e.as_int64(e.input(1))
    e.emit("SPLIT", [x, sizes], node.outputs, axis=axis)
    return e.nodes


@lowers("Slice", shape_inputs=(1, 2, 3, 4))
def lower_slice(graph: Graph, node: Node) -> list[Node]:
    e = Emitter(graph, node)
    if "starts" in node.attrs:  # Slice-1
        inputs = [e.const("starts", np.array(node.attrs["starts"], dtype=np.int64)),
                  e.const("ends", np.array(node.attrs["ends"], dtype=np.int64))]
        if "axes" in node.attrs:
            inputs.append(e.const("axes", np.array(node.attrs["axes"], dtype=np.int64)))
    else:
        inputs = [e.as_int64(n) for n in node.inputs[1:]]
    e.emit("SLICE", [node.inputs[0], *inputs], node.outputs)
    return e.nodes


_PAD_MODES = {"constant": "CONSTANT", "reflect": "REFLECT", "edge": "EDGE", "wrap": "WRAP"}


def _check_pad(graph: Graph, node: Node) -> list[str]:
    mode = str(node.attrs.get("mode", "constant"))
    return [] if mode in _PAD_MODES else [f"Pad mode '{mode}' is not supported"]


@lowers("Pad", check=_check_pad, shape_inputs=(1, 3))
def lower_pad(graph: Graph, node: Node) -> list[Node]:
    e = Emitter(graph, node)
    x = node.inputs[0]
    if "pads" in node.attrs or "paddings" in node.attrs:  # Pad-1/2
        pads = e.const("pads", np.array(node.attrs.get("pads", node.attrs.get("paddings")), dtype=np.int64))
        value = e.const("value", np.array(node.attrs.get("value", 0.0), dtype=e.dtype(x)))
        inputs = [x, pads, value]
    else:
        inputs = [x, e.as_int64(node.inputs[1]), e.input(2), e.as_int64(e.input(3))]
    e.emit("PAD", inputs, node.outputs, mode=_PAD_MODES[str(node.attrs.get("mode", "constant"))])
    return e.nodes


@lowers("Expand", "Tile", shape_inputs=(1,))
def lower_expand_tile(graph: Graph, node: Node) -> list[Node]:
    e = Emitter(graph, node)
    e.emit(node.op_type.upper(), [node.inputs[0], e.as_int64(node.inputs[1])], node.outputs)
    return e.nodes


@lowers("Shape")
def lower_shape(graph: Graph, node: Node) -> list[Node]:
    e = Emitter(graph, node)
    e.emit("SHAPE", node.inputs, node.outputs, start=int(node.attrs.get("start", 0)),
           end=int(node.attrs.get("end", INT32_MAX)))
    return e.nodes


@lowers("Size")
def lower_size(graph: Graph, node: Node) -> list[Node]:
    e = Emitter(graph, node)
    e.emit("SIZE", node.inputs, node.outputs)
    return e.nodes


@lowers("Range", shape_inputs=(0, 1, 2))
def lower_range(graph: Graph, node: Node) -> list[Node]:
    e = Emitter(graph, node)
    e.emit("RANGE", node.inputs, node.outputs)
    return e.nodes


@lowers("NonZero", shape_inputs=(0,))
def lower_non_zero(graph: Graph, node: Node) -> list[Node]:
    """NON_ZERO's output shape depends on its input's values: they must be known at prepare."""
    e = Emitter(graph, node)
    e.emit("NON_ZERO", node.inputs, node.outputs)
    return e.nodes


@lowers("ConstantOfShape", shape_inputs=(0,))
def lower_constant_of_shape(graph: Graph, node: Node) -> list[Node]:
    e = Emitter(graph, node)
    value = node.attrs.get("value")
    dtype = e.dtype(node.outputs[0])
    element = np.zeros(1, dtype=dtype) if value is None else np.asarray(value).reshape(-1)[:1].astype(dtype)
    e.emit("CONSTANT_OF_SHAPE", [e.as_int64(node.inputs[0])], node.outputs, value=element)
    return e.nodes


def _check_depth_space(graph: Graph, node: Node) -> list[str]:
    x = graph.tensors.get(node.inputs[0])
    if x is not None and x.shape is not None and len(x.shape) != 4:
        return [f"{node.op_type} needs a rank-4 input"]
    return []


@lowers("DepthToSpace", "SpaceToDepth", check=_check_depth_space)
def lower_depth_space(graph: Graph, node: Node) -> list[Node]:
    e = Emitter(graph, node)
    op = "DEPTH_TO_SPACE" if node.op_type == "DepthToSpace" else "SPACE_TO_DEPTH"
    e.emit(op, node.inputs, node.outputs, block_size=int(node.attrs["blocksize"]),
           crd_mode=str(node.attrs.get("mode", "DCR")) == "CRD", layout="NCHW")
    return e.nodes
