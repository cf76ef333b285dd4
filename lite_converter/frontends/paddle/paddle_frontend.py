"""Paddle frontend: a Paddle inference model (ProgramDesc or PIR) into the converter IR.

What it guarantees to the passes that follow is what the ONNX frontend guarantees (see
onnx_frontend.py): ONNX-vocabulary nodes, parameters as constant tensors, dtypes and shapes
inferred, unique node names, graph inputs in the program's feed order and outputs in its fetch
order. No Paddle package is imported: the program is read with our own schema (framework_schema,
pir_reader) and the parameters with params_reader.

Paddle programs may write a variable twice (in-place ops, batch_norm's running statistics); such
writes get fresh names first, so the IR stays single-assignment. Every op type without a mapping
and every op whose attributes a mapping cannot express are reported together, by op and output.
"""

from __future__ import annotations

import collections
import os
from pathlib import Path

import numpy as np

from lite_converter.frontends.onnx_frontend import guess_input_layouts
from lite_converter.frontends.onnx_type_inference import infer_types
from lite_converter.frontends.paddle import ops_math, ops_nn, ops_quant, ops_tensor  # noqa: F401 - registrations
from lite_converter.frontends.paddle.conv_bias import fold_conv_bias
from lite_converter.frontends.paddle.mapping import MAPPINGS, OPSET, MapContext, Unsupported
from lite_converter.frontends.paddle.model_files import PaddleModelFiles, find_model_files
from lite_converter.frontends.paddle.params_reader import read_params
from lite_converter.frontends.paddle.pdmodel_reader import read_pdmodel
from lite_converter.frontends.paddle.pir_reader import read_pir_json
from lite_converter.frontends.paddle.program import PaddleProgram, PaddleVar
from lite_converter.ir import ConversionError, Graph, Node, Tensor

_MAX_NAMES = 5


def read_program(files: PaddleModelFiles) -> tuple[PaddleProgram, dict[str, np.ndarray]]:
    """The program and its parameters, read and size-checked."""
    data = files.program.read_bytes()
    if files.program.suffix == ".json":
        program = read_pir_json(data, str(files.program))
    else:
        program = read_pdmodel(data, str(files.program))
    if not program.parameter_names:
        return program, {}
    if files.params is None or not files.params.is_file():
        raise ConversionError(
            f"{files.program}: the program has {len(program.parameter_names)} parameters "
            f"but there is no parameter file {files.params}"
        )
    return program, read_params(files.params.read_bytes(), program.parameter_names, str(files.params))


def _single_assignment(program: PaddleProgram, defined: set[str]) -> None:
    """Renames second writes of a variable (and the reads after them) so each name is written once."""
    current: dict[str, str] = {}
    counter = collections.Counter()
    for op in program.ops:
        for slot, names in op.inputs.items():
            op.inputs[slot] = [current.get(n, n) for n in names]
        for slot, names in op.outputs.items():
            renamed = []
            for name in names:
                if name and name in defined:
                    counter[name] += 1
                    fresh = f"{name}__w{counter[name]}"
                    while fresh in program.vars or fresh in defined:
                        counter[name] += 1
                        fresh = f"{name}__w{counter[name]}"
                    source = program.vars.get(name)
                    program.vars[fresh] = PaddleVar(
                        fresh, source.dtype if source else None, source.shape if source else None
                    )
                    current[name] = fresh
                    name = fresh
                if name:
                    defined.add(name)
                renamed.append(name)
            op.outputs[slot] = renamed
    program.fetches = [current.get(n, n) for n in program.fetches]
    program.output_names = {k: current.get(v, v) for k, v in program.output_names.items()}


def _input_tensor(program: PaddleProgram, name: str, override: list[int] | None) -> Tensor:
    var = program.vars.get(name) or PaddleVar(name)
    if override is not None:
        if var.shape is not None and len(var.shape) != len(override):
            raise ConversionError(
                f"input_shapes['{name}'] = {list(override)} has rank {len(override)}, "
                f"but the model's input '{name}' has rank {len(var.shape)}"
            )
        if any(not isinstance(d, int) or d < 0 for d in override):
            raise ConversionError(f"input_shapes['{name}'] = {list(override)}: dims must be ints >= 0")
        shape: list | None = [int(d) for d in override]
    elif var.shape is None:
        shape = None
    else:
        shape = [d if d >= 0 else f"{name}_dim{i}" for i, d in enumerate(var.shape)]
    return Tensor(name, var.dtype or np.dtype(np.float32), shape)


