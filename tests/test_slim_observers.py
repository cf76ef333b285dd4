"""The range observers' behaviour on distributions whose right answer is known without our code.

The kl observer is checked on the properties its fix rests on (docs/QUANTIZATION.md, "kl"): exact
zeros, which the int8 zero point represents exactly, do not move its range; a saturated extreme (a
clamp's bound holding much of the mass) is never clipped; a long thin tail is.
"""

from __future__ import annotations

import numpy as np
import pytest

from slim.config import QuantConfig
from slim.observers import SEARCH_PERCENTILES, make_observer

RNG = np.random.default_rng(7)


def observed(algorithm: str, values: np.ndarray) -> tuple[float, float]:
    observer = make_observer(algorithm, QuantConfig(algorithm=algorithm, progress=False))
    for chunk in np.array_split(values.astype(np.float32), 4):
        observer.update(chunk)
    return observer.range()


def relu6_like(size: int, zeros: float) -> np.ndarray:
    """Post-ReLU6 values: a fraction ``zeros`` of exact zeros, the rest exponential, clamped at 6."""
    values = np.minimum(RNG.exponential(1.0, size), 6.0)
    values[RNG.random(size) < zeros] = 0.0
    return values


def test_kl_range_ignores_exact_zeros() -> None:
    values = relu6_like(1 << 14, zeros=0.0)
    with_zeros = np.concatenate([values, np.zeros(values.size * 3)])
    assert observed("kl", with_zeros) == pytest.approx(observed("kl", values), abs=0.05)


def test_kl_keeps_most_of_a_relu6_output_with_many_zeros() -> None:
    values = relu6_like(1 << 15, zeros=0.5)
    low, high = observed("kl", values)
    assert low == 0.0
    # before the fix the zero spike drove the search to the smallest candidates (0..~2 of 0..6)
    assert high >= np.percentile(values[values > 0], 99.0)


def test_kl_does_not_clip_a_saturated_extreme() -> None:
    values = RNG.uniform(-1.0, 1.0, 1 << 15)
    values[RNG.random(values.size) < 0.4] = -1.0  # an image's background at the bottom of its range
    values[RNG.random(values.size) < 0.1] = 1.0
    assert observed("kl", values) == (-1.0, 1.0)


def test_kl_clips_a_heavy_tail_but_not_below_half_its_range() -> None:
    values = RNG.standard_t(3, 1 << 15)  # tails far beyond where int8 steps should go
    top = np.abs(values).max()
    low, high = observed("kl", values)
    assert 0.5 * top * 0.999 <= high < 0.8 * top  # the search starts at half of max|x| (PaddleSlim)
    assert low == pytest.approx(max(values.min(), -high))


@pytest.mark.parametrize("algorithm", ["abs_max", "avg", "hist", "mse", "kl"])
def test_every_range_contains_most_values(algorithm: str) -> None:
    values = RNG.normal(0.5, 1.0, 1 << 14)
    low, high = observed(algorithm, values)
    inside = np.mean((values >= low) & (values <= high))
    assert low < 0.5 < high and inside >= 0.99


def test_hist_is_the_size_weighted_mean_of_each_batchs_exact_quantiles() -> None:
    """99.99% of 20,000 values leaves 2 beyond each end; of 30,000, 3: the range is the 3rd-lowest /
    3rd-highest value of the first batch and the 4th of the second, weighted 2:3 — exact, no sample."""
    first, second = RNG.standard_t(3, 20_000), RNG.standard_t(3, 30_000) * 2.0
    observer = make_observer("hist", QuantConfig(algorithm="hist", percentile=0.9999, progress=False))
    observer.update(first.astype(np.float32))
    observer.update(second.astype(np.float32))
    a, b = np.sort(first.astype(np.float32)), np.sort(second.astype(np.float32))
    low, high = observer.range()
    assert low == pytest.approx((2 * float(a[2]) + 3 * float(b[3])) / 5, rel=1e-6)
    assert high == pytest.approx((2 * float(a[-3]) + 3 * float(b[-4])) / 5, rel=1e-6)


