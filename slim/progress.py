"""A dependency-free progress bar on stderr, so a long calibration shows it is alive."""

from __future__ import annotations

import sys
import time
from typing import TextIO


class ProgressBar:
    """``bar.step()`` once per item; redraws at most 10 times a second and finishes with a newline."""

    def __init__(self, total: int | None, label: str, enabled: bool = True,
                 stream: TextIO | None = None) -> None:
        self.total = total
        self.label = label
        self.enabled = enabled
        self.stream = stream if stream is not None else sys.stderr
        self.done = 0
        self._start = time.monotonic()
        self._last_draw = 0.0

    def step(self, count: int = 1) -> None:
        self.done += count
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
        else:
            text = f"\r{self.label} {self.done} {elapsed:.1f}s"
        self.stream.write(text)
        self.stream.flush()

    def close(self) -> None:
        if self.enabled and self.done:
            if self.done != self.total:
                self._draw(time.monotonic())
            self.stream.write("\n")
            self.stream.flush()
