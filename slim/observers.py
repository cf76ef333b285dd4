"""Observers: one per activation tensor, fed every calibration batch, asked for a real range at the end.

* ``abs_max``: the smallest and largest value seen over all batches (nothing is clipped);
* ``avg``: an exponential moving average of each batch's min and max (robust to a rare outlier batch);
* ``hist``: the lower / upper percentile of each batch's values (exact), averaged over the batches
  (or over groups of batches holding ``percentile_samples`` inputs);
* ``mse``: the clipping of [min, max] that minimizes the mean squared int8 quantization error on the sample;
* ``kl``: the clipping minimizing the KL divergence between the sample's |x| histogram and its int8
  re-quantized version (the TensorRT entropy calibration idea).

The histogram-based observers keep a bounded uniform sample (reservoir) of the values rather than
every value, so memory stays ~``SAMPLE_SIZE`` floats per tensor whatever the calibration set size.
"""

from __future__ import annotations

import numpy as np

from lite_converter.int8 import fake_quantize
from lite_converter.int8.params import activation_params
from slim.config import QuantConfig
from slim.tails import extremes

SAMPLE_SIZE = 1 << 15
CANDIDATES = 64  # clipping ratios tried by mse / kl
SEARCH_PERCENTILES = (0.999, 0.9999, 0.99999)  # the hist candidates range search weighs


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
    """Keeps a uniform random sample of the values: weighted reservoir sampling by random keys
    (Efraimidis-Spirakis, key = u ** (1 / weight)). A batch larger than SAMPLE_SIZE contributes
    SAMPLE_SIZE values drawn uniformly, each standing for size / SAMPLE_SIZE of them, so the cost per
    batch is O(SAMPLE_SIZE) random draws, not O(values) (a key for every value of every activation)."""

    def __init__(self, config: QuantConfig) -> None:
        super().__init__(config)
        self.rng = np.random.default_rng(0)
        self.sample = np.zeros(0, np.float32)
        self.keys = np.zeros(0)

    def update(self, values: np.ndarray) -> None:
        super().update(values)
        flat = values.reshape(-1)
        weight = 1.0
        if flat.size > SAMPLE_SIZE:
            weight = flat.size / SAMPLE_SIZE
            flat = flat[self.rng.integers(0, flat.size, SAMPLE_SIZE)]
        flat = flat.astype(np.float32)
        keys = self.rng.random(flat.size) ** (1.0 / weight)
        self.sample = np.concatenate([self.sample, flat])
        self.keys = np.concatenate([self.keys, keys])
        if self.sample.size > SAMPLE_SIZE:
            top = np.argpartition(self.keys, -SAMPLE_SIZE)[-SAMPLE_SIZE:]
            self.sample, self.keys = self.sample[top], self.keys[top]