def test_hist_candidates_come_from_the_same_exact_partition() -> None:
    """Range search's candidates (slim/range_search.py): each SEARCH_PERCENTILES range is the same
    size-weighted mean of exact per-batch order statistics as the configured one (numpy sort)."""
    batches = [RNG.standard_t(3, 20_000).astype(np.float32),
               (RNG.standard_t(3, 30_000) * 2).astype(np.float32)]
    observer = make_observer("hist", QuantConfig(algorithm="hist", percentile=0.9999, progress=False))
    for batch in batches:
        observer.update(batch)
    for percentile in SEARCH_PERCENTILES:
        lows, highs = [], []
        for batch in batches:
            tail = int((1.0 - percentile) * batch.size + 1e-6)
            ordered = np.sort(batch)
            lows.append(float(ordered[tail]) * batch.size)
            highs.append(float(ordered[-1 - tail]) * batch.size)
        low, high = observer.range_at(percentile)
        assert low == pytest.approx(sum(lows) / 50_000, rel=1e-6)
        assert high == pytest.approx(sum(highs) / 50_000, rel=1e-6)


def test_pooled_hist_is_the_exact_quantile_of_all_batches_together() -> None:
    """``pooled_percentile``: the range is the order statistic of the concatenated calibration values
    (numpy sort of the union), not a mean of per-batch quantiles. The extremes sit in one small
    batch (an object only some images show), where the two rules differ most: the per-batch mean
    lands inside them, the pooled quantile does not. Batch sizes do not grow, as calibrate() feeds
    them (the kept tails are sized from the expected total)."""
    batches = [RNG.normal(0, 1, 30_000).astype(np.float32), RNG.normal(0, 1, 20_000).astype(np.float32),
               (RNG.standard_t(2, 5_000) * 8).astype(np.float32)]
    pooled = make_observer("hist", QuantConfig(algorithm="hist", pooled_percentile=True, progress=False))
    per_batch = make_observer("hist", QuantConfig(algorithm="hist", progress=False))
    pooled.expect(len(batches))
    for batch in batches:
        pooled.update(batch)
        per_batch.update(batch)
    ordered = np.sort(np.concatenate(batches))
    for percentile in SEARCH_PERCENTILES:
        tail = int((1.0 - percentile) * ordered.size + 1e-6)
        assert pooled.range_at(percentile) == (float(ordered[tail]), float(ordered[-1 - tail]))
    assert pooled.range()[1] > 2 * per_batch.range()[1]  # the rare batch's tail is kept


def test_pooled_hist_with_one_batch_equals_the_per_batch_rule() -> None:
    values = RNG.standard_t(3, 40_000).astype(np.float32)
    pooled = make_observer("hist", QuantConfig(algorithm="hist", pooled_percentile=True, progress=False))
    per_batch = make_observer("hist", QuantConfig(algorithm="hist", progress=False))
    pooled.update(values)
    per_batch.update(values)
    assert pooled.range() == pytest.approx(per_batch.range(), rel=1e-6)


def test_per_batch_hist_keeps_no_pooled_tails_and_the_same_ranges() -> None:
    """The per-batch rule (the default) keeps no pooled tails unless the config reads them (a pooled
    rule, or a range search told to weigh one), and its ranges are those of an observer that keeps
    them: the per-batch quantiles are exact order statistics (numpy sort of each batch) either way."""
    batches = [RNG.standard_t(3, n).astype(np.float32) for n in (30_000, 20_000, 5_000)]
    plain = make_observer("hist", QuantConfig(algorithm="hist", progress=False))
    keeping = make_observer("hist", QuantConfig(algorithm="hist", pooled_percentile=True, progress=False))
    searching = make_observer("hist", QuantConfig(algorithm="hist", range_search=True, progress=False,
                                                  search_rules=("hist 0.9999", "pooled 0.999")))
    for observer in (plain, keeping, searching):
        observer.expect(len(batches))
        for batch in batches:
            observer.update(batch)
    assert plain.pooled_low.size == plain.pooled_high.size == 0
    assert keeping.pooled_low.size > 0 and searching.pooled_high.size > 0
    with pytest.raises(ValueError, match="pooled tails"):
        plain.pooled_range_at(0.9999)
    for percentile in SEARCH_PERCENTILES:
        expected = [np.average([np.sort(b)[k(b)] for b in batches], weights=[b.size for b in batches])
                    for k in (lambda b, p=percentile: int((1 - p) * b.size + 1e-6),
                              lambda b, p=percentile: b.size - 1 - int((1 - p) * b.size + 1e-6))]
        assert plain.batch_range_at(percentile) == keeping.batch_range_at(percentile)
        assert plain.batch_range_at(percentile) == pytest.approx(tuple(expected), rel=1e-6)


