"""``lite sensitivity MODEL --data DIR --plot sens.png``: slim.sensitivity from the shell (MODEL an
.onnx file or a Paddle inference model folder).

Prints the table (loss per group and ratio), writes the PNG, keeps finished points in a cache file
(``--cache``, default MODEL.sensitivity.json) so an interrupted or repeated sweep resumes, and with
``--flops-target`` prints the per-group ratios that meet it with the least loss. ``--executor``
spreads the points: local (default), process[:N], ray or ray:ADDRESS.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

import slim
from lite_converter.app.cli_common import input_shape_arg
from lite_converter.frontends.paddle import is_paddle_model
from lite_converter.ir import ConversionError
from slim.calibration_data import CalibrationDataError
from slim.extras import MissingExtraError
from slim.pruning.config import CRITERIA


def _ratios(text: str) -> list[float]:
    try:
        values = [float(v) for v in text.split(",") if v.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"ratios must be numbers, got {text!r}") from None
    if not values or any(not 0.0 < v < 1.0 for v in values):
        raise argparse.ArgumentTypeError(f"ratios must be fractions in (0, 1), got {text!r}")
    return values


def add_sensitivity_command(commands: Any, shape_help: str) -> None:  # noqa: ANN401 - argparse's type
    parser = commands.add_parser("sensitivity", help="how much pruning each channel group costs (torch)")
    parser.add_argument("model", help="the .onnx file or a Paddle inference model folder")
    parser.add_argument("--data", required=True,
                        help="directory of input batches (.npy, or .npz by input name)")
    parser.add_argument("--plot", metavar="PNG", help="write the sweep as a plot")
    parser.add_argument("--ratios", type=_ratios, default=[0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9],
                        help="fractions of each group's channels removed (default 0.1,...,0.9)")
    parser.add_argument("--criterion", choices=CRITERIA, default="l1",
                        help="which channels go first (default l1)")
    parser.add_argument("--groups", type=lambda text: [g for g in text.split(",") if g], metavar="G1,G2",
                        help="sweep only these groups (names as the table prints them; default all)")
    parser.add_argument("--batches", type=int, default=4, help="batches of the data evaluated per point")
    parser.add_argument("--cache", help="JSON file of finished points (default MODEL.sensitivity.json)")
    parser.add_argument("--executor", default="local", help="local, process[:N], ray or ray:ADDRESS")
    parser.add_argument("--flops-target", type=float, metavar="R",
                        help="also print per-group ratios keeping this fraction of the FLOPs")
    parser.add_argument("--input-shape", action="append", type=input_shape_arg, metavar="NAME=DIMS",
                        help=shape_help)
    parser.set_defaults(handler=command_sensitivity)


def command_sensitivity(args: argparse.Namespace) -> int:
    source = Path(args.model)
    if not source.is_file() and not is_paddle_model(source):
        raise ConversionError(f"no such ONNX file or Paddle model: {source}")
    cache = Path(args.cache) if args.cache else (
        source / "inference.sensitivity.json" if source.is_dir() else source.with_suffix(".sensitivity.json"))
    try:
        report = slim.sensitivity(source, Path(args.data), ratios=args.ratios, criterion=args.criterion,
                                  cache=cache, executor=args.executor, batches=args.batches,
                                  input_shapes=dict(args.input_shape or []) or None, plot=args.plot,
                                  groups=args.groups)
        ratios = report.ratios_for(args.flops_target) if args.flops_target is not None else None
    except (CalibrationDataError, ValueError, MissingExtraError) as error:
        raise ConversionError(str(error)) from None
    print(report.table())
    print(f"points: {report.computed} computed, {report.cached} from {cache}")
    if args.plot:
        print(f"plot: {args.plot}")
    if ratios is not None:
        print(f"ratios keeping {args.flops_target:.0%} of the FLOPs with the least loss:")
        for group, ratio in ratios.items():
            print(f"  {group}: {ratio:g}")
    return 0
