"""How many units each group loses: per-group ratios, a global ratio, or a FLOPs target.

Within a group, units go in order of increasing importance. Three constraints hold everywhere:
a group keeps at least ``1 - max_ratio`` of its units; the channels it keeps on its main axis (the
first producer's output) are a multiple of ``round_to`` (what suits the kernels: whole SIMD vectors,
whole GEMM panels); and no tensor axis loses every channel.

Global modes rank units by importance divided by their group's mean
(slim/pruning/importance.normalized) and remove, one rounding step at a time, the next units of the
group whose next step has the lowest mean score, until the target is met.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Callable

import numpy as np

from slim.pruning.channels import Axis
from slim.pruning.flops import FlopsModel
from slim.pruning.groups import Group, Unit


@dataclasses.dataclass
class GroupChoice:
    """A group, its units from least to most important, and how many of them to remove."""

    group: Group
    order: np.ndarray  # unit indices, least important first
    scores: np.ndarray  # normalized scores, in unit order
    step: int  # kept units move in multiples of this
    limit: int  # at most this many units removed
    removed: int = 0

    def removed_units(self) -> list[Unit]:
        return [self.group.units[i] for i in self.order[: self.removed]]


def main_axis(group: Group) -> Axis:
    """The first producer's output channels (else the axis most units touch)."""
    if group.main is not None:
        return group.main
    counts: dict[Axis, int] = {}
    for unit in group.units:
        for axis in unit.indices:
            counts[axis] = counts.get(axis, 0) + 1
    return max(counts, key=lambda a: (counts[a], -group.axes.index(a)))


def make_choice(group: Group, scores: np.ndarray, sizes: dict[Axis, int], round_to: int,
                max_ratio: float) -> GroupChoice:
    """The ordering and limits of one group (``sizes``: channels per tracked axis)."""
    order = np.argsort(scores, kind="stable")
    main = main_axis(group)
    widths = [len(u.indices[main]) for u in group.units if main in u.indices]
    width = min(widths) if widths else 1
    step = max(1, round_to // math.gcd(round_to, width)) if round_to > 1 else 1
    total = len(group.units)
    limit = min(int(math.floor(total * max_ratio)), total - 1)
    limit = feasible(group, order, limit, sizes)
    return GroupChoice(group, order, scores, step, max(limit, 0))


def feasible(group: Group, order: np.ndarray, limit: int, sizes: dict[Axis, int]) -> int:
    """The largest count <= limit whose removal leaves every axis at least one channel."""
    left = {axis: sizes[axis] for axis in group.axes}
    for count, index in enumerate(order[:limit]):
        unit = group.units[index]
        if any(left[axis] - len(indices) < 1 for axis, indices in unit.indices.items()):
            return count
        for axis, indices in unit.indices.items():
            left[axis] -= len(indices)
    return limit


def rounded(choice: GroupChoice, wanted: int) -> int:
    """``wanted`` removals adjusted so the kept count is a multiple of the step (keeping more)."""
    total = len(choice.group.units)
    wanted = max(0, min(wanted, choice.limit))
    if wanted == 0 or choice.step == 1:
        return wanted
    kept = total - wanted
    kept = int(math.ceil(kept / choice.step)) * choice.step
    if kept >= total:
        return 0
    result = total - kept
    while result > choice.limit and result > 0:
        result -= choice.step
    return max(result, 0)


def set_ratios(choices: list[GroupChoice], ratio_of: dict[int, float]) -> None:
    """Per-group ratio (by group index) of units removed."""
    for choice in choices:
        ratio = ratio_of.get(choice.group.index, 0.0)
        choice.removed = rounded(choice, int(round(ratio * len(choice.group.units))))


def kept_channels(choices: list[GroupChoice], sizes: dict[Axis, int]) -> dict[Axis, int]:
    kept = dict(sizes)
    for choice in choices:
        for unit in choice.removed_units():
            for axis, indices in unit.indices.items():
                kept[axis] -= len(indices)
    return kept


def _next_count(choice: GroupChoice) -> int | None:
    """The next removal count of a group (one rounding step further), None at its limit."""
    total = len(choice.group.units)
    kept = total - choice.removed
    target = kept - choice.step if choice.removed or choice.step == 1 else \
        (kept - 1) // choice.step * choice.step
    count = total - target
    return count if choice.removed < count <= choice.limit and target >= 1 else None


def _chunk_score(choice: GroupChoice, count: int) -> float:
    """Mean normalized score of the units the next step would remove."""
    removed = choice.order[choice.removed:count]
    return float(np.mean(choice.scores[removed]))


def _greedy(choices: list[GroupChoice], done: Callable[[], bool]) -> bool:
    """Removes, one rounding step at a time, the group's next units with the lowest mean score
    until ``done()``; the last step is the lowest-scored one that finishes (so a coarse step does
    not overshoot the target when a finer one suffices). False when every group reached its limit."""
    for choice in choices:
        choice.removed = 0
    while not done():
        candidates: list[tuple[float, GroupChoice, int]] = []
        for choice in choices:
            count = _next_count(choice)
            if count is not None:
                candidates.append((_chunk_score(choice, count), choice, count))
        if not candidates:
            return False
        candidates.sort(key=lambda c: c[0])
        finishing = []
        for _, choice, count in candidates:
            before = choice.removed
            choice.removed = count
            if done():
                finishing.append((choice, count))
            choice.removed = before
            if finishing:
                break
        chosen = finishing[0] if finishing else (candidates[0][1], candidates[0][2])
        chosen[0].removed = chosen[1]
    return True


def fit_flops(choices: list[GroupChoice], flops: FlopsModel, sizes: dict[Axis, int], target: float) -> float:
    """Removes the least important units globally, a rounding step at a time, until both the FLOPs and
    the estimated runtime cost (FlopsModel.cost) are <= target x the original's; returns the FLOPs
    fraction reached (above the target when the limits stop it)."""

    def done() -> bool:
        total, cost = flops.total_and_cost(kept_channels(choices, sizes))
        return total <= target * flops.base_total and cost <= target * flops.base_cost

    _greedy(choices, done)
    return flops.total(kept_channels(choices, sizes)) / flops.base_total


def fit_ratio(choices: list[GroupChoice], ratio: float) -> None:
    """Removes the least important units globally until ``ratio`` of all units are gone."""
    total = sum(len(c.group.units) for c in choices)
    _greedy(choices, lambda: sum(c.removed for c in choices) >= ratio * total)


def set_limits(choices: list[GroupChoice]) -> None:
    """Every group at its limit (the most any target can remove)."""
    for choice in choices:
        choice.removed = rounded(choice, choice.limit)
