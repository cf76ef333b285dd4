"""Dtypes and shapes of every tensor of an ONNX-vocabulary graph.

ONNX's own shape inference (with data propagation, so Shape->Gather->Concat chains give concrete
Reshape targets) does most of the work; it runs on the model exported from the IR, so the same
function refreshes shapes after passes changed the graph. What it leaves open is filled here:
a dtype rule per op (every tensor must end with a dtype) and our shape rules (shape_rules.py).
"""

from __future__ import annotations

import numpy as np
import onnx

from lite_converter.frontends.onnx_attributes import elem_type_to_numpy
from lite_converter.frontends.onnx_export import export_onnx
from lite_converter.frontends.sequence_kinds import infer_kinds, kind_from_type
from lite_converter.frontends.shape_rules import infer_missing_shapes
from lite_converter.ir import Dim, Graph, Node

# Constants up to this many elements keep their values for ONNX's data propagation (shape tensors);
# larger ones (weights) are passed to inference by type only.
SMALL_CONSTANT = 4096

# Ops whose output dtype is fixed whatever their inputs are.
_INT64_OUTPUT = {"Shape", "Size", "ArgMax", "ArgMin", "NonZero", "SequenceLength"}
_BOOL_OUTPUT = {"Equal", "Less", "LessOrEqual", "Greater", "GreaterOrEqual", "And", "Or", "Xor", "Not",
                "IsNaN", "IsInf", "OptionalHasElement"}
# Ops whose output dtype is that of a later input (index given).
_DTYPE_FROM_INPUT = {"Where": 1, "CastLike": 1, "OneHot": 2}


def shape_from_type(type_proto: onnx.TypeProto) -> tuple[np.dtype | None, list[Dim] | None]:
    """dtype and shape of a tensor type (symbolic dims as str, unknown dims as None); a sequence's or
    optional's element dtype and no shape."""
    if not type_proto.HasField("tensor_type"):
        return kind_from_type(type_proto)[1], None
    ttype = type_proto.tensor_type
    dtype = elem_type_to_numpy(ttype.elem_type)
    if not ttype.HasField("shape"):
        return dtype, None
    dims: list[Dim] = []
    for dim in ttype.shape.dim:
        if dim.HasField("dim_value"):
            dims.append(int(dim.dim_value) if dim.dim_value >= 0 else None)
        elif dim.HasField("dim_param") and dim.dim_param and dim.dim_param != "?":
            dims.append(dim.dim_param)
        else:
            dims.append(None)
    return dtype, dims


def _known_dims(shape: list[Dim] | None) -> int:
    return -1 if shape is None else sum(isinstance(d, int) for d in shape) + len(shape)


def apply_onnx_inference(graph: Graph, model: onnx.ModelProto) -> None:
    """Runs ONNX shape inference on ``model`` (the graph's ONNX form) and keeps every gain."""
    try:
        inferred = onnx.shape_inference.infer_shapes(model, check_type=False, strict_mode=False,
                                                     data_prop=True)
    except Exception:  # noqa: BLE001 - inference is best effort; the rules below fill the gaps
        return
    infos = list(inferred.graph.value_info) + list(inferred.graph.output) + list(inferred.graph.input)
    for info in infos:
        tensor = graph.tensors.get(info.name)
        if tensor is None or tensor.is_constant:
            continue
        dtype, shape = shape_from_type(info.type)
        kind = kind_from_type(info.type)[0]
        if kind and kind != "tensor":
            tensor.kind = kind
        if tensor.dtype is None and dtype is not None:
            tensor.dtype = dtype
        if shape is not None and _known_dims(shape) > _known_dims(tensor.shape):
            tensor.shape = shape


def _output_dtype(graph: Graph, node: Node, index: int) -> np.dtype | None:
    op = node.op_type
    if op in _INT64_OUTPUT or (op == "TopK" and index == 1) or (op == "Unique" and index > 0):
        return np.dtype(np.int64)
    if op in _BOOL_OUTPUT or (op == "Dropout" and index == 1):
        return np.dtype(np.bool_)
    if op == "Cast":
        return elem_type_to_numpy(int(node.attrs["to"]))
    if op in ("EyeLike", "RandomNormalLike", "RandomUniformLike") and "dtype" in node.attrs:
        return elem_type_to_numpy(int(node.attrs["dtype"]))
    if op == "ConstantOfShape":
        value = node.attrs.get("value")
        return np.dtype(np.float32) if value is None else np.asarray(value).dtype
    source = _DTYPE_FROM_INPUT.get(op, 0)
    names = [n for n in node.inputs[source:] if n] or [n for n in node.inputs if n]
    for name in names:
        tensor = graph.tensors.get(name)
        if tensor is not None and tensor.dtype is not None:
            return tensor.dtype
    return None


def fill_gaps(graph: Graph) -> None:
    """Gives every node output a dtype, and a shape where our rules know more than ONNX did."""
    infer_kinds(graph)
    for node in graph.nodes:
        for index, name in enumerate(node.outputs):
            tensor = graph.tensor(name) if name else None
            if tensor is not None and not tensor.is_constant and tensor.dtype is None:
                tensor.dtype = _output_dtype(graph, node, index)
    infer_missing_shapes(graph)


def infer_types(graph: Graph) -> None:
    """Refreshes dtypes and shapes of all activations from the graph as it is now."""
    try:
        model = export_onnx(graph, with_value_info=False, types_only_above=SMALL_CONSTANT)
    except Exception:  # noqa: BLE001 - an attribute ONNX cannot hold: our rules still apply
        model = None
    if model is not None:
        apply_onnx_inference(graph, model)
    fill_gaps(graph)
