"""Automatic mixed precision: keep the most sensitive layers in fp32 until a target holds.

Greedy, as PaddleSlim's and NNCF's accuracy-aware modes do it in spirit: rank the requantizing
int8 layers (CONV_2D, FULLY_CONNECTED, ADD) by their local SQNR (slim/analysis.py: the error each
adds on its own, from fp32 inputs), then add them to the fp32 set one at a time, lowest first,
re-quantizing and re-measuring after each, until the target holds:

* ``QuantConfig.sqnr_target``: every graph output's SQNR (dB, int8 vs fp32 on the calibration data);
* ``QuantConfig.accuracy_target`` + ``eval_fn``: ``eval_fn(lite_bytes) >= accuracy_target``.

The ranking is computed once (the local SQNR of a layer does not depend on which others are
fp32); each trial costs one int8 pass and one evaluation.
"""

from __future__ import annotations

import dataclasses

from slim.analysis import AnalysisReport, measure, output_agreement, reference_outputs
from slim.pipeline import Prepared, Quantized, quantize


@dataclasses.dataclass
class MixedPrecisionResult:
    """The layers kept in fp32 (in the order chosen), the metric after each step, the final model."""

    fp32_layers: list[str]
    target_met: bool
    history: list[tuple[int, float]]  # (layers kept in fp32, metric)
    ranking: AnalysisReport
    quantized: Quantized


def choose_fp32_layers(prepared: Prepared) -> MixedPrecisionResult:
    """Greedy search for the fewest sensitive layers to keep in fp32 (see the module docstring)."""
    settings = prepared.settings
    base_skip = set(settings.skip_nodes)
    quantized = quantize(prepared, base_skip)
    ranking = measure(prepared, quantized)
    candidates = [name for name in ranking.most_sensitive() if name not in base_skip]
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
        quantized = quantize(prepared, base_skip | set(kept))
        value, met = metric(quantized)
        history.append((len(kept), value))
    return MixedPrecisionResult(kept, met, history, ranking, quantized)
