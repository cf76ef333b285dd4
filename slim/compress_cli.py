"""``lite compress MODEL.onnx -o MODEL.lite --config int8 --data DIR``: slim.compress from the shell.

Registered on the ``lite`` command's sub-parsers by lite_converter/cli.py. A data or config problem
is reported as a ConversionError, which the ``lite`` command prints as one line (exit status 1).
"""

from __future__ import annotations

import argparse
import dataclasses
from pathlib import Path
from typing import Any

from lite_converter.ir import ConversionError


def add_compress_command(commands: Any, shape_help: str) -> None:  # noqa: ANN401 - argparse's private type
    from lite_converter.cli import input_shape_arg

    compress = commands.add_parser("compress", help="quantize an ONNX model to an int8 .lite (post-training)")
    compress.add_argument("model", help="the .onnx file")
    compress.add_argument("-o", "--output", help="the .lite file to write (default: MODEL with .lite)")
    compress.add_argument("--data", required=True,
                          help="directory of calibration batches (.npy, or .npz named by model input)")
    compress.add_argument("--config", default="int8", help="preset (default: int8)")
    compress.add_argument("--algorithm", help="calibration algorithm: abs_max, avg, hist, kl, mse")
    compress.add_argument("--skip", action="append", default=[], metavar="NODE", help="keep a node in fp32")
    compress.add_argument("--input-shape", action="append", type=input_shape_arg, metavar="NAME=DIMS",
                          help=shape_help)
    compress.set_defaults(handler=command_compress)


def command_compress(args: argparse.Namespace) -> int:
    from lite_converter.inspect_format import human_bytes
    from slim.calibration_data import CalibrationDataError
    from slim.compress import compress
    from slim.config import resolve_config

    source = Path(args.model)
    if not source.is_file():
        raise ConversionError(f"no such ONNX file: {source}")
    output = Path(args.output) if args.output else source.with_suffix(".lite")
    if output.resolve() == source.resolve():
        raise ConversionError(f"the output {output} would overwrite the input")
    shapes = dict(args.input_shape or []) or None
    try:
        config = resolve_config(args.config)
        changes: dict[str, Any] = {"skip_nodes": list(args.skip)}
        if args.algorithm:
            changes["algorithm"] = args.algorithm
        config = dataclasses.replace(config, **changes)
        result = compress(source, output, Path(args.data), config, input_shapes=shapes)
    except (CalibrationDataError, ValueError) as error:
        raise ConversionError(str(error)) from None
    print(f"compressed {source} -> {output}")
    print(f"  int8 ops: {len(result.int8_nodes)}, fp32 ops: {len(result.fp32_nodes)}")
    print(f"  size: ONNX {human_bytes(source.stat().st_size)} -> .lite {human_bytes(len(result.lite_bytes))}")
    return 0
