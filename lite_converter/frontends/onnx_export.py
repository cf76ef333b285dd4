"""Turns an ONNX-vocabulary IR graph back into an ``onnx.ModelProto``.

Two users: the constant folder (it evaluates single nodes with ONNX's reference evaluator) and the
tests, whose oracle is onnxruntime running the source model and the optimized IR side by side.
Attributes only our passes use are expanded into the ONNX ops they stand for (a fused activation
becomes the activation node again), so the exported model is always plain, runnable ONNX.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import onnx
from onnx import helper, numpy_helper

from lite_converter.frontends import fused_activation
from lite_converter.frontends.onnx_attributes import numpy_to_elem_type
from lite_converter.frontends.onnx_control_flow import CAPTURED
from lite_converter.frontends.sequence_kinds import kind_type
from lite_converter.ir import Graph, Node, Tensor

DEFAULT_OPSET = 17


def value_info(tensor: Tensor) -> onnx.ValueInfoProto:
    """Type and shape of a tensor as ONNX value info (unknown parts left unset)."""
    elem = onnx.TensorProto.UNDEFINED if tensor.dtype is None else numpy_to_elem_type(tensor.dtype)
    if tensor.kind != "tensor":
        return helper.make_value_info(tensor.name, kind_type(tensor.kind, elem))
    shape = None if tensor.shape is None else [d if isinstance(d, (int, str)) else None for d in tensor.shape]
    return helper.make_tensor_value_info(tensor.name, elem, shape)


def make_attribute(name: str, value: Any) -> onnx.AttributeProto:
    """An ONNX attribute from the python value the IR stores."""
    if isinstance(value, np.ndarray):
        return helper.make_attribute(name, numpy_helper.from_array(value))
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, (list, tuple)) and value and isinstance(value[0], np.ndarray):
        return helper.make_attribute(name, [numpy_helper.from_array(v) for v in value])
    return helper.make_attribute(name, value)


def _activation_nodes(graph: Graph, act: dict[str, Any], x: str, y: str, name: str, opset: int,
                      extra_inits: list[onnx.TensorProto]) -> list[onnx.NodeProto]:
    """The ONNX node(s) computing ``y = act(x)``."""
    kind = act["kind"]
    if kind == "RELU":
        return [helper.make_node("Relu", [x], [y], name=name)]
    if kind == "SIGMOID":
        return [helper.make_node("Sigmoid", [x], [y], name=name)]
    if kind == "TANH":
        return [helper.make_node("Tanh", [x], [y], name=name)]
    if kind == "LEAKY_RELU":
        return [helper.make_node("LeakyRelu", [x], [y], name=name, alpha=act["alpha"])]
    if kind == "HARD_SIGMOID":
        return [helper.make_node("HardSigmoid", [x], [y], name=name, alpha=act["alpha"], beta=act["beta"])]
    if kind == "HARD_SWISH":
        if opset >= 14:
            return [helper.make_node("HardSwish", [x], [y], name=name)]
        gate = f"{name}__gate"
        return [helper.make_node("HardSigmoid", [x], [gate], name=gate, alpha=1.0 / 6, beta=0.5),
                helper.make_node("Mul", [x, gate], [y], name=name)]
    if kind == "SILU":
        gate = f"{name}__gate"
        return [helper.make_node("Sigmoid", [x], [gate], name=gate),
                helper.make_node("Mul", [x, gate], [y], name=name)]
    if kind == "PRELU":
        return [helper.make_node("PRelu", [x, act["slope"]], [y], name=name)]
    if kind == "CLIP":
        dtype = graph.tensors[x].dtype if x in graph.tensors and graph.tensors[x].dtype else np.float32
        if opset < 11:
            return [helper.make_node("Clip", [x], [y], name=name, min=act["alpha"], max=act["beta"])]
        lo, hi = f"{name}__min", f"{name}__max"
        extra_inits.append(numpy_helper.from_array(np.array(act["alpha"], dtype=dtype), lo))
        extra_inits.append(numpy_helper.from_array(np.array(act["beta"], dtype=dtype), hi))
        return [helper.make_node("Clip", [x, lo, hi], [y], name=name)]
    raise ValueError(f"cannot export fused activation {kind}")


def export_nodes(graph: Graph, nodes: list[Node], opset: int,
                 extra_inits: list[onnx.TensorProto]) -> list[onnx.NodeProto]:
    """NodeProtos for IR nodes, fused activations expanded."""
    protos: list[onnx.NodeProto] = []
    for node in nodes:
        attrs = dict(node.attrs)
        act = attrs.pop(fused_activation.ATTR, None)
        outputs = list(node.outputs)
        inputs = list(node.inputs)
        captured = attrs.pop(CAPTURED, None)
        if captured:  # ONNX reads them from the outer scope, not as inputs
            inputs = inputs[:len(inputs) - len(captured)]
        if act is not None:
            outputs[0] = f"{node.outputs[0]}__preact"
            if act["kind"] == "PRELU":
                inputs = inputs[:3]
                while inputs and not inputs[-1]:
                    inputs.pop()
        protos.append(helper.make_node(node.op_type, inputs, outputs, name=node.name,
                                       domain=node.domain or None))
        protos[-1].attribute.extend(make_attribute(k, v) for k, v in attrs.items())
        if act is not None:
            protos.extend(_activation_nodes(graph, act, outputs[0], node.outputs[0],
                                            f"{node.name}__act", opset, extra_inits))
    return protos


def export_onnx(graph: Graph, opset: int | None = None, with_value_info: bool = True,
                types_only_above: int | None = None) -> onnx.ModelProto:
    """A runnable ModelProto equivalent to ``graph`` (which must still be in ONNX vocabulary).

    ``types_only_above``: constants with more elements become typed graph inputs instead of
    initializers (for shape inference, which needs only the values of small shape tensors; a
    model with large weights then serializes in no time). The result is then not runnable as is.
    """
    opset = opset or graph.opset or DEFAULT_OPSET
    used: set[str] = set(graph.inputs) | set(graph.outputs)
    for node in graph.nodes:
        used.update(n for n in node.inputs if n)
    extra_inits: list[onnx.TensorProto] = []
    nodes = export_nodes(graph, graph.nodes, opset, extra_inits)
    initializers = []
    outputs = []
    for name in graph.outputs:
        tensor = graph.tensors[name]
        if tensor.is_constant and name not in graph.inputs:
            # An output that folded into a constant: an Identity keeps its name an output.
            source = f"{name}__const"
            initializers.append(numpy_helper.from_array(np.asarray(tensor.data), source))
            nodes.append(helper.make_node("Identity", [source], [name], name=f"{name}__identity"))
        outputs.append(value_info(tensor))
    inputs = [value_info(graph.tensors[name]) for name in graph.inputs]
    for name, tensor in graph.tensors.items():
        if tensor.is_constant and name in used and name not in graph.inputs and name not in graph.outputs:
            if types_only_above is not None and tensor.data.size > types_only_above:
                inputs.append(value_info(tensor))
            else:
                initializers.append(numpy_helper.from_array(np.asarray(tensor.data), name))
    initializers.extend(extra_inits)
    infos = []
    if with_value_info:
        io = set(graph.inputs) | set(graph.outputs)
        for node in graph.nodes:
            for name in node.outputs:
                tensor = graph.tensors.get(name)
                if name and name not in io and tensor is not None and tensor.dtype is not None \
                        and fused_activation.ATTR not in node.attrs and tensor.dtype != np.dtype(object):
                    infos.append(value_info(tensor))
    onnx_graph = helper.make_graph(nodes, "lite_ir", inputs, outputs, initializers, value_info=infos)
    domains = sorted({n.domain for n in graph.nodes if n.domain and n.domain != "ai.onnx"})
    imports = [helper.make_opsetid("", opset)] + [helper.make_opsetid(d, 1) for d in domains]
    model = helper.make_model(onnx_graph, opset_imports=imports, producer_name="lite_converter")
    model.ir_version = max(7, helper.find_min_ir_version_for(imports, ignore_unknown=True))
    for key, value in graph.metadata.items():
        entry = model.metadata_props.add()
        entry.key, entry.value = key, value
    return model