class PercentileObserver(Observer):
    """The lower / upper ``percentile`` of each batch, exact (np.partition over all its values), averaged
    over the batches weighted by their sizes. Exact per batch because a 99.99% quantile estimated from
    a 2^15 sample rests on ~3 values (PP-OCRv4 rec, sampled: -0.36 points of character accuracy on
    300 hard lines with one sampler, -1.84 on 1,000 with another); deterministic, and no RNG.

    With ``QuantConfig.pooled_percentile`` the range is instead the exact quantile of all the
    calibration values together (the batches pooled): the tails of the union are kept (the
    ``(1 - min percentile)`` share of the values expected over all batches, each side), so memory is
    0.1% of the values at most. Why: a mean of per-batch quantiles depends on the batch size; with one
    image per batch, an extreme that only some images show (an object, a text region) is clipped in
    every batch that lacks it and the mean lands far inside the values those images need.

    The same partition also yields the ranges at SEARCH_PERCENTILES (slim/range_search.py picks among
    them by the model's output error), so the candidates cost no second calibration run.

    With ``QuantConfig.percentile_samples`` (the ``int8`` preset: 8), batches holding fewer inputs
    are merged into groups of at least that many (their sorted tails, sized for the whole group)
    and each group's exact quantiles enter the mean like one batch's: the range then no longer
    depends on how the caller batched the data (one image per batch clipped the extremes that only
    some images show; docs/QUANTIZATION.md "Quantiles over groups of inputs").

    The pooled tails are kept only when something reads them (``keeps_pooled_tails``): merging them
    costs a sort of up to 0.1% of all values per batch, and the per-batch default never uses them."""

    def __init__(self, config: QuantConfig) -> None:
        super().__init__(config)
        self.keep_pooled = keeps_pooled_tails(config)
        self.percentiles = tuple(dict.fromkeys((config.percentile, *SEARCH_PERCENTILES)))
        self.weighted = np.zeros((len(self.percentiles), 2))
        self.count = 0
        self.expected_batches = 1  # calibrate() says how many batches come (sizes the pooled tails)
        self.batches = 0
        self.pooled_low = np.zeros(0, np.float32)  # the lowest values of all batches, ascending
        self.pooled_high = np.zeros(0, np.float32)  # the highest values of all batches, descending
        self.group_low = np.zeros(0, np.float32)  # the open group's lowest values, ascending
        self.group_high = np.zeros(0, np.float32)  # and highest, descending
        self.group_count = 0  # values in the open group
        self.group_samples = 0  # inputs in the open group

    def expect(self, batches: int) -> None:
        """How many batches calibration will feed (the pooled tails keep enough values for all)."""
        self.expected_batches = max(1, batches)

    def update(self, values: np.ndarray, samples: int = 1) -> None:
        """One calibration batch's values of this tensor; ``samples``: the inputs the batch holds
        (with ``QuantConfig.percentile_samples``, quantiles are taken over groups of that many)."""
        super().update(values)
        flat = values.reshape(-1)
        if not flat.size:
            return
        self.batches += 1
        group = self.config.percentile_samples
        grouped = group is not None and (self.group_samples > 0 or samples < group)
        widest_share = max(1.0 - p for p in self.percentiles)
        # values beyond each quantile, each side; the two widest tails (0.1% of the values at most,
        # slim/tails.py) found and sorted once: every quantile for the price of one
        tails = [int((1.0 - p) * flat.size + 1e-6) for p in self.percentiles]
        expected_total = (self.count + flat.size) * max(1.0, self.expected_batches / self.batches)
        keep = min(flat.size, int(widest_share * expected_total + 1e-6) + 1)  # pooled tail kept per side
        # a group's quantile needs from each batch as many values as the whole group's tail (twice
        # the tail of a group of batches this size: exact unless the next ones are over twice larger)
        group_keep = int(widest_share * 2 * flat.size * max(1, group or 1) / max(1, samples)) + 1
        widest = min(max(max(tails), keep - 1 if self.keep_pooled else 0, group_keep - 1 if grouped else 0),
                     flat.size - 1)
        lowest, highest = extremes(flat, widest + 1)  # exact, partitioning only near the tails
        if grouped:
            self._grow_group(lowest, highest, flat.size, samples)
        else:
            for row, tail in enumerate(tails):
                self.weighted[row] += (float(lowest[tail]) * flat.size, float(highest[-1 - tail]) * flat.size)
            self.count += flat.size
        if not self.keep_pooled:
            return
        self.pooled_low = np.sort(np.concatenate([self.pooled_low, lowest]))[:keep]
        self.pooled_high = np.sort(np.concatenate([self.pooled_high, highest]))[::-1][:keep]

    def _grow_group(self, lowest: np.ndarray, highest: np.ndarray, size: int, samples: int) -> None:
        """Adds one batch's sorted tails to the open group; closes it once it holds enough inputs."""
        self.group_low = np.sort(np.concatenate([self.group_low, lowest]))
        self.group_high = np.sort(np.concatenate([self.group_high, highest]))[::-1]
        self.group_count += size
        self.group_samples += samples
        if self.group_samples >= (self.config.percentile_samples or 1):
            self._close_group()

    def _close_group(self) -> None:
        """The open group's exact quantiles enter the size-weighted mean like one batch's."""
        if not self.group_count:
            return
        for row, p in enumerate(self.percentiles):
            tail = int((1.0 - p) * self.group_count + 1e-6)
            low = self.group_low[min(tail, self.group_low.size - 1)]
            high = self.group_high[min(tail, self.group_high.size - 1)]
            self.weighted[row] += (float(low) * self.group_count, float(high) * self.group_count)
        self.count += self.group_count
        self.group_low, self.group_high = np.zeros(0, np.float32), np.zeros(0, np.float32)
        self.group_count = self.group_samples = 0

    def range_at(self, percentile: float) -> tuple[float, float]:
        """The range at one of ``self.percentiles`` (pooled or per-batch, as the config says)."""
        self._close_group()
        if not self.count:
            return (0.0, 0.0)
        if self.config.pooled_percentile:
            return self.pooled_range_at(percentile)
        return self.batch_range_at(percentile)

    def batch_range_at(self, percentile: float) -> tuple[float, float]:
        """The size-weighted mean of each batch's (or group's) exact ``1 - percentile`` / ``percentile``
        quantiles; a last group with fewer inputs than ``percentile_samples`` counts as it is."""
        self._close_group()
        if not self.count:
            return (0.0, 0.0)
        low, high = self.weighted[self.percentiles.index(percentile)] / self.count
        return (float(low), float(high))

    def pooled_range_at(self, percentile: float) -> tuple[float, float]:
        """The exact ``1 - percentile`` / ``percentile`` quantiles (order statistics) of all values seen."""
        if not self.keep_pooled:
            raise ValueError("pooled ranges need the pooled tails: QuantConfig(pooled_percentile=True) or a "
                             "'pooled' rule in search_rules")
        self._close_group()  # counts the open group's values too
        if not self.count:
            return (0.0, 0.0)
        tail = int((1.0 - percentile) * self.count + 1e-6)
        low = self.pooled_low[min(tail, self.pooled_low.size - 1)]
        high = self.pooled_high[min(tail, self.pooled_high.size - 1)]
        return (float(low), float(high))

    def range(self) -> tuple[float, float]:
        return self.range_at(self.config.percentile)


