"""The sensitivity sweep of PP-OCRv4 det through Ray equals the in-process one (issue 12, Done-when 5).

One analysis of det (ONNX, two rendered 160x160 pages, the docs/PRUNING.md CLI run's data), then
the same sweep twice: in this process, and as Ray tasks on a local cluster (``num_cpus=2``,
127.0.0.1 only, shut down afterwards). Prints both tables, whether they are equal (the printed
tables and every loss bit for bit) and each run's wall time. The full sweep is 33 groups x 9
ratios (25 min per executor on a loaded 2-core host); ``--groups`` / ``--ratios`` take a slice.

    nice -n 10 .venv/bin/python -m benchmarks.prune_sensitivity_ray --groups 8 --ratios 0.2,0.5,0.8
"""

from __future__ import annotations

import argparse
import os
import sys
import time

import slim
from lite_converter.app import zoo
from lite_converter.app.demo import ocr_input
from slim.executor import RayExecutor
from slim.pruning.analysis import analyze
from slim.sensitivity_sweep import SensitivityReport

PAGE_SHAPE = (1, 3, 160, 160)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--groups", type=int, default=0, help="the first N prunable groups (0: all)")
    parser.add_argument("--ratios", default="0.1,0.2,0.3,0.4,0.5,0.6,0.7,0.8,0.9")
    args = parser.parse_args()
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    ratios = [float(r) for r in args.ratios.split(",")]
    pages = [ocr_input("det", PAGE_SHAPE, seed)[0] for seed in range(2)]
    start = time.perf_counter()
    analysis = analyze(str(zoo.fetch("det")), pages, None, 1)
    names = [g.name for g in analysis.groups]
    groups = names[:args.groups] if args.groups else names
    print(f"det: {len(names)} prunable groups, analysed in {time.perf_counter() - start:.0f} s; sweeping "
          f"{len(groups)} groups x {len(ratios)} ratios = {len(groups) * len(ratios)} points", flush=True)

    def sweep(executor: object) -> tuple[SensitivityReport, float]:
        began = time.perf_counter()
        report = slim.sensitivity(analysis, ratios=ratios, executor=executor, batches=2, groups=groups)
        return report, time.perf_counter() - began

    local, local_s = sweep("local")
    with RayExecutor(num_cpus=2, include_dashboard=False, _node_ip_address="127.0.0.1",
                     log_to_driver=False) as ray_executor:
        remote, remote_s = sweep(ray_executor)
    print(local.table())
    differences = [abs(local.losses[g][r] - remote.losses[g][r]) for g in groups for r in ratios]
    same_table = local.table() == remote.table()
    print(f"in-process {local_s:.0f} s, Ray (local cluster, 2 CPUs) {remote_s:.0f} s; tables equal: "
          f"{same_table}; largest loss difference {max(differences):.3g}; "
          f"bit-identical: {all(d == 0.0 for d in differences)}")
    return 0 if same_table else 1


if __name__ == "__main__":
    sys.exit(main())