def _names(names: list[str]) -> str:
    shown = ", ".join(f"'{n}'" for n in names[:_MAX_NAMES])
    return shown + (f" and {len(names) - _MAX_NAMES} more" if len(names) > _MAX_NAMES else "")


def _map_ops(graph: Graph, program: PaddleProgram) -> None:
    ctx = MapContext(graph, program)
    unsupported: dict[str, list[str]] = collections.defaultdict(list)
    problems: list[str] = []
    for op in program.ops:
        mapping = MAPPINGS.get(op.type)
        if mapping is None:
            unsupported[op.type].append(op.label)
            continue
        ctx.op = op
        try:
            mapping(op, ctx)
        except (Unsupported, ConversionError) as err:
            problems.append(f"{op.label}: {err}")
        except (ValueError, TypeError, IndexError, KeyError, OverflowError) as err:
            problems.append(f"{op.label}: malformed attributes or inputs ({type(err).__name__}: {err})")
    lines = [
        f"unsupported Paddle op {op_type}: {len(labels)} op(s) {_names(labels)}"
        for op_type, labels in sorted(unsupported.items())
    ] + problems
    if lines:
        raise ConversionError(
            f"the Paddle model ({program.source}) uses features the converter does not "
            "support:\n  - " + "\n  - ".join(lines)
        )


def _check_dataflow(graph: Graph) -> None:
    known = set(graph.inputs) | {name for name, t in graph.tensors.items() if t.is_constant}
    for node in graph.nodes:
        for name in node.inputs:
            if name and name not in known:
                raise ConversionError(
                    f"node '{node.name}' ({node.op_type}) reads '{name}', which no earlier "
                    "op writes and which is neither an input nor a parameter"
                )
        known.update(n for n in node.outputs if n)
    for name in graph.outputs:
        if name not in known:
            raise ConversionError(f"the program fetches '{name}', which nothing writes")


def _declared_types(graph: Graph, program: PaddleProgram) -> None:
    for name, tensor in graph.tensors.items():
        var = program.vars.get(name)
        if var is None or tensor.is_constant or name in graph.inputs:
            continue
        tensor.dtype = tensor.dtype or var.dtype
        if tensor.shape is None and var.shape is not None:
            tensor.shape = [d if d >= 0 else None for d in var.shape]


def graph_from_program(
    program: PaddleProgram, params: dict[str, np.ndarray], input_shapes: dict[str, list[int]] | None = None
) -> Graph:
    """The IR of a read program (before type inference)."""
    graph = Graph(source_format="paddle", opset=OPSET)
    graph.metadata = {"source": f"paddle {program.source}", "paddle_version": program.version}
    for name, value in {**program.constants, **params}.items():
        graph.tensors[name] = Tensor(name, value.dtype, list(value.shape), value)
    input_shapes = dict(input_shapes or {})
    unknown = sorted(set(input_shapes) - set(program.feeds))
    if unknown:
        raise ConversionError(
            f"input_shapes names unknown input(s) {unknown}; the model's inputs are {program.feeds}"
        )
    for name in program.feeds:
        if name in graph.tensors:
            raise ConversionError(f"input '{name}' is also a parameter; the program is corrupt")
        graph.tensors[name] = _input_tensor(program, name, input_shapes.get(name))
        graph.inputs.append(name)
    _single_assignment(program, set(graph.tensors))
    _map_ops(graph, program)
    outputs = program.output_names or {name: name for name in program.fetches}
    for output_name, source in outputs.items():
        if output_name != source or source in graph.inputs or graph.constant(source) is not None:
            if output_name in graph.tensors and output_name != source:
                output_name = graph.unique_name(output_name)
            graph.nodes.append(Node("Identity", f"fetch/{output_name}", [source], [output_name]))
            graph.tensor(output_name)
        graph.outputs.append(output_name)
    _check_dataflow(graph)
    _declared_types(graph, program)
    return graph


def load_paddle(
    model: str | os.PathLike,
    params: str | os.PathLike | None = None,
    input_shapes: dict[str, list[int]] | None = None,
) -> Graph:
    """Loads a Paddle inference model into an IR graph with dtypes and shapes inferred.

    ``model`` is a model directory (inference.pdmodel or inference.json + inference.pdiparams) or
    the program file itself; ``params`` names the parameter file when it is not beside it.
    """
    files = find_model_files(Path(model), None if params is None else Path(params))
    program, weights = read_program(files)
    graph = graph_from_program(program, weights, input_shapes)
    infer_types(graph)
    fold_conv_bias(graph)
    graph.toposort()
    graph.input_layouts = guess_input_layouts(graph)
    graph.output_layouts = {name: "" for name in graph.outputs}
    return graph
