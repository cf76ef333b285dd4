"""The `lite check` subcommand: a converted ONNX model against onnxruntime, output by output and, on a
difference (or with --layers), layer by layer to name the first node whose value differs.

    lite check model.onnx [--input-shape x=1,3,224,224] [--inputs in.npz] [--layers]

Exit status 0 when every output (and with --layers every compared tensor) is within its bound, 1
otherwise. The bounds are those the repository's tests use (lite_converter/app/onnx_oracle.py,
layer_check.py).
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

import numpy as np
import onnx
from google.protobuf.message import DecodeError

from lite_converter.app.cli_common import UserError, input_shape_arg, input_shapes
from lite_converter.app.layer_check import LayerReport, TensorComparison, compare_layers
from lite_converter.app.model_feeds import existing_file, model_feeds
from lite_converter.app.model_input import FORMAT_NAMES, model_format
from lite_converter.app.onnx_oracle import (
    OracleUnavailable,
    OutputComparison,
    compare_output,
    onnxruntime_outputs,
)
from lite_converter.convert import convert
from lite_converter.reader import read_model
from runtime_arm import Interpreter

QUANTIZED_OPS = {"QuantizeLinear", "DequantizeLinear", "QLinearConv", "QLinearMatMul", "ConvInteger",
                 "MatMulInteger", "DynamicQuantizeLinear"}
LAYERS_LISTED = 5  # failing tensors listed after the first


def add_check_command(commands: Any, shape_help: str) -> None:  # noqa: ANN401 - argparse's private type
    """Registers `lite check` on the `lite` parser's subcommands."""
    check = commands.add_parser(
        "check", help="convert an ONNX model in memory and compare its outputs (and, on a difference, every "
                      "layer) with onnxruntime's")
    check.add_argument("model", help="the .onnx file")
    check.add_argument("--inputs", help=".npz with one array per model input (random data when omitted)")
    check.add_argument("--input-shape", action="append", type=input_shape_arg, metavar="NAME=DIMS",
                       help=f"{shape_help}; also fixes the conversion's input dims")
    check.add_argument("--seed", type=int, default=0, help="seed of the random inputs (default 0)")
    check.add_argument("--layers", action="store_true",
                       help="compare every intermediate tensor even when the outputs agree (always done when "
                            "they do not)")
    check.set_defaults(handler=command_check)


def _load_onnx(path: Path) -> onnx.ModelProto:
    try:
        return onnx.load(str(path))
    except (DecodeError, ValueError, OSError) as error:
        raise UserError(f"{path} is not a readable ONNX model: {error}") from None


def _oracle(model: onnx.ModelProto, feeds: dict[str, np.ndarray],
            optimized: bool) -> dict[str, np.ndarray]:
    try:
        return onnxruntime_outputs(model, feeds, optimized)
    except OracleUnavailable as error:
        raise UserError(str(error)) from None
    except Exception as error:  # noqa: BLE001 - onnxruntime raises its own exception types
        raise UserError(f"onnxruntime cannot run the model: nothing to compare with ({error})") from None


def _output_line(c: OutputComparison) -> str:
    verdict = "ok" if c.ok else f"DIFFERS{': ' + c.problem if c.problem else ''}"
    return f"  {c.name:<24} {c.error:>11.3g} {c.bound:>11.3g} {c.spread:>11.3g}  {verdict}"


def _tensor_text(c: TensorComparison) -> str:
    where = f"{c.op_type} '{c.node}'" if c.node else c.op_type
    detail = c.problem or f"max |diff| {c.error:.3g} > bound {c.bound:.3g} (scale {c.scale:.3g})"
    return f"'{c.name}' written by {where}: {detail}"


def _print_layers(report: LayerReport) -> None:
    worst = report.worst() if report.compared else None
    fused = f"; {report.fused_pairs} run inside the next op, checked through it" if report.fused_pairs else ""
    print(f"layers: {len(report.compared)} tensors compared ({report.covered_ops} of {report.compute_ops} "
          f"float ops{fused})"
          + (f", worst relative error {worst.relative_error:.3g} at '{worst.name}'" if worst else ""))
    if report.not_finite:
        print(f"  not compared: {len(report.not_finite)} tensor(s) onnxruntime computes as inf or NaN "
              f"on these inputs (first: '{report.not_finite[0]}')")
    failures = report.failures()
    if not failures:
        print("  every compared tensor is within its bound")
        return
    print(f"  {len(failures)} tensor(s) over their bound; the first in node order (where it starts):")
    print(f"    {_tensor_text(failures[0])}")
    for c in failures[1:1 + LAYERS_LISTED]:
        print(f"  then {_tensor_text(c)}")
    if len(failures) > 1 + LAYERS_LISTED:
        print(f"  and {len(failures) - 1 - LAYERS_LISTED} more")


def command_check(args: argparse.Namespace) -> int:
    path = Path(args.model)
    kind = model_format(path)
    if kind != "onnx":
        raise UserError(f"lite check compares with onnxruntime and takes an .onnx model, not "
                        f"{FORMAT_NAMES[kind]} ({path})")
    model = _load_onnx(existing_file(args.model))
    shapes = input_shapes(args.input_shape) or None
    data = convert(model, input_shapes=shapes)
    feeds = model_feeds(read_model(data), args.input_shape, args.inputs, args.seed)
    with Interpreter(model_content=data, threads=1) as interpreter:
        ours = interpreter.run(feeds)
    reference = _oracle(model, feeds, optimized=True)
    literal = _oracle(model, feeds, optimized=False)
    import onnxruntime

    source = f"from {args.inputs}" if args.inputs else f"random, seed {args.seed}"
    print(f"{path}: converted in memory, against onnxruntime {onnxruntime.__version__} (inputs: {source})")
    for name, array in feeds.items():
        print(f"  input {name}: {array.dtype} {list(array.shape)}")
    if any(node.op_type in QUANTIZED_OPS for node in model.graph.node):
        print("  note: a quantized (QDQ) model: the bounds are fp32's, and int8 arithmetic may round a "
              "value one quantization step away from onnxruntime's")
    print("outputs: max |ours - onnxruntime| against max(1e-4 * max(1, max|ref|), 2 * spread), spread = "
          "onnxruntime optimized vs unoptimized")
    print(f"  {'output':<24} {'max |diff|':>11} {'bound':>11} {'spread':>11}  verdict")
    compared = [compare_output(name, ours.get(name), expected, literal[name])
                for name, expected in reference.items()]
    for comparison in compared:
        print(_output_line(comparison))
    outputs_ok = all(c.ok for c in compared)
    layers_ok = True
    if args.layers or not outputs_ok:
        report = compare_layers(model, feeds, input_shapes=shapes)
        _print_layers(report)
        layers_ok = all(c.name in reference for c in report.failures())  # outputs are judged above
    if outputs_ok and layers_ok:
        print("ok: the converted model matches onnxruntime")
        return 0
    what = [f"{sum(not c.ok for c in compared)} output(s)"] if not outputs_ok else []
    if not layers_ok:
        what.append("intermediate tensors")
    print(f"DIFFERS: {' and '.join(what)} beyond the bound")
    return 1
