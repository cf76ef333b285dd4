"""The report of ``config="auto"``: every candidate's figures, the choice, and any bound missed.

Written beside the model as ``MODEL.auto.json`` (machine-readable), ``MODEL.auto.txt`` (the
table) and ``MODEL.auto.png`` (slim/auto_plot.py; when matplotlib is installed). A candidate meets
``max_accuracy_drop`` when the upper confidence bound of its drop does (``drop_upper``,
slim/auto_stats.py), or, with a scalar eval_fn (no bound: ``confidence`` None), its measured drop.
The choice: the fastest candidate meeting both bounds (ties: the more accurate, then the
smaller file). When none meets both, the fastest one within the accuracy bound (failed:
``target_speedup``), else the most accurate one (failed: ``max_accuracy_drop``, and ``target_speedup``
when it misses that too): never a silent pass.

Candidates that run the same ops in int8 and fp32 (the same placement, as recorded per candidate:
e.g. ``int8_search`` and ``int8_fast``, which differ only in their ranges; ``int8`` too unless its
input-side fp32 prefix holds layers) run the same kernels, so their measured speed-ups differ by
timing noise alone (on a loaded host 2.35x against 3.76x for one placement, benchmarks/COMPRESSION.md):
they are ranked by their placement's best speed-up, so accuracy decides between them, not the noise.
"""

from __future__ import annotations

import dataclasses
import json
import os
from pathlib import Path
from typing import Any

from slim.auto_plot import write_plot
from slim.auto_stats import z_score

_TOLERANCE = 1e-9  # a drop equal to the bound meets it, whatever the float rounding


@dataclasses.dataclass
class CandidateResult:
    """One candidate, measured. ``kept_fp32``: the layers mixed precision kept in fp32."""

    name: str
    accuracy: float
    accuracy_drop: float
    speedup: float
    fp32_cost: float
    cost: float
    size_bytes: int
    kept_fp32: list[str]
    int8_ops: int
    fp32_ops: int
    seconds: float
    lite_bytes: bytes = dataclasses.field(repr=False, default=b"")
    graph: Any = dataclasses.field(repr=False, default=None)
    int8_nodes: list[str] = dataclasses.field(repr=False, default_factory=list)
    fp32_nodes: list[str] = dataclasses.field(repr=False, default_factory=list)
    drop_upper: float | None = None  # the drop's one-sided upper confidence bound (None: scalar eval_fn)
    drop_standard_error: float | None = None
    samples: int | None = None

    @property
    def tested_drop(self) -> float:
        """What the accuracy bound is checked on: the upper bound when there is one."""
        return self.drop_upper if self.drop_upper is not None else self.accuracy_drop

    def figures(self) -> dict[str, Any]:
        """The JSON-able figures (no model bytes)."""
        names = ("name", "accuracy", "accuracy_drop", "drop_upper", "drop_standard_error", "samples",
                 "speedup", "fp32_cost", "cost", "size_bytes", "kept_fp32", "int8_ops", "fp32_ops", "seconds")
        return {name: getattr(self, name) for name in names}


def _placement(result: CandidateResult) -> tuple:
    """Which ops run in int8 and which in fp32; a candidate without that record is its own placement."""
    if not result.int8_nodes and not result.fp32_nodes:
        return ("candidate", result.name)
    return tuple(sorted(result.int8_nodes)), tuple(sorted(result.fp32_nodes))


