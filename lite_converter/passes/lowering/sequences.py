"""ONNX sequence and optional ops -> .lite SEQUENCE_* / OPTIONAL* (docs/OPS.md, "Sequences and optionals").

One .lite op per ONNX op, inputs in ONNX's order; SequenceEmpty is SEQUENCE_CONSTRUCT without inputs.
The values they make keep their kind (ir.Tensor.kind) through If / Loop bodies and graph inputs and
outputs; the runtime checks positions and shapes, which depend on the data, when it runs.
"""

from __future__ import annotations

from lite_converter.ir import Graph, Node
from lite_converter.passes.lowering.emitter import Emitter
from lite_converter.passes.lowering.registry import lowers

_PLAIN = {"SequenceConstruct": "SEQUENCE_CONSTRUCT", "SequenceEmpty": "SEQUENCE_CONSTRUCT",
          "SequenceInsert": "SEQUENCE_INSERT", "SequenceAt": "SEQUENCE_AT", "SequenceErase": "SEQUENCE_ERASE",
          "SequenceLength": "SEQUENCE_LENGTH", "Optional": "OPTIONAL",
          "OptionalHasElement": "OPTIONAL_HAS_ELEMENT", "OptionalGetElement": "OPTIONAL_GET_ELEMENT"}


def _check_kinds(graph: Graph, node: Node) -> list[str]:
    """Element types the runtime cannot hold (strings) and inputs of a kind the op does not take."""
    problems = []
    for name in (n for n in [*node.inputs, *node.outputs] if n):
        tensor = graph.tensors.get(name)
        if tensor is not None and tensor.dtype is not None and tensor.dtype.kind in "OSU":
            problems.append(f"'{name}' holds strings, which .lite values cannot")
    return problems


@lowers(*_PLAIN, check=_check_kinds)
def lower_sequence_op(graph: Graph, node: Node) -> list[Node]:
    e = Emitter(graph, node)
    inputs = list(node.inputs)
    while inputs and not inputs[-1]:
        inputs.pop()
    e.emit(_PLAIN[node.op_type], inputs, node.outputs)
    return e.nodes


@lowers("ConcatFromSequence", check=_check_kinds)
def lower_concat_from_sequence(graph: Graph, node: Node) -> list[Node]:
    e = Emitter(graph, node)
    e.emit("CONCAT_FROM_SEQUENCE", node.inputs[:1], node.outputs, axis=int(node.attrs["axis"]),
           new_axis=bool(node.attrs.get("new_axis", 0)))
    return e.nodes


@lowers("SplitToSequence", check=_check_kinds)
def lower_split_to_sequence(graph: Graph, node: Node) -> list[Node]:
    e = Emitter(graph, node)
    inputs = [n for n in node.inputs[:2]]
    while inputs and not inputs[-1]:
        inputs.pop()
    e.emit("SPLIT_TO_SEQUENCE", inputs, node.outputs, axis=int(node.attrs.get("axis", 0)),
           keepdims=bool(node.attrs.get("keepdims", 1)))
    return e.nodes
