"""``lite compress MODEL.onnx -o MODEL.lite --config int8 --data DIR``: slim.compress from the shell.

``--config prune_0.5`` (keep at most 50% of the FLOPs and of the estimated runtime cost) or
``prune_0.5+int8`` prunes by dependency groups and fine-tunes by label-free distillation on the data
(``--epochs`` / ``--steps`` / ``--time-budget``; the torch extra). ``--config int8_qat`` trains the int8
model's weights and ranges the same way (quantization-aware training, slim/qat.py).

Registered on the ``lite`` command's sub-parsers by lite_converter/app/cli.py. A data or config problem
is reported as a ConversionError, which the ``lite`` command prints as one line (exit status 1).
"""

from __future__ import annotations

import argparse
import dataclasses
from pathlib import Path
from typing import Any

from lite_converter.app.cli_common import input_shape_arg
from lite_converter.app.inspect_format import human_bytes
from lite_converter.app.model_input import FORMAT_NAMES, model_format
from lite_converter.frontends.paddle import is_paddle_model
from lite_converter.ir import ConversionError
from slim.analysis_plot import write_plot
from slim.calibration_data import CalibrationDataError
from slim.compress import CompressResult, compress
from slim.config import PRESET_HELP
from slim.extras import MissingExtraError
from slim.finetune_config import FinetuneConfig
from slim.pruning.config import CRITERIA, PruneConfig, parse_config
from slim.qat_config import QatConfig


def add_compress_command(commands: Any, shape_help: str) -> None:  # noqa: ANN401 - argparse's private type
    compress = commands.add_parser(
        "compress", help="compress a model to .lite: int8 (post-training), int8_qat (quantization-aware "
                         "training, torch) or pruning (prune_R[+int8], torch)")
    compress.add_argument("model", help="the float .onnx or .tflite file (told by its first bytes, whatever "
                          "its name) or a Paddle inference model folder")
    compress.add_argument("-o", "--output", help="the .lite file to write (default: MODEL with .lite)")
    compress.add_argument("--data", required=True,
                          help="directory of calibration batches (.npy, or .npz named by model input)")
    compress.add_argument("--config", default="int8",
                          help=("an int8 preset (default: int8): "
                                + "; ".join(f"{name}: {what}" for name, what in PRESET_HELP.items())
                                + "; or prune_R / prune_R+int8 with R the fraction of FLOPs kept"
                                + "; or auto: search for the fastest model within --max-accuracy-drop "
                                  "reaching --target-speedup"
                                ).replace("%", "%%"))  # argparse %-formats help strings
    pruning = compress.add_argument_group("training (prune_R and int8_qat configs)")
    length = pruning.add_mutually_exclusive_group()
    length.add_argument("--epochs", type=float, help="fine-tuning epochs over the data (default 1)")
    length.add_argument("--steps", type=int, help="fine-tuning steps (0: prune only)")
    pruning.add_argument("--time-budget", type=float, metavar="SECONDS",
                         help="stop fine-tuning after this long")
    pruning.add_argument("--criterion", choices=CRITERIA, help="channel importance (default taylor)")
    pruning.add_argument("--round-to", type=int,
                         help="channels kept per group are a multiple of this "
                              "(default 16: the GEMM's column panel)")
    pruning.add_argument("--checkpoint-dir", help="save (and resume) fine-tuning here")
    auto = compress.add_argument_group("auto config (slim/auto_compress.py)")
    auto.add_argument("--max-accuracy-drop", type=float, metavar="POINTS",
                      help="largest drop of agreement with fp32 (%% of argmax on the data) "
                           "allowed (default 1)")
    auto.add_argument("--target-speedup", type=float, metavar="X",
                      help="fp32 cost / model cost at least this (default 1)")
    auto.add_argument("--speed-target", metavar="TARGET",
                      help="host (interleaved wall time, default) or aarch64:CPU (qemu instruction counts, "
                           "e.g. aarch64:cortex-a76)")
    auto.add_argument("--executor", help="where candidates run: local (default), process[:N], ray")
    auto.add_argument("--confidence", type=float, metavar="LEVEL",
                      help="one-sided level of the upper bound on a candidate's accuracy drop (default "
                           "0.95; 0.9 accepts more, with a 10%% risk that the true drop exceeds the bound)")
    compress.add_argument("--algorithm", help="calibration algorithm: abs_max, avg, hist, kl, mse")
    compress.add_argument("--skip", action="append", default=[], metavar="NODE", help="keep a node in fp32")
    compress.add_argument("--bias-correction", action="store_true",
                          help="correct int8 conv/FC biases by their expected weight-quantization error")
    compress.add_argument("--equalize", action="store_true",
                          help="cross-layer equalization before calibration (conv pairs through ReLU / "
                               "none): evens out channel ranges BatchNorm folding spread (int8_qat does it)")
    compress.add_argument("--sqnr-target", type=float, metavar="DB",
                          help="mixed precision: keep the most sensitive layers in fp32 until every output's "
                               "SQNR vs fp32 reaches DB")
    compress.add_argument("--fp32-input-share", type=float, metavar="SHARE",
                          help="keep the layers nearest the input in fp32 up to this share of the MACs "
                               "(the int8 preset: 0.02; 0: every layer int8)")
    compress.add_argument("--analyze", metavar="REPORT.png",
                          help="print the per-layer SQNR / cosine table and write it as a PNG plot")
    compress.add_argument("--input-shape", action="append", type=input_shape_arg, metavar="NAME=DIMS",
                          help=shape_help)
    compress.set_defaults(handler=command_compress)


