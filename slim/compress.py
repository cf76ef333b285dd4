"""``slim.compress``: float model (ONNX, .tflite) + calibration data -> int8 .lite file, in one call.

load -> refuse a quantized model -> check the data against the model's inputs (before any work) ->
the converter's front half (optimize -> lower -> channels-last) -> calibrate (fp32 run on our
runtime, observers per tensor) -> [mixed precision: choose the layers kept in fp32] -> int8 pass ->
[bias correction] -> write (slim/pipeline.py).
"""

from __future__ import annotations

import dataclasses
import os

from lite_converter.atomic_write import write_atomically
from lite_converter.convert import ModelSource
from lite_converter.ir import Graph
from slim.analysis import AnalysisReport, measure
from slim.calibration_data import CalibrationInput
from slim.config import QuantConfig, resolve_config
from slim.mixed_precision import MixedPrecisionResult, choose_fp32_layers
from slim.pipeline import prepare, quantize


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


def compress(
    model: ModelSource,
    output_path: str | os.PathLike | None,
    data: CalibrationInput,
    config: str | QuantConfig = "int8",
    input_shapes: dict[str, list[int]] | None = None,
    analyze: bool = False,
) -> CompressResult:
    """Post-training int8 quantization of a float ONNX or .tflite model into a .lite file (written
    atomically); a model quantized already (QDQ, int8 .tflite) raises ConversionError saying what to do.

    ``data``: calibration batches (see slim.calibration_data); ``config``: a preset name ("int8")
    or a slim.QuantConfig. Raises slim.CalibrationDataError before any work when the data does
    not fit the model's inputs. ``analyze``: also measure every int8 layer's SQNR and cosine
    against fp32 on the calibration data (slim/analysis.py).
    """
    settings = resolve_config(config)
    prepared = prepare(model, data, settings, input_shapes)
    mixed: MixedPrecisionResult | None = None
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
    return CompressResult(graph, int8_nodes, fp32_nodes, lite_bytes, mixed, report)
