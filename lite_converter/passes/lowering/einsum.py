"""Einsum, for the equations that are one .lite op: a transpose and/or sum of one operand, and
matrix products (batched, matrix-vector, inner product). Anything else (diagonals, ellipsis,
outer products, several contracted indices) is refused by the support check."""

from __future__ import annotations

from lite_converter.ir import Graph, Node
from lite_converter.passes.lowering.emitter import NO_ACTIVATION, Emitter
from lite_converter.passes.lowering.registry import lowers


def parse(equation: str) -> tuple[list[str], str] | None:
    """(operand subscripts, output subscripts) of an equation without ellipsis, else None."""
    equation = equation.replace(" ", "")
    if "." in equation:
        return None
    if "->" in equation:
        left, output = equation.split("->")
    else:  # implicit output: the indices that appear once, in alphabetical order
        left = equation
        output = "".join(sorted(c for c in set(left.replace(",", "")) if left.count(c) == 1))
    operands = left.split(",")
    if any(len(set(term)) != len(term) for term in [*operands, output]):
        return None  # repeated index: a diagonal
    return operands, output


def _matmul_form(a: str, b: str, out: str) -> bool:
    """True when out = a @ b in numpy matmul terms (batch dims first, one contracted index)."""
    if len(a) == 1 and len(b) == 1:
        return a == b and out == ""
    if len(b) == 1:  # matrix-vector: ...mk, k -> ...m
        return a[-1] == b and out == a[:-1]
    if len(a) == 1:  # vector-matrix: k, ...kn -> ...n
        return b[-2] == a and out == b[:-2] + b[-1]
    batch = a[:-2]
    return (b[:-2] == batch and a[-1] == b[-2] and out == batch + a[-2] + b[-1]
            and len({a[-2], a[-1], b[-1]}) == 3)


def _single_operand(term: str, out: str) -> bool:
    return set(out) <= set(term)


def _check_einsum(graph: Graph, node: Node) -> list[str]:
    parsed = parse(str(node.attrs.get("equation", "")))
    if parsed is not None:
        operands, out = parsed
        if len(operands) == 1 and _single_operand(operands[0], out):
            return []
        if len(operands) == 2 and _matmul_form(operands[0], operands[1], out):
            return []
    return [f"equation '{node.attrs.get('equation')}' is not a transpose, sum or matrix product"]


@lowers("Einsum", check=_check_einsum)
def lower_einsum(graph: Graph, node: Node) -> list[Node]:
    e = Emitter(graph, node)
    operands, out = parse(str(node.attrs["equation"]))  # type: ignore[misc]
    if len(operands) == 2:
        e.emit("MATMUL", node.inputs[:2], node.outputs, activation=dict(NO_ACTIVATION))
        return e.nodes
    term, x = operands[0], node.inputs[0]
    summed = [i for i, letter in enumerate(term) if letter not in out]
    kept = [letter for letter in term if letter in out]
    perm = [kept.index(letter) for letter in out]
    needs_transpose = perm != list(range(len(perm)))
    if summed:
        target = e.tensor("sum", e.dtype(x)) if needs_transpose else node.outputs[0]
        e.emit("REDUCE_SUM", [x], [target], axes=summed, keepdims=False, noop_with_empty_axes=False)
        x = target
    if needs_transpose:
        e.emit("TRANSPOSE", [x], node.outputs, perm=perm)
    elif not summed:
        e.emit("IDENTITY", [x], node.outputs)
    return e.nodes
