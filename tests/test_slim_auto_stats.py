"""The statistical accuracy bound of ``config="auto"`` (slim/auto_stats.py).

The upper bound equals an independent computation (scipy.stats: the standard error of the mean and
the normal quantile) on known per-sample arrays; through the whole search, a candidate whose mean
drop is just under the bound is accepted when the per-sample drops agree and rejected when they
spread (mixed precision, which then runs, stops on the same criterion: it accepts none of the
partly-int8 models, each 0.9 under fp32 with that spread);
a scalar eval_fn still works and the report says no margin was computed.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

import slim
from lite_converter.convert import convert
from slim.auto_stats import BoundedAccuracy, Measured, measure, paired_drop, z_score
from tests.test_slim_auto import batches, conv_classifier

SAMPLES = 400
BOUND = 1.0
MEAN_DROP = 0.9  # just under the bound


def _unit_noise(seed: int = 7) -> np.ndarray:
    """A fixed array of mean exactly 0 and standard deviation (ddof=1) exactly 1."""
    noise = np.random.default_rng(seed).standard_normal(SAMPLES)
    noise -= noise.mean()
    return noise / noise.std(ddof=1)


@pytest.mark.parametrize("confidence", [0.8, 0.9, 0.95, 0.99])
def test_upper_bound_equals_scipy(confidence: float) -> None:
    rng = np.random.default_rng(3)
    reference = rng.uniform(60, 100, SAMPLES)
    candidate = reference - rng.normal(0.5, 4.0, SAMPLES)
    drop = paired_drop(Measured(reference.mean(), reference), Measured(candidate.mean(), candidate),
                       confidence)
    differences = reference - candidate
    expected = differences.mean() + stats.norm.ppf(confidence) * stats.sem(differences)
    assert drop.value == pytest.approx(reference.mean() - candidate.mean(), abs=1e-12)
    assert drop.upper == pytest.approx(expected, rel=1e-12)
    assert drop.standard_error == pytest.approx(stats.sem(differences), rel=1e-12)
    assert z_score(confidence) == pytest.approx(stats.norm.ppf(confidence), rel=1e-12)


def test_scalar_and_malformed_eval_results() -> None:
    assert measure(lambda _: 97.5, b"") == Measured(97.5)
    assert measure(lambda _: np.array([42.0]), b"").samples is None  # one sample: no spread
    assert paired_drop(Measured(97.5), Measured(96.7), 0.95).upper is None
    with pytest.raises(ValueError, match="1-D"):
        measure(lambda _: np.ones((3, 2)), b"")
    with pytest.raises(ValueError, match="pairs"):
        paired_drop(Measured(1.0, np.ones(3)), Measured(1.0, np.ones(4)), 0.95)
    with pytest.raises(ValueError, match="confidence"):
        z_score(1.0)


def test_bounded_accuracy_is_the_reports_criterion_and_evaluates_each_model_once() -> None:
    reference = np.full(SAMPLES, 90.0)
    calls: list[bytes] = []

    def eval_fn(model: bytes) -> np.ndarray:
        calls.append(model)
        return reference - MEAN_DROP - float(model[0]) * _unit_noise()

    bounded = BoundedAccuracy(eval_fn, Measured(90.0, reference), 0.95)
    for spread in (0, 1, 5, 10):
        model = bytes([spread])
        drop = paired_drop(bounded.reference, measure(eval_fn, model), 0.95)
        value = bounded(model)
        assert value == pytest.approx(90.0 - drop.upper, abs=1e-9)
        assert (value >= 90.0 - BOUND) == (drop.upper <= BOUND)
        assert bounded(model) == value
    assert len(calls) == 8  # one here, one by the wrapper per model, none on the repeat


class DesignedScores:
    """eval_fn of known per-sample scores: fp32 (recognized by its bytes) 90 on every sample; any
    other model MEAN_DROP lower on average, spread ``spread`` per sample (or their mean: ``scalar``)."""

    def __init__(self, fp32: bytes, spread: float, scalar: bool = False) -> None:
        self.fp32, self.spread, self.scalar = fp32, spread, scalar

    def __call__(self, model: bytes) -> np.ndarray | float:
        scores = np.full(SAMPLES, 90.0)
        if model != self.fp32:
            scores = scores - MEAN_DROP - self.spread * _unit_noise()
        return float(scores.mean()) if self.scalar else scores


def _search(tmp_path: Path, eval_fn: DesignedScores) -> slim.CompressResult:
    return slim.compress(conv_classifier(), tmp_path / "auto.lite", batches(), "auto",
                         max_accuracy_drop=BOUND, target_speedup=0.01, speed_target="host", timing_rounds=2,
                         eval_fn=eval_fn, progress=False)


def test_a_drop_just_under_the_bound_passes_only_without_spread(tmp_path: Path) -> None:
    fp32 = convert(conv_classifier())
    tight = _search(tmp_path, DesignedScores(fp32, spread=0.1)).auto
    # SE = 0.1 / sqrt(400) = 0.005: upper = 0.9 + 1.645 * 0.005 = 0.908 <= 1
    expected = MEAN_DROP + stats.norm.ppf(0.95) * 0.1 / np.sqrt(SAMPLES)
    assert tight.met and tight.chosen.name == "int8"
    assert tight.chosen.accuracy_drop == pytest.approx(MEAN_DROP, abs=1e-9)
    assert tight.chosen.drop_upper == pytest.approx(expected, rel=1e-9)

    noisy = _search(tmp_path, DesignedScores(fp32, spread=10.0)).auto
    # SE = 0.5: upper = 0.9 + 0.82 = 1.72 > 1, though the measured drop 0.9 is under the bound
    assert [c.name for c in noisy.candidates] == ["int8", "int8_search", "int8_fast", "int8+mixed"]
    for candidate in noisy.candidates[:3]:
        assert candidate.accuracy_drop == pytest.approx(MEAN_DROP, abs=1e-9)
        assert candidate.drop_upper == pytest.approx(MEAN_DROP + stats.norm.ppf(0.95) * 0.5, rel=1e-9)
        assert not noisy.accuracy_met(candidate)
    # mixed precision rejected every partly-int8 model (each measures 0.9, bound 1.72) down to all fp32
    mixed = noisy.candidates[3]
    assert mixed.lite_bytes == fp32 and mixed.accuracy_drop == 0 and mixed.drop_upper == 0
    assert noisy.met and noisy.chosen is mixed
    stored = json.loads((tmp_path / "auto.auto.json").read_text())
    assert stored["confidence"] == 0.95
    assert stored["candidates"][0]["drop_upper"] == noisy.candidates[0].drop_upper
    text = (tmp_path / "auto.auto.txt").read_text()
    assert "upper = drop + z*SE" in text and f"{noisy.candidates[0].drop_upper:.2f}" in text
    assert (tmp_path / "auto.auto.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_a_scalar_eval_fn_is_compared_as_measured_and_the_report_says_so(tmp_path: Path) -> None:
    report = _search(tmp_path, DesignedScores(convert(conv_classifier()), spread=10.0, scalar=True)).auto
    assert report.met and report.chosen.name == "int8" and report.chosen.drop_upper is None
    assert report.confidence is None
    assert any("no margin" in note for note in report.notes)
    assert "no margin" in (tmp_path / "auto.auto.txt").read_text()
