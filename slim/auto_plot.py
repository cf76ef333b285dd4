"""The ``config="auto"`` report as a PNG (matplotlib, headless): one row per candidate, two panels.

Left, the accuracy drop against fp32 with its one-sided upper confidence bound as a bar from the
drop to the bound (the figure the bound is checked on, slim/auto_stats.py) and the bound
``max_accuracy_drop`` as a red line; right, the speed-up with ``target_speedup``. The chosen
candidate is drawn dark. matplotlib comes with the torch extra; without it no PNG is written (the
table and JSON carry the same figures).
"""

from __future__ import annotations

import importlib.util
import os
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # auto_report.py imports this module to write its plot
    from slim.auto_report import AutoReport

CHOSEN, OTHER, BOUND = "#1f3f7a", "#9fb6d8", "#c0392b"


def write_plot(report: AutoReport, path: str | os.PathLike) -> bool:
    """Writes the PNG; False when matplotlib is not installed (nothing written)."""
    if importlib.util.find_spec("matplotlib") is None:
        return False
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib import pyplot

    names = [c.name for c in report.candidates]
    rows = list(range(len(names)))[::-1]
    colours = [CHOSEN if c is report.chosen else OTHER for c in report.candidates]
    figure, (left, right) = pyplot.subplots(1, 2, figsize=(11, 1.2 + 0.5 * len(names)), dpi=100, sharey=True)
    drops = [c.accuracy_drop for c in report.candidates]
    left.scatter(drops, rows, color=colours, zorder=3, label="measured drop")
    for row, candidate, colour in zip(rows, report.candidates, colours, strict=True):
        if candidate.drop_upper is not None:
            left.plot([candidate.accuracy_drop, candidate.drop_upper], [row, row], color=colour, linewidth=3)
            left.plot([candidate.drop_upper], [row], marker="|", markersize=14, color=colour)
    left.axvline(report.max_accuracy_drop, color=BOUND, linestyle="--", label="max_accuracy_drop")
    bound = ("upper bound, one-sided " + f"{report.confidence:g}") if report.confidence is not None \
        else "no upper bound (scalar eval_fn)"
    left.set_xlabel(f"accuracy drop vs fp32 ({report.accuracy_metric}); bar: measured drop to {bound}")
    left.legend(fontsize=8, loc="best")
    right.barh(rows, [c.speedup for c in report.candidates], color=colours)
    right.axvline(report.target_speedup, color=BOUND, linestyle="--", label="target_speedup")
    right.set_xlabel(f"speed-up over fp32 on {report.speed_target}")
    right.legend(fontsize=8, loc="best")
    left.set_yticks(rows, names)
    for axes in (left, right):
        axes.grid(True, axis="x", alpha=0.3)
    verdict = "both bounds met" if report.met else "NO candidate meets both bounds"
    chosen = report.chosen.name if report.chosen is not None else "-"
    figure.suptitle(f"config=auto: chose {chosen} ({verdict})")
    figure.tight_layout()
    figure.savefig(os.fspath(path), format="png")
    pyplot.close(figure)
    return True
