"""ONNX If, Loop, Scan -> .lite IF, LOOP, SCAN (docs/OPS.md, "Control flow").

By the time a control-flow node is lowered, convert.py has converted each of its bodies into a
lowered graph (held in the body attr itself, frontends/onnx_control_flow.py made the outer values
it reads explicit inputs); the writer stores those graphs as the model's subgraphs and puts their
indices into the options.
"""

from __future__ import annotations

from lite_converter.frontends.onnx_control_flow import formal_input_count
from lite_converter.ir import ConversionError, Graph, Node
from lite_converter.passes.lowering.emitter import normalize_axis
from lite_converter.passes.lowering.registry import lowers


def _body(node: Node, attr: str) -> Graph:
    body = node.attrs[attr]
    if not isinstance(body, Graph):
        raise TypeError(f"node '{node.name}': body '{attr}' was not converted before lowering")
    return body


def _check_scan(graph: Graph, node: Node) -> list[str]:
    if graph.opset and graph.opset < 9:
        return ["Scan before opset 9 (with sequence_lens and a batch axis) is not supported"]
    return []


@lowers("If")
def lower_if(graph: Graph, node: Node) -> list[Node]:
    return [Node("IF", node.name, list(node.inputs), list(node.outputs),
                 {"then_subgraph": _body(node, "then_branch"), "else_subgraph": _body(node, "else_branch")})]


@lowers("Loop")
def lower_loop(graph: Graph, node: Node) -> list[Node]:
    inputs = list(node.inputs) + [""] * max(0, 2 - len(node.inputs))
    carried = formal_input_count(node) - 2
    return [Node("LOOP", node.name, inputs, list(node.outputs),
                 {"body_subgraph": _body(node, "body"), "num_carried": max(carried, 0)})]


@lowers("Scan", check=_check_scan)
def lower_scan(graph: Graph, node: Node) -> list[Node]:
    num_scan = int(node.attrs["num_scan_inputs"])
    num_state = formal_input_count(node) - num_scan
    scan_inputs = node.inputs[num_state:num_state + num_scan]
    scan_outputs = node.outputs[num_state:]

    def axes(key: str, names: list[str]) -> list[int]:
        values = [int(v) for v in node.attrs.get(key, [0] * len(names))]
        result = []
        for value, name in zip(values, names, strict=True):
            shape = graph.tensors[name].shape
            if value < 0 and shape is None:
                raise ConversionError(f"node '{node.name}' (Scan): a negative {key} on '{name}', whose rank "
                                      "is unknown")
            result.append(normalize_axis(value, None if shape is None else len(shape), node))
        return result

    attrs = {"body_subgraph": _body(node, "body"), "num_state": num_state, "num_scan_inputs": num_scan,
             "scan_input_axes": axes("scan_input_axes", scan_inputs),
             "scan_input_directions": [int(v) for v in
                                       node.attrs.get("scan_input_directions", [0] * num_scan)],
             "scan_output_axes": axes("scan_output_axes", scan_outputs),
             "scan_output_directions": [int(v) for v in
                                        node.attrs.get("scan_output_directions", [0] * len(scan_outputs))]}
    return [Node("SCAN", node.name, list(node.inputs), list(node.outputs), attrs)]
