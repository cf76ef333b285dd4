"""The converter's graph IR: every frontend produces it, every pass rewrites it, the writer reads it.

One IR for the whole pipeline, in two vocabularies:

* after a frontend, nodes carry ONNX op types and ONNX attributes (``op_type="Conv"``), so that
  ONNX-level passes (constant folding through ONNX's reference evaluator, Conv+BN folding) work
  the same whatever the source format was;
* after ``passes.lower_to_lite``, nodes carry ``.lite`` op codes (``op_type="CONV_2D"``) and
  attributes named exactly like the fields of the op's options table in ``runtime_arm/schema/lite.fbs``
  (see docs/OPS.md). The writer accepts only lowered graphs.

Shapes are lists whose entries are an ``int`` (static), a ``str`` (a symbolic dim kept from the
source model) or ``None`` (unknown); ``shape is None`` means even the rank is unknown.
"""

from __future__ import annotations

import dataclasses
import itertools
from collections.abc import Iterable, Iterator
from typing import Any

import numpy as np

Dim = int | str | None
# Value kinds, in the order of the .lite schema's ValueKind enum.
VALUE_KINDS = ("tensor", "sequence", "optional_tensor", "optional_sequence")


class ConversionError(Exception):
    """A conversion cannot go on; the message is meant for the user as it stands."""


@dataclasses.dataclass
class QuantParams:
    """Affine quantization of a tensor: real = scale * (q - zero_point); axis None = per tensor."""

    scale: np.ndarray
    zero_point: np.ndarray
    axis: int | None = None


@dataclasses.dataclass
class Tensor:
    """A value in the graph: a constant when ``data`` is set, otherwise an activation."""

    name: str
    dtype: np.dtype | None = None
    shape: list[Dim] | None = None
    data: np.ndarray | None = None
    quant: QuantParams | None = None
    # A variable (state kept across invokes): ``data`` is its initial value, which the runtime copies
    # into memory of its own; only ASSIGN_VARIABLE writes it, so it is never a constant.
    variable: bool = False
    # What the value is (docs/OPS.md, "Sequences and optionals"): one of VALUE_KINDS. For a
    # non-tensor kind ``dtype`` is its elements' and ``shape`` is None (each element has its own).
    kind: str = "tensor"

    @property
    def is_constant(self) -> bool:
        return self.data is not None and not self.variable

    @property
    def is_static(self) -> bool:
        return self.shape is not None and all(isinstance(d, int) and d >= 0 for d in self.shape)


@dataclasses.dataclass
class Node:
    """One operation. ``inputs`` may contain "" for an absent optional input."""

    op_type: str
    name: str
    inputs: list[str]
    outputs: list[str]
    attrs: dict[str, Any] = dataclasses.field(default_factory=dict)
    domain: str = ""


@dataclasses.dataclass
class Graph:
    """A whole model: tensors by name, nodes in topological order, graph inputs and outputs."""

    tensors: dict[str, Tensor] = dataclasses.field(default_factory=dict)
    nodes: list[Node] = dataclasses.field(default_factory=list)
    inputs: list[str] = dataclasses.field(default_factory=list)
    outputs: list[str] = dataclasses.field(default_factory=list)
    metadata: dict[str, str] = dataclasses.field(default_factory=dict)
    source_format: str = "onnx"
    opset: int = 0
    # How the user feeds / reads each graph input / output, e.g. "NCHW" ("" when not an image).
    input_layouts: dict[str, str] = dataclasses.field(default_factory=dict)
    output_layouts: dict[str, str] = dataclasses.field(default_factory=dict)
    # Control-flow bodies only: graph inputs whose values are known when the body is prepared (its
    # interpreter prepares again when they change), so they may feed shape inputs.
    value_inputs: list[str] = dataclasses.field(default_factory=list)
    _counter: Iterator[int] = dataclasses.field(default_factory=itertools.count, repr=False)

    # -- lookups --------------------------------------------------------------------------------
    def tensor(self, name: str) -> Tensor:
        """The tensor called ``name``, created empty on first use."""
        if name not in self.tensors:
            self.tensors[name] = Tensor(name)
        return self.tensors[name]

    def constant(self, name: str) -> np.ndarray | None:
        """The constant value of ``name``, or None for an activation or an absent input."""
        if not name or name not in self.tensors or self.tensors[name].variable:
            return None
        return self.tensors[name].data

    def producers(self) -> dict[str, Node]:
        """Map from tensor name to the node that writes it."""
        return {out: node for node in self.nodes for out in node.outputs if out}

    def consumers(self) -> dict[str, list[Node]]:
        """Map from tensor name to the nodes that read it (graph outputs are not nodes)."""
        result: dict[str, list[Node]] = {}
        for node in self.nodes:
            for name in node.inputs:
                if name:
                    result.setdefault(name, []).append(node)
        return result

    # -- edits ------------------------------------------------------------------------------------
    def unique_name(self, hint: str) -> str:
        """A tensor/node name not used yet, derived from ``hint``."""
        taken = set(self.tensors) | {n.name for n in self.nodes}
        name = hint
        while name in taken:
            name = f"{hint}__{next(self._counter)}"
        return name

    def add_constant(self, hint: str, value: np.ndarray) -> str:
        """Adds a constant tensor and returns its (unique) name."""
        name = self.unique_name(hint)
        value = np.asarray(value, order="C")  # (np.ascontiguousarray would turn a scalar into [1])
        self.tensors[name] = Tensor(name, value.dtype, list(value.shape), value)
        return name

    def add_tensor(self, hint: str, dtype: np.dtype | None, shape: list[Dim] | None) -> str:
        """Adds an activation tensor and returns its (unique) name."""
        name = self.unique_name(hint)
        self.tensors[name] = Tensor(name, None if dtype is None else np.dtype(dtype), shape)
        return name

    def replace_uses(self, old: str, new: str) -> None:
        """Makes every reader of ``old`` (nodes and graph outputs) read ``new`` instead."""
        for node in self.nodes:
            node.inputs = [new if name == old else name for name in node.inputs]
        self.outputs = [new if name == old else name for name in self.outputs]

    def toposort(self) -> None:
        """Orders nodes so every node comes after the producers of its inputs (stable)."""
        producers = self.producers()
        done: set[str] = set()
        ordered: list[Node] = []
        visiting: set[int] = set()

        def visit(node: Node) -> None:
            if id(node) in done_ids:
                return
            if id(node) in visiting:
                raise ConversionError(f"the graph has a cycle through node '{node.name}'")
            visiting.add(id(node))
            for name in node.inputs:
                if name and name in producers and name not in done:
                    visit(producers[name])
            visiting.discard(id(node))
            done_ids.add(id(node))
            done.update(o for o in node.outputs if o)
            ordered.append(node)

        done_ids: set[int] = set()
        for node in self.nodes:
            visit(node)
        self.nodes = ordered

    def remove_unused_tensors(self) -> None:
        """Drops tensors that no node, graph input or graph output refers to."""
        used: set[str] = set(self.inputs) | set(self.outputs)
        for node in self.nodes:
            used.update(n for n in itertools.chain(node.inputs, node.outputs) if n)
        self.tensors = {k: v for k, v in self.tensors.items() if k in used}

    def op_types(self) -> Iterable[str]:
        return (node.op_type for node in self.nodes)
