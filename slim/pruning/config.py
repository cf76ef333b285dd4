"""``slim.PruneConfig``: every knob of structured pruning, and the ``prune_R[+int8]`` config strings."""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable

from slim.config import QuantConfig, resolve_config
from slim.finetune_config import FinetuneConfig
from slim.qat_config import QAT_PRESET, QatConfig

CRITERIA = ("l1", "l2", "fpgm", "bn_scale", "taylor")
_PRESET = re.compile(r"^prune_(?P<ratio>[0-9]*\.?[0-9]+)(?P<int8>\+int8)?$")


@dataclasses.dataclass
class PruneConfig:
    """How to prune. Exactly one of the four targets:

    flops_target: keep at most this fraction of the FLOPs (0.5: half) and of the estimated runtime
      cost (FLOPs weighted by kernel class: depthwise and elementwise FLOPs cost more than GEMM ones,
      slim/pruning/flops.py), ranking every unit of every group globally by importance (``prune_0.5``);
    ratio: remove this fraction of every prunable group's channels;
    ratios: group name (its first producing layer, as ``slim.prune_groups`` lists) -> fraction, e.g.
      chosen by ``slim.sensitivity(...).ratios_for(...)``;
    global_ratio: remove this fraction of all prunable channels, least important first.

    criterion: ``l1``, ``l2``, ``fpgm``, ``bn_scale``, ``taylor`` (with data), or a callable
      ``criterion(dependency_graph, group) -> scores`` (slim/pruning/importance.py).
    round_to: channels kept per group are a multiple of this. The default, 16, is the column panel of
      the fp32 GEMM on aarch64 and AVX2 (6x16; armv7's 4x8 divides it): a count of 16k + 8 runs its
      last 8 channels through a whole 16-wide edge tile, so it costs nearly what 16k + 16 would.
    max_ratio: no group loses more than this fraction of its channels.
    skip: weighted-layer names whose groups are left as they are.
    taylor_batches: batches the ``taylor`` criterion reads.
    compensate: move each removed input channel's mean contribution (measured on
      ``compensate_batches`` batches of the data) into its consumer's bias
      (slim/pruning/compensate.py). On PP-OCRv4 rec one group cut by 30% reads 0-6% of characters
      without it and 94-96% with it (benchmarks/COMPRESSION.md).
    finetune: fine-tuning after pruning (label-free distillation by default; None: none).
    quantize: int8 post-training quantization of the pruned model (``prune_R+int8``).
    """

    flops_target: float | None = None
    ratio: float | None = None
    ratios: dict[str, float] | None = None
    global_ratio: float | None = None
    criterion: str | Callable = "taylor"
    round_to: int = 16
    max_ratio: float = 0.75
    skip: list[str] = dataclasses.field(default_factory=list)
    taylor_batches: int = 8
    compensate: bool = False
    compensate_batches: int = 4
    finetune: FinetuneConfig | None = dataclasses.field(default_factory=lambda: FinetuneConfig(epochs=1.0))
    quantize: QuantConfig | None = None
    progress: bool = True

    def __post_init__(self) -> None:
        names = ("flops_target", "ratio", "ratios", "global_ratio")
        targets = [t for t in names if getattr(self, t) is not None]
        if len(targets) != 1:
            raise ValueError("give exactly one of flops_target, ratio, ratios, global_ratio "
                             f"(got {targets or 'none'})")
        if self.flops_target is not None and not 0.0 < self.flops_target < 1.0:
            raise ValueError(f"flops_target is the fraction of FLOPs kept, in (0, 1); "
                             f"got {self.flops_target}")
        for name in ("ratio", "global_ratio"):
            value = getattr(self, name)
            if value is not None and not 0.0 <= value < 1.0:
                raise ValueError(f"{name} is the fraction of channels removed, in [0, 1); got {value}")
        for group, value in (self.ratios or {}).items():
            if not 0.0 <= value < 1.0:
                raise ValueError(f"ratios['{group}'] = {value}: a fraction of channels removed, in [0, 1)")
        if isinstance(self.criterion, str) and self.criterion not in CRITERIA:
            raise ValueError(f"unknown criterion {self.criterion!r}; use one of {CRITERIA} or a callable")
        if self.round_to < 1:
            raise ValueError(f"round_to must be >= 1, got {self.round_to}")
        if not 0.0 < self.max_ratio < 1.0:
            raise ValueError(f"max_ratio must be in (0, 1), got {self.max_ratio}")


Config = PruneConfig | QuantConfig | QatConfig


def parse_config(config: str | Config) -> Config:
    """A PruneConfig for ``prune_R`` / ``prune_R+int8`` (R: the fraction of FLOPs kept), a QatConfig
    for ``int8_qat``, a QuantConfig for the int8 presets; config objects are returned as they are."""
    if not isinstance(config, str):
        return config
    if config == QAT_PRESET:
        return QatConfig()
    match = _PRESET.match(config)
    if match is None:
        if config.startswith("prune"):
            raise ValueError(f"unknown config {config!r}: write prune_R or prune_R+int8 with R the "
                             "fraction of FLOPs kept, e.g. prune_0.5")
        return resolve_config(config)
    ratio = float(match.group("ratio"))
    if not 0.0 < ratio < 1.0:
        raise ValueError(f"{config}: the fraction of FLOPs kept must be in (0, 1)")
    return PruneConfig(flops_target=ratio, quantize=resolve_config("int8") if match.group("int8") else None)
