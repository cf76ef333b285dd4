"""What a .tflite refusal says: unknown ops grouped by type (custom ops by their code), per subgraph,
and why subgraphs that the main graph runs through control flow are not imported.

TFLite operators have no names: an operator is named by its first output tensor, as LiteRT's own
error messages and Netron do.
"""

from __future__ import annotations

import re
from typing import Any

from lite_converter.frontends.tflite_op_table import CONVERTERS
from lite_converter.refusal_report import grouped_lines


def opcode_name(model: Any, operator: Any, op_names: dict[int, str]) -> str:  # noqa: ANN401
    """The builtin's name ("CONV_2D"), or "CUSTOM:<code>" for a custom op."""
    if not 0 <= operator.opcodeIndex < len(model.operatorCodes or []):
        return f"opcode index {operator.opcodeIndex}"
    code = model.operatorCodes[operator.opcodeIndex]
    builtin = max(int(code.builtinCode), int(code.deprecatedBuiltinCode))
    name = op_names.get(builtin, f"builtin {builtin}")
    if name == "CUSTOM":
        custom = code.customCode.decode(errors="replace") if code.customCode else "?"
        return f"CUSTOM:{custom}"
    return name


def _op_label(opcode: str) -> str:
    return f"custom op {opcode[7:]}" if opcode.startswith("CUSTOM:") else f"op {opcode}"


def _tensor_name(subgraph: Any, index: int) -> str:  # noqa: ANN401
    tensors = subgraph.tensors or []
    if not 0 <= index < len(tensors):
        return f"tensor {index}"
    raw = tensors[index].name
    return (raw.decode(errors="replace") if isinstance(raw, bytes) else str(raw or "")) or f"tensor {index}"


def unknown_op_lines(model: Any, index: int, op_names: dict[int, str]) -> list[str]:  # noqa: ANN401
    """One line per op type of subgraph ``index`` that has no import, with a count and output names."""
    subgraph = model.subgraphs[index]
    where = f" (in subgraph {index} '{_subgraph_name(subgraph)}')" if index else ""
    pairs = []
    for position, operator in enumerate(subgraph.operators or []):
        opcode = opcode_name(model, operator, op_names)
        if opcode not in CONVERTERS:
            outputs = [int(i) for i in (operator.outputs if operator.outputs is not None else [])]
            name = _tensor_name(subgraph, outputs[0]) if outputs else f"operator {position}"
            pairs.append((f"unsupported {_op_label(opcode)}{where}", name))
    return grouped_lines(pairs)


def _subgraph_name(subgraph: Any) -> str:  # noqa: ANN401
    raw = subgraph.name
    return (raw.decode(errors="replace") if isinstance(raw, bytes) else str(raw or "")) or "unnamed"


# Control-flow ops whose subgraphs are imported (tflite_ops_control_flow.py).
IMPORTED_CONTROL_FLOW = ("IF", "WHILE")


def _called_subgraphs(operator: Any) -> list[int]:  # noqa: ANN401
    """Subgraph indices an operator's options name (IF, WHILE, CALL_ONCE, CALL, composites)."""
    options = operator.builtinOptions
    if options is None:
        return []
    return [
        int(value)
        for key, value in vars(options).items()
        if (key.endswith("SubgraphIndex") or key == "subgraph") and isinstance(value, int)
    ]


def subgraph_problems(model: Any, op_names: dict[int, str]) -> list[str]:  # noqa: ANN401
    """Why the subgraphs the main graph runs (through control flow) are not imported, and every op
    of theirs that has no import either; [] when subgraph 0 runs no other (extra subgraphs that
    nothing runs are left out, as LiteRT's interpreter leaves them)."""
    subgraphs = model.subgraphs
    lines: list[str] = []
    seen, todo = {0}, [0]
    while todo:
        caller = todo.pop()
        for operator in subgraphs[caller].operators or []:
            opcode = opcode_name(model, operator, op_names)
            if opcode == "CALL_ONCE":
                continue  # evaluated at conversion by tflite_variables.py, which reports its own problems
            for index in _called_subgraphs(operator):
                if not 0 <= index < len(subgraphs):
                    lines.append(
                        f"{opcode} in subgraph {caller} names subgraph {index}, which does not exist "
                        f"({len(subgraphs)} subgraphs)"
                    )
                    continue
                if opcode in IMPORTED_CONTROL_FLOW:
                    continue  # imported as a body (its own problems are reported when it is built)
                lines.append(
                    f"subgraph {index} '{_subgraph_name(subgraphs[index])}' is run by {opcode} in "
                    f"subgraph {caller}: .lite imports one graph, and control flow (IF, WHILE, "
                    "CALL) between subgraphs is not imported"
                )
                if index not in seen:
                    seen.add(index)
                    todo.append(index)
    for index in sorted(seen - {0}):
        lines += unknown_op_lines(model, index, op_names)
    return lines


def group_node_problems(problems: list[str]) -> list[str]:
    """The problems, with "op writing 'NAME': REASON" lines of one REASON merged into one line."""
    other, pairs = [], []
    for line in problems:
        match = _NODE_PROBLEM.match(line)
        if match:
            pairs.append((match.group(2), match.group(1)))
        else:
            other.append(line)
    return other + grouped_lines(pairs)


_NODE_PROBLEM = re.compile(r"^op writing '(.*?)': (.*)$", re.S)
