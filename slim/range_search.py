"""Range search: per group of activation tensors, the range rule under which the int8 model agrees best
with the fp32 model on the calibration data.

One range rule for every tensor does not serve a family: on hard rendered data PP-OCRv4 rec loses 3.3
points with the observed min / max and 1.3 with 99.99% quantiles, while PP-OCRv4 det's line recall
goes the other way (docs/QUANTIZATION.md "Range search"), and a tensor's own quantization error
(``mse``) or its consumers' error picks wrongly for one of them. What matters is the model's output,
so this judges candidates there, label-free (PaddleSlim's quant_post_hpo and NNCF's PTQ
hyperparameter tuner also judge calibration settings on the model's output, but per model): the int8
model (int8 pass, our runtime) runs the first ``QuantConfig.search_batches`` calibration batches and
its graph outputs are compared with fp32 (SQNR, dB; the worst output counts).

The candidates come from the same calibration run (slim/calibrate.py ``CalibrationResult.candidates``:
min / max and the SEARCH_PERCENTILES quantiles of every batch). The search first picks the best
rule for the whole model, then walks the tensors in graph order in ``QuantConfig.search_groups``
contiguous groups and gives each group the rule that raises the output SQNR most (coordinate
descent, one pass). Tensors another algorithm calibrated (overrides, and the decision tensors of
slim/decision_tensors.py at their min / max) have one range under every rule and are never changed.
"""

from __future__ import annotations

import dataclasses

import numpy as np

from slim.output_agreement import output_agreement, reference_outputs
from slim.progress import ProgressBar
from slim.quantize_prepared import Prepared, quantize

Ranges = dict[str, tuple[float, float]]


@dataclasses.dataclass
class RangeSearchResult:
    """The rule chosen for the whole model, then per group (tensor names, rule), and each trial's
    (description, output SQNR dB) in order."""

    model_rule: str
    groups: list[tuple[list[str], str]]
    trials: list[tuple[str, float]]


def searchable_tensors(prepared: Prepared, candidates: dict[str, Ranges] | None = None) -> list[str]:
    """Tensors whose range differs between the candidates (default: all of the calibration's; the
    others have a fixed rule), in graph order."""
    candidates = prepared.calibration.candidates if candidates is None else candidates
    return [name for name in prepared.calibration.ranges
            if len({rule[name] for rule in candidates.values()}) > 1]


def search_ranges(prepared: Prepared) -> Prepared:
    """``prepared`` with the searched ranges and what the search did (``Prepared.range_search``), or
    unchanged when there is nothing to choose among."""
    settings = prepared.settings
    candidates = prepared.calibration.candidates
    if settings.search_rules is None:  # the per-batch rules; pooled ones only when named
        candidates = {rule: ranges for rule, ranges in candidates.items() if not rule.startswith("pooled")}
    else:
        candidates = {rule: candidates[rule] for rule in settings.search_rules if rule in candidates}
    names = searchable_tensors(prepared, candidates)
    if len(candidates) < 2 or not names:
        return prepared
    probe = dataclasses.replace(prepared, batches=prepared.batches[: settings.search_batches])
    references = reference_outputs(probe)
    count = min(settings.search_groups, len(names))
    groups = [list(chunk) for chunk in np.array_split(np.array(names, dtype=object), count)] if count else []
    total = len(candidates) * (1 + len(groups)) - len(groups)
    bar = ProgressBar(total, "searching ranges", enabled=settings.progress)
    trials: list[tuple[str, float]] = []

    def score(ranges: Ranges, what: str) -> float:
        trial = dataclasses.replace(probe, calibration=dataclasses.replace(probe.calibration, ranges=ranges))
        value = min(a.sqnr_db for a in output_agreement(trial, quantize(trial), references).values())
        trials.append((what, value))
        bar.step()
        return value

    try:
        scores = {rule: score(ranges, rule) for rule, ranges in candidates.items()}
        model_rule = max(scores, key=lambda rule: scores[rule])
        best, ranges = scores[model_rule], dict(candidates[model_rule])
        chosen: list[tuple[list[str], str]] = []
        for index, group in enumerate(groups):
            group_rule, group_ranges = model_rule, ranges
            for rule, rule_ranges in candidates.items():
                if rule == model_rule:
                    continue
                trial_ranges = {**ranges, **{name: rule_ranges[name] for name in group}}
                value = score(trial_ranges, f"group {index}: {rule}")
                if value > best:
                    best, group_rule, group_ranges = value, rule, trial_ranges
            ranges = group_ranges
            chosen.append(([str(name) for name in group], group_rule))
    finally:
        bar.close()
    calibration = dataclasses.replace(prepared.calibration, ranges=ranges)
    return dataclasses.replace(prepared, calibration=calibration,
                               range_search=RangeSearchResult(model_rule, chosen, trials))
