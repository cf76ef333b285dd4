"""The two halves of post-training quantization, shared by compress, analyze and mixed precision.

``prepare``: load -> check the data against the model's inputs (before any work) -> optimize ->
lower -> channels-last -> calibrate (fp32 run on our runtime, observers per tensor, plus the input
statistics bias correction needs). It is the expensive half and runs once.

``quantize``: a copy of the prepared fp32 graph -> int8 pass (with a given set of nodes kept in
fp32) -> bias correction. Cheap, so analysis and mixed precision call it once per trial.
"""

from __future__ import annotations

import copy
import dataclasses
import os
from pathlib import Path

import numpy as np
import onnx

from lite_converter.frontends.onnx_frontend import load_onnx
from lite_converter.ir import Graph
from lite_converter.passes.layout_nhwc import to_channels_last
from lite_converter.passes.lower_to_lite import lower_to_lite
from lite_converter.passes.memory_plan import plan_memory
from lite_converter.passes.optimize import optimize
from lite_converter.passes.quantize_int8 import QuantizeInputs, quantize_int8
from lite_converter.passes.support import check_supported
from lite_converter.writer import serialize
from slim.bias_correction import FloatParams, WindowMean, correct_biases, float_params, window_means
from slim.calibrate import CalibrationResult, Tap, calibrate
from slim.calibration_data import CalibrationInput, InputSpec, load_batches
from slim.config import QuantConfig
from slim.fp32_weights import restore_fp32_weights


@dataclasses.dataclass
class Prepared:
    """A lowered fp32 graph (never modified after prepare), its calibration, and the batches."""

    graph: Graph
    batches: list[dict[str, np.ndarray]]
    settings: QuantConfig
    calibration: CalibrationResult
    float_params: dict[str, FloatParams]
    window_means: dict[str, WindowMean]


@dataclasses.dataclass
class Quantized:
    """One int8 version of a Prepared graph."""

    graph: Graph
    int8_nodes: list[str]
    skip_nodes: set[str]
    bias_corrections: dict[str, np.ndarray]

    def lite_bytes(self) -> bytes:
        return serialize(self.graph, plan_memory(self.graph))


def _load(model: str | os.PathLike | onnx.ModelProto, input_shapes: dict[str, list[int]] | None) -> Graph:
    """The IR of an ONNX model, or of a Paddle inference model (directory or program file)."""
    if not isinstance(model, onnx.ModelProto):
        from lite_converter.frontends.paddle import is_paddle_model, load_paddle

        if is_paddle_model(Path(model)):
            return load_paddle(model, input_shapes=input_shapes)
    return load_onnx(model, input_shapes=input_shapes)


def prepare(model: str | os.PathLike | onnx.ModelProto, data: CalibrationInput, settings: QuantConfig,
            input_shapes: dict[str, list[int]] | None = None) -> Prepared:
    """Loads, lowers and calibrates ``model``; raises CalibrationDataError before any work on bad data."""
    graph = _load(model, input_shapes)
    specs = [InputSpec(name, graph.tensors[name].dtype, graph.tensors[name].shape) for name in graph.inputs]
    batches = load_batches(data, specs)
    check_supported(graph)
    optimize(graph)
    lower_to_lite(graph)
    to_channels_last(graph)
    algorithm_of = {node.outputs[0]: settings.overrides[node.name]
                    for node in graph.nodes if node.name in settings.overrides and node.outputs}
    means = window_means(graph) if settings.bias_correction else {}
    taps: list[Tap] = [(mean.node.inputs[0], mean.update) for mean in means.values()]
    calibration = calibrate(graph, batches, settings, algorithm_of, taps)
    used = batches if settings.max_batches is None else batches[: settings.max_batches]
    return Prepared(graph, used, settings, calibration, float_params(graph), means)


def quantize(prepared: Prepared, skip_nodes: set[str] | None = None,
             fp32_weights: set[str] | None = None) -> Quantized:
    """The int8 graph of ``prepared`` with ``skip_nodes`` (default: the config's) kept in fp32;
    the nodes ``fp32_weights`` also keep fp32 weights (no weight-only int8: slim/fp32_weights.py)."""
    skip = set(prepared.settings.skip_nodes) if skip_nodes is None else set(skip_nodes)
    graph = copy.deepcopy(prepared.graph)
    result = prepared.calibration
    int8_nodes = quantize_int8(graph, QuantizeInputs(result.ranges, result.shapes, skip))
    if fp32_weights:
        restore_fp32_weights(graph, prepared.graph, fp32_weights)
    corrections = correct_biases(graph, prepared.float_params, prepared.window_means, int8_nodes)
    return Quantized(graph, int8_nodes, skip, corrections)
