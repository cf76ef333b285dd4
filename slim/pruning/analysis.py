"""One model prepared for pruning: the trainable IR, the checked data, the probe shapes, the
dependency groups (checked by a trial run), the FLOPs model and the importance scores.

Shared by ``slim.prune``, ``slim.sensitivity`` and the compression pipeline, so each pays for the
analysis once.
"""

from __future__ import annotations

import dataclasses
import os

import numpy as np
import onnx
import torch

from lite_converter.ir import Graph
from slim.calibration_data import InputSpec
from slim.pruning import allocate, importance
from slim.pruning.apply import Plan, apply_plan, plan_of
from slim.pruning.channels import Axis
from slim.pruning.flops import FlopsModel
from slim.pruning.graph_view import GraphView
from slim.pruning.groups import DependencyGraph, Group
from slim.pruning.probe import one_sample, probe_shapes
from slim.pruning.taylor import Taylor
from slim.torch_ir.module import GraphModule
from slim.torch_ir.trainable import load_trainable
from slim.training_data import TrainingData

TRIAL_TOLERANCE = 1e-4


class PruneError(ValueError):
    """A pruning request that cannot be met; the message says why (before any work is done)."""


@dataclasses.dataclass
class Analysis:
    graph: Graph
    data: TrainingData
    view: GraphView
    dependencies: DependencyGraph
    flops: FlopsModel
    sizes: dict[Axis, int]

    @property
    def groups(self) -> list[Group]:
        return self.dependencies.prunable_groups

    def scores(self, criterion: str | importance.Criterion, taylor_batches: int = 8,
               task_loss: object = None) -> dict[int, np.ndarray]:
        """Raw importance per unit, per prunable group index."""
        if criterion == "taylor":
            criterion = Taylor(self.data.take(taylor_batches), task_loss)  # type: ignore[arg-type]
        function = importance.CRITERIA[criterion] if isinstance(criterion, str) else criterion
        result = {}
        for group in self.groups:
            scores = np.asarray(function(self.dependencies, group), dtype=np.float64)
            if scores.shape != (len(group.units),):
                raise PruneError(f"criterion returned {scores.shape} scores for group '{group.name}' "
                                 f"with {len(group.units)} units")
            result[group.index] = scores
        return result

    def choices(self, scores: dict[int, np.ndarray], round_to: int, max_ratio: float,
                skip: set[str] = frozenset()) -> list[allocate.GroupChoice]:
        result = []
        for group in self.groups:
            if skip & set(group.layers):
                continue
            result.append(allocate.make_choice(group, importance.normalized(scores[group.index]), self.sizes,
                                               round_to, max_ratio))
        return result

    def plan(self, choices: list[allocate.GroupChoice]) -> Plan:
        return plan_of([unit for choice in choices for unit in choice.removed_units()])

    def kept(self, plan: Plan) -> dict[Axis, int]:
        return {axis: size - len(plan.get(axis, ())) for axis, size in self.sizes.items()}

    def flops_fraction(self, plan: Plan) -> float:
        return self.flops.total(self.kept(plan)) / self.flops.base_total


def _outputs(graph: Graph, feeds: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    with torch.no_grad():
        return {k: v.numpy() for k, v in GraphModule(graph).eval().run(feeds).items()}


def _trial_failures(view: GraphView, groups: list[Group], feeds: dict[str, np.ndarray],
                    reference: dict[str, np.ndarray]) -> dict[int, str]:
    """Groups whose one-unit pruning does not run or does not equal the zeroed model (bisected)."""
    if not groups:
        return {}
    # Units at different positions in different groups, so two groups wrongly left uncoupled do
    # not lose the same indices by chance (which would keep shapes and values matching).
    chosen = []
    for group in groups:
        picks = np.random.default_rng(group.index).choice(len(group.units), min(2, len(group.units) - 1),
                                                          replace=False)
        chosen += [group.units[i] for i in picks]
    plan = plan_of(chosen)
    try:
        pruned = _outputs(apply_plan(view, plan), feeds)
        zeroed = _outputs(apply_plan(view, plan, zeroing=True), feeds)
        bad = [name for name in reference if pruned[name].shape != reference[name].shape or
               np.abs(pruned[name] - zeroed[name]).max() >
               TRIAL_TOLERANCE * max(1.0, np.abs(zeroed[name]).max())]
        error = f"the pruned model differs from the zeroed one at {bad}" if bad else ""
    except Exception as failure:  # noqa: BLE001 - any failure of the trial marks the groups unsafe
        error = f"the pruned model fails to run: {str(failure).splitlines()[0]}"
    if not error:
        return {}
    if len(groups) == 1:
        return {groups[0].index: error}
    half = len(groups) // 2
    return _trial_failures(view, groups[:half], feeds, reference) | \
        _trial_failures(view, groups[half:], feeds, reference)


def analyze(model: str | os.PathLike | onnx.ModelProto | Graph, data: object,
            input_shapes: dict[str, list[int]] | None = None, batch_size: int = 32) -> Analysis:
    """Loads ``model``, checks ``data`` against it, finds and checks the dependency groups."""
    graph = load_trainable(model, input_shapes)
    specs = [InputSpec(name, graph.tensors[name].dtype, graph.tensors[name].shape) for name in graph.inputs]
    data = data if isinstance(data, TrainingData) else TrainingData(data, specs, batch_size)
    feeds = one_sample(graph, data.first())
    view = GraphView(graph, probe_shapes(graph, feeds))
    dependencies = DependencyGraph(view)
    reference = _outputs(graph, feeds)
    failed = _trial_failures(view, dependencies.prunable_groups, feeds, reference)
    for group in dependencies.groups:
        if group.index in failed:  # left alone, and listed with the reason
            group.blocked.append(failed[group.index])
            group.blocked_units += len(group.units)
            group.units = []
    flops = FlopsModel(view, set(dependencies.space.offsets))
    return Analysis(graph, data, view, dependencies, flops, dict(dependencies.space.sizes))
