"""The support check: before any work, tell the user everything that stops their model converting.

One ConversionError lists every unsupported op type (with counts and node names), every node whose
attributes or input forms a supported op cannot handle, and every tensor dtype .lite cannot store,
so a user fixes (or reports) all of it at once instead of one error per run. The list of supported
ops is the lowering table itself, plus the ops the frontend or optimize remove.
"""

from __future__ import annotations

import collections
from collections.abc import Iterator

import onnx

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


def _subgraph_nodes(owner: str, attrs: dict) -> Iterator[tuple[str, str]]:
    """(op type, path name) of every node inside a node's subgraphs (If branches, Loop / Scan bodies),
    nested ones included: they are as unsupported as the node itself and the user should see them."""
    for attr, value in attrs.items():
        graphs = value if isinstance(value, list) else [value]
        for sub in graphs:
            if not isinstance(sub, onnx.GraphProto):
                continue
            for index, inner in enumerate(sub.node):
                path = f"{owner}/{attr}/{inner.name or f'{inner.op_type}_{index}'}"
                domain = "" if inner.domain in ("", "ai.onnx") else inner.domain
                yield (f"{domain}::{inner.op_type}" if domain else inner.op_type), path
                yield from _subgraph_nodes(path, {a.name: (a.g if a.HasField("g") else list(a.graphs))
                                                  for a in inner.attribute if a.HasField("g") or a.graphs})


def find_problems(graph: Graph) -> list[str]:
    """Human-readable lines, one per problem; empty when the graph converts."""
    unsupported: dict[str, list[str]] = collections.defaultdict(list)
    attribute_problems: list[str] = []
    for node in graph.nodes:
        if node.domain or node.op_type not in LOWERINGS:
            op = f"{node.domain}::{node.op_type}" if node.domain else node.op_type
            unsupported[op].append(node.name)
            if op == "If":
                attribute_problems.append(
                    f"node '{node.name}' (If): its condition '{node.inputs[0]}' depends on graph input data; "
                    "an If converts only when the condition is known at conversion (pin inputs with "
                    "input_values, `lite convert --input-value NAME=VALUE`)")
            for inner_op, path in _subgraph_nodes(node.name, node.attrs):
                if inner_op not in LOWERINGS and inner_op not in _REMOVED_BEFORE_LOWERING:
                    unsupported[inner_op].append(path)
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
