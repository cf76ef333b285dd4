"""The two halves of post-training quantization, shared by compress, analyze and mixed precision.

``prepare``: load (the converter's frontend for the input type) -> refuse a model quantized already
-> check the data against the model's inputs (before any work) -> the converter's own front half
(``lite_converter.convert.lower``: optimize, lower, channels-last) -> calibrate (fp32 run on our
runtime, observers per tensor, plus the input statistics bias correction needs) on the graph it
returns, the lowered fp32 graph right after the layout pass -> the input-side layers to keep in fp32
(``QuantConfig.fp32_input_share``, slim/input_layers.py: from the calibrated shapes, no extra run). It is
the expensive half and runs once.

``quantize``: a copy of the prepared fp32 graph -> int8 pass (with a given set of nodes kept in
fp32) -> bias correction. Cheap, so analysis and mixed precision call it once per trial.
"""

from __future__ import annotations

import os

from lite_converter.convert import LoadedModel, ModelSource, load_model, lower
from lite_converter.ir import ConversionError
from lite_converter.passes.split_lookup_activation import unfuse_underived_activations
from slim.bias_correction import float_params, window_means
from slim.calibrate import Tap, calibrate
from slim.calibration_data import CalibrationInput, InputSpec, load_batches
from slim.config import QuantConfig
from slim.decision_tensors import decision_tensors
from slim.equalize import equalize
from slim.input_layers import input_layers
from slim.quantize_prepared import Prepared, Quantized, quantize  # noqa: F401  (the pipeline's two halves)
from slim.range_search import search_ranges


def prepare(model: ModelSource, data: CalibrationInput, settings: QuantConfig,
            input_shapes: dict[str, list[int]] | None = None) -> Prepared:
    """Loads, lowers and calibrates ``model`` (a float ONNX or .tflite model); raises
    CalibrationDataError before any work on bad data, ConversionError for a quantized model."""
    loaded = load_model(model, input_shapes)
    refuse_quantized(loaded, model)
    inputs = [loaded.graph.tensors[name] for name in loaded.graph.inputs]
    batches = load_batches(data, [InputSpec(t.name, t.dtype, t.shape) for t in inputs])
    graph = lower(loaded)
    if settings.equalize:
        equalize(graph)
    unfuse_underived_activations(graph)  # a SILU / TANH conv's output before the table is calibrated too
    whole = decision_tensors(graph) if settings.whole_decision_ranges else set()
    algorithm_of = {name: "abs_max" for name in whole}
    algorithm_of.update({node.outputs[0]: settings.overrides[node.name]
                         for node in graph.nodes if node.name in settings.overrides and node.outputs})
    means = window_means(graph) if settings.bias_correction else {}
    taps: list[Tap] = [(mean.node.inputs[0], mean.update) for mean in means.values()]
    calibration = calibrate(graph, batches, settings, algorithm_of, taps)
    used = batches if settings.max_batches is None else batches[: settings.max_batches]
    leading, weighted = input_layers(graph, calibration.shapes, settings.fp32_input_share)
    prepared = Prepared(graph, used, settings, calibration, float_params(graph), means,
                        input_layers=leading, input_weighted=weighted)
    if settings.range_search:
        prepared = search_ranges(prepared)
    return prepared


def refuse_quantized(loaded: LoadedModel, model: ModelSource) -> None:
    """A model that carries its own int8 scales (QDQ-ONNX, int8 .tflite, quantized Paddle) is not calibrated
    again: the error says how to convert it as it is, or what to compress instead."""
    if not loaded.quantized:
        return
    name = os.fspath(model) if isinstance(model, str | os.PathLike) else "the model"
    kind = {"onnx": "a QDQ model: QuantizeLinear / DequantizeLinear nodes",
            "paddle": "a quantized Paddle model: quantize_linear / dequantize_linear ops"
            }.get(loaded.source_format, "an int8 .tflite")
    command = f"lite convert {name}" if name != "the model" else "lite convert"
    raise ConversionError(
        f"{name} is quantized already ({kind}); slim compresses float models. Convert it as it is with "
        f"`{command}` (lite_converter.convert.convert), which keeps its own int8 scales "
        "(docs/IMPORT_INT8.md), or compress the float model it was made from to calibrate again.")
