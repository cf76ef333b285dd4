"""Fine-tuning by distillation against the original model (label-free by default; the idea of
PaddleSlim's ACT): the compressed student learns to reproduce the teacher's outputs on the user's
inputs, so no labels and no training code are needed.

Losses (``FinetuneConfig.loss``): ``l2`` is the mean squared difference divided by the mean square
of the teacher's output (scale-free, so a detector's probability map and a classifier's logits
weigh alike); ``kl`` is the KL divergence of the student's distribution from the teacher's, over
the last axis, on probabilities when the output already is one (it sums to 1) and on logits at
``temperature`` otherwise; ``auto`` picks ``kl`` for probabilities and [batch, classes] logits,
``l2`` for the rest. ``feature_weight`` adds the same ``l2`` on intermediate tensors, comparing a
pruned tensor with the teacher's kept channels only. With labels in the data and a ``task_loss``,
that loss is added with ``task_weight``.

Runs for ``steps``, ``epochs`` or ``time_budget_s`` (whichever ends first), AdamW with a cosine
learning-rate decay over that length, a progress bar with the loss and time left, and checkpoints
in ``checkpoint_dir`` every ``checkpoint_every`` steps, from which a rerun resumes. With a
``validate`` callable (a label-free score, higher is better: slim/qat_validation.py) and
``validate_every``, the loop scores the student before training and every that many steps and ends
with the best-scoring state restored: the training loss of one batch says little about the
deployed model when rounding noise dominates (PP-OCRv4 rec's QAT, benchmarks/COMPRESSION.md).
"""

from __future__ import annotations

import dataclasses
import math
import os
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any, Protocol

import numpy as np
import torch
import torch.nn.functional as F

from lite_converter.ir import Graph
from slim.finetune_config import FinetuneConfig
from slim.progress import ProgressBar
from slim.torch_ir.module import GraphModule, write_back
from slim.training_data import TrainingData

# Kept indices per axis of an intermediate tensor: {tensor name: {axis: kept indices}}.
FeatureMap = dict[str, dict[int, np.ndarray]]


@dataclasses.dataclass
class FinetuneReport:
    steps: int
    seconds: float
    first_loss: float
    last_loss: float
    stopped_by: str  # "steps", "epochs", "time" or "data"
    resumed_from: int = 0
    validation: list[tuple[int, float]] = dataclasses.field(default_factory=list)  # (step, score)
    best_step: int | None = None  # the step whose state was kept (with a validation)
    cpu_seconds: float = 0.0  # process CPU time of the loop (all threads), validations included
    validation_cpu: list[float] = dataclasses.field(default_factory=list)  # the loop's CPU s at each score


def _is_probability(value: torch.Tensor) -> bool:
    if value.dim() < 2 or value.shape[-1] < 2 or value.min() < 0:
        return False
    return bool(torch.allclose(value.sum(-1), torch.ones(()), atol=1e-3))


def output_loss(student: torch.Tensor, teacher: torch.Tensor, kind: str, temperature: float) -> torch.Tensor:
    """One output's distillation loss (``kind``: l2, kl)."""
    if kind == "l2":
        return F.mse_loss(student, teacher) / (teacher.square().mean() + 1e-12)
    classes = student.shape[-1]
    s, t = student.reshape(-1, classes), teacher.reshape(-1, classes)
    if _is_probability(teacher):
        return F.kl_div(torch.log(s.clamp_min(1e-12)), t, reduction="batchmean")
    return F.kl_div(F.log_softmax(s / temperature, -1), F.softmax(t / temperature, -1),
                    reduction="batchmean") * temperature ** 2


def loss_kinds(teacher_outputs: Mapping[str, torch.Tensor], choice: str) -> dict[str, str]:
    """The loss each output uses: ``choice``, or for ``auto`` kl on probabilities / [N, classes]
    logits and l2 elsewhere."""
    if choice != "auto":
        return {name: choice for name in teacher_outputs}
    kinds = {}
    for name, value in teacher_outputs.items():
        kinds[name] = "kl" if _is_probability(value) or value.dim() == 2 and value.shape[-1] > 1 else "l2"
    return kinds


