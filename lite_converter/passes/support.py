"""The support check: before any work, tell the user everything that stops their model converting.

One ConversionError lists every unsupported op type (with counts and node names), every node whose
attributes or input forms a supported op cannot handle, and every tensor dtype .lite cannot store,
so a user fixes (or reports) all of it at once instead of one error per run. The list of supported
ops is the lowering table itself, plus the ops the frontend or optimize remove.
"""

from __future__ import annotations

import collections

from lite_converter.ir import ConversionError, Graph
from lite_converter.passes.lowering import CHECKS, LOWERINGS
from lite_converter.passes.lowering.emitter import dtype_name

# Ops that never reach lowering: the ONNX frontend turns Constant nodes into constant tensors.
_REMOVED_BEFORE_LOWERING = {"Constant"}
_MAX_NAMES = 5


def supported_op_types() -> list[str]:
    """ONNX op types (default domain) the converter claims to convert."""
    return sorted(set(LOWERINGS) | _REMOVED_BEFORE_LOWERING)


def _names(names: list[str]) -> str:
    shown = ", ".join(f"'{n}'" for n in names[:_MAX_NAMES])
    return shown + (f" and {len(names) - _MAX_NAMES} more" if len(names) > _MAX_NAMES else "")


def find_problems(graph: Graph) -> list[str]:
    """Human-readable lines, one per problem; empty when the graph converts."""
    unsupported: dict[str, list[str]] = collections.defaultdict(list)
    attribute_problems: list[str] = []
    for node in graph.nodes:
        if node.domain or node.op_type not in LOWERINGS:
            op = f"{node.domain}::{node.op_type}" if node.domain else node.op_type
            unsupported[op].append(node.name)
            continue
        check = CHECKS.get(node.op_type)
        for reason in check(graph, node) if check else []:
            attribute_problems.append(f"node '{node.name}' ({node.op_type}): {reason}")
    lines = [f"unsupported op {op}: {len(names)} node(s) {_names(names)}"
             for op, names in sorted(unsupported.items())]
    lines += attribute_problems
    bad_dtypes: dict[str, list[str]] = collections.defaultdict(list)
    for name, tensor in graph.tensors.items():
        if tensor.dtype is None:
            continue
        try:
            dtype_name(tensor.dtype)
        except ConversionError:
            bad_dtypes[str(tensor.dtype)].append(name)
    lines += [f"unsupported dtype {dtype}: {len(names)} tensor(s) {_names(names)}"
              for dtype, names in sorted(bad_dtypes.items())]
    return lines


def check_supported(graph: Graph) -> None:
    """Raises one ConversionError listing every reason the graph cannot be converted."""
    problems = find_problems(graph)
    if problems:
        raise ConversionError("the model uses features the converter does not support:\n  - "
                              + "\n  - ".join(problems))
