"""ONNX If, Loop, Scan -> .lite IF, LOOP, SCAN (docs/OPS.md, "Control flow").

By the time a control-flow node is lowered, convert.py has converted each of its bodies into a
lowered graph (held in the body attr itself, frontends/onnx_control_flow.py made the outer values
it reads explicit inputs); the writer stores those graphs as the model's subgraphs and puts their
indices into the options.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from lite_converter.frontends.onnx_control_flow import formal_input_count, scan_is_batched
from lite_converter.ir import ConversionError, Graph, Node, Tensor
from lite_converter.passes.lowering.emitter import normalize_axis
from lite_converter.passes.lowering.registry import lowers


def _body(node: Node, attr: str) -> Graph:
    body = node.attrs[attr]
    if not isinstance(body, Graph):
        raise TypeError(f"node '{node.name}': body '{attr}' was not converted before lowering")
    return body


def _check_scan(graph: Graph, node: Node) -> list[str]:
    if not (scan_is_batched(graph, node) and node.inputs and node.inputs[0]):
        return []
    lengths, steps = graph.constant(node.inputs[0]), _scan8_steps(graph, node)
    if lengths is None:
        return ["Scan (opset 8) with a computed sequence_lens is not supported (absent or a constant only)"]
    if steps is None:
        return ["Scan (opset 8) with sequence_lens needs the sequence length known at conversion "
                "(fix the input shapes)"]
    if not np.all(np.asarray(lengths) == steps):
        return [f"Scan (opset 8) with sequence_lens shorter than the sequence axis ({steps}) is not "
                "supported"]
    return []


def _scan8_steps(graph: Graph, node: Node) -> int | None:
    """The sequence length (axis 1) of a Scan-8's first scan input, if known at conversion."""
    num_scan = int(node.attrs["num_scan_inputs"])
    first = node.inputs[formal_input_count(node) - num_scan]
    shape = graph.tensors[first].shape if first in graph.tensors else None
    return shape[1] if shape and len(shape) > 1 and isinstance(shape[1], int) else None


def _unbatched(graph: Graph, name: str) -> Tensor:
    """A body-side copy of ``name`` without its batch axis (a Scan-8 input sliced per batch entry)."""
    tensor = graph.tensors[name]
    per_tensor = tensor.quant if tensor.quant is not None and tensor.quant.axis is None else None
    shape = None if tensor.shape is None else list(tensor.shape[1:])
    return Tensor(name, tensor.dtype, shape, quant=per_tensor)


def _lower_batched_scan(graph: Graph, node: Node) -> list[Node]:
    """Scan-8 as two SCANs: an outer one over the batch axis (every input sliced, nothing carried)
    whose body is an opset-9 SCAN over the time axis of one batch entry. Stacked along the batch,
    the inner SCAN's final states and scan outputs are Scan-8's [B, ...] and [B, T, ...] outputs.
    sequence_lens is absent or equal to T everywhere (_check_scan)."""
    num_scan = int(node.attrs["num_scan_inputs"])
    formal = formal_input_count(node)
    num_state = formal - 1 - num_scan
    batched, captured = node.inputs[1:formal], node.inputs[formal:]
    body = _body(node, "body")
    inner = Graph(source_format="onnx", opset=graph.opset)
    for name in batched:
        inner.tensors[name] = _unbatched(graph, name)
    for name in captured:
        inner.tensors[name] = dataclasses.replace(graph.tensors[name], data=None)
    outputs = []
    for index, name in enumerate(node.outputs):
        source = graph.tensors.get(name)
        shape = None if source is None or source.shape is None else list(source.shape[1:])
        outputs.append(inner.add_tensor(f"{name}_entry", None if source is None else source.dtype,
                                        shape if index < num_state else None))
    directions = [int(v) for v in node.attrs.get("directions", [0] * num_scan)]
    inner.nodes.append(Node("SCAN", f"{node.name}_steps", [*batched, *captured], outputs, {
        "body_subgraph": body, "num_state": num_state, "num_scan_inputs": num_scan,
        "scan_input_axes": [0] * num_scan, "scan_input_directions": directions,
        "scan_output_axes": [0] * (len(outputs) - num_state),
        "scan_output_directions": [0] * (len(outputs) - num_state)}))
    inner.inputs, inner.outputs = [*batched, *captured], outputs
    count = len(batched)
    return [Node("SCAN", node.name, [*batched, *captured], list(node.outputs), {
        "body_subgraph": inner, "num_state": 0, "num_scan_inputs": count, "scan_input_axes": [0] * count,
        "scan_input_directions": [0] * count, "scan_output_axes": [0] * len(outputs),
        "scan_output_directions": [0] * len(outputs)})]


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
    if scan_is_batched(graph, node):
        return _lower_batched_scan(graph, node)
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
