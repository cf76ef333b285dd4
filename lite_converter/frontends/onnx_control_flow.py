"""ONNX If / Loop / Scan kept as control flow: their bodies become subgraphs of the .lite model.

An ONNX body reads values of the enclosing graph by name (outer scope). The .lite format has no
scopes: each body is a graph of its own. So the frontend makes those reads explicit
(:func:`capture_outer_values`): every outer name a body reads (its nested bodies included) is
appended to the node's inputs, in order, and listed in the node's ``captured_names`` attr. Passes that
rename a tensor then rename the node's input too, and dead-code elimination keeps what a body reads.

:func:`body_model` turns one body into a standalone ModelProto whose graph inputs are the body's own
(ONNX's formal inputs: none for If, iteration / condition / carried values for Loop, state and scan
slices for Scan) followed by the captured values, typed from the enclosing graph; the converter
then converts it like any model (convert.py) and the lowering emits IF / LOOP / SCAN with the
converted graphs as their subgraphs (passes/lowering/control_flow.py).
"""

from __future__ import annotations

import numpy as np
import onnx
from onnx import helper, numpy_helper

from lite_converter.frontends.sequence_kinds import kind_from_type, kind_type
from lite_converter.ir import ConversionError, Dim, Graph, Node

# Attributes holding the bodies of each control-flow op, in the order the .lite op lists them.
BODY_ATTRS: dict[str, tuple[str, ...]] = {"If": ("then_branch", "else_branch"), "Loop": ("body",),
                                          "Scan": ("body",)}
CAPTURED = "captured_names"


def _defined_and_read(body: onnx.GraphProto) -> tuple[set[str], list[str]]:
    """Names a body defines (inputs, initializers, node outputs) and the names it reads, nested bodies
    included (in order of first read)."""
    defined = {v.name for v in body.input} | {t.name for t in body.initializer}
    defined |= {t.values.name for t in body.sparse_initializer}
    read: list[str] = []
    for node in body.node:
        read.extend(n for n in node.input if n)
        for attr in node.attribute:
            for inner in ([attr.g] if attr.HasField("g") else []) + list(attr.graphs):
                inner_defined, inner_read = _defined_and_read(inner)
                read.extend(n for n in inner_read if n not in inner_defined)
        defined.update(n for n in node.output if n)
    read.extend(v.name for v in body.output)
    return defined, read


def outer_names(body: onnx.GraphProto) -> list[str]:
    """The names ``body`` reads from its enclosing scopes, each once, in order of first read."""
    defined, read = _defined_and_read(body)
    return list(dict.fromkeys(n for n in read if n not in defined))


def capture_outer_values(graph: Graph) -> None:
    """Appends every outer value a control-flow node's bodies read to its inputs (``captured_names``)."""
    for node in graph.nodes:
        attrs = BODY_ATTRS.get(node.op_type) if not node.domain else None
        if not attrs or CAPTURED in node.attrs:
            continue
        names: list[str] = []
        for attr in attrs:
            body = node.attrs.get(attr)
            if isinstance(body, onnx.GraphProto):
                names.extend(n for n in outer_names(body) if n not in names)
        missing = [n for n in names if n not in graph.tensors]
        if missing:
            raise ConversionError(f"node '{node.name}' ({node.op_type}): its body reads "
                                  f"{', '.join(missing)}, which no enclosing graph defines")
        node.inputs = [*node.inputs, *names]
        node.attrs[CAPTURED] = names


def scan_is_batched(graph: Graph, node: Node) -> int:
    """1 for a Scan of opset 8 (sequence_lens first, a batch axis on every input and output), else 0."""
    return int(node.op_type == "Scan" and 0 < graph.opset < 9)


def formal_input_count(node: Node) -> int:
    """How many of the node's inputs are ONNX's own (the rest are captured outer values)."""
    return len(node.inputs) - len(node.attrs.get(CAPTURED, []))


def _value_info(name: str, dtype: np.dtype | None, shape: list[Dim] | None,
                kind: str = "tensor") -> onnx.ValueInfoProto:
    elem = helper.np_dtype_to_tensor_dtype(np.dtype(dtype)) if dtype is not None else onnx.TensorProto.FLOAT
    if kind != "tensor":  # a sequence or optional (ir.Tensor.kind)
        return helper.make_value_info(name, kind_type(kind, elem))
    dims = None if shape is None else [d if isinstance(d, int) and d >= 0 else f"{name}_d{i}"
                                       for i, d in enumerate(shape)]
    return helper.make_tensor_value_info(name, elem, dims)


def _dynamic(shape: list[Dim] | None) -> list[Dim] | None:
    return None if shape is None else [None] * len(shape)


def _formal_inputs(graph: Graph, node: Node, body: onnx.GraphProto) -> list[onnx.ValueInfoProto]:
    """The body's own inputs, typed: Loop and Scan values may change shape between iterations, so only
    their rank is fixed (from the value first fed in); a body's declared element type wins."""
    formal = formal_input_count(node)
    outer = [graph.tensors.get(n) if n else None for n in node.inputs[:formal]]
    infos: list[onnx.ValueInfoProto] = []
    for position, declared in enumerate(body.input):
        if node.op_type == "Loop" and position < 2:
            dtype, shape = (np.int64, []) if position == 0 else (np.bool_, [])
        elif node.op_type == "Loop":
            source = outer[position] if position < len(outer) else None
            dtype, shape = (source.dtype, _dynamic(source.shape)) if source is not None else (None, None)
        else:  # Scan: states, then one slice of each scan input
            # Scan-8 has sequence_lens first and a batch axis on every input (scan inputs: [B, T, ...]).
            batched = scan_is_batched(graph, node)
            num_scan = int(node.attrs.get("num_scan_inputs", 0))
            source = outer[position + batched] if position + batched < len(outer) else None
            shape = _dynamic(source.shape) if source is not None else None
            if shape is not None:
                shape = shape[batched + (position >= formal - batched - num_scan):]
            dtype = source.dtype if source is not None else None
        elem = declared.type.tensor_type.elem_type
        if elem:
            dtype = helper.tensor_dtype_to_np_dtype(elem)
        kind = source.kind if node.op_type == "Loop" and position >= 2 and source is not None else "tensor"
        declared_kind, declared_dtype = kind_from_type(declared.type)
        if declared_kind not in ("", "tensor"):
            kind, dtype = declared_kind, declared_dtype or dtype
        infos.append(_value_info(declared.name, dtype, shape, kind))
    return infos


