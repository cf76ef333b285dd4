"""Human-readable text for `lite inspect` and the summary of `lite convert`."""

from __future__ import annotations

import re

from lite_converter.reader import LiteModel, TensorInfo

METADATA_VALUE_WIDTH = 80


def human_bytes(n: int | None) -> str:
    if n is None:
        return "dynamic"
    value = float(n)
    for unit in ("B", "KiB", "MiB", "GiB"):
        if value < 1024 or unit == "GiB":
            return f"{n} B" if unit == "B" else f"{value:.2f} {unit}"
        value /= 1024
    raise AssertionError("unreachable")


def shape_text(tensor: TensorInfo) -> str:
    """[1,3,height,width]: a dynamic dim by its name, a computed one by a short form (``dim_text``)."""
    if tensor.shape is None:
        return "[?]"
    names = tensor.dim_names or [""] * len(tensor.shape)
    dims = [dim_text(name) if d < 0 else str(d) for d, name in zip(tensor.shape, names, strict=False)]
    return "[" + ",".join(dims) + "]"


MAX_DIM_NAME = 24
_SYMBOL = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_FUNCTIONS = frozenset({"floor", "ceil", "min", "max", "abs", "div", "mod", "and", "or", "not", "if", "else"})


def dim_text(name: str) -> str:
    """A dynamic dim as `lite inspect` prints it: its name when short; a formula derived from the input
    dims (hundreds of characters after a few strided layers) as f(h,w) over the names it reads
    (the full formula stays in `lite inspect --json`); "?" when it has none."""
    if not name:
        return "?"
    if len(name) <= MAX_DIM_NAME:
        return name
    symbols = list(dict.fromkeys(s for s in _SYMBOL.findall(name) if s.lower() not in _FUNCTIONS))
    return f"f({','.join(symbols)})" if symbols else "?"


def op_counts_text(model: LiteModel, limit: int | None = None) -> str:
    counts = list(model.op_counts().items())
    shown = counts if limit is None else counts[:limit]
    text = ", ".join(f"{op} {n}" for op, n in shown)
    if len(shown) < len(counts):
        text += f", ... ({len(counts) - len(shown)} more kinds)"
    return text


def table_lines(rows: list[list[str]], indent: str = "  ") -> list[str]:
    if not rows:
        return []
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return [
        indent + "  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip()
        for row in rows
    ]


def inspect_text(model: LiteModel, path: str) -> str:
    """The full `lite inspect` report."""
    lines = [
        f"{path}: {human_bytes(model.file_size)}, .lite schema {model.schema_version}, "
        f"produced by {model.producer or '?'} from {model.source_format or '?'}",
    ]
    if model.metadata:
        lines.append("metadata:")
        for key, value in model.metadata.items():
            short = (
                value
                if len(value) <= METADATA_VALUE_WIDTH
                else value[:METADATA_VALUE_WIDTH] + f"... ({len(value)} chars)"
            )
            lines.append(f"  {key}: {short!r}")
    for title, tensors, layouts in (
        ("inputs", model.input_tensors, model.input_layouts),
        ("outputs", model.output_tensors, model.output_layouts),
    ):
        lines.append(f"{title}:")
        rows = [
            [t.name, t.dtype, shape_text(t), f"layout {layout}" if layout else ""]
            for t, layout in zip(tensors, layouts + [""] * len(tensors), strict=False)
        ]
        lines += table_lines(rows)
    lines.append(f"operators: {len(model.operators)}")
    lines += table_lines([[op, str(n)] for op, n in model.op_counts().items()])
    constants = [t for t in model.tensors if t.is_constant]
    variables = sum(1 for t in model.tensors if t.variable)
    activations = len(model.tensors) - len(constants) - variables
    state = f", {variables} variables (state kept across invokes)" if variables else ""
    lines.append(f"tensors: {len(model.tensors)} ({activations} activations, {len(constants)} "
                 f"constants{state})")
    rows = [["#", "name", "dtype", "shape", "bytes", "kind"]]
    rows += [
        [
            str(t.index),
            t.name,
            t.dtype,
            shape_text(t),
            human_bytes(t.nbytes),
            "const" if t.is_constant else ("variable" if t.variable else ""),
        ]
        for t in model.tensors
    ]
    lines += table_lines(rows)
    lines.append(f"weights: {human_bytes(model.weights_bytes)} in {model.buffer_count - 1} buffers")
    if model.memory_plan is None:
        lines.append("memory plan: none in the file (dynamic shapes: the runtime plans at prepare)")
    else:
        lines.append(f"memory plan: arena {human_bytes(model.memory_plan.arena_bytes)}")
    lines += subgraph_lines(model)
    return "\n".join(lines)


def subgraph_lines(model: LiteModel) -> list[str]:
    """The control-flow bodies: who runs each, its inputs and outputs, and its ops (tensors: --json)."""
    if not model.subgraphs:
        return []
    total = sum(len(graph.operators) for graph in model.subgraphs)
    lines = [f"subgraphs: {len(model.subgraphs)} (control-flow bodies, {total} operators; "
             f"all graphs together: {sum(model.all_op_counts().values())} operators)"]
    for graph in model.subgraphs:
        users = ", ".join(graph.used_by) or "no op (unused)"
        lines.append(f"  subgraph {graph.number}, run by {users}:")
        for title, indices in (("inputs", graph.inputs), ("outputs", graph.outputs)):
            tensors = [graph.tensors[i] for i in indices]
            rows = [[t.name, t.dtype, shape_text(t)] for t in tensors]
            lines.append(f"    {title}: {len(indices)}")
            lines += table_lines(rows, indent="      ")
        counts = ", ".join(f"{op} {n}" for op, n in graph.op_counts().items())
        lines.append(f"    operators: {len(graph.operators)} ({counts})")
    return lines
