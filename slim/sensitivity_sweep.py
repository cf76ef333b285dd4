"""``slim.sensitivity``: how much each dependency group's pruning costs, group by group.

For every prunable group and every ratio (0.1 ... 0.9), the group alone loses that fraction of
its units (least important first) and the pruned model is evaluated: by default label-free, as
the relative squared distance of its outputs to the original's on the user's inputs
(``sum |y' - y|^2 / sum |y|^2``); with ``eval_fn(module) -> metric`` (higher is better) as
PaddleSlim's ``(baseline - metric) / baseline``. Points are independent jobs for an executor
(slim/executor.py: in process, a process pool, or Ray), cached in a JSON file as they finish, so a
rerun skips finished work. ``report.ratios_for(flops_target)`` picks per-group ratios that meet a
FLOPs target with the smallest summed loss; ``PruneConfig(ratios=...)`` prunes with them.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import json
import os
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import onnx
import torch

from lite_converter.ir import Graph
from slim.executor import Executor, make_executor
from slim.progress import ProgressBar
from slim.pruning.allocate import feasible
from slim.pruning.analysis import Analysis, analyze
from slim.pruning.apply import apply_plan, plan_of
from slim.pruning.graph_view import GraphView
from slim.pruning.groups import DependencyGraph
from slim.sensitivity_plot import write_plot
from slim.torch_ir.module import GraphModule

DEFAULT_RATIOS = (0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9)
EvalFn = Callable[[torch.nn.Module], float]


@dataclasses.dataclass
class SensitivityReport:
    """losses[group][ratio] and flops[group][ratio] (fraction of the model's FLOPs kept when that
    group alone is pruned at that ratio), for the groups in model order."""

    ratios: list[float]
    groups: list[str]
    losses: dict[str, dict[float, float]]
    flops: dict[str, dict[float, float]]
    metric: str
    computed: int = 0  # points evaluated by this call (the rest came from the cache)
    cached: int = 0
    _analysis: Analysis | None = dataclasses.field(default=None, repr=False)
    _orders: dict[str, np.ndarray] = dataclasses.field(default_factory=dict, repr=False)
    _limits: dict[str, int] = dataclasses.field(default_factory=dict, repr=False)

    def table(self) -> str:
        width = max([len(g) for g in self.groups] + [5])
        lines = [f"{'group':<{width}} " + " ".join(f"{r:>7.1f}" for r in self.ratios)]
        for group in self.groups:
            values = " ".join(f"{self.losses[group][r]:>7.4f}" for r in self.ratios)
            lines.append(f"{group:<{width}} {values}")
        lines.append(f"(loss: {self.metric}; columns: fraction of the group's channels removed)")
        return "\n".join(lines)

    def plot(self, path: str | os.PathLike) -> None:
        write_plot(self, path)

    def ratios_for(self, flops_target: float) -> dict[str, float]:
        """Per-group ratios meeting ``flops_target`` (fraction kept) with the smallest summed loss:
        greedily, the step of one group to its next ratio with the least loss per FLOP saved."""
        analysis = self._analysis
        if analysis is None:
            raise ValueError("ratios_for needs the report of a slim.sensitivity call in this process")
        steps = {g: 0 for g in self.groups}
        by_name = {group.name: group for group in analysis.groups}

        def flops_of(state: dict[str, int]) -> float:
            units = []
            for name, step in state.items():
                if step:
                    count = _count(self.ratios[step - 1], len(by_name[name].units), self._limits[name])
                    units += [by_name[name].units[i] for i in self._orders[name][:count]]
            return analysis.flops_fraction(plan_of(units))

        current = flops_of(steps)
        while current > flops_target:
            best: tuple[float, str, float] | None = None
            for name, step in steps.items():
                if step >= len(self.ratios):
                    continue
                trial = dict(steps)
                trial[name] = step + 1
                saved = current - (flops := flops_of(trial))
                if saved <= 0:
                    continue
                before = self.losses[name][self.ratios[step - 1]] if step else 0.0
                cost = max(self.losses[name][self.ratios[step]] - before, 0.0) / saved
                if best is None or cost < best[0]:
                    best = (cost, name, flops)
            if best is None:
                raise ValueError(f"a FLOPs target of {flops_target:.0%} is out of reach with ratios up to "
                                 f"{self.ratios[-1]} (reached {current:.1%})")
            steps[best[1]] += 1
            current = best[2]
        return {name: self.ratios[step - 1] for name, step in steps.items() if step}


@dataclasses.dataclass
class _Shared:
    """What every sensitivity job reads (sent once per worker)."""

    key: str
    graph: Graph
    shapes: dict[str, list[int]]
    feeds: list[dict[str, np.ndarray]]
    reference: list[dict[str, np.ndarray]]
    orders: dict[int, np.ndarray]  # group index -> unit indices, least important first
    limits: dict[int, int]  # group index -> most units removable (every axis keeps a channel)
    eval_fn: EvalFn | None
    baseline: float | None


_WORKER_CACHE: dict[str, DependencyGraph] = {}


def _dependencies(shared: _Shared) -> DependencyGraph:
    """The groups, rebuilt once per worker process (jobs of a sweep share them)."""
    if shared.key not in _WORKER_CACHE:
        _WORKER_CACHE.clear()
        _WORKER_CACHE[shared.key] = DependencyGraph(GraphView(shared.graph, shared.shapes))
    return _WORKER_CACHE[shared.key]


def _count(ratio: float, units: int, limit: int) -> int:
    """Units removed at ``ratio``: capped where one more would leave a tensor with no channel (a
    concat group's units cover every input's channels; one input must not lose them all)."""
    return min(int(round(ratio * units)), limit)


@contextlib.contextmanager
def _one_thread() -> Iterator[None]:
    """torch on one thread, as every point runs (where it runs must not change a loss bit: the
    reference outputs and the in-process points computed with the caller's thread count would
    differ from a worker's in the last bits); the caller's setting is restored."""
    before = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        yield
    finally:
        torch.set_num_threads(before)


def evaluate_point(shared: _Shared, job: tuple[int, float]) -> float:
    """The loss of pruning group ``job[0]`` alone at ratio ``job[1]`` (a module-level function so
    process pools and Ray can run it)."""
    with _one_thread():
        return _evaluate_point(shared, job)


def _evaluate_point(shared: _Shared, job: tuple[int, float]) -> float:
    dependencies = _dependencies(shared)
    index, ratio = job
    group = dependencies.groups[index]
    count = _count(ratio, len(group.units), shared.limits[index])
    plan = plan_of([group.units[i] for i in shared.orders[index][:count]])
    module = GraphModule(apply_plan(dependencies.view, plan)).eval()
    if shared.eval_fn is not None:
        metric = float(shared.eval_fn(module))
        if shared.baseline:
            return (shared.baseline - metric) / abs(shared.baseline)
        return -metric
    error = total = 0.0
    with torch.no_grad():
        for feeds, reference in zip(shared.feeds, shared.reference, strict=True):
            outputs = module.run(feeds)
            for name, expected in reference.items():
                error += float(np.square(outputs[name].numpy().astype(np.float64) - expected).sum())
                total += float(np.square(expected.astype(np.float64)).sum())
    return error / total if total else error


def _fingerprint(graph: Graph, feeds: list[dict[str, np.ndarray]], settings: dict[str, Any]) -> str:
    digest = hashlib.sha256(json.dumps(settings, sort_keys=True).encode())
    for node in graph.nodes:
        digest.update(f"{node.op_type}|{node.name}|{node.inputs}|{node.outputs}|{sorted(node.attrs.items())!r}".encode())
    for name in sorted(graph.tensors):
        value = graph.tensors[name].data
        if value is not None:
            digest.update(name.encode())
            digest.update(np.ascontiguousarray(value).tobytes())
    for batch in feeds:
        for name in sorted(batch):
            digest.update(np.ascontiguousarray(batch[name]).tobytes())
    return digest.hexdigest()


class _Cache:
    def __init__(self, path: str | os.PathLike | None, key: str) -> None:
        self.path = None if path is None else Path(path)
        self.key = key
        self.results: dict[str, float] = {}
        if self.path is not None and self.path.is_file():
            try:
                stored = json.loads(self.path.read_text())
            except (OSError, ValueError):
                stored = {}
            if stored.get("key") == key:
                self.results = {k: float(v) for k, v in stored.get("results", {}).items()}

    @staticmethod
    def entry(group: str, ratio: float) -> str:
        return f"{group}@{ratio:g}"

    def store(self, group: str, ratio: float, loss: float) -> None:
        self.results[self.entry(group, ratio)] = loss
        if self.path is None:
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        temporary = self.path.with_suffix(self.path.suffix + ".tmp")
        temporary.write_text(json.dumps({"key": self.key, "results": self.results}, indent=1, sort_keys=True))
        os.replace(temporary, self.path)


def _selected(analysis: Analysis, names: Sequence[str] | None) -> list:
    """The prunable groups named (all when None), in model order; ValueError for unknown names."""
    if names is None:
        return list(analysis.groups)
    known = {g.name for g in analysis.groups}
    unknown = [n for n in names if n not in known]
    if unknown:
        raise ValueError(f"unknown or unprunable group(s) {unknown}; the prunable groups are "
                         f"{[g.name for g in analysis.groups]}")
    return [g for g in analysis.groups if g.name in set(names)]


def sensitivity(model: str | os.PathLike | onnx.ModelProto | Graph | Analysis, data: object = None,
                ratios: Sequence[float] = DEFAULT_RATIOS, criterion: str = "l1",
                eval_fn: EvalFn | None = None,
                cache: str | os.PathLike | None = None, executor: str | Executor | None = None,
                batches: int = 4, input_shapes: dict[str, list[int]] | None = None,
                plot: str | os.PathLike | None = None, progress: bool = True,
                groups: Sequence[str] | None = None) -> SensitivityReport:
    """Sweeps every prunable group over ``ratios`` (see the module docstring).

    ``data``: input samples (slim.training_data), of which ``batches`` batches are evaluated;
    ``cache``: a JSON file finished points are kept in (a rerun resumes); ``executor``: "local",
    "process[:N]", "ray[:ADDRESS]" or a slim.executor object; ``plot``: also write the PNG;
    ``groups``: sweep only these groups (names as in the table; default all). A subset shares the
    cache with the full sweep: its points are the same jobs.
    """
    if not ratios or any(not 0.0 < r < 1.0 for r in ratios):
        raise ValueError(f"ratios must be fractions in (0, 1), got {list(ratios)}")
    analysis = model if isinstance(model, Analysis) else analyze(model, data, input_shapes)
    feeds = [f for f, _ in analysis.data.take(batches)]
    groups = _selected(analysis, groups)
    orders = {g.index: np.argsort(scores, kind="stable")
              for g in groups for scores in [analysis.scores(criterion)[g.index]]} if groups else {}
    with torch.no_grad(), _one_thread():
        module = GraphModule(analysis.graph).eval()
        reference = [{k: v.numpy() for k, v in module.run(f).items()} for f in feeds]
        baseline = float(eval_fn(module)) if eval_fn is not None else None
    settings = {"ratios": list(ratios), "criterion": criterion, "eval_fn": eval_fn is not None}
    key = _fingerprint(analysis.graph, feeds, settings)
    store = _Cache(cache, key)
    metric = "eval_fn: (baseline - metric) / baseline" if eval_fn is not None else \
        "relative squared output distance to the original"
    jobs = [(g.index, float(r)) for g in groups for r in ratios
            if _Cache.entry(g.name, r) not in store.results]
    limits = {g.index: feasible(g, orders[g.index], len(g.units) - 1, analysis.sizes) for g in groups}
    shared = _Shared(key, analysis.graph, analysis.view.shapes, feeds, reference, orders, limits, eval_fn,
                     baseline)
    bar = ProgressBar(len(jobs), "sensitivity", enabled=progress)
    names = {g.index: g.name for g in groups}

    def finished(index: int, loss: float) -> None:
        group, ratio = jobs[index]
        store.store(names[group], ratio, loss)
        bar.step()

    make_executor(executor).map(evaluate_point, jobs, shared, finished)
    bar.close()
    losses: dict[str, dict[float, float]] = {}
    flops: dict[str, dict[float, float]] = {}
    for group in groups:
        losses[group.name] = {float(r): store.results[_Cache.entry(group.name, r)] for r in ratios}
        flops[group.name] = {}
        for r in ratios:
            count = _count(r, len(group.units), limits[group.index])
            units = [group.units[i] for i in orders[group.index][:count]]
            flops[group.name][float(r)] = analysis.flops_fraction(plan_of(units))
    report = SensitivityReport([float(r) for r in ratios], [g.name for g in groups], losses, flops, metric,
                               computed=len(jobs), cached=len(groups) * len(ratios) - len(jobs),
                               _analysis=analysis, _orders={names[i]: o for i, o in orders.items()},
                               _limits={names[i]: limit for i, limit in limits.items()})
    if plot is not None:
        report.plot(plot)
    return report
