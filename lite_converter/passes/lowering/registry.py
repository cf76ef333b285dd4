"""Which ONNX op lowers how: the table lower_to_lite and check_supported both read.

Each op family module registers its ONNX op types with ``@lowers(...)``, giving the function that
rewrites one node and, optionally, a check that names attribute values or input forms it cannot
handle. Because support and lowering read the same table, the converter never claims an op it
cannot lower.
"""

from __future__ import annotations

from collections.abc import Callable

from lite_converter.ir import Graph, Node
from lite_converter.passes.lowering.conversion_time import known_at_prepare

# Rewrites one ONNX node into .lite nodes (returned in order); may add tensors to the graph.
LowerFn = Callable[[Graph, Node], list[Node]]
# Returns human-readable reasons why this node cannot be lowered (empty: it can).
CheckFn = Callable[[Graph, Node], list[str]]

LOWERINGS: dict[str, LowerFn] = {}
CHECKS: dict[str, CheckFn] = {}
# The inputs whose value the .lite op needs at prepare, per ONNX op type (``shape_inputs``).
SHAPE_INPUTS: dict[str, tuple[int, ...]] = {}


def lowers(*op_types: str, check: CheckFn | None = None,
           shape_inputs: tuple[int, ...] = ()) -> Callable[[LowerFn], LowerFn]:
    """Registers the decorated function as the lowering of ``op_types``.

    ``shape_inputs`` are the indices of inputs the .lite op needs a value for at prepare time
    (docs/OPS.md "Shape inputs"); a node whose such input depends on graph input data is refused.
    """
    def shape_input_check(graph: Graph, node: Node) -> list[str]:
        problems = [] if check is None else check(graph, node)
        for index in shape_inputs:
            name = node.inputs[index] if index < len(node.inputs) else ""
            if name and not known_at_prepare(graph, name):
                problems.append(f"input {index} ('{name}') is computed from graph input data, "
                                "but the .lite op needs its value before running (a shape input)")
        return problems

    def register(fn: LowerFn) -> LowerFn:
        for op_type in op_types:
            if op_type in LOWERINGS:
                raise ValueError(f"{op_type} is lowered twice")
            LOWERINGS[op_type] = fn
            SHAPE_INPUTS[op_type] = shape_inputs
            if check is not None or shape_inputs:
                CHECKS[op_type] = shape_input_check
        return fn

    return register
