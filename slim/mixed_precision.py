"""Automatic mixed precision: keep the most sensitive layers in fp32 until a target holds.

Greedy, as PaddleSlim's and NNCF's accuracy-aware modes do it in spirit: rank the int8 layers
(every int8 op but the byte movers: an int8 op makes its input quantized, whoever produces it) by
their local SQNR (slim/analysis.py: the error each adds on its own, from fp32 inputs) together with
the fp32 layers that store int8 weights (by their weight SQNR, slim/fp32_weights.py), then keep them
in fp32 — fp32 weights included — one at a time, lowest first, re-quantizing and re-measuring after
each, until the target holds:

* ``QuantConfig.sqnr_target``: every graph output's SQNR (dB, int8 vs fp32 on the calibration data);
* ``QuantConfig.accuracy_target`` + ``eval_fn``: ``eval_fn(lite_bytes) >= accuracy_target``.

The ranking is computed once (the local SQNR of a layer does not depend on which others are
fp32); each trial costs one int8 pass and one evaluation. Once the target holds, a backward pass
tries giving int8 back to each kept layer but the last, latest first, and keeps the change when the
target still holds (the forward ranking is only an estimate: on PP-OCR cls many early picks do not
move the output).
"""

from __future__ import annotations

import dataclasses
import math

from slim.analysis import AnalysisReport, measure
from slim.fp32_weights import weight_only_sqnr
from slim.output_agreement import output_agreement, reference_outputs
from slim.pipeline import Prepared, Quantized, quantize


@dataclasses.dataclass
class MixedPrecisionResult:
    """The layers kept in fp32 (in the order chosen), the metric after each step, the final model."""

    fp32_layers: list[str]
    target_met: bool
    history: list[tuple[int, float]]  # (layers kept in fp32, metric) per accepted step, forward then backward
    ranking: AnalysisReport
    quantized: Quantized


def choose_fp32_layers(prepared: Prepared) -> MixedPrecisionResult:
    """Greedy search for the fewest sensitive layers to keep in fp32 (see the module docstring)."""
    settings = prepared.settings
    base_skip = set(settings.skip_nodes)
    quantized = quantize(prepared, base_skip)
    ranking = measure(prepared, quantized)
    candidates = _ranked_candidates(prepared, quantized, ranking, base_skip)
    if settings.max_fp32_layers is not None:
        candidates = candidates[: settings.max_fp32_layers]
    references = reference_outputs(prepared) if settings.sqnr_target is not None else []

    def metric(trial: Quantized) -> tuple[float, bool]:
        if settings.sqnr_target is not None:
            value = min(a.sqnr_db for a in output_agreement(prepared, trial, references).values())
            met = value >= settings.sqnr_target
            if settings.accuracy_target is None or not met:
                return value, met
        assert settings.eval_fn is not None and settings.accuracy_target is not None
        value = float(settings.eval_fn(trial.lite_bytes()))
        return value, value >= settings.accuracy_target

    kept: list[str] = []
    value, met = metric(quantized)
    history = [(0, value)]
    for name in candidates:
        if met:
            break
        kept.append(name)
        quantized = quantize(prepared, base_skip | set(kept), fp32_weights=set(kept))
        value, met = metric(quantized)
        history.append((len(kept), value))
    if met and len(kept) > 1:  # backward pass: give int8 back to the layers the target does not need
        for name in reversed(kept[:-1]):
            fewer = [other for other in kept if other != name]
            trial = quantize(prepared, base_skip | set(fewer), fp32_weights=set(fewer))
            trial_value, trial_met = metric(trial)
            if trial_met:
                kept, quantized = fewer, trial
                history.append((len(kept), trial_value))
    return MixedPrecisionResult(kept, met, history, ranking, quantized)


def _ranked_candidates(prepared: Prepared, quantized: Quantized, ranking: AnalysisReport,
                       base_skip: set[str]) -> list[str]:
    """Int8 layers (local SQNR) and weight-only layers (weight SQNR), lowest dB first."""
    scored = {layer.node: layer.local_sqnr_db
              for layer in ranking.layers if not math.isnan(layer.local_sqnr_db)}
    scored.update(weight_only_sqnr(quantized.graph, prepared.graph, set(quantized.int8_nodes)))
    return sorted((name for name in scored if name not in base_skip), key=lambda name: scored[name])
