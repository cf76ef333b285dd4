"""``slim.FinetuneConfig``: how a compressed model is trained back towards the original (slim/distill.py).

Kept free of torch so that configs can be built (and the two-line API parsed) without the
``torch`` extra installed; training itself needs it.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable
from typing import Any

LOSSES = ("auto", "l2", "kl")


@dataclasses.dataclass
class FinetuneConfig:
    """How a compressed model is trained back towards the original.

    steps / epochs / time_budget_s: stop at the first reached (at least one must be set; steps=0
      skips fine-tuning).
    learning_rate, weight_decay: AdamW's; the rate decays to 0 along a cosine over the run's length
      (steps, epochs or the time budget, whichever ends it first).
    budget_clock: what ``time_budget_s`` counts: ``wall`` seconds, or ``process`` CPU seconds (all
      threads; a budget such as "15 minutes of CPU training" that does not shrink on a busy machine).
    warmup_steps: the rate rises linearly from 0 over the first this many steps (Adam's first steps
      move every weight by about the full rate, whatever its gradient).
    batch_size: for data given as one array of samples.
    loss, temperature: output distillation (see the module docstring).
    feature_weight: weight of intermediate-feature distillation (0: outputs only); features: the
      tensor names to compare ("auto": the outputs of up to 8 pruned layers).
    task_loss, task_weight: ``task_loss(outputs, labels) -> scalar tensor``, used on batches with labels.
    bn_train: train BatchNorm statistics too (default: frozen, as at inference).
    checkpoint_dir, checkpoint_every: where and how often the state is saved (resumed from there).
    progress: the progress bar on stderr. seed: data order and initial state.
    validate_every: with a validation score (QAT's ``QatConfig.validation_batches``), score the
      student before training and every this many steps and keep the best state (0: never).
    """

    steps: int | None = None
    epochs: float | None = None
    time_budget_s: float | None = None
    learning_rate: float = 2e-3
    weight_decay: float = 0.0
    warmup_steps: int = 0
    batch_size: int = 32
    loss: str = "auto"
    temperature: float = 2.0
    feature_weight: float = 0.0
    features: list[str] | str = "auto"
    task_loss: Callable[[tuple[Any, ...], object], Any] | None = None
    task_weight: float = 1.0
    bn_train: bool = False
    checkpoint_dir: str | os.PathLike | None = None
    checkpoint_every: int = 200
    progress: bool = True
    seed: int = 0
    validate_every: int = 0
    budget_clock: str = "wall"

    def __post_init__(self) -> None:
        if self.loss not in LOSSES:
            raise ValueError(f"unknown distillation loss {self.loss!r}; use one of {LOSSES}")
        for name in ("steps", "epochs", "time_budget_s"):
            value = getattr(self, name)
            if value is not None and value < 0:
                raise ValueError(f"{name} must be >= 0, got {value}")
        if self.budget_clock not in ("wall", "process"):
            raise ValueError(f"budget_clock must be 'wall' or 'process', got {self.budget_clock!r}")
        if self.learning_rate <= 0:
            raise ValueError(f"learning_rate must be > 0, got {self.learning_rate}")

    @property
    def enabled(self) -> bool:
        return self.steps != 0 and self.epochs != 0 and self.time_budget_s != 0 and \
            any(v is not None for v in (self.steps, self.epochs, self.time_budget_s))
