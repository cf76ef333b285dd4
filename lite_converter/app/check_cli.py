"""The `lite check` subcommand: a converted ONNX model against onnxruntime (a .tflite one against
LiteRT), output by output and, on a difference (or with --layers), layer by layer to name the first
node whose value differs.

    lite check model.onnx [--input-shape x=1,3,224,224] [--inputs in.npz] [--layers]
    lite check model.tflite [--layers]

Exit status 0 when every output (and with --layers every compared tensor) is within its bound, 1
otherwise. The bounds are those the repository's tests use (lite_converter/app/onnx_oracle.py,
layer_check.py, litert_oracle.py).
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

import numpy as np
import onnx
from google.protobuf.message import DecodeError

from lite_converter.app.cli_common import (
    MAX_MEMORY_HELP,
    UserError,
    input_shape_arg,
    input_shapes,
    input_value_arg,
    input_values,
    memory_size_arg,
)
from lite_converter.app.layer_check import LayerReport, TensorComparison, compare_layers, dequantize_steps
from lite_converter.app.litert_custom_ops import has_custom_transpose_conv
from lite_converter.app.litert_oracle import (
    JUMP,
    LiteRtComparison,
    LiteRtRun,
    compare_tensor,
    layer_scale,
    litert_run,
    mark_where_it_starts,
    output_scale,
)
from lite_converter.app.model_feeds import existing_file, model_feeds
from lite_converter.app.model_input import FORMAT_NAMES, model_format
from lite_converter.app.onnx_oracle import (
    OracleUnavailable,
    OutputComparison,
    compare_output,
    onnxruntime_outputs,
)
from lite_converter.app.paddle_oracle import paddle_outputs
from lite_converter.convert import ModelSource, convert, load_model
from lite_converter.reader import read_model
from runtime_arm import DEFAULT_MAX_MEMORY_BYTES, Interpreter

QUANTIZED_OPS = {"QuantizeLinear", "DequantizeLinear", "QLinearConv", "QLinearMatMul", "ConvInteger",
                 "MatMulInteger", "DynamicQuantizeLinear"}
LAYERS_LISTED = 5  # failing tensors listed after the first


def add_check_command(commands: Any, shape_help: str) -> None:  # noqa: ANN401 - argparse's private type
    """Registers `lite check` on the `lite` parser's subcommands."""
    check = commands.add_parser(
        "check", help="convert an ONNX or .tflite model in memory and compare its outputs (and, on a "
                      "difference, every layer) with onnxruntime's or LiteRT's")
    check.add_argument("model", help="the .onnx file (checked against onnxruntime), .tflite file (against "
                                     "LiteRT's builtin kernels) or Paddle model folder (against Paddle "
                                     "inference, when paddlepaddle is installed)")
    check.add_argument("--inputs", help=".npz with one array per model input (random data when omitted)")
    check.add_argument("--input-shape", action="append", type=input_shape_arg, metavar="NAME=DIMS",
                       help=f"{shape_help}; also fixes the conversion's input dims")
    check.add_argument("--input-value", action="append", type=input_value_arg, metavar="NAME=VALUE",
                       help="pin an ONNX input to a constant at conversion, as lite convert does (e.g. "
                            "sr=16000; repeatable): onnxruntime is fed the same value")
    check.add_argument("--seed", type=int, default=0, help="seed of the random inputs (default 0)")
    check.add_argument("--layers", action="store_true",
                       help="compare every intermediate tensor even when the outputs agree (always done when "
                            "they do not)")
    check.add_argument("--max-memory-bytes", type=memory_size_arg, metavar="SIZE", help=MAX_MEMORY_HELP)
    check.set_defaults(handler=command_check)


def _memory(args: argparse.Namespace) -> int:
    return args.max_memory_bytes or DEFAULT_MAX_MEMORY_BYTES


def _load_onnx(path: Path) -> onnx.ModelProto:
    try:
        return onnx.load(str(path))
    except (DecodeError, ValueError, OSError) as error:
        raise UserError(f"{path} is not a readable ONNX model: {error}") from None


