"""Speed-up of a compressed .lite model over its fp32 .lite, as ``config="auto"`` measures it.

Two targets, both ours against ours (the same runtime runs both models):

* ``"host"``: wall time on this machine, interleaved: fp32 run, candidate run, fp32 run, ... on the
  same input, so a load change on a shared machine hits both alike; the speed-up is the ratio of the
  medians. Noisy (a few percent on an idle machine, more on a busy one), never exact.
* ``"aarch64:CPU"`` (``aarch64:cortex-a76``, ``aarch64:cortex-a72``, ``aarch64`` for qemu's
  ``max``): guest instructions of one inference of the cross-built lite_bench under qemu-aarch64
  with that ``-cpu`` (lite_converter/qemu_count.py; ``make cross qemu-plugin``). Exact and
  deterministic; a proxy for time on that core (no stalls, no dual issue), the figure
  benchmarks/RESULTS.md quotes per CPU.
"""

from __future__ import annotations

import dataclasses
import statistics
import tempfile
import time
from pathlib import Path

import numpy as np

from lite_converter.qemu_count import count_instructions
from runtime_arm import Interpreter

Batch = dict[str, np.ndarray]


@dataclasses.dataclass(frozen=True)
class SpeedTarget:
    """``kind``: "host" or "aarch64"; ``cpu``: qemu's -cpu for aarch64 (None: the target default)."""

    kind: str
    cpu: str | None = None

    @classmethod
    def parse(cls, spec: str) -> SpeedTarget:
        kind, _, cpu = spec.partition(":")
        if kind not in ("host", "aarch64") or (kind == "host" and cpu):
            raise ValueError(f"unknown speed_target {spec!r}: use 'host' or 'aarch64[:CPU]' "
                             "(e.g. aarch64:cortex-a76)")
        return cls(kind, cpu or None)

    @property
    def unit(self) -> str:
        return "ms (median, interleaved)" if self.kind == "host" else "instructions per inference"

    def __str__(self) -> str:
        return self.kind + (f":{self.cpu}" if self.cpu else "")


def instructions(model: bytes, batch: Batch, target: SpeedTarget) -> float:
    """Guest instructions of one inference of ``model`` on ``batch``'s shapes under qemu-aarch64."""

    shapes = {index: list(array.shape) for index, array in enumerate(batch.values())}
    with tempfile.TemporaryDirectory(prefix="lite_auto_") as folder:
        path = Path(folder) / "model.lite"
        path.write_bytes(model)
        count = count_instructions(path, "aarch64", runs=1, cpu=target.cpu, shapes=shapes)
    return float(count["instructions_per_inference"])


def interleaved_times(fp32: bytes, candidate: bytes, batch: Batch, rounds: int) -> tuple[float, float]:
    """Median seconds of one run of each model, the two runs alternating ``rounds`` times after
    one warm-up run each (weight packing, first-touch allocation)."""
    with Interpreter(model_content=fp32) as first, Interpreter(model_content=candidate) as second:
        first.run(batch)
        second.run(batch)
        times: tuple[list[float], list[float]] = ([], [])
        for _ in range(rounds):
            for interpreter, samples in ((first, times[0]), (second, times[1])):
                start = time.perf_counter()
                interpreter.run(batch)
                samples.append(time.perf_counter() - start)
    return statistics.median(times[0]), statistics.median(times[1])


@dataclasses.dataclass
class SpeedMeasurement:
    """fp32 and candidate cost in the target's unit, and fp32 / candidate."""

    fp32_cost: float
    candidate_cost: float

    @property
    def speedup(self) -> float:
        return self.fp32_cost / self.candidate_cost


def measure_speed(fp32: bytes, candidate: bytes, batch: Batch, target: SpeedTarget,
                  rounds: int = 20, fp32_instructions: float | None = None) -> SpeedMeasurement:
    """The candidate's cost against fp32's on ``target`` (fp32's instruction count may be given:
    it is exact, so it is counted once per search)."""
    if target.kind == "host":
        fp32_s, candidate_s = interleaved_times(fp32, candidate, batch, rounds)
        return SpeedMeasurement(fp32_s * 1e3, candidate_s * 1e3)
    reference = fp32_instructions if fp32_instructions is not None else instructions(fp32, batch, target)
    return SpeedMeasurement(reference, instructions(candidate, batch, target))
