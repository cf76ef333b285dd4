"""The prepared fp32 graph and its int8 versions (``quantize``: a copy of the prepared graph -> int8 pass
with a given set of nodes kept in fp32 -> bias correction). Below slim/pipeline.py, so that what runs
``quantize`` per trial (slim/range_search.py, inside ``prepare``) needs no import of the pipeline."""

from __future__ import annotations

import copy
import dataclasses
from typing import Any

import numpy as np

from lite_converter.convert import to_lite_bytes
from lite_converter.ir import Graph
from lite_converter.passes.quantize_int8 import QuantizeInputs, quantize_int8
from slim.bias_correction import FloatParams, WindowMean, correct_biases
from slim.calibrate import CalibrationResult
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
    range_search: Any = None  # the slim.range_search.RangeSearchResult when QuantConfig.range_search
    # QuantConfig.fp32_input_share's prefix (slim/input_layers.py): nodes every int8 version keeps in fp32,
    # and the weighted ones among them, which keep fp32 weights too
    input_layers: list[str] = dataclasses.field(default_factory=list)
    input_weighted: list[str] = dataclasses.field(default_factory=list)

    def fp32_nodes(self, skip_nodes: set[str] | None = None) -> set[str]:
        """The nodes an int8 version keeps in fp32: ``skip_nodes`` (default: the config's) and the
        input-side prefix. PTQ (``quantize``) and QAT (slim/qat.py) both ask here."""
        skip = set(self.settings.skip_nodes) if skip_nodes is None else set(skip_nodes)
        return skip | set(self.input_layers)


@dataclasses.dataclass
class Quantized:
    """One int8 version of a Prepared graph."""

    graph: Graph
    int8_nodes: list[str]
    skip_nodes: set[str]
    bias_corrections: dict[str, np.ndarray]

    def lite_bytes(self) -> bytes:
        return to_lite_bytes(self.graph)


def quantize(prepared: Prepared, skip_nodes: set[str] | None = None,
             fp32_weights: set[str] | None = None) -> Quantized:
    """The int8 graph of ``prepared`` with ``skip_nodes`` (default: the config's) kept in fp32;
    the nodes ``fp32_weights`` also keep fp32 weights (no weight-only int8: slim/fp32_weights.py).
    The input-side prefix of ``prepared.input_layers`` is kept in fp32 (with fp32 weights) in every
    version."""
    skip = prepared.fp32_nodes(skip_nodes)
    fp32_weights = set(fp32_weights or ()) | set(prepared.input_weighted)
    graph = copy.deepcopy(prepared.graph)
    result = prepared.calibration
    inputs = QuantizeInputs(result.ranges, result.shapes, skip,
                            per_tensor_weights=prepared.settings.per_tensor_weights)
    int8_nodes = quantize_int8(graph, inputs)
    if fp32_weights:
        restore_fp32_weights(graph, prepared.graph, fp32_weights)
    corrections = correct_biases(graph, prepared.float_params, prepared.window_means, int8_nodes)
    return Quantized(graph, int8_nodes, skip, corrections)
