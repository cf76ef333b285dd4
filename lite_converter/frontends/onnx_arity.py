"""Input and output counts and attribute types of ONNX nodes against the operator schemas of the
model's opset.

A file from anywhere may give ``And`` one input or ``Conv`` none; every later stage indexes
``node.inputs[1]`` as the schema promises. Checking the counts once, here, turns that family of
files into one clear error naming every such node instead of an IndexError somewhere downstream.
Likewise an ``axis`` stored as a string or with no type at all would reach shape inference as None.
"""

from __future__ import annotations

import onnx.defs

from lite_converter.ir import ConversionError, Graph, Node

_SINGLE = onnx.defs.OpSchema.FormalParameterOption.Single


def _schema(node: Node, opset: int) -> onnx.defs.OpSchema | None:
    version = min(max(opset, 1), 2**31 - 1)  # a file may declare any int64 opset
    try:
        return onnx.defs.get_schema(node.op_type, version, node.domain or "")
    except onnx.defs.SchemaError:  # not an ONNX op at this opset: check_supported reports it
        return None


def _arity_problem(node: Node, schema: onnx.defs.OpSchema) -> str | None:
    for what, given, low, high, formals in (
        ("inputs", node.inputs, schema.min_input, schema.max_input, schema.inputs),
        ("outputs", node.outputs, schema.min_output, schema.max_output, schema.outputs),
    ):
        count = len(given)
        if not low <= count <= high:
            wanted = (f"{low}" if low == high else f"{low} to {high}" if high < 2**31 - 1
                      else f"at least {low}")
            return f"{node.op_type} '{node.name}' has {count} {what}, the ONNX schema wants {wanted}"
        for position, formal in enumerate(formals[:count]):
            if formal.option == _SINGLE and not given[position] and not _optional_later(node, what, position):
                return f"{node.op_type} '{node.name}' leaves its required {what[:-1]} '{formal.name}' empty"
    return None


def _optional_later(node: Node, what: str, position: int) -> bool:
    """Whether a newer opset made this slot optional (Resize's roi before opset 13, for one): exporters
    leave such slots empty at the older opsets too and onnxruntime takes them as absent, so do we."""
    try:
        latest = onnx.defs.get_schema(node.op_type, node.domain or "")
    except onnx.defs.SchemaError:
        return False
    formals = latest.inputs if what == "inputs" else latest.outputs
    return position < len(formals) and formals[position].option != _SINGLE


def check_arity(graph: Graph) -> None:
    """Raises ConversionError listing every node of the default domain whose input or output
    count (or a required, empty slot) contradicts its schema at ``graph.opset``."""
    problems = []
    for node in graph.nodes:
        if node.domain:
            continue
        schema = _schema(node, graph.opset)
        problem = _arity_problem(node, schema) if schema is not None else None
        if problem:
            problems.append(problem)
    if problems:
        raise ConversionError("the ONNX model's nodes do not match their operators' schemas: "
                              + "; ".join(problems))


def check_attribute_types(model: onnx.ModelProto, opset: int) -> None:
    """Raises ConversionError listing every attribute of a default-domain node whose type is not the
    one its schema declares (attributes the schema does not know are left to the lowering)."""
    problems = []
    for index, proto in enumerate(model.graph.node):
        if proto.domain not in ("", "ai.onnx") or not isinstance(proto.op_type, str):
            continue
        schema = _schema(Node(proto.op_type, proto.name, [], []), opset)
        if schema is None:
            continue
        for attr in proto.attribute:
            declared = schema.attributes.get(attr.name)
            if declared is not None and int(attr.type) != int(declared.type):
                names = onnx.AttributeProto.AttributeType
                got = names.Name(attr.type) if attr.type in _ATTRIBUTE_TYPES else attr.type
                problems.append(f"{proto.op_type} node {index} '{proto.name}': attribute '{attr.name}' is "
                                f"{got}, the ONNX schema wants {names.Name(int(declared.type))}")
    if problems:
        raise ConversionError("the ONNX model's attributes do not match their operators' schemas: "
                              + "; ".join(problems))


_ATTRIBUTE_TYPES = set(onnx.AttributeProto.AttributeType.values())
