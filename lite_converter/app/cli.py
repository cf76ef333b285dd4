"""The `lite` command: convert ONNX models to .lite, inspect .lite files, run them.

    lite convert model.onnx -o model.lite [--input-shape x=1,3,224,224]   (also a QDQ .onnx or a .tflite)
    lite convert vad.onnx --input-value sr=16000   (pins an input: an If it decides is folded)
    lite convert MODEL_DIR/   (a Paddle inference model: inference.pdmodel or inference.json + .pdiparams)
    lite convert MODELS_DIR/ [-o OUT_DIR/]   (every model of a folder, then a summary table)
    lite inspect model.lite [--json]   (also model.onnx / model.tflite, converted in memory)
    lite run model.lite [--inputs in.npz] [--out out.npz] [--input-shape x=1,3,224,224] [--threads 2]
             [--cpu-affinity fast]
    lite compress model.onnx -o model.lite --config int8 --data calibration_dir/ [--algorithm kl]
    lite compress model.onnx -o model.lite --config prune_0.5 --data dir/ [--epochs N | --steps N]
    lite sensitivity model.onnx --data dir/ --plot sens.png [--executor ray]
    lite bench model.onnx [--input-shape x=1,3,224,224] [--threads 2] [--profile] [--compare onnxruntime]
    lite check model.onnx [--input-shape x=1,3,224,224] [--inputs in.npz] [--layers]   (against onnxruntime)

A user error (missing file, unsupported op, bad argument) prints one message on stderr and exits
with status 1 (2 for command-line usage errors), never a traceback: set LITE_DEBUG=1 to see one.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import traceback
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np
import onnx

from lite_converter import __version__
from lite_converter.app.bench_cli import add_bench_command
from lite_converter.app.check_cli import add_check_command
from lite_converter.app.cli_common import (
    BACKEND_CHOICES,
    BACKEND_HELP,
    CPU_AFFINITY_CHOICES,
    CPU_AFFINITY_HELP,
    MAX_MEMORY_HELP,
    PRECISION_CHOICES,
    PRECISION_HELP,
    UserError,
    affinity_text,
    input_shape_arg,
    input_shapes,
    input_value_arg,
    input_values,
    memory_size_arg,
)
from lite_converter.app.compress_cli import add_compress_command
from lite_converter.app.convert_folder import convert_folder
from lite_converter.app.inspect_format import human_bytes, inspect_text, op_counts_text, shape_text
from lite_converter.app.model_feeds import model_feeds
from lite_converter.app.model_input import FORMAT_NAMES, lite_bytes, model_format
from lite_converter.app.sensitivity_cli import add_sensitivity_command
from lite_converter.convert import convert_onnx, convert_paddle, convert_tflite
from lite_converter.frontends.paddle import find_model_files, is_paddle_model
from lite_converter.ir import ConversionError
from lite_converter.reader import LiteFileError, LiteModel, read_model
from runtime_arm import DEFAULT_MAX_MEMORY_BYTES, Interpreter, LiteError

EXIT_ERROR = 1
EXIT_USAGE = 2


# -- lite convert ---------------------------------------------------------------------------------
def onnx_size(path: Path) -> int:
    """Bytes of an ONNX model including its external data files."""
    total = path.stat().st_size
    model = onnx.load(str(path), load_external_data=False)
    locations = {
        entry.value
        for tensor in _onnx_initializers(model)
        if tensor.data_location == onnx.TensorProto.EXTERNAL
        for entry in tensor.external_data
        if entry.key == "location"
    }
    for location in locations:
        data_path = path.parent / location
        if data_path.is_file():
            total += data_path.stat().st_size
    return total


def _onnx_initializers(model: object) -> list:  # noqa: ANN401 - onnx protobuf types
    graph = model.graph  # type: ignore[attr-defined]
    tensors = list(graph.initializer)
    for node in graph.node:
        tensors += [attr.t for attr in node.attribute if attr.HasField("t")]
    return tensors


def command_convert(args: argparse.Namespace) -> int:
    source = Path(args.model)
    shapes = input_shapes(args.input_shape) or None
    if source.is_dir() and not is_paddle_model(source):
        if shapes:
            raise UserError("--input-shape names one model's inputs: convert the folder's models one by one "
                            "to give shapes")
        output_dir = Path(args.output) if args.output else None
        if args.input_value:
            raise UserError("--input-value names one model's inputs: convert the folder's models one by one "
                            "to pin inputs")
        return convert_folder(source, output_dir, lambda model, out: _convert_one(model, out, None, None),
                              USER_ERRORS)
    if not source.exists():
        kind = "TFLite" if source.suffix.lower() == ".tflite" else "ONNX"
        raise UserError(f"no such {kind} file: {source}")
    if is_paddle_model(source):
        output = Path(args.output) if args.output else (
            source / "inference.lite" if source.is_dir() else source.with_suffix(".lite"))
    else:
        output = Path(args.output) if args.output else source.with_suffix(".lite")
    values = input_values(args.input_value) or None
    data, source_kind, source_bytes = _convert_one(source, output, shapes, values)
    return _report_conversion(source, output, data, source_kind, source_bytes)


def _convert_one(source: Path, output: Path, shapes: dict[str, list[int]] | None,
                 values: dict[str, np.ndarray] | None) -> tuple[bytes, str, int]:
    """Converts one model file (or Paddle folder) to ``output``: (.lite bytes, format name, source bytes)."""
    if output.resolve() == source.resolve():
        raise UserError(f"the output {output} would overwrite the input")
    kind = model_format(source)
    if kind == "lite":
        raise UserError(f"{source} is a .lite model already")
    if values and kind != "onnx":
        raise UserError("--input-value is supported for ONNX models only")
    if kind == "paddle":
        files = find_model_files(source)
        data = convert_paddle(source, output_path=output, input_shapes=shapes)
        params = files.params.stat().st_size if files.params and files.params.is_file() else 0
        return data, "Paddle", files.program.stat().st_size + params
    if kind == "tflite":
        data = convert_tflite(source, output_path=output, input_shapes=shapes)
        return data, "TFLite", source.stat().st_size
    return (convert_onnx(source, output_path=output, input_shapes=shapes, input_values=values),
            "ONNX", onnx_size(source))


def _report_conversion(source: Path, output: Path, data: bytes, source_kind: str, source_bytes: int) -> int:
    model = read_model(data)
    has_int8 = any(t.dtype == "INT8" for t in model.tensors)
    print(f"converted {source} -> {output}" + (" (int8)" if has_int8 else ""))
    print(f"  ops: {len(model.operators)} ({op_counts_text(model, limit=8)})")
    print(
        f"  size: {source_kind} {human_bytes(source_bytes)} -> .lite {human_bytes(len(data))} "
        f"(weights {human_bytes(model.weights_bytes)})"
    )
    plan = model.memory_plan
    arena = f"arena {human_bytes(plan.arena_bytes)}" if plan else "dynamic shapes: planned at run time"
    print(f"  memory: {arena}")
    for tensor in model.input_tensors:
        print(f"  input {tensor.name}: {tensor.dtype} {shape_text(tensor)}")
    for tensor in model.output_tensors:
        print(f"  output {tensor.name}: {tensor.dtype} {shape_text(tensor)}")
    return 0


# -- lite inspect ---------------------------------------------------------------------------------
def command_inspect(args: argparse.Namespace) -> int:
    data, kind = lite_bytes(Path(args.model))
    model = read_model(data)
    memory = _runtime_memory(data, model, args) if args.input_shape or args.max_memory_bytes else None
    if args.json:
        json.dump(model.to_dict() | ({"runtime_memory": memory} if memory else {}), sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        if kind != "lite":
            print(f"(converted in memory from {FORMAT_NAMES[kind]}; `lite convert` writes the .lite)")
        print(inspect_text(model, args.model))
        if memory:
            print(_memory_text(memory))
    return 0


def _runtime_memory(data: bytes, model: LiteModel, args: argparse.Namespace) -> dict[str, object]:
    """What the runtime commits for ``model`` at the --input-shape shapes (arena, scratch, packed
    weights), measured by planning it; a plan over the bound is reported, not raised."""
    shapes = input_shapes(args.input_shape)
    bound = args.max_memory_bytes or DEFAULT_MAX_MEMORY_BYTES
    with Interpreter(model_content=data, max_memory_bytes=bound) as interpreter:
        for tensor in model.input_tensors:
            if tensor.name in shapes:
                interpreter.resize_input(tensor.name, shapes[tensor.name])
        result: dict[str, object] = {"shapes": {n: list(s) for n, s in shapes.items()},
                                     "max_memory_bytes": bound}
        try:
            interpreter.allocate_tensors()
        except LiteError as error:
            result |= {"fits": False, "error": error.message,
                       "needs_at_least_bytes": interpreter.memory_bytes}
        else:
            result |= {"fits": True, "memory_bytes": interpreter.memory_bytes,
                       "arena_bytes": interpreter.arena_bytes}
    return result


def _memory_text(memory: dict[str, object]) -> str:
    shapes = ", ".join(f"{name}={dims}" for name, dims in memory["shapes"].items()) or "as declared"  # type: ignore[union-attr]
    bound = human_bytes(int(memory["max_memory_bytes"]))  # type: ignore[arg-type]
    if memory["fits"]:
        return (f"runtime memory at {shapes}: {human_bytes(int(memory['memory_bytes']))} "  # type: ignore[arg-type]
                f"(arena {human_bytes(int(memory['arena_bytes']))}; bound {bound})")  # type: ignore[arg-type]
    return (f"runtime memory at {shapes}: refused, needs at least "
            f"{human_bytes(int(memory['needs_at_least_bytes']))} (bound {bound}): {memory['error']}")  # type: ignore[arg-type]


def _describe(name: str, array: np.ndarray) -> str:
    text = f"  {name}: {array.dtype} {list(array.shape)}"
    if array.size and array.dtype.kind in "fiub":
        values = array.astype(np.float64)
        text += f" min {values.min():.6g} max {values.max():.6g} mean {values.mean():.6g}"
    return text


def command_run(args: argparse.Namespace) -> int:
    data, kind = lite_bytes(Path(args.model), input_shapes(args.input_shape))
    model = read_model(data)
    feeds = model_feeds(model, args.input_shape, args.inputs, args.seed)
    try:
        interpreter = Interpreter(model_content=data, threads=args.threads, cpu_affinity=args.cpu_affinity,
                                  backend=args.backend, precision=args.precision,
                                  max_memory_bytes=args.max_memory_bytes or DEFAULT_MAX_MEMORY_BYTES)
    except LiteError as error:  # e.g. --backend opencl where no OpenCL device is usable
        raise UserError(str(error)) from None
    except ImportError as error:  # the shared library is not built: the error says how to build it
        raise UserError(f"the runtime library is not available: {error}") from None
    except OSError as error:  # the shared library could not be found or loaded
        raise UserError(f"cannot load the runtime library: {error} (set LITE_RUNTIME_LIBRARY)") from None
    with interpreter:
        outputs = interpreter.run(feeds)
        cpus = interpreter.cpu_affinity_cpus
        placement = [(row["op"], row["node"]) for row in interpreter.profile()
                     if row["backend"] == "cpu" and row["computed_by"] >= 0]
        note = interpreter.backend_note
    if kind != "lite":
        print(f"converted {args.model} in memory from {FORMAT_NAMES[kind]}")
    if args.cpu_affinity != "none":
        print(f"cpu affinity {args.cpu_affinity}: {affinity_text(cpus)}")
    if args.backend != "cpu":
        print(f"backend {args.backend}: {note or f'{len(placement)} op(s) on the CPU'}")
        for op, node in placement:
            print(f"  on the CPU: {op} '{node}'")
    print("inputs:")
    for name, array in feeds.items():
        print(_describe(name, array))
    print("outputs:")
    for name, array in outputs.items():
        print(_describe(name, array))
    if args.out:
        np.savez(args.out, **outputs)
        print(f"saved outputs to {args.out}")
    return 0


# -- parser and main ------------------------------------------------------------------------------
def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="lite", description="Convert, inspect and run .lite models.")
    parser.add_argument("--version", action="version", version=f"lite_converter {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    shape_help = "fix an input's shape, e.g. x=1,3,224,224 (repeatable)"
    convert = commands.add_parser("convert",
                                  help="convert an ONNX (also QDQ int8), .tflite or Paddle model to .lite")
    convert.add_argument("model", help="the .onnx or .tflite file, or a Paddle model: its directory "
                         "(inference.pdmodel or inference.json + inference.pdiparams) or program file; or "
                         "a folder of models: each is converted, then a summary table (exit status 1 if any "
                         "failed)")
    convert.add_argument("-o", "--output", help="the .lite file to write (default: MODEL with .lite); for a "
                         "folder, the folder to write the .lite files to (default: beside each model)")
    convert.add_argument(
        "--input-shape", action="append", type=input_shape_arg, metavar="NAME=DIMS", help=shape_help
    )
    convert.add_argument(
        "--input-value", action="append", type=input_value_arg, metavar="NAME=VALUE",
        help="pin an ONNX input to a constant, e.g. sr=16000 or mask=1,0,1 (repeatable): it leaves the "
             "model's inputs, and an If whose condition it decides is replaced by the branch taken")
    convert.set_defaults(handler=command_convert)

    inspect = commands.add_parser("inspect", help="describe a .lite model (or an ONNX / TFLite / Paddle "
                                                  "model, converted in memory)")
    inspect.add_argument("model", help="the .lite file, or a model `lite convert` takes")
    inspect.add_argument("--json", action="store_true", help="machine-readable output")
    inspect.add_argument("--input-shape", action="append", type=input_shape_arg, metavar="NAME=DIMS",
                         help="also plan the model with the runtime at these shapes and show the memory "
                         "it needs")
    inspect.add_argument("--max-memory-bytes", type=memory_size_arg, metavar="SIZE", help=MAX_MEMORY_HELP)
    inspect.set_defaults(handler=command_inspect)

    run = commands.add_parser("run", help="run a .lite model with the runtime (or an ONNX / TFLite / Paddle "
                                          "model, converted in memory)")
    run.add_argument("model", help="the .lite file, or a model `lite convert` takes (--input-shape also "
                     "fixes ONNX / Paddle input dims for the conversion)")
    run.add_argument("--inputs", help=".npz with one array per model input (random data when omitted)")
    run.add_argument("--out", help=".npz to save the outputs to")
    run.add_argument(
        "--input-shape", action="append", type=input_shape_arg, metavar="NAME=DIMS", help=shape_help
    )
    run.add_argument("--threads", type=int, default=1, help="worker threads (default 1)")
    run.add_argument("--cpu-affinity", choices=CPU_AFFINITY_CHOICES, default="none", help=CPU_AFFINITY_HELP)
    run.add_argument("--backend", choices=BACKEND_CHOICES, default="cpu", help=BACKEND_HELP)
    run.add_argument("--precision", choices=PRECISION_CHOICES, default="fp32", help=PRECISION_HELP)
    run.add_argument("--seed", type=int, default=0, help="seed of the random inputs (default 0)")
    run.add_argument("--max-memory-bytes", type=memory_size_arg, metavar="SIZE", help=MAX_MEMORY_HELP)
    run.set_defaults(handler=command_run)

    add_bench_command(commands, shape_help)
    add_check_command(commands, shape_help)
    add_compress_command(commands, shape_help)
    add_sensitivity_command(commands, shape_help)
    return parser


USER_ERRORS = (UserError, ConversionError, LiteFileError, LiteError, OSError)


def _message(error: BaseException) -> str:
    if isinstance(error, OSError) and error.filename is not None:
        return f"{error.strerror or error}: {error.filename}"
    return str(error)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the `lite` console script; returns the exit status."""
    args = build_parser().parse_args(argv)
    handler: Callable[[argparse.Namespace], int] = args.handler
    try:
        return handler(args)
    except KeyboardInterrupt:
        print("lite: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # `lite inspect m.lite | head`: the reader has all it wanted
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except USER_ERRORS as error:
        if os.environ.get("LITE_DEBUG"):
            traceback.print_exc()
        print(f"lite {args.command}: error: {_message(error)}", file=sys.stderr)
        return EXIT_ERROR
    except Exception as error:  # noqa: BLE001 - a bug of ours: one line, the traceback on request
        if os.environ.get("LITE_DEBUG"):
            traceback.print_exc()
        print(
            f"lite {args.command}: internal error: {type(error).__name__}: {error} "
            "(set LITE_DEBUG=1 for the traceback)",
            file=sys.stderr,
        )
        return EXIT_ERROR


if __name__ == "__main__":
    sys.exit(main())
