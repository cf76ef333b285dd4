"""Value kinds of ONNX sequence and optional ops' outputs (ir.Tensor.kind), where ONNX's own type
inference left them open (it often does inside bodies and for values fed through If / Loop).

A value's ``dtype`` is its elements' whatever its kind; a non-tensor value has no shape.
"""

from __future__ import annotations

import numpy as np
import onnx
from onnx import helper

from lite_converter.frontends.onnx_attributes import elem_type_to_numpy
from lite_converter.ir import Graph, Node

_MAKES_SEQUENCE = {"SequenceConstruct", "SequenceEmpty", "SequenceInsert", "SequenceErase", "SplitToSequence"}


def kind_from_type(type_proto: onnx.TypeProto) -> tuple[str, np.dtype | None]:
    """The value kind (ir.VALUE_KINDS) of a type and its elements' dtype; ("", None) for a map, a
    sequence of sequences or an unset type."""
    field = type_proto.WhichOneof("value")
    if field == "tensor_type":
        return "tensor", elem_type_to_numpy(type_proto.tensor_type.elem_type)
    if field == "sequence_type":
        inner, dtype = kind_from_type(type_proto.sequence_type.elem_type)
        return ("sequence", dtype) if inner == "tensor" else ("", None)
    if field == "optional_type":
        inner, dtype = kind_from_type(type_proto.optional_type.elem_type)
        return (f"optional_{inner}", dtype) if inner in ("tensor", "sequence") else ("", None)
    return "", None


def kind_type(kind: str, elem: int) -> onnx.TypeProto:
    """The ONNX type of a value of a non-tensor kind whose elements have element type ``elem``."""
    inner = helper.make_tensor_type_proto(elem, None)
    if kind in ("sequence", "optional_sequence"):
        inner = helper.make_sequence_type_proto(inner)
    return helper.make_optional_type_proto(inner) if kind.startswith("optional") else inner


def _kind_of(graph: Graph, name: str) -> str:
    return graph.tensors[name].kind if name and name in graph.tensors else "tensor"


def _output_kind(graph: Graph, node: Node, index: int) -> str | None:
    """The kind of output ``index`` by the op's rule; None when the op says nothing about it."""
    op = node.op_type
    first = _kind_of(graph, node.inputs[0]) if node.inputs else "tensor"
    if op in _MAKES_SEQUENCE:
        return "sequence"
    if op in ("SequenceAt", "ConcatFromSequence", "SequenceLength", "OptionalHasElement"):
        return "tensor"
    if op == "Optional":
        if node.inputs and node.inputs[0]:
            return f"optional_{first}" if not first.startswith("optional") else first
        type_proto = node.attrs.get("type")
        if isinstance(type_proto, onnx.TypeProto):
            return "optional_sequence" if type_proto.HasField("sequence_type") else "optional_tensor"
        return None
    if op == "OptionalGetElement":
        return first.removeprefix("optional_")
    if op == "Identity":
        return first
    if op == "Loop" and 2 + index < len(node.inputs) and index < len(node.outputs):
        carried = _kind_of(graph, node.inputs[2 + index])
        return carried.removeprefix("optional_") if carried != "tensor" else None
    return None


def _element_dtype(node: Node) -> np.dtype | None:
    if node.op_type == "SequenceEmpty":
        return elem_type_to_numpy(int(node.attrs.get("dtype", onnx.TensorProto.FLOAT)))
    if node.op_type == "Optional" and not (node.inputs and node.inputs[0]):
        type_proto = node.attrs.get("type")
        if isinstance(type_proto, onnx.TypeProto):
            inner = type_proto.sequence_type.elem_type if type_proto.HasField("sequence_type") else type_proto
            return elem_type_to_numpy(inner.tensor_type.elem_type)
    return None


def infer_kinds(graph: Graph) -> None:
    """Sets ``kind`` (and the element dtype where only the op knows it) on every node output."""
    for node in graph.nodes:
        for index, name in enumerate(node.outputs):
            if not name:
                continue
            kind = _output_kind(graph, node, index)
            tensor = graph.tensor(name)
            if kind is not None and kind != "tensor":
                tensor.kind = kind
                tensor.shape = None
            if tensor.dtype is None:
                tensor.dtype = _element_dtype(node)
