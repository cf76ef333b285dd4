"""The quantization analysis as a PNG: one row per int8 layer, in graph order, with two bars —
the int8 model's SQNR there (dark) and the layer's local SQNR (light) — on a shared dB axis.

Drawn with Pillow rather than matplotlib, which this project does not pin. Pillow is optional (the
'dev' extra): it is imported when a plot is written, so `import slim` works without it.
"""

from __future__ import annotations

import math
import os
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # analysis.py imports this module to write its plot
    from slim.analysis import AnalysisReport

ROW = 16
LABEL_WIDTH = 360
BAR_WIDTH = 480
MARGIN = 10
CUMULATIVE = (40, 90, 160)
LOCAL = (150, 190, 235)
GRID = (215, 215, 215)


NEGATIVE = (200, 60, 50)
NEGATIVE_LOCAL = (235, 160, 150)
VALUE_WIDTH = 48  # the value printed after each row's bars


def _clamped(value: float, low: float, high: float) -> float:
    """Where a bar ends: infinities at the axis ends, finite values inside it."""
    if math.isinf(value):
        return high if value > 0 else low
    return max(low, min(value, high))


def _axis(report: AnalysisReport) -> tuple[float, float]:
    """The dB axis: from min(0, lowest value) to the highest, in steps of 10."""
    finite = [v for layer in report.layers for v in (layer.sqnr_db, layer.local_sqnr_db) if math.isfinite(v)]
    top = max(10.0, math.ceil(max(finite, default=10.0) / 10.0) * 10.0)
    bottom = min(0.0, math.floor(min(finite, default=0.0) / 10.0) * 10.0)
    return bottom, top


def write_plot(report: AnalysisReport, path: str | os.PathLike) -> None:
    """Writes ``report`` to ``path`` as a PNG bar chart. Bars start at 0 dB: a negative SQNR (more
    error than signal) is a bar to the left, in red, never an empty row; a layer without a local SQNR
    (an op the simulation does not cover) says n/a."""
    from PIL import Image, ImageDraw, ImageFont  # optional: only a plot needs it

    font = ImageFont.load_default()
    bottom, top = _axis(report)
    rows = len(report.layers) + 2
    width = MARGIN * 4 + LABEL_WIDTH + BAR_WIDTH + VALUE_WIDTH
    height = MARGIN * 2 + ROW * (rows + 2)
    image = Image.new("RGB", (width, height), "white")
    draw = ImageDraw.Draw(image)
    left = MARGIN * 2 + LABEL_WIDTH

    def x_of(value: float) -> float:
        return left + BAR_WIDTH * (value - bottom) / (top - bottom)

    draw.text((MARGIN, MARGIN), "int8 vs fp32 per layer: SQNR dB (dark: int8 model, light: layer alone; "
              "red: negative)", fill="black", font=font)
    axis_y = MARGIN + ROW * (rows + 1)
    for tick in range(int(bottom), int(top) + 1, 10):
        draw.line([(x_of(tick), MARGIN + ROW), (x_of(tick), axis_y)], fill="black" if tick == 0 else GRID)
        draw.text((x_of(tick) - 6, axis_y + 2), str(tick), fill="black", font=font)
    for i, layer in enumerate(report.layers):
        y = MARGIN + ROW * (i + 1) + 2
        label = layer.node if len(layer.node) <= 58 else "..." + layer.node[-55:]
        draw.text((MARGIN, y), label, fill="black", font=font)
        half = (ROW - 4) // 2
        bars = ((0, layer.sqnr_db, CUMULATIVE, NEGATIVE), (half, layer.local_sqnr_db, LOCAL, NEGATIVE_LOCAL))
        for offset, value, colour, negative in bars:
            if math.isnan(value):
                continue
            end = x_of(_clamped(value, bottom, top))
            start = x_of(0.0)
            draw.rectangle([(min(start, end), y + offset), (max(start, end), y + offset + half - 1)],
                           fill=negative if value < 0 else colour)
        local = "n/a" if math.isnan(layer.local_sqnr_db) else f"{layer.local_sqnr_db:.1f}"
        draw.text((left + BAR_WIDTH + MARGIN, y), f"{layer.sqnr_db:.1f} / {local}", fill="black", font=font)
    summary = ", ".join(f"{name}: {sqnr:.1f} dB, cos {cosine:.4f}"
                        for name, (sqnr, cosine) in report.outputs.items())
    draw.text((MARGIN, MARGIN + ROW * (len(report.layers) + 1) + 2), f"outputs: {summary}"[:140],
              fill="black", font=font)
    image.save(os.fspath(path), format="PNG")
