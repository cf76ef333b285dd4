"""``slim.prune``: structured pruning of an imported model, then fine-tuning by distillation.

analyze (trainable IR, data check, probe, dependency groups, trial run) -> importance -> how many
units each group loses (ratios or a FLOPs target) -> cut the IR -> fine-tune the pruned model
against the original (label-free unless the data has labels and a task loss is given). The result
is an ONNX-vocabulary IR that the converter's normal passes and writer take from there.
"""

from __future__ import annotations

import dataclasses
import os

import numpy as np
import onnx

from lite_converter.atomic_write import write_atomically
from lite_converter.frontends.onnx_export import export_onnx
from lite_converter.ir import Graph
from slim.distill import FeatureMap, FinetuneReport, finetune
from slim.pruning import allocate
from slim.pruning.analysis import Analysis, PruneError, analyze
from slim.pruning.apply import Plan, apply_plan
from slim.pruning.channels import Axis
from slim.pruning.compensate import compensate
from slim.pruning.config import PruneConfig, parse_config
from slim.pruning.groups import Group

MAX_AUTO_FEATURES = 8
CALIBRATION_BATCHES = 16  # of the user's data, kept for int8 after pruning (prune_R+int8)


@dataclasses.dataclass
class GroupResult:
    name: str
    units: int
    removed: int
    channels: int  # on the group's first producer output, before
    kept: int  # after


@dataclasses.dataclass
class PruneReport:
    """What was pruned where, FLOPs before and after, and what could not be pruned (and why)."""

    groups: list[GroupResult]
    unprunable: list[tuple[str, list[str]]]
    flops_before: float
    flops_after: float
    finetune: FinetuneReport | None = None
    cost_kept: float = 1.0  # of the estimated runtime cost (slim/pruning/flops.py, FlopsModel.cost)

    @property
    def flops_kept(self) -> float:
        return self.flops_after / self.flops_before if self.flops_before else 1.0

    def table(self) -> str:
        lines = [f"{'group':<40} {'channels':>8} {'kept':>6} {'removed':>8}"]
        for g in self.groups:
            lines.append(f"{g.name[:40]:<40} {g.channels:>8} {g.kept:>6} {g.removed / max(g.units, 1):>7.0%}")
        lines.append(f"FLOPs {self.flops_before / 1e6:.1f} M -> {self.flops_after / 1e6:.1f} M "
                     f"({self.flops_kept:.1%} kept; estimated runtime cost {self.cost_kept:.1%} kept)")
        for name, reasons in self.unprunable:
            lines.append(f"not pruned: {name}: {'; '.join(reasons[:2])}")
        if self.finetune is not None:
            f = self.finetune
            lines.append(f"fine-tuned {f.steps} steps in {f.seconds:.0f} s (stopped by {f.stopped_by}): "
                         f"loss {f.first_loss:.4g} -> {f.last_loss:.4g}")
        return "\n".join(lines)


@dataclasses.dataclass
class PruneResult:
    """The pruned (and fine-tuned) graph, the original, the plan and the report."""

    graph: Graph
    original: Graph
    plan: Plan
    report: PruneReport
    calibration: list[dict[str, np.ndarray]] = dataclasses.field(default_factory=list, repr=False)

    def onnx_model(self) -> onnx.ModelProto:
        """The pruned model as plain ONNX (runs in onnxruntime; converts with lite convert)."""
        return export_onnx(self.graph, with_value_info=False)

    def save(self, path: str | os.PathLike) -> None:
        """Writes the pruned model as an .onnx file."""
        write_atomically(path, self.onnx_model().SerializeToString())


def _main_axis_counts(group: Group, plan: Plan, sizes: dict) -> tuple[int, int]:
    main = allocate.main_axis(group)
    return sizes[main], sizes[main] - len(plan.get(main, ()))


