"""A dependency-free progress bar on stderr, so a long calibration or training shows it is alive."""

from __future__ import annotations

import sys
import time
from typing import TextIO


class ProgressBar:
    """``bar.step()`` once per item; redraws at most 10 times a second and finishes with a newline.

    ``step(status=...)`` shows a short status after the count (a training loss); with a known total
    the bar also shows the time left at the rate so far."""

    def __init__(self, total: int | None, label: str, enabled: bool = True,
                 stream: TextIO | None = None) -> None:
        self.total = total
        self.label = label
        self.enabled = enabled
        self.stream = stream if stream is not None else sys.stderr
        self.done = 0
        self._start = time.monotonic()
        self._last_draw = 0.0
        self.status = ""

    def step(self, count: int = 1, status: str | None = None) -> None:
        self.done += count
        if status is not None:
            self.status = status
        now = time.monotonic()
        if self.enabled and (now - self._last_draw >= 0.1 or self.done == self.total):
            self._last_draw = now
            self._draw(now)

    def _draw(self, now: float) -> None:
        elapsed = now - self._start
        if self.total:
            width = 30
            filled = int(width * self.done / self.total)
            bar = "#" * filled + "." * (width - filled)
            text = f"\r{self.label} [{bar}] {self.done}/{self.total} {elapsed:.1f}s"
            if self.status:
                left = elapsed / max(self.done, 1) * (self.total - self.done)
                text += f" ETA {left:.0f}s {self.status}"
        else:
            text = f"\r{self.label} {self.done} {elapsed:.1f}s" + (f" {self.status}" if self.status else "")
        self.stream.write(text)
        self.stream.flush()

    def close(self) -> None:
        if self.enabled and self.done:
            if self.done != self.total:
                self._draw(time.monotonic())
            self.stream.write("\n")
            self.stream.flush()
