"""The support check: before any work, tell the user everything that stops their model converting.

One ConversionError lists every unsupported op type (with counts and node names), every node whose
attributes or input forms a supported op cannot handle, and every tensor dtype .lite cannot store,
so a user fixes (or reports) all of it at once instead of one error per run. The list of supported
ops is the lowering table itself, plus the ops the frontend or optimize remove.
"""

from __future__ import annotations

import collections

import onnx

from lite_converter.ir import ConversionError, Graph
from lite_converter.passes.lowering import CHECKS, LOWERINGS
from lite_converter.passes.lowering.emitter import dtype_name
from lite_converter.refusal_report import grouped_lines

# Ops that never reach lowering: the ONNX frontend turns Constant nodes into constant tensors.
_REMOVED_BEFORE_LOWERING = {"Constant"}


def supported_op_types() -> list[str]:
    """ONNX op types (default domain) the converter claims to convert."""
    return sorted(set(LOWERINGS) | _REMOVED_BEFORE_LOWERING)


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
    lines = grouped_lines((f"unsupported op {op}", n) for op, names in unsupported.items() for n in names)
    lines += grouped_lines(_inside_subgraphs(graph))
    lines += attribute_problems
    bad_dtypes: dict[str, list[str]] = collections.defaultdict(list)
    for name, tensor in graph.tensors.items():
        if tensor.dtype is None:
            continue
        try:
            dtype_name(tensor.dtype)
        except ConversionError:
            bad_dtypes[str(tensor.dtype)].append(name)
    lines += grouped_lines(((f"unsupported dtype {dtype}", n) for dtype, names in bad_dtypes.items()
                            for n in names), "tensor")
    return lines


def _inside_subgraphs(graph: Graph) -> list[tuple[str, str]]:
    """(what, node) for the ops without a lowering inside the branches and bodies (If, Loop, Scan
    subgraphs, nested too) of every node, so that one refusal lists all of them."""
    known = set(supported_op_types())
    found: list[tuple[str, str]] = []

    def walk(subgraph: onnx.GraphProto, where: str) -> None:
        for index, inner in enumerate(subgraph.node):
            name = inner.name or (inner.output[0] if inner.output else f"node {index}")
            custom = inner.domain not in ("", "ai.onnx")
            if custom or inner.op_type not in known:
                op = f"{inner.domain}::{inner.op_type}" if custom else inner.op_type
                found.append((f"unsupported op {op} (inside {where})", name))
            for attr in inner.attribute:
                for body in ([attr.g] if attr.HasField("g") else []) + list(attr.graphs):
                    walk(body, f"{inner.op_type} '{name}' {attr.name}")

    for node in graph.nodes:
        for key, value in node.attrs.items():
            for body in value if isinstance(value, list) else [value]:
                if isinstance(body, onnx.GraphProto):
                    op = f"{node.domain}::{node.op_type}" if node.domain else node.op_type
                    walk(body, f"{op} '{node.name}' {key}")
    return found


def check_supported(graph: Graph) -> None:
    """Raises one ConversionError listing every reason the graph cannot be converted."""
    problems = find_problems(graph)
    if problems:
        raise ConversionError("the model uses features the converter does not support:\n  - "
                              + "\n  - ".join(problems))