def keeps_pooled_tails(config: QuantConfig) -> bool:
    """Whether calibration under ``config`` reads pooled quantiles: the pooled rule itself, or a range
    search told to weigh a ``pooled`` candidate (the search's default rules are per-batch only)."""
    searched = config.search_rules if config.range_search and config.search_rules else ()
    return config.pooled_percentile or any(rule.startswith("pooled") for rule in searched)


def _fake_quantize(values: np.ndarray, low: float, high: float) -> np.ndarray:
    """``values`` after an int8 round trip with the parameters the range [low, high] gets."""
    params = activation_params(low, high)
    return fake_quantize(values, params.scale[0], params.zero_point[0])


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
    """Entropy calibration (TensorRT's, as PaddleSlim also does it) fitted to our asymmetric scheme.

    Works on the |x| histogram (``BINS`` bins from 0 to max|x|). Candidate thresholds are the bin
    edges from ``FIRST_CANDIDATE`` bins up; for each, P is the histogram below it
    with the clipped mass folded onto its last bin, Q the same bins (without the clipped mass) merged
    into the int8 levels the candidate range gets and spread back evenly over the bins P fills; the
    smallest KL(P || Q) wins. The candidate [-T, T] is then intersected with the observed [min, max].

    Exact zeros are left out of the histogram: our zero point represents 0 exactly for every
    candidate, so they carry no quantization error, yet (half of a ReLU6 output) they fill the first
    bin and their KL term p0 * log(bins per level) shrinks as the candidate shrinks — which made the
    search clip ReLU6 outputs 0..6 to 0..~2 (docs/QUANTIZATION.md, "kl").
    """

    BINS = 2048
    # PaddleSlim's start (half of max|x|), not TensorRT's 128 bins: from 1/16 of max|x| up, the search
    # cut the sparse text-stroke responses of PP-OCR cls to a tenth of their range (81.5% -> 47%).
    FIRST_CANDIDATE = BINS // 2
    SPIKE = 1.0 / 255  # an extreme holding more than an average int8 level's share is a saturation

    def range(self) -> tuple[float, float]:
        low, high = super().range()
        values = self.sample[self.sample != 0].astype(np.float64)
        if not values.size or low == high:
            return (low, high)
        pinned_low = low < 0 and np.count_nonzero(values == low) >= self.SPIKE * values.size
        pinned_high = high > 0 and np.count_nonzero(values == high) >= self.SPIKE * values.size
        if pinned_low:
            values = values[values != low]
        if pinned_high:
            values = values[values != high]
        top = float(np.abs(values).max()) if values.size else 0.0
        if (pinned_low and pinned_high) or not top > 0:
            return (low, high)
        counts, edges = np.histogram(np.abs(values), bins=self.BINS, range=(0.0, top))
        bins = np.arange(self.FIRST_CANDIDATE, self.BINS + 1)
        thresholds = edges[bins]
        clipped_low = np.full(bins.size, low) if pinned_low else np.maximum(low, -thresholds)
        clipped_high = np.full(bins.size, high) if pinned_high else np.minimum(high, thresholds)
        span = np.maximum(clipped_high, 0.0) - np.minimum(clipped_low, 0.0)
        levels = np.clip(np.rint(255 * thresholds / span), 1, 255).astype(np.int64)  # int8 steps in [0, T]
        best = int(np.argmin(_clipped_kl(counts.astype(np.float64), bins, levels)))
        return (float(clipped_low[best]), float(clipped_high[best]))


