"""slim/tails.py: the k smallest / largest values, exactly, against numpy's full sort (the oracle).

The shortcut (thresholds from a strided sample, one comparison pass) must give the same arrays as
sorting everything, including where it cannot trust its sample: ties at a threshold (a ReLU's zeros,
a few distinct values), one channel of an NHWC tensor far larger than the rest, NaN, and tails
too wide or arrays too small for the sample to pay off (the plain partition).
"""

from __future__ import annotations

import numpy as np
import pytest

from slim.tails import STRIDE, extremes


def _arrays() -> dict[str, np.ndarray]:
    rng = np.random.default_rng(3)
    normal = rng.normal(size=200_000).astype(np.float32)
    nhwc = rng.normal(size=(4, 50, 25, 16)).astype(np.float32)
    nhwc[..., 7] *= 40.0  # one channel holds every extreme; a stride of 16 would never see it
    nhwc[..., 3] -= 25.0
    return {
        "normal": normal,
        "relu": np.maximum(normal, 0.0),  # half the values tie at 0, the lower threshold
        "few levels": rng.integers(-3, 4, 150_000).astype(np.float32),  # ties at both thresholds
        "nhwc channel": nhwc.reshape(-1),
        "sorted": np.sort(normal),  # the sample's order says nothing of the rest
        "small": normal[: STRIDE * 10],
    }


@pytest.mark.parametrize("name", list(_arrays()))
@pytest.mark.parametrize("k", [1, 20, 200, 1_000, 5_000])
def test_extremes_equal_the_ends_of_a_full_sort(name: str, k: int) -> None:
    flat = _arrays()[name]
    k = min(k, flat.size)
    lowest, highest = extremes(flat, k)
    ordered = np.sort(flat)
    np.testing.assert_array_equal(lowest, ordered[:k])
    np.testing.assert_array_equal(highest, ordered[flat.size - k:])
    assert lowest.dtype == highest.dtype == flat.dtype


def test_extremes_with_a_nan_match_the_partition() -> None:
    flat = np.random.default_rng(4).normal(size=100_000).astype(np.float32)
    flat[5] = np.nan  # numpy orders NaN last: it is the largest value of a partition or sort
    lowest, highest = extremes(flat, 50)
    ordered = np.sort(flat)
    np.testing.assert_array_equal(lowest, ordered[:50])
    np.testing.assert_array_equal(highest, ordered[-50:])


def test_extremes_of_the_whole_array_and_of_one_value() -> None:
    flat = np.random.default_rng(5).normal(size=1_000).astype(np.float32)
    lowest, highest = extremes(flat, flat.size)
    np.testing.assert_array_equal(lowest, np.sort(flat))
    np.testing.assert_array_equal(highest, np.sort(flat))
    one = np.array([2.5], np.float32)
    assert extremes(one, 1)[0].tolist() == [2.5] and extremes(one, 1)[1].tolist() == [2.5]