def feature_loss(student: torch.Tensor, teacher: torch.Tensor,
                 kept: Mapping[int, np.ndarray]) -> torch.Tensor:
    for axis, indices in kept.items():
        teacher = teacher.index_select(axis, torch.from_numpy(indices))
    return F.mse_loss(student, teacher) / (teacher.square().mean() + 1e-12)


def _to_torch(feeds: Mapping[str, np.ndarray]) -> dict[str, torch.Tensor]:
    return {name: torch.from_numpy(np.ascontiguousarray(value)) for name, value in feeds.items()}


class _Checkpoint:
    def __init__(self, directory: str | os.PathLike | None) -> None:
        self.path = None if directory is None else Path(directory) / "finetune.pt"

    def load(self, module: torch.nn.Module, optimizer: torch.optim.Optimizer) -> int:
        if self.path is None or not self.path.is_file():
            return 0
        state = torch.load(self.path, weights_only=False)
        shapes = {k: tuple(v.shape) for k, v in module.state_dict().items()}
        if {k: tuple(v.shape) for k, v in state["module"].items()} != shapes:
            return 0  # a checkpoint of another model or pruning: start over
        module.load_state_dict(state["module"])
        optimizer.load_state_dict(state["optimizer"])
        return int(state["step"])

    def save(self, module: torch.nn.Module, optimizer: torch.optim.Optimizer, step: int) -> None:
        if self.path is None:
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        temporary = self.path.with_suffix(".tmp")
        state = {"module": module.state_dict(), "optimizer": optimizer.state_dict(), "step": step}
        torch.save(state, temporary)
        os.replace(temporary, self.path)


def _endless(data: TrainingData) -> Iterator[tuple[dict[str, np.ndarray], object]]:
    """Epoch after epoch (reshuffled) until the caller stops; ends if an epoch yields nothing."""
    while True:
        empty = True
        for batch in data.epoch():
            empty = False
            yield batch
        if empty:
            return


def _fraction_done(step: int, total: int | None, elapsed: float, budget: float | None) -> float | None:
    """How far along the run is, by whichever of the step count and the time budget ends it first
    (None when neither is known: the learning rate stays constant)."""
    fractions = ([step / total] if total else []) + ([min(elapsed / budget, 1.0)] if budget else [])
    return max(fractions) if fractions else None


def finetune(student: Graph, teacher: Graph, data: TrainingData, config: FinetuneConfig,
             features: FeatureMap | None = None) -> FinetuneReport:
    """Trains ``student`` (in place: the trained values are written back into its constants)."""
    torch.manual_seed(config.seed)
    student_module = GraphModule(student, bn_train=config.bn_train).train()
    teacher_module = GraphModule(teacher).eval()
    report = distill_modules(student_module, teacher_module, data, config, features)
    write_back(student_module, student)
    return report


class Runnable(Protocol):
    """What the loop needs of a student or teacher: GraphModule, slim.qat's QatModule / Fp32Module."""

    output_names: list[str]

    def run(self, feeds: Mapping[str, np.ndarray | torch.Tensor],
            keep: Iterable[str] = ()) -> dict[str, torch.Tensor]: ...


class _BestState:
    """The best-scoring state of the student so far (label-free early stopping)."""

    def __init__(self, module: torch.nn.Module, validate: Callable[[], float] | None, every: int) -> None:
        self.module, self.validate, self.every = module, validate, every
        self.history: list[tuple[int, float]] = []
        self.cpu: list[float] = []
        self._cpu_start = time.process_time()
        self.best_step: int | None = None
        self._best_score = -math.inf
        self._state: dict[str, torch.Tensor] | None = None

    def check(self, step: int, force: bool = False) -> None:
        if self.validate is None or self.every <= 0 or not (force or step % self.every == 0):
            return
        if self.history and self.history[-1][0] == step:
            return
        score = float(self.validate())
        self.history.append((step, score))
        self.cpu.append(time.process_time() - self._cpu_start)
        if score > self._best_score:
            self._best_score, self.best_step = score, step
            self._state = {k: v.detach().clone() for k, v in self.module.state_dict().items()}

    def restore(self) -> None:
        if self._state is not None:
            self.module.load_state_dict(self._state)