def _clipped_kl(counts: np.ndarray, bins: np.ndarray, levels: np.ndarray, chunk: int = 128) -> np.ndarray:
    """KL(P || Q) per candidate c: P = the first ``bins[c]`` bins of ``counts`` with the rest folded
    onto the last one, Q = the same bins (without the folded mass) merged into ``levels[c]`` equal
    groups, each group's mass spread evenly over the bins P fills. Vectorized over candidates."""
    result = np.empty(bins.size)
    column = np.arange(counts.size)
    above = counts.sum() - np.concatenate([[0.0], np.cumsum(counts)])  # mass at or above each bin edge
    for start in range(0, bins.size, chunk):
        b, n_levels = bins[start:start + chunk], levels[start:start + chunk]
        rows = np.arange(b.size)
        inside = np.where(column < b[:, None], counts, 0.0)
        p = inside.copy()
        p[rows, b - 1] += above[b]
        filled = p > 0
        key = rows[:, None] * 256 + np.minimum((column * n_levels[:, None]) // b[:, None], 255)
        mass = np.bincount(key.ravel(), weights=inside.ravel(), minlength=b.size * 256)
        width = np.bincount(key.ravel(), weights=filled.ravel().astype(np.float64), minlength=b.size * 256)
        q = np.where(filled, mass[key] / np.maximum(width[key], 1.0), 0.0)
        p_sum, q_sum = p.sum(axis=1), q.sum(axis=1)
        p, q = p / p_sum[:, None], q / np.where(q_sum > 0, q_sum, 1.0)[:, None]
        ratio = np.where(filled, p, 1.0) / np.maximum(q, 1e-12)
        kl = np.where(filled, p * np.log(ratio), 0.0).sum(axis=1)
        kl[~(q_sum > 0)] = np.inf  # nothing left inside
        result[start:start + chunk] = kl
    return result


OBSERVERS: dict[str, type[Observer]] = {
    "abs_max": AbsMaxObserver,
    "avg": MovingAverageObserver,
    "hist": PercentileObserver,
    "mse": MseObserver,
    "kl": KlObserver,
}


def make_observer(algorithm: str, config: QuantConfig) -> Observer:
    return OBSERVERS[algorithm](config)
