"""The op table of the IR -> torch executor: ONNX op type -> a function computing the node in torch.

Each function takes the node, its input values (``None`` for an absent optional input) and the
running :class:`~slim.torch_ir.module.GraphModule`, and returns the node's outputs (a tensor or a
list). Registering a function here is all it takes for a new op to run forward and backward.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

import torch

from lite_converter.ir import Node

if TYPE_CHECKING:
    from slim.torch_ir.module import GraphModule

Value = torch.Tensor | None
OpResult = torch.Tensor | Sequence[torch.Tensor]
OpFunction = Callable[[Node, list[Value], "GraphModule"], OpResult]

OPS: dict[str, OpFunction] = {}


def register(*op_types: str) -> Callable[[OpFunction], OpFunction]:
    """Decorator: the function computes every op type named."""

    def decorate(function: OpFunction) -> OpFunction:
        for op_type in op_types:
            OPS[op_type] = function
        return function

    return decorate


def ints(value: Value) -> list[int]:
    """A small integer tensor input (shape, axes, pads...) as python ints."""
    if value is None:
        return []
    return [int(v) for v in value.reshape(-1).tolist()]


def floats(value: Value) -> list[float]:
    if value is None:
        return []
    return [float(v) for v in value.reshape(-1).tolist()]


def optional(inputs: list[Value], index: int) -> Value:
    """Input ``index`` or None when the node has fewer inputs (or an empty name there)."""
    return inputs[index] if len(inputs) > index else None
