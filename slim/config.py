"""Typed configuration of post-training quantization, and the named presets (``config="int8"``)."""

from __future__ import annotations

import dataclasses

ALGORITHMS = ("abs_max", "avg", "hist", "kl", "mse")


@dataclasses.dataclass
class QuantConfig:
    """How to quantize.

    algorithm: how a calibrated activation range is chosen (slim/observers.py): ``abs_max``
      (the min and max seen over all batches), ``avg`` (moving average of per-batch min / max),
      ``hist`` (percentile of a histogram), ``kl`` and ``mse`` (histogram, range minimizing KL divergence /
      squared quantization error).
    skip_nodes: node names (as in the source model) kept in fp32.
    overrides: node name -> algorithm for that node's output tensor.
    percentile: for ``hist``, the fraction of |x| mass kept inside the range.
    moving_average: for ``avg``, the weight of the past (0.9 = new batches move the range by 10%).
    max_batches: calibrate on at most this many batches (None: all).
    progress: draw a progress bar on stderr.
    """

    algorithm: str = "abs_max"
    skip_nodes: list[str] = dataclasses.field(default_factory=list)
    overrides: dict[str, str] = dataclasses.field(default_factory=dict)
    percentile: float = 0.9999
    moving_average: float = 0.9
    max_batches: int | None = None
    progress: bool = True

    def __post_init__(self) -> None:
        for name, algorithm in [("algorithm", self.algorithm), *self.overrides.items()]:
            if algorithm not in ALGORITHMS:
                raise ValueError(f"unknown calibration algorithm {algorithm!r} for {name}; "
                                 f"use one of {ALGORITHMS}")
        if not 0.0 < self.percentile <= 1.0:
            raise ValueError(f"percentile must be in (0, 1], got {self.percentile}")
        if not 0.0 <= self.moving_average < 1.0:
            raise ValueError(f"moving_average must be in [0, 1), got {self.moving_average}")


PRESETS: dict[str, QuantConfig] = {
    "int8": QuantConfig(),
}


def resolve_config(config: str | QuantConfig) -> QuantConfig:
    """A QuantConfig from a preset name or a QuantConfig (returned as is)."""
    if isinstance(config, QuantConfig):
        return config
    if config in PRESETS:
        return dataclasses.replace(PRESETS[config])
    raise ValueError(f"unknown config {config!r}; presets: {sorted(PRESETS)} (or pass a slim.QuantConfig)")
