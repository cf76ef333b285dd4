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


def _finite(value: float, top: float) -> float:
    return top if math.isinf(value) and value > 0 else max(0.0, min(value, top))


def write_plot(report: AnalysisReport, path: str | os.PathLike) -> None:
    """Writes ``report`` to ``path`` as a PNG bar chart."""
    from PIL import Image, ImageDraw, ImageFont  # optional: only a plot needs it

    font = ImageFont.load_default()
    finite = [v for layer in report.layers for v in (layer.sqnr_db, layer.local_sqnr_db) if math.isfinite(v)]
    top = max(10.0, math.ceil(max(finite, default=10.0) / 10.0) * 10.0)
    rows = len(report.layers) + 2
    width = MARGIN * 3 + LABEL_WIDTH + BAR_WIDTH
    height = MARGIN * 2 + ROW * (rows + 2)
    image = Image.new("RGB", (width, height), "white")
    draw = ImageDraw.Draw(image)
    left = MARGIN * 2 + LABEL_WIDTH
    draw.text((MARGIN, MARGIN), "int8 vs fp32 per layer: SQNR dB (dark: int8 model, light: layer alone)",
              fill="black", font=font)
    axis_y = MARGIN + ROW * (rows + 1)
    for tick in range(0, int(top) + 1, 10):
        x = left + BAR_WIDTH * tick / top
        draw.line([(x, MARGIN + ROW), (x, axis_y)], fill=GRID)
        draw.text((x - 6, axis_y + 2), str(tick), fill="black", font=font)
    for i, layer in enumerate(report.layers):
        y = MARGIN + ROW * (i + 1) + 2
        label = layer.node if len(layer.node) <= 58 else "..." + layer.node[-55:]
        draw.text((MARGIN, y), label, fill="black", font=font)
        half = (ROW - 4) // 2
        for offset, value, colour in ((0, layer.sqnr_db, CUMULATIVE), (half, layer.local_sqnr_db, LOCAL)):
            length = BAR_WIDTH * _finite(value, top) / top
            draw.rectangle([(left, y + offset), (left + length, y + offset + half - 1)], fill=colour)
    summary = ", ".join(f"{name}: {sqnr:.1f} dB, cos {cosine:.4f}"
                        for name, (sqnr, cosine) in report.outputs.items())
    draw.text((MARGIN, MARGIN + ROW * (len(report.layers) + 1) + 2), f"outputs: {summary}"[:140],
              fill="black", font=font)
    image.save(os.fspath(path), format="PNG")