def test_grouped_hist_takes_each_quantile_over_groups_of_inputs() -> None:
    """``percentile_samples=4`` with one input per batch: each range is the size-weighted mean of the
    exact quantiles (numpy sort) of 4 consecutive batches concatenated; a last, smaller group counts
    as it is. A rare extreme in one batch survives in its group's quantile, not in per-batch ones."""
    batches = [RNG.normal(0, 1, 3_000).astype(np.float32) for _ in range(9)]
    batches[5] = np.concatenate([batches[5], np.full(40, 25.0, np.float32)])
    grouped = make_observer("hist", QuantConfig(algorithm="hist", percentile_samples=4, progress=False))
    per_batch = make_observer("hist", QuantConfig(algorithm="hist", progress=False))
    for batch in batches:
        grouped.update(batch, 1)
        per_batch.update(batch, 1)
    groups = [np.concatenate(batches[i:i + 4]) for i in range(0, 9, 4)]
    for percentile in SEARCH_PERCENTILES:
        tails = [int((1 - percentile) * g.size + 1e-6) for g in groups]
        sizes = [g.size for g in groups]
        low = np.average([np.sort(g)[t] for g, t in zip(groups, tails, strict=True)], weights=sizes)
        high = np.average([np.sort(g)[-1 - t] for g, t in zip(groups, tails, strict=True)], weights=sizes)
        assert grouped.batch_range_at(percentile) == pytest.approx((low, high), rel=1e-6)
    assert grouped.range()[1] > 1.5 * per_batch.range()[1]


def test_grouped_hist_leaves_batches_of_enough_inputs_alone() -> None:
    """Batches that hold ``percentile_samples`` inputs or more are their own groups: the same ranges,
    bit for bit, as the per-batch rule."""
    batches = [RNG.standard_t(3, 8_000 + 500 * i).astype(np.float32) for i in range(5)]
    grouped = make_observer("hist", QuantConfig(algorithm="hist", percentile_samples=8, progress=False))
    per_batch = make_observer("hist", QuantConfig(algorithm="hist", progress=False))
    for batch in batches:
        grouped.update(batch, 8)
        per_batch.update(batch, 8)
    for percentile in SEARCH_PERCENTILES:
        assert grouped.batch_range_at(percentile) == per_batch.batch_range_at(percentile)


def test_percentile_samples_is_checked() -> None:
    with pytest.raises(ValueError, match="percentile_samples"):
        QuantConfig(algorithm="hist", percentile_samples=0)


def test_pooled_hist_with_groups_open_is_still_the_quantile_of_all_values() -> None:
    """Groups (``percentile_samples``) and pooled ranges together: a group still open when the range
    is read counts in the pooled total."""
    batches = [RNG.standard_t(3, 6_000).astype(np.float32) for _ in range(3)]
    config = QuantConfig(algorithm="hist", pooled_percentile=True, percentile_samples=8, progress=False)
    observer = make_observer("hist", config)
    observer.expect(len(batches))
    for batch in batches:
        observer.update(batch, 1)
    ordered = np.sort(np.concatenate(batches))
    tail = int((1.0 - 0.9999) * ordered.size + 1e-6)
    assert observer.pooled_range_at(0.9999) == (float(ordered[tail]), float(ordered[-1 - tail]))
