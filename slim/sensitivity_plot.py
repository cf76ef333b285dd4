"""The sensitivity sweep as a PNG (matplotlib, headless): loss against the fraction of channels
removed, one line per group; the most sensitive groups are named in the legend."""

from __future__ import annotations

import os
from typing import Any

LEGEND_GROUPS = 12


def write_plot(report: Any, path: str | os.PathLike) -> None:  # noqa: ANN401 - a SensitivityReport
    """Writes ``report`` (a slim.sensitivity_sweep.SensitivityReport) as a PNG."""
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib import pyplot

    middle = report.ratios[len(report.ratios) // 2]
    ranked = sorted(report.groups, key=lambda g: report.losses[g][middle], reverse=True)
    figure, axes = pyplot.subplots(figsize=(10, 6), dpi=100)
    for group in report.groups:
        values = [report.losses[group][r] for r in report.ratios]
        named = group in ranked[:LEGEND_GROUPS]
        axes.plot(report.ratios, values, marker="o" if named else None, linewidth=1.5 if named else 0.7,
                  alpha=1.0 if named else 0.4, label=group if named else None)
    axes.set_xlabel("fraction of the group's channels removed")
    axes.set_ylabel(f"loss ({report.metric})")
    axes.set_yscale("symlog", linthresh=1e-4)
    axes.set_title(f"pruning sensitivity: {len(report.groups)} groups")
    axes.grid(True, alpha=0.3)
    axes.legend(fontsize=7, loc="upper left", title=f"most sensitive at {middle:g}")
    figure.tight_layout()
    figure.savefig(os.fspath(path), format="png")
    pyplot.close(figure)
