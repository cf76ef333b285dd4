"""Constant folding: nodes whose inputs are all known are evaluated once, at conversion time.

Values come from ONNX's reference evaluator on a one-node model at the graph's opset, so every op
and opset variant folds with ONNX's own semantics. Shape reads fold as soon as the dims they read
are static, even when other dims of the same tensor are dynamic (``Shape(x)[1]`` of an
``[N, 3, H, W]`` input is 3). Not folded: random ops, nodes writing graph outputs (the runtime
reports those), and results above ``MAX_FOLDED_ELEMENTS`` (a ConstantOfShape/Expand/Tile blow-up
would bloat the file instead of saving work).
"""

from __future__ import annotations

import math
import warnings

import numpy as np
import onnx
from onnx import helper
from onnx.reference import ReferenceEvaluator

from lite_converter.frontends.onnx_export import make_attribute
from lite_converter.ir import Dim, Graph, Node

MAX_FOLDED_ELEMENTS = 4 * 1024 * 1024

_NEVER_FOLD = {"RandomNormal", "RandomUniform", "RandomNormalLike", "RandomUniformLike", "Bernoulli",
               "Multinomial", "If", "Loop", "Scan", "SequenceEmpty", "Dropout",
               # sequences and optionals stay values of their own kind (lowering/sequences.py)
               "SequenceConstruct", "SequenceInsert", "SequenceAt", "SequenceErase", "SequenceLength",
               "ConcatFromSequence", "SplitToSequence", "Optional", "OptionalHasElement",
               "OptionalGetElement"}
# Ops whose output can be far larger than their inputs: check the size before evaluating.
_GROWING_OPS = {"ConstantOfShape", "Expand", "Tile", "Range", "OneHot", "EyeLike", "Resize", "Upsample",
                "Pad"}


def evaluate_node(graph: Graph, node: Node) -> list[np.ndarray]:
    """Runs one node on its constant inputs with ONNX's reference evaluator."""
    inputs, feeds = [], {}
    for index, name in enumerate(node.inputs):
        if not name:
            continue
        value = np.asarray(graph.constant(name))
        feed_name = f"in{index}"
        feeds[feed_name] = value
        inputs.append(helper.make_tensor_value_info(feed_name, _elem_type(value), list(value.shape)))
    proto = helper.make_node(node.op_type, [f"in{i}" if n else "" for i, n in enumerate(node.inputs)],
                             [f"out{i}" if n else "" for i, n in enumerate(node.outputs)], domain=node.domain)
    proto.attribute.extend(make_attribute(k, v) for k, v in node.attrs.items())
    outputs = [helper.make_tensor_value_info(f"out{i}", onnx.TensorProto.UNDEFINED, None)
               for i, n in enumerate(node.outputs) if n]
    model = helper.make_model(helper.make_graph([proto], "fold", inputs, outputs),
                              opset_imports=[helper.make_opsetid(node.domain, graph.opset)])
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        results = ReferenceEvaluator(model).run(None, feeds)
    return [np.asarray(r) for r in results]


def _elem_type(value: np.ndarray) -> int:
    if value.dtype == np.dtype(object):
        return onnx.TensorProto.STRING
    return helper.np_dtype_to_tensor_dtype(value.dtype)


def _static_size(shape: list[Dim] | None) -> int | None:
    if shape is None or not all(isinstance(d, int) for d in shape):
        return None
    return math.prod(shape)  # type: ignore[arg-type]


def _would_be_huge(graph: Graph, node: Node) -> bool:
    """True when the folded output would exceed MAX_FOLDED_ELEMENTS (or cannot be bounded cheaply)."""
    for name in node.outputs:
        size = _static_size(graph.tensors[name].shape) if name in graph.tensors else None
        if size is not None and size > MAX_FOLDED_ELEMENTS:
            return True
    if node.op_type not in _GROWING_OPS:
        return False
    first = graph.constant(node.inputs[0])
    if node.op_type == "ConstantOfShape":
        return math.prod(int(d) for d in first.reshape(-1)) > MAX_FOLDED_ELEMENTS
    if node.op_type == "Expand":
        target = [int(d) for d in graph.constant(node.inputs[1]).reshape(-1)]
        rank = max(len(target), first.ndim)
        dims = [1] * (rank - first.ndim) + list(first.shape)
        target = [1] * (rank - len(target)) + target
        return math.prod(max(a, b) for a, b in zip(dims, target, strict=True)) > MAX_FOLDED_ELEMENTS
    if node.op_type == "Tile":
        return first.size * math.prod(int(r) for r in graph.constant(node.inputs[1]).reshape(-1)) \
            > MAX_FOLDED_ELEMENTS
    if node.op_type == "Range":
        start, limit, delta = (float(graph.constant(n).reshape(-1)[0]) for n in node.inputs[:3])
        return delta == 0 or math.ceil((limit - start) / delta) > MAX_FOLDED_ELEMENTS
    return False  # Resize/Pad/OneHot/EyeLike: the evaluated result is size-checked afterwards