def distill_modules(student_module: torch.nn.Module, teacher_module: Runnable, data: TrainingData,
                    config: FinetuneConfig, features: FeatureMap | None = None,
                    param_groups: list[dict[str, Any]] | None = None,
                    validate: Callable[[], float] | None = None) -> FinetuneReport:
    """The training loop of :func:`finetune` on modules (``student_module`` in train mode, a ``run``
    like GraphModule's); ``param_groups``: AdamW groups, each with its own ``base_lr`` that the
    cosine decay scales (default: every trainable parameter at ``config.learning_rate``);
    ``validate``: a label-free score of the student (higher is better) taken every
    ``config.validate_every`` steps; the best-scoring state is restored at the end."""
    features = features if config.feature_weight > 0 else {}
    if param_groups is None:
        param_groups = [{"params": [p for p in student_module.parameters() if p.requires_grad],
                         "base_lr": config.learning_rate}]
    optimizer = torch.optim.AdamW(param_groups, lr=config.learning_rate, weight_decay=config.weight_decay)
    per_epoch = max(1, data.num_batches)
    by_epochs = None if config.epochs is None else int(math.ceil(config.epochs * per_epoch))
    planned = [v for v in (config.steps, by_epochs) if v is not None]
    total = min(planned) if planned else None
    checkpoint = _Checkpoint(config.checkpoint_dir)
    step = resumed = checkpoint.load(student_module, optimizer)
    bar = ProgressBar(total, "fine-tuning", enabled=config.progress)
    bar.step(step)
    start, cpu_start = time.monotonic(), time.process_time()
    clock = (lambda: time.process_time() - cpu_start) if config.budget_clock == "process" else (
        lambda: time.monotonic() - start)
    first = last = float("nan")
    kinds: dict[str, str] | None = None
    stopped_by = "data"
    best = _BestState(student_module, validate, config.validate_every)
    best.check(step, force=True)
    for feeds, labels in _endless(data):
        if total is not None and step >= total:
            stopped_by = "steps" if config.steps is not None and step >= config.steps else "epochs"
            break
        if config.time_budget_s is not None and clock() >= config.time_budget_s:
            stopped_by = "time"
            break
        inputs = _to_torch(feeds)
        with torch.no_grad():
            reference = teacher_module.run(inputs, keep=features)
        produced = student_module.run(inputs, keep=features)
        if kinds is None:
            kinds = loss_kinds({n: reference[n] for n in teacher_module.output_names}, config.loss)
        loss = sum(output_loss(produced[n], reference[n], kinds[n], config.temperature) for n in kinds)
        if features:
            loss = loss + config.feature_weight * sum(
                feature_loss(produced[n], reference[n], kept) for n, kept in features.items()) / len(features)
        if labels is not None and config.task_loss is not None:
            outputs = tuple(produced[n] for n in student_module.output_names)
            loss = loss + config.task_weight * config.task_loss(outputs, labels)
        done = _fraction_done(step, total, clock(), config.time_budget_s)
        if done is not None:
            decay = 0.5 * (1.0 + math.cos(math.pi * done))
            if config.warmup_steps > 0:
                decay *= min(1.0, (step + 1) / config.warmup_steps)
            for group in optimizer.param_groups:
                group["lr"] = group.get("base_lr", config.learning_rate) * decay
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        step += 1
        last = float(loss.detach())
        first = last if math.isnan(first) else first
        bar.step(status=f"loss {last:.4g}" + (f" val {best.history[-1][1]:.4g}" if best.history else ""))
        best.check(step)
        if step % config.checkpoint_every == 0:
            checkpoint.save(student_module, optimizer, step)
    bar.close()
    best.check(step, force=True)
    best.restore()
    checkpoint.save(student_module, optimizer, step)
    return FinetuneReport(step - resumed, time.monotonic() - start, first, last, stopped_by, resumed,
                          best.history, best.best_step, time.process_time() - cpu_start, best.cpu)