def _pinned(model: onnx.ModelProto, values: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """The --input-value arrays in the dtypes the model declares for those inputs (onnxruntime takes
    no other); the converter checks the names and values itself."""
    declared = {value.name: value.type.tensor_type.elem_type for value in model.graph.input}
    return {name: value.astype(onnx.helper.tensor_dtype_to_np_dtype(declared[name]))
            if declared.get(name) else value for name, value in values.items()}


def _oracle(model: onnx.ModelProto, feeds: dict[str, np.ndarray],
            optimized: bool) -> dict[str, np.ndarray]:
    try:
        return onnxruntime_outputs(model, feeds, optimized)
    except OracleUnavailable as error:
        raise UserError(str(error)) from None
    except Exception as error:  # noqa: BLE001 - onnxruntime raises its own exception types
        raise UserError(f"onnxruntime cannot run the model: nothing to compare with ({error})") from None


def _output_line(c: OutputComparison | LiteRtComparison) -> str:
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
    if kind == "lite":
        raise UserError(f"lite check takes the source model (.onnx: against onnxruntime, .tflite: against "
                        f"LiteRT, a Paddle model: against Paddle inference), not a .lite file ({path})")
    if args.input_value and kind != "onnx":
        raise UserError(f"--input-value pins ONNX inputs; a {FORMAT_NAMES[kind]} model's inputs are fed as "
                        "they are")
    if kind == "paddle":
        return _check_paddle(path, args)
    existing_file(args.model)
    return _check_onnx(path, args) if kind == "onnx" else _check_tflite(path, args)


Arrays = dict[str, np.ndarray]


def _run_ours(source: ModelSource, args: argparse.Namespace,
              pinned: Arrays | None = None) -> tuple[Arrays, Arrays]:
    """Converts ``source`` in memory and runs it once: (the inputs fed, our outputs)."""
    data = convert(source, input_shapes=input_shapes(args.input_shape) or None, input_values=pinned or None)
    feeds = model_feeds(read_model(data), args.input_shape, args.inputs, args.seed)
    with Interpreter(model_content=data, threads=1, max_memory_bytes=_memory(args)) as interpreter:
        return feeds, interpreter.run(feeds)


def _print_header(path: Path, oracle: str, feeds: dict[str, np.ndarray], args: argparse.Namespace) -> None:
    source = f"from {args.inputs}" if args.inputs else f"random, seed {args.seed}"
    print(f"{path}: converted in memory, against {oracle} (inputs: {source})")
    for name, array in feeds.items():
        print(f"  input {name}: {array.dtype} {list(array.shape)}")


def _print_outputs(compared: list[OutputComparison] | list[LiteRtComparison], rule: str) -> bool:
    print(f"outputs: {rule}")
    print(f"  {'output':<24} {'max |diff|':>11} {'bound':>11} {'spread':>11}  verdict")
    for comparison in compared:
        print(_output_line(comparison))
    return all(c.ok for c in compared)


def _verdict(outputs_ok: bool, layers_ok: bool, failed_outputs: int) -> int:
    if outputs_ok and layers_ok:
        print("ok: the converted model matches its reference")
        return 0
    what = [f"{failed_outputs} output(s)"] if not outputs_ok else []
    if not layers_ok:
        what.append("intermediate tensors")
    print(f"DIFFERS: {' and '.join(what)} beyond the bound")
    return 1


def _check_onnx(path: Path, args: argparse.Namespace) -> int:
    model = _load_onnx(path)
    pinned = _pinned(model, input_values(args.input_value))
    feeds, ours = _run_ours(model, args, pinned)
    reference = _oracle(model, {**feeds, **pinned}, optimized=True)
    literal = _oracle(model, {**feeds, **pinned}, optimized=False)
    import onnxruntime

    _print_header(path, f"onnxruntime {onnxruntime.__version__}", feeds, args)
    steps = dequantize_steps(model)
    if any(node.op_type in QUANTIZED_OPS for node in model.graph.node):
        print("  note: a quantized (QDQ) model: an int8 value is held to one quantization step of "
              "onnxruntime's QuantizeLinear -> DequantizeLinear value")
    compared = [compare_output(name, ours.get(name), expected, literal[name], steps.get(name, 0.0))
                for name, expected in reference.items()]
    outputs_ok = _print_outputs(compared, "max |ours - onnxruntime| against max(1e-4 * max(1, max|ref|), 2 * "
                                          "spread), spread = onnxruntime optimized vs unoptimized")
    layers_ok = True
    if args.layers or not outputs_ok:
        report = compare_layers(model, feeds, input_shapes=input_shapes(args.input_shape) or None,
                                max_memory_bytes=_memory(args), input_values=pinned)
        _print_layers(report)
        layers_ok = all(c.name in reference for c in report.failures())  # outputs are judged above
    return _verdict(outputs_ok, layers_ok, sum(not c.ok for c in compared))


def _litert(data: bytes, feeds: dict[str, np.ndarray], builtin: bool,
            every_tensor: bool = False) -> LiteRtRun:
    try:
        return litert_run(data, feeds, builtin, every_tensor)
    except OracleUnavailable as error:
        raise UserError(str(error)) from None
    except Exception as error:  # noqa: BLE001 - LiteRT raises its own exception types
        raise UserError(f"LiteRT cannot run the model: nothing to compare with ({error})") from None


def _check_tflite(path: Path, args: argparse.Namespace) -> int:
    source = path.read_bytes()
    shapes = input_shapes(args.input_shape) or None
    feeds, ours = _run_ours(source, args)
    reference = _litert(source, feeds, builtin=True)
    fast = _litert(source, feeds, builtin=False)
    from ai_edge_litert import __version__ as litert_version

    _print_header(path, f"LiteRT {litert_version} (builtin kernels)", feeds, args)
    if has_custom_transpose_conv(source):
        print("  note: MediaPipe's custom Convolution2DTransposeBias runs on LiteRT's side as its builtin "
              "TRANSPOSE_CONV with the bias (LiteRT's package lacks the custom op)")
    compared = [compare_tensor(name, ours.get(name), expected, fast.outputs.get(name),
                               name in reference.quantized, output_scale(expected))
                for name, expected in reference.outputs.items()]
    outputs_ok = _print_outputs(compared, "max |ours - LiteRT| against max(1e-4 * max(1, max|ref|), 2 * "
                                          "spread), spread = LiteRT builtin vs XNNPACK; quantized ones in "
                                          "steps, against max(1, 2 * spread)")
    layers_ok = True
    if args.layers or not outputs_ok:
        run = _litert(source, feeds, builtin=True, every_tensor=True)
        known = load_model(source, shapes).graph.tensors  # a PAD folded into its conv at import is gone
        kept = [t.name for t in run.tensors if t.name not in reference.outputs and t.name in known]
        with Interpreter(model_content=convert(source, input_shapes=shapes, keep_tensors=kept),
                         threads=1, max_memory_bytes=_memory(args)) as interpreter:
            ours_all = interpreter.run(feeds)
        values = {**feeds, **{t.name: t.value for t in run.tensors}}
        layers = [compare_tensor(t.name, ours_all[t.name], t.value, None, t.quantized,
                                 layer_scale(t, values), op=t.op)
                  for t in run.tensors if t.name in ours_all]
        mark_where_it_starts(layers, {t.name: t.inputs for t in run.tensors})
        starts = _print_tflite_layers(layers, len(run.tensors))
        layers_ok = all(c.name in reference.outputs for c in starts)
    return _verdict(outputs_ok, layers_ok, sum(not c.ok for c in compared))


def _check_paddle(path: Path, args: argparse.Namespace) -> int:
    feeds, ours = _run_ours(path, args)
    try:
        reference = paddle_outputs(path, feeds, optimized=False)
        optimized = paddle_outputs(path, feeds, optimized=True)
    except OracleUnavailable as error:
        raise UserError(str(error)) from None
    _print_header(path, "Paddle inference (the program as saved)", feeds, args)
    compared = [compare_output(name, ours.get(name), expected, optimized[name])
                for name, expected in reference.items()]
    outputs_ok = _print_outputs(compared, "max |ours - Paddle| against max(1e-4 * max(1, max|ref|), 2 * "
                                          "spread), spread = Paddle with vs without its analysis passes")
    if args.layers or not outputs_ok:
        print("layers: not compared for a Paddle model (Paddle inference gives its outputs only); "
              "paddle2onnx's export of it, checked with lite check, compares every tensor it names alike")
    return _verdict(outputs_ok, True, sum(not c.ok for c in compared))


def _print_tflite_layers(layers: list[LiteRtComparison], written: int) -> list[LiteRtComparison]:
    """Prints the layer comparison; returns the tensors where a difference starts (mark_where_it_starts)."""
    floats = [c for c in layers if not c.quantized and c.scale > 0]
    worst = max(floats, key=lambda c: c.relative_error, default=None)
    gone = " (the others do not survive the conversion: folded or fused)" if len(layers) < written else ""
    print(f"layers: {len(layers)} of the {written} op output tensors compared{gone}"
          + (f", worst relative error {worst.relative_error:.3g} at '{worst.name}'" if worst else ""))
    over = [c for c in layers if not c.ok]
    starts = [c for c in over if c.starts_here]
    carried = [c.relative_error / c.inherited for c in over if not c.starts_here and c.inherited > 0]
    if not over:
        print("  every compared tensor is within its bound")
    elif carried:
        print(f"  {len(carried)} tensor(s) over their bound carry their inputs' difference (at most "
              f"{max(carried):.3g}x their inputs' relative error): rounding carried through the network")
    if not starts:
        return starts
    print(f"  {len(starts)} tensor(s) over their bound and over {JUMP:g}x their inputs' error; the first in "
          "op order (where it starts):")
    for number, c in enumerate(starts[:1 + LAYERS_LISTED]):
        unit = " steps" if c.quantized else ""
        detail = c.problem or f"max |diff| {c.error:.3g}{unit} > bound {c.bound:.3g}{unit}"
        print(f"{'    ' if number == 0 else '  then '}'{c.name}' written by {c.op}: {detail}")
    if len(starts) > 1 + LAYERS_LISTED:
        print(f"  and {len(starts) - 1 - LAYERS_LISTED} more")
    return starts