@dataclasses.dataclass
class AutoReport:
    """The bounds, fp32's figures, the candidates in the order tried, the choice."""

    max_accuracy_drop: float
    target_speedup: float
    speed_target: str
    speed_unit: str
    accuracy_metric: str
    fp32_accuracy: float
    fp32_size_bytes: int
    confidence: float | None = None  # of the drop's upper bound; None: a scalar eval_fn, no bound
    candidates: list[CandidateResult] = dataclasses.field(default_factory=list)
    notes: list[str] = dataclasses.field(default_factory=list)
    chosen: CandidateResult | None = None
    met: bool = False
    failed: list[str] = dataclasses.field(default_factory=list)
    seconds: float = 0.0

    def accuracy_met(self, result: CandidateResult) -> bool:
        return result.tested_drop <= self.max_accuracy_drop + _TOLERANCE

    def speed_met(self, result: CandidateResult) -> bool:
        return result.speedup >= self.target_speedup

    def any_met(self) -> bool:
        return any(self.accuracy_met(c) and self.speed_met(c) for c in self.candidates)

    def choose(self) -> None:
        """Sets ``chosen``, ``met`` and ``failed`` (module docstring)."""
        if not self.candidates:
            raise ValueError("no candidate was evaluated")
        both = [c for c in self.candidates if self.accuracy_met(c) and self.speed_met(c)]
        accurate = [c for c in self.candidates if self.accuracy_met(c)]
        placement_speedup: dict[tuple, float] = {}
        for c in self.candidates:
            key = _placement(c)
            placement_speedup[key] = max(placement_speedup.get(key, c.speedup), c.speedup)

        def fastest(c: CandidateResult) -> tuple[float, float, int]:
            return placement_speedup[_placement(c)], c.accuracy, -c.size_bytes

        if both:
            self.chosen = max(both, key=fastest)
        elif accurate:
            self.chosen = max(accurate, key=fastest)
        else:
            self.chosen = max(self.candidates, key=lambda c: (c.accuracy, c.speedup))
        self.met = bool(both)
        self.failed = [] if both else (["target_speedup"] if accurate else
                                       ["max_accuracy_drop"] + ([] if self.speed_met(self.chosen)
                                                                else ["target_speedup"]))

    def _upper(self, result: CandidateResult) -> str:
        if result.drop_upper is None:
            return ""
        return f", upper bound {result.drop_upper:+.2f} at {self.confidence:g}"

    def describe(self, result: CandidateResult) -> str:
        return (f"accuracy {result.accuracy:.2f} (drop {result.accuracy_drop:+.2f}{self._upper(result)}), "
                f"speed-up "
                f"{result.speedup:.3f}x, {result.size_bytes} B, {len(result.kept_fp32)} layer(s) kept in "
                f"fp32, {'met' if self.accuracy_met(result) and self.speed_met(result) else 'not met'}")

    def summary(self) -> str:
        assert self.chosen is not None
        if self.met:
            return (f"auto: chose {self.chosen.name}: both bounds met (drop "
                    f"{self.chosen.accuracy_drop:.2f}{self._upper(self.chosen)} <= "
                    f"{self.max_accuracy_drop:g}, speed-up {self.chosen.speedup:.3f}x >= "
                    f"{self.target_speedup:g}x on {self.speed_target})")
        return (f"auto: NO candidate meets both bounds; returning {self.chosen.name}, which fails "
                f"{' and '.join(self.failed)} (drop {self.chosen.accuracy_drop:.2f}"
                f"{self._upper(self.chosen)}, bound "
                f"{self.max_accuracy_drop:g}; speed-up {self.chosen.speedup:.3f}x, target "
                f"{self.target_speedup:g}x on {self.speed_target})")

    def table(self) -> str:
        lines = [f"config=auto: max_accuracy_drop {self.max_accuracy_drop:g}, target_speedup "
                 f"{self.target_speedup:g}x on {self.speed_target} ({self.speed_unit})",
                 f"accuracy: {self.accuracy_metric}; fp32 {self.fp32_accuracy:.2f}, {self.fp32_size_bytes} B",
                 self.bound_rule(),
                 f"{'candidate':<16}{'accuracy':>10}{'drop':>8}{'upper':>8}{'speed-up':>10}{'cost':>14}"
                 f"{'size B':>11}{'fp32 kept':>11}{'accuracy':>10}{'speed':>8}{'chosen':>8}"]
        for c in self.candidates:
            yes = {True: "met", False: "NOT"}
            upper = f"{c.drop_upper:.2f}" if c.drop_upper is not None else "-"
            lines.append(f"{c.name:<16}{c.accuracy:>10.2f}{c.accuracy_drop:>8.2f}{upper:>8}{c.speedup:>9.3f}x"
                         f"{c.cost:>14.6g}{c.size_bytes:>11}{len(c.kept_fp32):>11}"
                         f"{yes[self.accuracy_met(c)]:>10}{yes[self.speed_met(c)]:>8}"
                         f"{'<--' if c is self.chosen else '':>8}")
        lines += [f"note: {note}" for note in self.notes]
        if self.chosen is not None:
            lines.append(self.summary())
            if self.chosen.kept_fp32:
                lines.append(f"kept in fp32: {', '.join(self.chosen.kept_fp32)}")
        return "\n".join(lines)

    def bound_rule(self) -> str:
        """How the accuracy bound was checked, in words (the table's third line)."""
        if self.confidence is None:
            return "accuracy bound: measured drop (scalar eval_fn: no margin for the sample's noise computed)"
        return (f"accuracy bound: upper = drop + z*SE of the per-sample drop against fp32, one-sided "
                f"{self.confidence:g} (z {z_score(self.confidence):.3f}), must be "
                f"<= {self.max_accuracy_drop:g}")

    def to_json(self) -> dict[str, Any]:
        fields = ("max_accuracy_drop", "target_speedup", "speed_target", "speed_unit", "accuracy_metric",
                  "fp32_accuracy", "fp32_size_bytes", "confidence", "notes", "met", "failed", "seconds")
        return {**{name: getattr(self, name) for name in fields},
                "chosen": self.chosen.name if self.chosen else None,
                "candidates": [c.figures() for c in self.candidates]}

    def write(self, model_path: str | os.PathLike) -> tuple[Path, Path]:
        """``MODEL.auto.json``, ``MODEL.auto.txt`` and (with matplotlib) ``MODEL.auto.png`` beside
        ``model_path``; returns the first two."""
        base = Path(model_path)
        json_path, text_path = base.with_suffix(".auto.json"), base.with_suffix(".auto.txt")
        json_path.write_text(json.dumps(self.to_json(), indent=1) + "\n")
        text_path.write_text(self.table() + "\n")
        write_plot(self, base.with_suffix(".auto.png"))
        return json_path, text_path
