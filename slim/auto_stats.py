"""The accuracy bound of ``config="auto"`` as a statistical test on the evaluation sample.

An accuracy measured on n lines is an estimate: a candidate that loses 0.79 points on 1,000 search
lines lost 1.07 on 1,000 other lines (benchmarks/COMPRESSION.md). Accepting a measured drop just
under the bound accepts, about half the time, a model whose true drop is above it. So when
``eval_fn`` gives one score per sample (an array; the metric is their mean, as character accuracy is
the mean of per-line scores), the drop is tested paired against fp32 on the same samples:

    d_i = fp32_i - candidate_i,   drop = mean(d),   SE = std(d, ddof=1) / sqrt(n),
    upper = drop + z * SE,        z = Phi^-1(confidence)   (one-sided)

and a candidate meets ``max_accuracy_drop`` only when ``upper`` does. Pairing removes the spread of
line difficulty, which both models share (most lines score the same in both): the standard error is
that of the differences, several times smaller than that of either accuracy. One-sided: only a drop
larger than measured is a risk. The normal quantile holds for the mean of hundreds of samples
(central limit theorem); with a handful of samples it is optimistic (Student's t would be wider).

A scalar ``eval_fn`` gives no spread: the measured drop is compared as it is and the report says no
margin could be computed.
"""

from __future__ import annotations

import dataclasses
import hashlib
import math
import statistics
from collections.abc import Callable
from typing import Any

import numpy as np

DEFAULT_CONFIDENCE = 0.95  # one-sided: a 5% risk of accepting a model whose true drop exceeds the bound


def z_score(confidence: float) -> float:
    """The one-sided standard normal quantile for ``confidence`` (0.95 -> 1.645)."""
    if not 0.5 <= confidence < 1.0:
        raise ValueError(f"confidence must be in [0.5, 1), got {confidence}")
    return statistics.NormalDist().inv_cdf(confidence)


@dataclasses.dataclass(frozen=True)
class Measured:
    """One model's accuracy: the metric (mean of the samples when there are samples) and the
    per-sample scores (None for a scalar eval_fn)."""

    value: float
    samples: np.ndarray | None = None


def measure(eval_fn: Callable[[bytes], Any], model: bytes) -> Measured:
    """Calls ``eval_fn``: a scalar is the metric; a 1-D array of per-sample scores is averaged (one
    sample has no spread: it counts as a scalar)."""
    samples = np.asarray(eval_fn(model), dtype=np.float64)
    if samples.ndim > 1:
        raise ValueError(f"eval_fn must return a float or a 1-D array of per-sample scores, got shape "
                         f"{samples.shape}")
    if samples.size < 2:
        return Measured(float(samples.reshape(-1)[0]))
    return Measured(float(samples.mean()), samples)


@dataclasses.dataclass(frozen=True)
class Drop:
    """The measured drop and its one-sided upper confidence bound (None: no samples, no margin)."""

    value: float
    upper: float | None
    standard_error: float | None


def paired_drop(reference: Measured, candidate: Measured, confidence: float) -> Drop:
    """fp32's metric minus the candidate's, with the bound of the module docstring when both have
    per-sample scores (on the same samples, in the same order)."""
    value = reference.value - candidate.value
    if reference.samples is None or candidate.samples is None:
        return Drop(value, None, None)
    if reference.samples.shape != candidate.samples.shape:
        raise ValueError(f"eval_fn gave {reference.samples.size} samples for fp32 and "
                         f"{candidate.samples.size} for a candidate: the test pairs them")
    differences = reference.samples - candidate.samples
    error = float(differences.std(ddof=1)) / math.sqrt(differences.size)
    return Drop(value, value + z_score(confidence) * error, error)


class BoundedAccuracy:
    """An eval_fn for mixed precision that applies the same criterion: it returns fp32's metric
    minus the drop's upper bound (minus the drop itself for a scalar eval_fn), so
    ``value >= fp32 - max_accuracy_drop`` holds exactly when the bound does. The per-sample scores
    of every model it measured are kept (by model bytes) for the report, so the model mixed
    precision returns is not evaluated twice."""

    def __init__(self, eval_fn: Callable[[bytes], Any], reference: Measured, confidence: float) -> None:
        self.eval_fn, self.reference, self.confidence = eval_fn, reference, confidence
        self.measured: dict[str, Measured] = {}

    def lookup(self, model: bytes) -> Measured:
        """The model's measurement (evaluated now unless this wrapper measured it already)."""
        key = hashlib.sha256(model).hexdigest()
        if key not in self.measured:
            self.measured[key] = measure(self.eval_fn, model)
        return self.measured[key]

    def __call__(self, model: bytes) -> float:
        measured = self.lookup(model)
        drop = paired_drop(self.reference, measured, self.confidence)
        return self.reference.value - (drop.upper if drop.upper is not None else drop.value)
