"""The op mapping's machinery: a registry of per-op functions and the context they write through.

Each Paddle op type is mapped by one function registered with ``@maps("conv2d", ...)``; it reads
the op (legacy form, see program.py) and emits ONNX-vocabulary nodes into the IR graph through a
``MapContext``, so the rest of the converter (folding, fusion, lowering, layout) is the one the
ONNX frontend uses. A function raises ``Unsupported`` for attribute values or input forms it
cannot express; the frontend collects those with the unknown op types and reports them together.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
from onnx import helper

from lite_converter.frontends.paddle.program import PaddleOp, PaddleProgram
from lite_converter.ir import Graph, Node

# The ONNX opset whose op semantics the emitted nodes follow (reduce axes and Split sizes as inputs,
# Gelu, GroupNormalization with per-channel scale).
OPSET = 21


class Unsupported(Exception):
    """An op this converter maps, used with an attribute value or input form it cannot express."""


MapFn = Callable[[PaddleOp, "MapContext"], None]
MAPPINGS: dict[str, MapFn] = {}


def maps(*op_types: str) -> Callable[[MapFn], MapFn]:
    """Registers the decorated function as the mapping of the legacy Paddle ``op_types``."""

    def register(fn: MapFn) -> MapFn:
        for op_type in op_types:
            if op_type in MAPPINGS:
                raise ValueError(f"Paddle op {op_type} is mapped twice")
            MAPPINGS[op_type] = fn
        return fn

    return register


class MapContext:
    """What a mapping function may read (program vars, constants) and write (nodes, tensors)."""

    def __init__(self, graph: Graph, program: PaddleProgram) -> None:
        self.graph = graph
        self.program = program
        self.op: PaddleOp | None = None
        self._node_names: set[str] = set()

    # -- reading ------------------------------------------------------------------------------------
    def shape(self, name: str) -> list[int] | None:
        """The declared shape of ``name`` (-1 for unknown dims), else the IR's when static."""
        var = self.program.vars.get(name)
        if var is not None and var.shape is not None:
            return list(var.shape)
        tensor = self.graph.tensors.get(name)
        if tensor is not None and tensor.shape is not None:
            return [d if isinstance(d, int) else -1 for d in tensor.shape]
        return None

    def rank(self, name: str) -> int:
        shape = self.shape(name)
        if shape is None:
            raise Unsupported(f"the rank of '{name}' is not declared in the program")
        return len(shape)

    def dtype(self, name: str) -> np.dtype:
        var = self.program.vars.get(name)
        if var is not None and var.dtype is not None:
            return var.dtype
        tensor = self.graph.tensors.get(name)
        if tensor is not None and tensor.dtype is not None:
            return tensor.dtype
        return np.dtype(np.float32)

    def constant(self, name: str | None) -> np.ndarray | None:
        return self.graph.constant(name) if name else None

    def require(self, op: PaddleOp, slot: str) -> str:
        name = op.input(slot)
        if name is None:
            raise Unsupported(f"input {slot} is missing")
        return name

    def out(self, op: PaddleOp, slot: str = "Out") -> str:
        name = op.output(slot)
        if name is None:
            raise Unsupported(f"output {slot} is missing")
        return name

    # -- writing ------------------------------------------------------------------------------------
    def temp(self, hint: str) -> str:
        """A new activation tensor name."""
        return self.graph.add_tensor(hint, None, None)

    def const(self, hint: str, value: Any, dtype: Any = None) -> str:
        """A new constant tensor (int64 unless ``dtype`` or the value says otherwise)."""
        if dtype is None and not isinstance(value, np.ndarray):
            dtype = np.int64 if np.asarray(value).dtype.kind in "iu" else None
        array = np.asarray(value, dtype=dtype)
        return self.graph.add_constant(hint, array)

    def ints(self, values: Sequence[int], hint: str = "ints") -> str:
        return self.const(hint, np.asarray(list(values), np.int64).reshape(-1))

    def emit(
        self, op_type: str, inputs: Sequence[str], outputs: Sequence[str] | str | None = None, **attrs: Any
    ) -> str:
        """Appends one ONNX-vocabulary node; returns its (first) output, made up when not given."""
        if outputs is None:
            outputs = [self.temp(f"{self.base_name()}_{op_type.lower()}")]
        elif isinstance(outputs, str):
            outputs = [outputs]
        base = self.base_name()
        name, counter = (base, 0) if base not in self._node_names else (f"{base}/{op_type}", 0)
        while name in self._node_names:
            counter += 1
            name = f"{base}/{op_type}_{counter}"
        self._node_names.add(name)
        node = Node(op_type, name, list(inputs), list(outputs), dict(attrs))
        self.graph.nodes.append(node)
        for output in outputs:
            if output:
                self.graph.tensor(output)
        return outputs[0]

    def base_name(self) -> str:
        if self.op is None:
            return "paddle"
        first = next((n for names in self.op.outputs.values() for n in names if n), self.op.type)
        return first

    # -- common shapes of emitted subgraphs -----------------------------------------------------------
    def cast(self, x: str, dtype: Any, output: str | None = None) -> str:
        return self.emit("Cast", [x], output, to=helper.np_dtype_to_tensor_dtype(np.dtype(dtype)))

    def as_int64(self, x: str) -> str:
        """``x`` as an int64 tensor (a constant converted now, else a Cast)."""
        value = self.constant(x)
        if value is not None:
            return self.const(f"{x}_i64", value.astype(np.int64))
        return x if self.dtype(x) == np.int64 else self.cast(x, np.int64)

    def as_vector(self, x: str) -> str:
        """``x`` reshaped to 1-D (Paddle's shape lists mix [1] and 0-D elements)."""
        value = self.constant(x)
        if value is not None:
            return self.const(f"{x}_vec", value.reshape(-1).astype(np.int64))
        return self.emit("Reshape", [self.as_int64(x), self.ints([-1])])

    def int_list(self, op: PaddleOp, tensor_slot: str, list_slot: str, attr: str) -> tuple[str | None, Any]:
        """An int list given as one tensor, a list of 1-element tensors, or an attribute.

        Returns (tensor name or None, attribute value): the tensor forms take precedence, as in
        Paddle; a tensor that is a constant is returned as its values instead.
        """
        names = [n for n in op.inputs.get(list_slot, []) if n]
        if names:
            values = [self.constant(n) for n in names]
            if all(v is not None for v in values):
                return None, [int(v.reshape(-1)[0]) for v in values]  # type: ignore[union-attr]
            return self.emit("Concat", [self.as_vector(n) for n in names], axis=0), None
        name = op.input(tensor_slot)
        if name is not None:
            value = self.constant(name)
            if value is not None:
                return None, [int(v) for v in value.reshape(-1)]
            return self.as_vector(name), None
        return None, op.attr(attr)


def positive_axis(axis: int, rank: int) -> int:
    if not -rank <= axis < max(rank, 1):
        raise Unsupported(f"axis {axis} is out of range for rank {rank}")
    return axis + rank if axis < 0 else axis


def pads_2d(paddings: Sequence[int]) -> list[int]:
    """Paddle's [ph, pw] or [top, bottom, left, right] as ONNX [top, left, bottom, right]."""
    p = [int(v) for v in paddings]
    if len(p) == 2:
        return [p[0], p[1], p[0], p[1]]
    if len(p) == 4:
        return [p[0], p[2], p[1], p[3]]
    raise Unsupported(f"paddings {p} must have 2 or 4 values")
