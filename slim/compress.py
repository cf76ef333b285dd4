"""``slim.compress``: float model + data -> compressed .lite file, in one call.

int8 (``config="int8"`` or a QuantConfig), for ONNX and .tflite: load -> refuse a quantized model ->
check the data against the model's inputs (before any work) -> the converter's front half (optimize
-> lower -> channels-last) -> calibrate (fp32 run on our runtime, observers per tensor) -> [mixed
precision: choose the layers kept in fp32] -> int8 pass -> [bias correction] -> write
(slim/pipeline.py).

Quantization-aware training (``config="int8_qat"`` or a QatConfig), for ONNX and Paddle (the torch
extra): the int8 model above, its weights and ranges trained by label-free distillation against the
fp32 model on the data, then the int8 pass with the learned values (slim/qat.py).

Pruning (``config="prune_0.5"``, ``"prune_0.5+int8"`` or a PruneConfig), for ONNX: slim.prune (the
torch extra: dependency groups, importance, FLOPs target, label-free distillation against the
original) -> the pruned ONNX-vocabulary graph through the converter's normal passes and writer, or
through the int8 path above, calibrated on the same data.

Automatic compression (``config="auto"`` or an AutoConfig): the candidates above searched for the
fastest one within an accuracy bound (slim/auto_compress.py).
"""

from __future__ import annotations

import dataclasses
import os
from typing import Any

from lite_converter.atomic_write import write_atomically
from lite_converter.convert import ModelSource, lower, to_lite_bytes
from lite_converter.ir import Graph
from slim.analysis import AnalysisReport, measure
from slim.auto_compress import AutoConfig, auto_compress, auto_config
from slim.calibration_data import CalibrationInput
from slim.config import QuantConfig
from slim.extras import training_half
from slim.mixed_precision import MixedPrecisionResult, choose_fp32_layers
from slim.pipeline import prepare, quantize
from slim.pruning.config import PruneConfig, parse_config
from slim.qat_config import QatConfig


@dataclasses.dataclass
class CompressResult:
    """What compress did: the quantized graph, which nodes run in int8, the file bytes.

    mixed_precision: the layers automatic mixed precision kept in fp32 and whether the target was
    met (None without a target); analysis: the per-layer report when compress(analyze=True).
    """

    graph: Graph
    int8_nodes: list[str]
    fp32_nodes: list[str]
    lite_bytes: bytes
    mixed_precision: MixedPrecisionResult | None = None
    analysis: AnalysisReport | None = None
    pruning: Any = None  # the slim.pruning.pruner.PruneReport of a prune config
    training: Any = None  # the slim.distill.FinetuneReport of an int8_qat config
    auto: Any = None  # the slim.auto_report.AutoReport of config="auto"


def compress(
    model: ModelSource,
    output_path: str | os.PathLike | None,
    data: CalibrationInput,
    config: str | QuantConfig | PruneConfig | QatConfig | AutoConfig = "int8",
    input_shapes: dict[str, list[int]] | None = None,
    analyze: bool = False,
    **auto_options: Any,
) -> CompressResult:
    """Post-training int8 quantization of a float ONNX or .tflite model into a .lite file (written
    atomically); a model quantized already (QDQ, int8 .tflite) raises ConversionError saying what to do.

    ``data``: calibration batches (see slim.calibration_data; for pruning and QAT, training data as
    slim.training_data describes); ``config``: a preset name ("int8", "int8_fast", "int8_qat",
    "prune_0.5", "prune_0.5+int8") or a slim.QuantConfig / slim.QatConfig / slim.PruneConfig. Raises
    slim.CalibrationDataError before any work when the data does not fit the model's inputs (and
    PruneError for a target pruning cannot reach).
    ``analyze``: also measure every int8 layer's SQNR and cosine against fp32 on the calibration
    data (slim/analysis.py).
    ``config="auto"`` (or a slim.AutoConfig) searches strategies for the fastest model within
    ``max_accuracy_drop`` of fp32 reaching ``target_speedup`` (keywords: those of AutoConfig:
    ``speed_target="host" | "aarch64:CPU"``, ``eval_fn``, ``executor``...; slim/auto_compress.py)
    and writes its report beside ``output_path`` (MODEL.auto.json / .auto.txt).
    """
    if config == "auto" or isinstance(config, AutoConfig):
        return _auto(model, output_path, data, config, input_shapes, auto_options)
    if auto_options:
        raise TypeError(f"{sorted(auto_options)}: options of config='auto' only")
    settings = parse_config(config)
    if isinstance(settings, PruneConfig):
        return _prune_and_convert(model, output_path, data, settings, input_shapes, analyze)
    mixed: MixedPrecisionResult | None = None
    training = None
    if isinstance(settings, QatConfig):
        trained = training_half("slim.qat").quantization_aware_training(model, data, settings, input_shapes)
        prepared, quantized, training = trained.prepared, trained.quantized, trained.report
    else:
        prepared = prepare(model, data, settings, input_shapes)
        if settings.mixed_precision:
            mixed = choose_fp32_layers(prepared)
            quantized = mixed.quantized
        else:
            quantized = quantize(prepared)
    graph = quantized.graph
    lite_bytes = quantized.lite_bytes()
    if output_path is not None:
        write_atomically(output_path, lite_bytes)
    borders = ("QUANTIZE", "DEQUANTIZE")
    int8_nodes = quantized.int8_nodes
    fp32_nodes = [n.name for n in graph.nodes if n.name not in int8_nodes and n.op_type not in borders]
    report = measure(prepared, quantized) if analyze else None
    return CompressResult(graph, int8_nodes, fp32_nodes, lite_bytes, mixed, report, training=training)


def _auto(model: ModelSource, output_path: str | os.PathLike | None, data: CalibrationInput,
          config: str | AutoConfig, input_shapes: dict[str, list[int]] | None,
          options: dict[str, Any]) -> CompressResult:
    settings = auto_config(options) if config == "auto" else dataclasses.replace(config, **options)
    report = auto_compress(model, data, settings, input_shapes)
    chosen = report.chosen
    assert chosen is not None
    if output_path is not None:
        write_atomically(output_path, chosen.lite_bytes)
        report.write(output_path)
    return CompressResult(chosen.graph, chosen.int8_nodes, chosen.fp32_nodes, chosen.lite_bytes, auto=report)


def _prune_and_convert(model: ModelSource, output_path: str | os.PathLike | None, data: object,
                       settings: PruneConfig, input_shapes: dict[str, list[int]] | None,
                       analyze: bool) -> CompressResult:
    pruned = training_half("slim.pruning.pruner").prune(model, data, settings, input_shapes)
    source = pruned.onnx_model()
    if settings.quantize is not None:
        result = compress(source, output_path, pruned.calibration, settings.quantize, analyze=analyze)
        result.pruning = pruned.report
        return result
    graph = lower(source)
    lite_bytes = to_lite_bytes(graph)
    if output_path is not None:
        write_atomically(output_path, lite_bytes)
    return CompressResult(graph, [], [n.name for n in graph.nodes], lite_bytes, pruning=pruned.report)
