"""ONNX ``If`` whose condition is known at conversion: replaced by the branch it takes.

Exporters write an If where the Python code branched on a value the model then fixes: a sample
rate (Silero VAD's ``sr``), an opset-dependent path, a shape test. When the condition is computable
from constants (initializers, Constant nodes, inputs the user pins with ``input_values``, and the
shapes of inputs whose shape is fully known), the If is inlined: the taken branch's nodes and
initializers join the graph and Identity nodes carry its outputs to the If's outputs. Repeated
until no If folds, so nested Ifs in a taken branch fold too. An If whose condition depends on
input data stays, and the support check reports it (with the unsupported ops inside it).

Values are computed with ONNX's reference evaluator (onnx.reference), one node at a time, only
for the nodes an If condition depends on, and only on tensors of at most ``_MAX_ELEMENTS``.
"""

from __future__ import annotations

import warnings

import numpy as np
import onnx
from onnx import helper, numpy_helper
from onnx.reference import ReferenceEvaluator

from lite_converter.frontends.onnx_attributes import constant_node_value
from lite_converter.ir import ConversionError

_MAX_ELEMENTS = 1 << 16
_NOT_EVALUATED = {"If", "Loop", "Scan", "RandomNormal", "RandomUniform", "RandomNormalLike",
                  "RandomUniformLike", "Multinomial", "Bernoulli"}
_DEFAULT_DOMAINS = ("", "ai.onnx")


def pin_input_values(model: onnx.ModelProto, values: dict[str, np.ndarray]) -> None:
    """Turns the named graph inputs into initializers holding ``values`` (cast to the input's dtype;
    shape checked against the declared one), in place."""
    graph = model.graph
    initializers = {init.name for init in graph.initializer}
    inputs = {value.name: value for value in graph.input if value.name not in initializers}
    unknown = sorted(set(values) - set(inputs))
    if unknown:
        raise ConversionError(f"input_values names unknown graph input(s) {unknown}; the model's inputs are "
                              f"{sorted(inputs)}")
    for name, value in values.items():
        ttype = inputs[name].type.tensor_type
        dtype = helper.tensor_dtype_to_np_dtype(ttype.elem_type)
        array = np.asarray(value)
        if ttype.HasField("shape"):
            declared = [d.dim_value if d.HasField("dim_value") else None for d in ttype.shape.dim]
            if array.size == 1 and array.ndim != len(declared) and all(d in (None, 1) for d in declared):
                array = array.reshape([1] * len(declared))
            mismatch = array.ndim != len(declared) or any(
                d is not None and d != s for d, s in zip(declared, array.shape, strict=True))
            if mismatch:
                raise ConversionError(f"input_values['{name}'] has shape {list(array.shape)}, "
                                      f"the model's input "
                                      f"'{name}' is {['?' if d is None else d for d in declared]}")
        cast = array.astype(dtype)
        if cast.dtype.kind in "iub" and not np.array_equal(cast, array):
            raise ConversionError(f"input_values['{name}'] = {value!r} does not fit the input's "
                                  f"dtype {dtype}")
        graph.initializer.append(numpy_helper.from_array(cast, name))
        graph.input.remove(inputs[name])