def command_compress(args: argparse.Namespace) -> int:
    source = Path(args.model)
    paddle = is_paddle_model(source)
    if not source.is_file() and not paddle:
        raise ConversionError(f"no such ONNX / TFLite file or Paddle model: {source}")
    kind = FORMAT_NAMES[model_format(source)]  # an unknown format is refused here, before any work
    if kind == ".lite":
        raise ConversionError(f"{source} is a .lite model already: compress the float model it came from")
    suffix = "pruned" if args.config.startswith("prune") else "int8"
    output = Path(args.output) if args.output else (
        source / f"inference.{suffix}.lite" if source.is_dir() else source.with_suffix(".lite"))
    if output.resolve() == source.resolve():
        raise ConversionError(f"the output {output} would overwrite the input")
    shapes = dict(args.input_shape or []) or None
    try:
        if args.config == "auto":
            return _command_auto(args, source, output, shapes, kind)
        auto_flags = (args.max_accuracy_drop, args.target_speedup, args.speed_target, args.executor,
                      args.confidence)
        if any(flag is not None for flag in auto_flags):
            raise ConversionError("--max-accuracy-drop, --target-speedup, --speed-target, --executor and "
                                  "--confidence are options of --config auto")
        settings = parse_config(args.config)
        if isinstance(settings, PruneConfig):
            return _command_prune(args, source, output, settings, shapes, kind)
        if isinstance(settings, QatConfig):
            return _command_qat(args, source, output, settings, shapes, kind)
        config = settings
        changes: dict[str, Any] = {"skip_nodes": [*config.skip_nodes, *args.skip]}
        if args.algorithm:
            changes["algorithm"] = args.algorithm
        if args.bias_correction:
            changes["bias_correction"] = True
        if args.equalize:
            changes["equalize"] = True
        if args.sqnr_target is not None:
            changes["sqnr_target"] = args.sqnr_target
        if args.fp32_input_share is not None:
            changes["fp32_input_share"] = args.fp32_input_share
        config = dataclasses.replace(config, **changes)
        result = compress(source, output, Path(args.data), config, input_shapes=shapes,
                          analyze=args.analyze is not None)
    except (CalibrationDataError, ValueError, MissingExtraError) as error:
        raise ConversionError(str(error)) from None
    _print_result(source, output, result, args.analyze, kind)
    return 0


def _command_auto(args: argparse.Namespace, source: Path, output: Path, shapes: dict[str, list[int]] | None,
                  kind: str) -> int:
    if (args.skip or args.algorithm or args.bias_correction or args.equalize or args.sqnr_target is not None
            or args.fp32_input_share is not None):
        raise ConversionError("--config auto chooses the quantization itself: --skip, --algorithm, "
                              "--bias-correction, --equalize, --sqnr-target and --fp32-input-share "
                              "do not apply")
    options = {"max_accuracy_drop": args.max_accuracy_drop, "target_speedup": args.target_speedup,
               "speed_target": args.speed_target, "executor": args.executor, "confidence": args.confidence}
    result = compress(source, output, Path(args.data), "auto", input_shapes=shapes,
                      **{key: value for key, value in options.items() if value is not None})
    _print_result(source, output, result, None, kind)
    print(result.auto.table())
    print(f"  report: {output.with_suffix('.auto.txt')}, {output.with_suffix('.auto.json')}")
    return 0