def shape_dims(graph: Graph, name: str, producers: dict[str, Node]) -> list[Dim] | None:
    """The value of a 1-D shape tensor as dims (static ones as int), known even when partly dynamic."""
    value = graph.constant(name)
    if value is not None:
        return [int(v) for v in value.reshape(-1)] if value.ndim <= 1 and value.dtype.kind in "iu" else None
    node = producers.get(name)
    if node is None or node.op_type != "Shape":
        return None
    shape = graph.tensors[node.inputs[0]].shape
    if shape is None:
        return None
    rank = len(shape)
    start = node.attrs.get("start", 0)
    end = node.attrs.get("end", rank)
    start, end = (max(0, min(rank, v + rank if v < 0 else v)) for v in (start, end))
    return [d if isinstance(d, int) else None for d in shape[start:end]]


def _fold_shape_read(graph: Graph, node: Node, producers: dict[str, Node]) -> np.ndarray | None:
    """Value of Shape/Size/Gather(shape)/Slice(shape) when only static dims are read, else None."""
    op = node.op_type
    if op not in ("Shape", "Size") and not (op in ("Gather", "Slice") and node.inputs[0] in producers):
        return None
    if op == "Size":
        size = _static_size(graph.tensors[node.inputs[0]].shape)
        return None if size is None else np.array(size, dtype=np.int64)
    if op == "Shape":
        dims = shape_dims(graph, node.outputs[0], {node.outputs[0]: node})
        return np.array(dims, dtype=np.int64) if dims is not None and None not in dims else None
    dims = shape_dims(graph, node.inputs[0], producers)
    if dims is None or producers[node.inputs[0]].op_type != "Shape":
        return None
    rest = [graph.constant(n) for n in node.inputs[1:] if n]
    if any(v is None for v in rest):
        return None
    if op == "Gather":
        if node.attrs.get("axis", 0) != 0:
            return None
        indices = rest[0].astype(np.int64)
        picked = np.array(dims, dtype=object)[indices]
        if any(d is None for d in np.asarray(picked).reshape(-1)):
            return None
        return np.asarray(picked).astype(np.int64)
    if "starts" in node.attrs:  # Slice-1: attributes
        starts, ends = node.attrs["starts"], node.attrs["ends"]
        axes, steps = node.attrs.get("axes", [0]), [1]
    else:
        starts, ends = [int(v) for v in rest[0]], [int(v) for v in rest[1]]
        axes = [int(v) for v in rest[2]] if len(rest) > 2 else [0]
        steps = [int(v) for v in rest[3]] if len(rest) > 3 else [1]
    if list(axes) not in ([0], [-1]) or len(starts) != 1:
        return None
    picked_list = dims[slice(starts[0], ends[0], steps[0])]
    if any(d is None for d in picked_list):
        return None
    return np.array(picked_list, dtype=np.int64)


def _set_constant(graph: Graph, name: str, value: np.ndarray) -> None:
    tensor = graph.tensors[name]
    if tensor.dtype is not None and tensor.dtype != value.dtype and value.dtype != np.dtype(object):
        value = value.astype(tensor.dtype)
    value = np.asarray(value, order="C")  # ascontiguousarray would make a scalar [1]
    tensor.data, tensor.dtype, tensor.shape = value, value.dtype, list(value.shape)


def fold_constants(graph: Graph) -> bool:
    """Folds every foldable node in one topological sweep; True when anything changed."""
    producers = graph.producers()
    outputs = set(graph.outputs)
    kept: list[Node] = []
    changed = False
    for node in graph.nodes:
        if node.op_type in _NEVER_FOLD or outputs.intersection(node.outputs):
            kept.append(node)
            continue
        values: list[np.ndarray] | None = None
        shape_value = _fold_shape_read(graph, node, producers)
        if shape_value is not None:
            values = [shape_value]
        elif all(graph.constant(n) is not None for n in node.inputs if n) and not _would_be_huge(graph, node):
            try:
                values = evaluate_node(graph, node)
            except Exception:  # noqa: BLE001 - an op the evaluator cannot run stays a node
                values = None
        if values is None or any(v.size > MAX_FOLDED_ELEMENTS for v in values):
            kept.append(node)
            continue
        for name, value in zip([n for n in node.outputs if n], values, strict=False):
            _set_constant(graph, name, value)
        changed = True
    graph.nodes = kept
    return changed