class _Values:
    """Tensor values known at conversion, computed on demand."""

    def __init__(self, graph: onnx.GraphProto, opset: int) -> None:
        self.known: dict[str, np.ndarray] = {i.name: numpy_helper.to_array(i) for i in graph.initializer}
        self.producer: dict[str, onnx.NodeProto] = {}
        self.opset = opset
        for node in graph.node:
            if node.op_type == "Constant" and node.domain in _DEFAULT_DOMAINS:
                self.known[node.output[0]] = constant_node_value(node)
            for out in node.output:
                self.producer[out] = node
        self.shapes: dict[str, list[int]] = {}
        for value in graph.input:
            ttype = value.type.tensor_type
            dims = [d.dim_value if d.HasField("dim_value") else -1 for d in ttype.shape.dim]
            if ttype.HasField("shape") and all(d >= 0 for d in dims):
                self.shapes[value.name] = dims
        self.failed: set[str] = set()

    def get(self, name: str, depth: int = 0) -> np.ndarray | None:
        if name in self.known:
            return self.known[name]
        node = self.producer.get(name)
        if node is None or name in self.failed or depth > 200 or node.domain not in _DEFAULT_DOMAINS \
                or node.op_type in _NOT_EVALUATED:
            return None
        if node.op_type in ("Shape", "Size") and node.input[0] in self.shapes:
            inputs = [np.zeros(self.shapes[node.input[0]], np.float32)]
        else:
            inputs = [self.get(i, depth + 1) if i else None for i in node.input]
        if any(v is None for v, i in zip(inputs, node.input, strict=True) if i) or \
                any(v is not None and v.size > _MAX_ELEMENTS for v in inputs):
            self.failed.add(name)
            return None
        try:
            outputs = self._evaluate(node, inputs)
        except Exception:  # noqa: BLE001 - a node the reference cannot evaluate: its value stays unknown
            self.failed.add(name)
            return None
        for out, value in zip(node.output, outputs, strict=False):
            if out:
                self.known[out] = np.asarray(value)
        return self.known.get(name)

    def _evaluate(self, node: onnx.NodeProto, inputs: list[np.ndarray | None]) -> list[np.ndarray]:
        feeds = {f"in{k}": v for k, v in enumerate(inputs) if v is not None}
        names = [f"in{k}" if v is not None else "" for k, v in enumerate(inputs)]
        copy = onnx.NodeProto()
        copy.CopyFrom(node)
        del copy.input[:]
        copy.input.extend(names)
        del copy.output[:]
        copy.output.extend(f"out{k}" if o else "" for k, o in enumerate(node.output))
        graph = helper.make_graph(
            [copy], "fold",
            [helper.make_tensor_value_info(n, helper.np_dtype_to_tensor_dtype(v.dtype), v.shape)
             for n, v in feeds.items()],
            [helper.make_tensor_value_info(o, onnx.TensorProto.UNDEFINED, None) for o in copy.output if o])
        model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", self.opset)])
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return ReferenceEvaluator(model).run(None, feeds)


def _branch(node: onnx.NodeProto, cond: np.ndarray) -> tuple[str, onnx.GraphProto]:
    """The attribute name and graph of the branch the If takes."""
    if cond.size != 1:
        raise ConversionError(f"node '{node.name}' (If): the condition has {cond.size} values, not one")
    name = "then_branch" if bool(cond.reshape(-1)[0]) else "else_branch"
    return name, next(attr.g for attr in node.attribute if attr.name == name)


def fold_constant_ifs(model: onnx.ModelProto) -> int:
    """Inlines every If whose condition is known (in place); returns how many were folded."""
    opset = next((int(o.version) for o in model.opset_import if o.domain in _DEFAULT_DOMAINS), 1)
    folded = 0
    while True:
        graph = model.graph
        values = _Values(graph, opset)
        index = next((k for k, node in enumerate(graph.node)
                      if node.op_type == "If" and node.domain in _DEFAULT_DOMAINS
                      and values.get(node.input[0]) is not None), None)
        if index is None:
            return folded
        node = graph.node[index]
        branch_name, branch = _branch(node, values.get(node.input[0]))  # type: ignore[arg-type]
        if len(branch.output) != len(node.output):
            raise ConversionError(f"node '{node.name}' (If): the branch has {len(branch.output)} outputs, "
                                  f"the node {len(node.output)}")
        inlined = []
        for k, inner in enumerate(branch.node):  # named after the If, so errors point into the source model
            renamed = onnx.NodeProto()
            renamed.CopyFrom(inner)
            renamed.name = f"{node.name or 'If'}/{branch_name}/{inner.name or f'{inner.op_type}_{k}'}"
            inlined.append(renamed)
        for inner, outer in zip(branch.output, node.output, strict=True):
            if outer:
                inlined.append(helper.make_node("Identity", [inner.name], [outer],
                                                name=f"{node.name or 'If'}/{outer}"))
        graph.initializer.extend(branch.initializer)
        nodes = list(graph.node)
        del graph.node[:]
        graph.node.extend(nodes[:index] + inlined + nodes[index + 1:])
        folded += 1
