"""Helpers a lowering function uses to build the .lite nodes replacing one ONNX node."""

from __future__ import annotations

from typing import Any

import numpy as np

from lite_converter.frontends import fused_activation
from lite_converter.ir import ConversionError, Dim, Graph, Node

NO_ACTIVATION: dict[str, Any] = {"kind": "NONE", "alpha": 0.0, "beta": 0.0}


class Emitter:
    """Collects the replacement nodes of one source node.

    The node that writes one of the source's outputs keeps the source's name (errors and profiles
    then name the user's node); helper nodes get "<source>/<op>" names.
    """

    def __init__(self, graph: Graph, source: Node) -> None:
        self.graph = graph
        self.source = source
        self.nodes: list[Node] = []

    # -- tensors ----------------------------------------------------------------------------------
    def const(self, hint: str, value: np.ndarray | float | int | list[Any], dtype: Any = None) -> str:
        array = np.asarray(value, dtype=dtype)
        return self.graph.add_constant(f"{self.source.name}/{hint}", array)

    def tensor(self, hint: str, dtype: Any, shape: list[Dim] | None = None) -> str:
        return self.graph.add_tensor(f"{self.source.name}/{hint}", dtype, shape)

    def dtype(self, name: str) -> np.dtype:
        tensor = self.graph.tensors.get(name)
        if tensor is None or tensor.dtype is None:
            raise ConversionError(f"node '{self.source.name}': dtype of '{name}' is unknown")
        return np.dtype(tensor.dtype)

    def shape(self, name: str) -> list[Dim] | None:
        tensor = self.graph.tensors.get(name)
        return None if tensor is None else tensor.shape

    def rank(self, name: str) -> int | None:
        shape = self.shape(name)
        return None if shape is None else len(shape)

    def require_rank(self, name: str) -> int:
        rank = self.rank(name)
        if rank is None:
            raise ConversionError(f"node '{self.source.name}' ({self.source.op_type}): the rank of "
                                  f"'{name}' is unknown; give the input shapes (input_shapes=...)")
        return rank

    def constant(self, index: int) -> np.ndarray | None:
        """Value of the source's input ``index`` if constant (None when absent or an activation)."""
        inputs = self.source.inputs
        return self.graph.constant(inputs[index]) if index < len(inputs) and inputs[index] else None

    def require_constant(self, index: int, what: str) -> np.ndarray:
        value = self.constant(index)
        if value is None:
            raise ConversionError(f"node '{self.source.name}' ({self.source.op_type}): {what} must be a "
                                  "constant (or computable at conversion time)")
        return value

    def input(self, index: int) -> str:
        inputs = self.source.inputs
        return inputs[index] if index < len(inputs) else ""

    # -- nodes ------------------------------------------------------------------------------------
    def emit(self, op: str, inputs: list[str], outputs: list[str], **attrs: Any) -> Node:
        """Appends a node writing existing tensors ``outputs``."""
        if any(o in self.source.outputs for o in outputs if o) and \
                not any(n.name == self.source.name for n in self.nodes):
            name = self.source.name
        else:
            name = f"{self.source.name}/{op.lower()}_{len(self.nodes)}"
        while inputs and inputs[-1] == "":
            inputs = inputs[:-1]
        node = Node(op, name, list(inputs), list(outputs), dict(attrs))
        self.nodes.append(node)
        return node

    def op(self, op: str, inputs: list[str], dtype: Any, shape: list[Dim] | None = None, **attrs: Any) -> str:
        """Appends a node writing a new tensor and returns that tensor's name."""
        out = self.tensor(op.lower(), dtype, shape)
        self.emit(op, inputs, [out], **attrs)
        return out

    def as_int64(self, name: str) -> str:
        """``name`` as an int64 tensor (.lite shape inputs are int64; ONNX also allows int32)."""
        if not name or self.dtype(name) == np.int64:
            return name
        value = self.graph.constant(name)
        if value is not None:
            return self.const("i64", value.astype(np.int64))
        return self.op("CAST", [name], np.int64, self.shape(name), to="INT64")


def activation_of(node: Node) -> tuple[dict[str, Any], str]:
    """The .lite ``activation`` attribute of a node and its PRELU slope input ("" when none)."""
    value = node.attrs.get(fused_activation.ATTR)
    if value is None:
        return dict(NO_ACTIVATION), ""
    act = {"kind": value["kind"], "alpha": float(value["alpha"]), "beta": float(value["beta"])}
    return act, value.get("slope", "")


def attr_ints(node: Node, name: str, default: list[int]) -> list[int]:
    value = node.attrs.get(name)
    return default if value is None else [int(v) for v in value]


def normalize_axis(axis: int, rank: int | None, node: Node) -> int:
    """Axis in [0, rank) when the rank is known; else the axis as given (the runtime wraps it)."""
    if rank is None:
        return axis
    if not -rank <= axis < rank:
        raise ConversionError(f"node '{node.name}' ({node.op_type}): axis {axis} is out of range "
                              f"for rank {rank}")
    return axis % rank


_DTYPE_NAMES = {"float32": "FLOAT32", "float16": "FLOAT16", "float64": "FLOAT64", "int8": "INT8",
                "uint8": "UINT8", "int16": "INT16", "int32": "INT32", "int64": "INT64", "bool": "BOOL",
                "uint16": "UINT16", "uint32": "UINT32", "uint64": "UINT64"}


def dtype_name(dtype: Any) -> str:
    """The lite.fbs DType member name of a numpy dtype ("FLOAT32", ...)."""
    name = _DTYPE_NAMES.get(np.dtype(dtype).name) if dtype is not None else None
    if name is None:
        raise ConversionError(f"dtype {dtype} has no .lite DType")
    return name
