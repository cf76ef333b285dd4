"""The fine-tuning learning-rate schedule (slim/distill.py): the cosine follows whichever of the step
count and the time budget ends the run first, so a run stopped by its time budget has decayed to 0
rather than stopping at the full rate."""

from __future__ import annotations

import pytest

pytest.importorskip("torch")

from slim.distill import _fraction_done  # noqa: E402


@pytest.mark.parametrize(("step", "total", "elapsed", "budget", "expected"), [
    (50, 200, 10.0, None, 0.25),      # steps alone
    (0, None, 30.0, 120.0, 0.25),     # the time budget alone
    (50, 200, 90.0, 120.0, 0.75),     # the budget ends it first
    (150, 200, 30.0, 120.0, 0.75),    # the steps end it first
    (10, None, 500.0, 120.0, 1.0),    # past the budget: fully decayed, not beyond
    (10, None, 5.0, None, None),      # length unknown: constant rate
])
def test_fraction_done_follows_whichever_ends_the_run_first(step, total, elapsed, budget, expected):
    assert _fraction_done(step, total, elapsed, budget) == expected
