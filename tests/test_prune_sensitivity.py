"""Sensitivity sweep (slim.sensitivity, issue 12 Done-when 5): the loss of each point against an
onnxruntime oracle, the cache (a rerun computes nothing, an interrupted one resumes), the same
table through a process pool and a local Ray cluster, the PNG, ratios chosen for a FLOPs target.

A pattern model (residual adds and a concat: 5 prunable groups) keeps it to seconds; PP-OCRv4 det's
sweep is the CLI run in docs/PRUNING.md.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import onnxruntime
import pytest

torch = pytest.importorskip("torch")

import slim  # noqa: E402
from slim.executor import RayExecutor  # noqa: E402
from tests.prune_cases import PATTERN_INPUT, pattern_onnx  # noqa: E402

RATIOS = (0.25, 0.5, 0.75)
MODEL = "upsample_concat"


def _data() -> np.ndarray:
    return np.random.default_rng(5).standard_normal(PATTERN_INPUT).astype(np.float32)


def _ort(model: object, x: np.ndarray) -> np.ndarray:
    session = onnxruntime.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    return session.run(None, {"x": x})[0].astype(np.float64)


def _sweep(cache: Path | None, executor: object = None) -> object:
    return slim.sensitivity(pattern_onnx(MODEL), _data(), ratios=RATIOS, cache=cache, executor=executor,
                            batches=1, progress=False)


def test_losses_match_onnxruntime_on_the_pruned_model(tmp_path: Path):
    report = _sweep(tmp_path / "sens.json")
    assert len(report.groups) >= 2 and report.computed == len(report.groups) * len(RATIOS)
    original = _ort(pattern_onnx(MODEL), _data())
    for group in report.groups:
        losses = [report.losses[group][r] for r in RATIOS]
        assert losses[0] > 0 and losses == sorted(losses), f"{group}: {losses}"
        config = slim.PruneConfig(ratios={group: 0.5}, round_to=1, max_ratio=0.9, criterion="l1",
                                  finetune=None)
        pruned = _ort(slim.prune(pattern_onnx(MODEL), _data(), config).onnx_model(), _data())
        expected = float(np.square(pruned - original).sum() / np.square(original).sum())
        assert report.losses[group][0.5] == pytest.approx(expected, rel=1e-3), group


def test_rerun_uses_the_cache_and_an_interrupted_sweep_resumes(tmp_path: Path):
    cache = tmp_path / "sens.json"
    first = _sweep(cache)
    second = _sweep(cache)
    assert (second.computed, second.cached) == (0, first.computed)
    assert second.table() == first.table()
    stored = json.loads(cache.read_text())
    dropped = sorted(stored["results"])[:4]
    for entry in dropped:
        del stored["results"][entry]
    cache.write_text(json.dumps(stored))
    resumed = _sweep(cache)
    assert (resumed.computed, resumed.cached) == (4, first.computed - 4)
    assert resumed.table() == first.table()


def test_process_pool_and_local_ray_cluster_give_the_same_table(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("RAY_USAGE_STATS_ENABLED", "0")
    local = _sweep(None)
    assert _sweep(None, "process:2").table() == local.table()
    with RayExecutor(num_cpus=2, include_dashboard=False, _node_ip_address="127.0.0.1",
                     log_to_driver=False) as ray_executor:
        assert _sweep(None, ray_executor).table() == local.table()


def test_plot_and_ratios_for_a_flops_target(tmp_path: Path):
    from PIL import Image

    report = _sweep(None)
    report.plot(tmp_path / "sens.png")
    with Image.open(tmp_path / "sens.png") as image:
        assert image.format == "PNG" and image.size == (1000, 600)
    ratios = report.ratios_for(0.7)
    config = slim.PruneConfig(ratios=ratios, round_to=1, max_ratio=0.9, criterion="l1", finetune=None)
    assert slim.prune(pattern_onnx(MODEL), _data(), config).report.flops_kept <= 0.7
    with pytest.raises(ValueError, match="out of reach"):
        report.ratios_for(0.01)


def test_a_subset_of_groups_gives_the_full_sweeps_rows_and_shares_its_cache(tmp_path: Path):
    cache = tmp_path / "sens.json"
    full = _sweep(cache)
    chosen = full.groups[1:3]
    subset = slim.sensitivity(pattern_onnx(MODEL), _data(), ratios=RATIOS, cache=cache, batches=1,
                              progress=False, groups=chosen)
    assert subset.groups == chosen and (subset.computed, subset.cached) == (0, len(chosen) * len(RATIOS))
    fresh = slim.sensitivity(pattern_onnx(MODEL), _data(), ratios=RATIOS, batches=1, progress=False,
                             groups=chosen)
    assert fresh.computed == len(chosen) * len(RATIOS)
    assert all(fresh.losses[g] == full.losses[g] for g in chosen)
    with pytest.raises(ValueError, match="unknown or unprunable group"):
        slim.sensitivity(pattern_onnx(MODEL), _data(), ratios=RATIOS, batches=1, progress=False,
                         groups=["no_such_group"])