def feature_map(analysis: Analysis, plan: Plan, choices: list[allocate.GroupChoice],
                names: list[str] | str) -> FeatureMap:
    """Kept channels per pruned axis of the tensors compared by feature distillation."""
    if names == "auto":
        pruned = [allocate.main_axis(c.group).tensor for c in choices if c.removed]
        step = max(1, len(pruned) // MAX_AUTO_FEATURES)
        names = pruned[::step][:MAX_AUTO_FEATURES]
    result: FeatureMap = {}
    for name in names:
        shape = analysis.view.shape(name)
        kept = {axis: np.setdiff1d(np.arange(shape[axis]), removed)
                for axis in range(len(shape)) if len(removed := plan.get(Axis(name, axis), ()))}
        result[name] = kept
    return result


def allocate_units(analysis: Analysis, config: PruneConfig) -> list[allocate.GroupChoice]:
    """Per group, the units to remove under ``config``; PruneError if the target is out of reach."""
    names = {layer for g in analysis.dependencies.groups for layer in g.layers}
    unknown = sorted(set(config.skip) - names)
    if unknown:
        raise PruneError(f"skip names unknown layer(s) {unknown}")
    if config.ratios is not None:
        known = {g.name for g in analysis.dependencies.groups}
        unknown = sorted(set(config.ratios) - known)
        if unknown:
            raise PruneError(f"ratios name unknown group(s) {unknown}; the groups are {sorted(known)}")
    if not analysis.groups:
        reasons = "; ".join(sorted({r for g in analysis.dependencies.groups for r in g.blocked}))
        raise PruneError(f"no group of this model can be pruned ({reasons})")
    criterion = config.criterion
    task_loss = config.finetune.task_loss if config.finetune is not None else None
    scores = analysis.scores(criterion, config.taylor_batches, task_loss)
    choices = analysis.choices(scores, config.round_to, config.max_ratio, set(config.skip))
    if config.flops_target is not None:
        allocate.set_limits(choices)
        floor = analysis.flops_fraction(analysis.plan(choices))
        if floor > config.flops_target:
            raise PruneError(f"a FLOPs target of {config.flops_target:.0%} cannot be reached: with every "
                             f"prunable group at its limit (max_ratio {config.max_ratio}, round_to "
                             f"{config.round_to}) the model keeps {floor:.1%} of its FLOPs")
        allocate.fit_flops(choices, analysis.flops, analysis.sizes, config.flops_target)
    elif config.global_ratio is not None:
        allocate.fit_ratio(choices, config.global_ratio)
    else:
        by_index = {g.index: config.ratio for g in analysis.groups} if config.ratio is not None else \
            {g.index: config.ratios.get(g.name, 0.0) for g in analysis.groups}  # type: ignore[union-attr]
        allocate.set_ratios(choices, by_index)
    return choices


def cut(analysis: Analysis, plan: Plan, config: PruneConfig) -> Graph:
    """The pruned graph: the plan's channels removed, after bias compensation if configured."""
    view = analysis.view
    if config.compensate:
        view = compensate(view, plan, [feeds for feeds, _ in analysis.data.take(config.compensate_batches)])
    return apply_plan(view, plan)


def report_of(analysis: Analysis, choices: list[allocate.GroupChoice], plan: Plan) -> PruneReport:
    groups = []
    for choice in choices:
        channels, kept = _main_axis_counts(choice.group, plan, analysis.sizes)
        groups.append(GroupResult(choice.group.name, len(choice.group.units), choice.removed, channels, kept))
    unprunable = [(g.name, g.blocked) for g in analysis.dependencies.groups if not g.prunable]
    kept = analysis.kept(plan)
    flops = analysis.flops
    total, cost = flops.total_and_cost(kept)
    return PruneReport(groups, unprunable, flops.base_total, total,
                       cost_kept=cost / flops.base_cost if flops.base_cost else 1.0)


def prune(model: str | os.PathLike | onnx.ModelProto | Graph, data: object,
          config: str | PruneConfig = "prune_0.5", input_shapes: dict[str, list[int]] | None = None,
          output_path: str | os.PathLike | None = None) -> PruneResult:
    """Prunes ``model`` (ONNX path / proto, or an ONNX-vocabulary IR graph) and fine-tunes it by
    distillation on ``data`` (slim.training_data). ``output_path``: also write the pruned .onnx.

    Raises slim.CalibrationDataError (data) or PruneError (config, targets) before any work.
    """
    settings = parse_config(config)
    if not isinstance(settings, PruneConfig):
        raise PruneError(f"config {config!r} is not a pruning config (prune_R or a slim.PruneConfig)")
    batch_size = settings.finetune.batch_size if settings.finetune is not None else 32
    analysis = analyze(model, data, input_shapes, batch_size)
    choices = allocate_units(analysis, settings)
    plan = analysis.plan(choices)
    pruned = cut(analysis, plan, settings)
    report = report_of(analysis, choices, plan)
    if settings.finetune is not None and settings.finetune.enabled:
        features = feature_map(analysis, plan, choices, settings.finetune.features)
        report.finetune = finetune(pruned, analysis.graph, analysis.data, settings.finetune, features)
    calibration = [feeds for feeds, _ in analysis.data.take(CALIBRATION_BATCHES)]
    result = PruneResult(pruned, analysis.graph, plan, report, calibration)
    if output_path is not None:
        result.save(output_path)
    return result