def take_constant_captures(graph: Graph, node: Node) -> dict[str, np.ndarray]:
    """Removes the captured values that are constants (by now) from the node's inputs; returns them by
    the name the bodies use, for :func:`body_model` to give the bodies as their own initializers (so
    a body's shape inputs read from outer constants stay known at conversion)."""
    captured = node.attrs.get(CAPTURED, [])
    formal = formal_input_count(node)
    kept_names, kept_values, constants = [], [], {}
    for name, value in zip(captured, node.inputs[formal:], strict=True):
        data = graph.constant(value)
        if data is not None:
            constants[name] = data
        else:
            kept_names.append(name)
            kept_values.append(value)
    node.inputs = [*node.inputs[:formal], *kept_values]
    node.attrs[CAPTURED] = kept_names
    return constants


def loop_invariant_constants(graph: Graph, node: Node) -> dict[str, np.ndarray]:
    """A Loop's carried values (a Scan's states) that its body passes through unchanged (body output
    = body input) and whose initial value is a constant, by the body's input name. paddle2onnx exports
    a decoder's weights that way (SLANet's attention GRU: 15 of its 23 carried values): read as
    inputs, the body's MatMuls would pack their weights at every iteration and its weight Transposes
    run each time."""
    if node.op_type not in ("Loop", "Scan") or not isinstance(node.attrs.get("body"), onnx.GraphProto):
        return {}
    body = node.attrs["body"]
    if node.op_type == "Loop":  # (trip count, condition, carried...) -> body (iteration, cond, carried...)
        first_outer, first_in, first_out = 2, 2, 1
        count = max(formal_input_count(node) - 2, 0)
    else:  # (sequence_lens for opset 8, states..., scan inputs...) -> body (states..., slices...)
        first_outer, first_in, first_out = scan_is_batched(graph, node), 0, 0
        count = formal_input_count(node) - first_outer - int(node.attrs.get("num_scan_inputs", 0))
        if first_outer:  # opset 8's states carry a batch axis the body does not see
            return {}
    invariant = {}
    for k in range(min(count, len(body.input) - first_in, len(body.output) - first_out,
                       formal_input_count(node) - first_outer)):
        name = body.input[first_in + k].name
        outer = node.inputs[first_outer + k]
        value = graph.constant(outer) if outer else None
        if value is not None and body.output[first_out + k].name == name:
            invariant[name] = value
    return invariant


def rename_uses(body: onnx.GraphProto, old: str, new: str) -> None:
    """Every node input ``old`` of ``body`` and of the graphs nested in it becomes ``new``."""
    for node in body.node:
        for i, name in enumerate(node.input):
            if name == old:
                node.input[i] = new
        for attribute in node.attribute:
            for nested in [attribute.g] if attribute.HasField("g") else list(attribute.graphs):
                rename_uses(nested, old, new)


def body_model(graph: Graph, node: Node, attr: str, constants: dict[str, np.ndarray] | None = None,
               invariants: dict[str, np.ndarray] | None = None) -> onnx.ModelProto:
    """The body ``attr`` of ``node`` as a standalone model: formal inputs, then the captured values;
    ``constants`` (outer constants it reads) become its initializers, and so do ``invariants``
    (:func:`loop_invariant_constants`), read by the body's nodes under a name of their own while the
    carried input still passes through to its output."""
    body = onnx.GraphProto()
    body.CopyFrom(node.attrs[attr])
    for name, value in (invariants or {}).items():
        alias = f"{name}__loop_invariant"
        rename_uses(body, name, alias)
        body.initializer.append(numpy_helper.from_array(np.asarray(value), alias))
    if node.op_type == "Loop":  # carried values may change shape between iterations: only ranks hold
        for output in body.output[1:1 + max(formal_input_count(node) - 2, 0)]:
            for dim in output.type.tensor_type.shape.dim:
                dim.Clear()
    for name, value in (constants or {}).items():
        body.initializer.append(numpy_helper.from_array(np.asarray(value), name))
    captured = node.attrs.get(CAPTURED, [])
    values = node.inputs[formal_input_count(node):]
    inputs = _formal_inputs(graph, node, body)
    for name, value in zip(captured, values, strict=True):
        tensor = graph.tensors[value]
        inputs.append(_value_info(name, tensor.dtype, tensor.shape, tensor.kind))
    del body.input[:]
    body.input.extend(inputs)
    if not body.node:
        # A body that only passes values through: one Identity per output keeps the graph non-empty.
        for output in body.output:
            source = output.name
            output.name = f"{source}__{attr}_out"
            body.node.append(helper.make_node("Identity", [source], [output.name], name=output.name))
    opset = graph.opset or 17
    model = helper.make_model(body, opset_imports=[helper.make_opsetid("", opset)],
                              producer_name="lite_converter body")
    model.ir_version = max(7, helper.find_min_ir_version_for([helper.make_opsetid("", opset)],
                                                             ignore_unknown=True))
    return model
