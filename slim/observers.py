"""Observers: one per activation tensor, fed every calibration batch, asked for a real range at the end.

* ``abs_max``: the smallest and largest value seen over all batches (nothing is clipped);
* ``avg``: an exponential moving average of each batch's min and max (robust to a rare outlier batch);
* ``hist``: the lower / upper percentile of the values seen (a uniform random sample of them);
* ``mse``: the clipping of [min, max] that minimizes the mean squared int8 quantization error on the sample;
* ``kl``: the clipping minimizing the KL divergence between the sample's histogram and its int8
  re-quantized version (the TensorRT entropy calibration idea).

The histogram-based observers keep a bounded uniform sample (reservoir) of the values rather than
every value, so memory stays ~``SAMPLE_SIZE`` floats per tensor whatever the calibration set size.
"""

from __future__ import annotations

import numpy as np

from lite_converter.passes.quantize_params import activation_params
from slim.config import QuantConfig

SAMPLE_SIZE = 1 << 15
CANDIDATES = 64  # clipping ratios tried by mse / kl


class Observer:
    """Base: tracks min / max; subclasses pick the range."""

    def __init__(self, config: QuantConfig) -> None:
        self.config = config
        self.low = np.inf
        self.high = -np.inf

    def update(self, values: np.ndarray) -> None:
        flat = values.reshape(-1)
        if flat.size:
            self.low = min(self.low, float(flat.min()))
            self.high = max(self.high, float(flat.max()))

    def range(self) -> tuple[float, float]:
        return (self.low, self.high) if self.low <= self.high else (0.0, 0.0)


class AbsMaxObserver(Observer):
    """The whole range seen."""


class MovingAverageObserver(Observer):
    """EMA of per-batch min and max."""

    def __init__(self, config: QuantConfig) -> None:
        super().__init__(config)
        self.avg_low: float | None = None
        self.avg_high = 0.0

    def update(self, values: np.ndarray) -> None:
        flat = values.reshape(-1)
        if not flat.size:
            return
        low, high = float(flat.min()), float(flat.max())
        if self.avg_low is None:
            self.avg_low, self.avg_high = low, high
        else:
            keep = self.config.moving_average
            self.avg_low = keep * self.avg_low + (1 - keep) * low
            self.avg_high = keep * self.avg_high + (1 - keep) * high

    def range(self) -> tuple[float, float]:
        return (0.0, 0.0) if self.avg_low is None else (self.avg_low, self.avg_high)


class SampleObserver(Observer):
    """Keeps a uniform random sample of the values (reservoir sampling by random keys)."""

    def __init__(self, config: QuantConfig) -> None:
        super().__init__(config)
        self.rng = np.random.default_rng(0)
        self.sample = np.zeros(0, np.float32)
        self.keys = np.zeros(0)

    def update(self, values: np.ndarray) -> None:
        super().update(values)
        flat = values.reshape(-1).astype(np.float32)
        keys = self.rng.random(flat.size)
        if flat.size > SAMPLE_SIZE:
            top = np.argpartition(keys, -SAMPLE_SIZE)[-SAMPLE_SIZE:]
            flat, keys = flat[top], keys[top]
        self.sample = np.concatenate([self.sample, flat])
        self.keys = np.concatenate([self.keys, keys])
        if self.sample.size > SAMPLE_SIZE:
            top = np.argpartition(self.keys, -SAMPLE_SIZE)[-SAMPLE_SIZE:]
            self.sample, self.keys = self.sample[top], self.keys[top]


class PercentileObserver(SampleObserver):
    def range(self) -> tuple[float, float]:
        if not self.sample.size:
            return (0.0, 0.0)
        tail = (1.0 - self.config.percentile) * 100.0
        return (float(np.percentile(self.sample, tail)), float(np.percentile(self.sample, 100.0 - tail)))


def _fake_quantize(values: np.ndarray, low: float, high: float) -> np.ndarray:
    params = activation_params(low, high)
    scale, zero_point = float(params.scale[0]), int(params.zero_point[0])
    q = np.clip(np.rint(values / scale) + zero_point, -128, 127)
    return (q - zero_point) * scale


class MseObserver(SampleObserver):
    def range(self) -> tuple[float, float]:
        low, high = super().range()
        if not self.sample.size or low == high:
            return (low, high)
        best, best_error = (low, high), np.inf
        for ratio in np.linspace(1.0, 0.2, CANDIDATES):
            candidate = (low * ratio, high * ratio)
            error = float(np.mean((_fake_quantize(self.sample, *candidate) - self.sample) ** 2))
            if error < best_error:
                best, best_error = candidate, error
        return best


class KlObserver(SampleObserver):
    """TensorRT's entropy calibration, for an asymmetric range: for each candidate clipping, P is the
    histogram inside it with the clipped-off mass folded onto its edge bins, Q is the histogram inside
    it (without the folded mass) quantized to the candidate's int8 levels, each level's mass spread
    evenly over its non-empty bins; the candidate with the smallest KL(P || Q) wins."""

    BINS = 2048

    def range(self) -> tuple[float, float]:
        low, high = super().range()
        if not self.sample.size or low == high:
            return (low, high)
        counts, edges = np.histogram(self.sample, bins=self.BINS, range=(low, high))
        counts = counts.astype(np.float64)
        centers = (edges[:-1] + edges[1:]) / 2
        best, best_kl = (low, high), np.inf
        for ratio in np.linspace(1.0, 0.2, CANDIDATES):
            candidate = (low * ratio, high * ratio)
            inside = np.flatnonzero((centers >= candidate[0]) & (centers <= candidate[1]))
            if inside.size < 2:
                continue
            kept = counts[inside]
            p = kept.copy()
            p[0] += counts[: inside[0]].sum()
            p[-1] += counts[inside[-1] + 1:].sum()
            params = activation_params(*candidate)
            scale, zero_point = float(params.scale[0]), int(params.zero_point[0])
            level = (np.clip(np.rint(centers[inside] / scale) + zero_point, -128, 127) + 128).astype(np.int64)
            mass = np.bincount(level, weights=kept, minlength=256)
            filled = np.bincount(level, weights=(kept > 0).astype(np.float64), minlength=256)
            q = np.where(kept > 0, mass[level] / np.maximum(filled[level], 1), 0.0)
            p, q = p / p.sum(), (q + 1e-12) / (q + 1e-12).sum()
            used = p > 0
            kl = float(np.sum(p[used] * np.log(p[used] / q[used])))
            if kl < best_kl:
                best, best_kl = candidate, kl
        return best


OBSERVERS: dict[str, type[Observer]] = {
    "abs_max": AbsMaxObserver,
    "avg": MovingAverageObserver,
    "hist": PercentileObserver,
    "mse": MseObserver,
    "kl": KlObserver,
}


def make_observer(algorithm: str, config: QuantConfig) -> Observer:
    return OBSERVERS[algorithm](config)
