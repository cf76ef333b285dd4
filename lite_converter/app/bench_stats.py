"""Latency statistics and process memory for `lite bench`: what a benchmark table reports per runner."""

from __future__ import annotations

import dataclasses
import resource
import statistics
import sys
from collections.abc import Sequence


@dataclasses.dataclass(frozen=True)
class LatencyStats:
    """Seconds per inference over the timed runs (the first, cold run is reported separately)."""

    runs: int
    min: float
    median: float
    p90: float
    mean: float


def summarize(samples: Sequence[float]) -> LatencyStats:
    """Min, median, 90th percentile (nearest rank: a value that was actually measured) and mean."""
    if not samples:
        raise ValueError("no samples")
    ordered = sorted(samples)
    rank = max(1, -(-9 * len(ordered) // 10))  # ceil(0.9 n)
    return LatencyStats(len(ordered), ordered[0], statistics.median(ordered), ordered[rank - 1],
                        statistics.fmean(ordered))


def peak_rss_bytes() -> int:
    """Peak resident set size of this process so far (Linux reports KiB, macOS bytes)."""
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return int(peak) if sys.platform == "darwin" else int(peak) * 1024