def _finetune_config(args: argparse.Namespace, finetune: FinetuneConfig) -> FinetuneConfig:
    """``finetune`` with the command line's --epochs / --steps / --time-budget / --checkpoint-dir."""
    changes: dict[str, Any] = {}
    if args.epochs is not None:
        changes["epochs"] = args.epochs
    if args.steps is not None:
        changes["steps"], changes["epochs"] = args.steps, None
    if args.time_budget is not None:
        changes["time_budget_s"] = args.time_budget
    if args.checkpoint_dir:
        changes["checkpoint_dir"] = args.checkpoint_dir
    return dataclasses.replace(finetune, **changes)


def _command_qat(args: argparse.Namespace, source: Path, output: Path, settings: QatConfig,
                 shapes: dict[str, list[int]] | None, kind: str) -> int:
    quant: dict[str, Any] = {"skip_nodes": [*settings.quant.skip_nodes, *args.skip]}
    if args.algorithm:
        quant["algorithm"] = args.algorithm
    if args.sqnr_target is not None or args.bias_correction or args.fp32_input_share is not None:
        raise ConversionError("int8_qat trains every int8 layer: --sqnr-target, --bias-correction and "
                              "--fp32-input-share are post-training options (keep layers in fp32 with "
                              "--skip)")
    config = dataclasses.replace(settings, quant=dataclasses.replace(settings.quant, **quant),
                                 finetune=_finetune_config(args, settings.finetune))
    try:
        result = compress(source, output, Path(args.data), config, input_shapes=shapes,
                          analyze=args.analyze is not None)
    except (CalibrationDataError, ValueError, MissingExtraError) as error:
        raise ConversionError(str(error)) from None
    _print_result(source, output, result, args.analyze, kind)
    report = result.training
    if report is not None:
        print(f"  quantization-aware training: {report.steps} steps in {report.seconds:.1f} s (stopped by "
              f"{report.stopped_by}), distillation loss {report.first_loss:.4g} -> {report.last_loss:.4g}")
    return 0


def _prune_config(args: argparse.Namespace, settings: PruneConfig) -> PruneConfig:
    finetune = _finetune_config(args, settings.finetune or FinetuneConfig())
    prune_changes: dict[str, Any] = {"finetune": finetune}
    if args.criterion:
        prune_changes["criterion"] = args.criterion
    if args.round_to:
        prune_changes["round_to"] = args.round_to
    if settings.quantize is not None:
        quantize: dict[str, Any] = {"skip_nodes": [*settings.quantize.skip_nodes, *args.skip]}
        if args.algorithm:
            quantize["algorithm"] = args.algorithm
        if args.bias_correction:
            quantize["bias_correction"] = True
        if args.equalize:
            quantize["equalize"] = True
        if args.fp32_input_share is not None:
            quantize["fp32_input_share"] = args.fp32_input_share
        prune_changes["quantize"] = dataclasses.replace(settings.quantize, **quantize)
    return dataclasses.replace(settings, **prune_changes)


def _command_prune(args: argparse.Namespace, source: Path, output: Path, settings: PruneConfig,
                   shapes: dict[str, list[int]] | None, kind: str) -> int:
    try:
        config = _prune_config(args, settings)
        result = compress(source, output, Path(args.data), config, input_shapes=shapes,
                          analyze=args.analyze is not None)
    except (CalibrationDataError, ValueError, MissingExtraError) as error:
        raise ConversionError(str(error)) from None
    _print_result(source, output, result, args.analyze, kind)
    print(result.pruning.table())
    return 0


def _print_result(source: Path, output: Path, result: CompressResult, plot: str | None, kind: str) -> None:
    print(f"compressed {source} -> {output}")
    print(f"  int8 ops: {len(result.int8_nodes)}, fp32 ops: {len(result.fp32_nodes)}")
    source_bytes = sum(p.stat().st_size for p in source.iterdir() if p.is_file()) if source.is_dir() \
        else source.stat().st_size
    print(f"  size: {kind} {human_bytes(source_bytes)} -> .lite {human_bytes(len(result.lite_bytes))}")
    if result.mixed_precision is not None:
        mixed = result.mixed_precision
        met = "met" if mixed.target_met else "NOT met"
        print(f"  mixed precision: target {met} with {len(mixed.fp32_layers)} layer(s) kept in fp32: "
              f"{', '.join(mixed.fp32_layers) or '-'}")
    if result.analysis is not None:
        print(result.analysis.table())
        write_plot(result.analysis, plot)
        print(f"  analysis plot: {plot}")
