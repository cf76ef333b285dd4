"""The text `lite bench` prints: the summary of our runtime, the per-op table, the peer comparison."""

from __future__ import annotations

from lite_converter.app.bench import OURS, BenchResult, OpTime, RunnerResult
from lite_converter.app.cli_common import affinity_text
from lite_converter.app.inspect_format import human_bytes


def _ms(seconds: float | None) -> str:
    return "-" if seconds is None else f"{seconds * 1e3:.3f} ms"


def summary_text(result: BenchResult) -> str:
    stats = result.ours.stats
    assert stats is not None
    shapes = ", ".join(f"{name}={list(shape)}" for name, shape in result.input_shapes.items())
    lines = [
        f"model: {result.model} ({shapes}), threads {result.threads}, runtime {result.ours.version}",
        *([f"  cpu affinity {result.cpu_affinity}: {affinity_text(result.cpus)}"]
          if result.cpu_affinity != "none" else []),
        *([f"  backend {result.backend}: {result.backend_info}",
           f"  ops on the CPU: {', '.join(result.on_cpu) if result.on_cpu else 'none'}"]
          if result.backend != "cpu" else []),
        f"  init (load + prepare): {_ms(result.init_seconds)}",
        f"  first run:             {_ms(result.ours.first_run)}",
        f"  latency over {stats.runs} runs:  min {_ms(stats.min)}  median {_ms(stats.median)}  "
        f"p90 {_ms(stats.p90)}",
        f"  memory: arena {human_bytes(result.arena_bytes)} ({result.arena_bytes} bytes), "
        f"process peak RSS {human_bytes(result.peak_rss_bytes)}",
        f"  FLOPs: {result.flops.total / 1e9:.4f} G ({result.flops.total} per inference), "
        f"achieved {result.gflops_per_second:.2f} GFLOP/s (median)",
    ]
    if result.flops.unknown:
        lines.append(f"  ({len(result.flops.unknown)} op(s) without concrete shapes counted as 0 FLOPs)")
    return "\n".join(lines)


def profile_text(result: BenchResult) -> str:
    rows = result.profile or []
    total = sum(row.seconds for row in rows)
    names = {row.index: _node_label(row) for row in rows}
    width = max([len(name) for name in names.values()] + [4])
    fused = sum(len(row.includes) for row in rows)
    lines = [f"per-op profile ({len(rows)} ops run per invoke, time per call, slowest first"
             + (f"; 'A + B': A's eval also computes B ({fused} ops)" if fused else "") + "):",
             f"  {'op':<22} {'node':<{width}} {'time':>12} {'share':>7} {'GFLOP/s':>8}"]
    for row in rows:
        share = 100.0 * row.seconds / total if total > 0 else 0.0
        rate = f"{row.flops / row.seconds / 1e9:.2f}" if row.flops and row.seconds > 0 else "-"
        lines.append(f"  {row.op:<22} {names[row.index]:<{width}} {_ms(row.seconds):>12} {share:6.2f}% "
                     f"{rate:>8}")
    lines.append(f"  {'total':<22} {'':<{width}} {_ms(total):>12} {100.0 if total else 0.0:6.2f}%")
    return "\n".join(lines)


def _node_label(row: OpTime) -> str:
    """The node's name, followed by those of the ops its eval also computes (a fused pair)."""
    return " + ".join([row.node, *row.includes])


def comparison_text(result: BenchResult) -> str:
    ours = result.ours.stats
    assert ours is not None
    lines = [f"comparison (interleaved, {ours.runs} runs each, {result.threads} thread(s); "
             "ratio = their median / ours, > 1 means we are faster):",
             f"  {'runtime':<14} {'median':>12} {'p90':>12} {'ratio':>7} {'max|diff| vs ours':>18}  notes"]
    lines.append(f"  {OURS:<14} {_ms(ours.median):>12} {_ms(ours.p90):>12} {1.0:7.2f} {'-':>18}  "
                 f"{result.ours.version}")
    for peer in result.peers:
        lines.append("  " + _peer_row(peer, ours.median))
    return "\n".join(lines)


def _peer_row(peer: RunnerResult, our_median: float) -> str:
    if peer.stats is None:
        return f"{peer.name:<14} {'-':>12} {'-':>12} {'-':>7} {'-':>18}  not run: {peer.unavailable}"
    diff = "-" if peer.max_abs_diff is None else f"{peer.max_abs_diff:.3g}"
    ratio = peer.stats.median / our_median
    return (f"{peer.name:<14} {_ms(peer.stats.median):>12} {_ms(peer.stats.p90):>12} {ratio:7.2f} "
            f"{diff:>18}  {peer.version}")


def kernel_profile_text(result: BenchResult, runs: int) -> str:
    """The GPU backend's cold-start costs and its per-kernel device times (OpenCL events)."""
    report = result.backend_profile or {}
    kernels = report.get("kernels", [])
    total = sum(k["seconds"] for k in kernels)
    width = max([len(k["kernel"]) for k in kernels] + [6])
    per_run = max(runs, 1)
    lines = [f"{result.backend} backend: program {report.get('program', '?')} in "
             f"{report.get('program_ms', 0.0):.1f} ms, local-size tuning {report.get('tune', '?')} "
             f"({report.get('tune_ms', 0.0):.1f} ms)",
             "per-kernel device time (OpenCL event timestamps, per run over "
             f"{runs} profiled runs, slowest first):",
             f"  {'kernel':<{width}} {'calls':>6} {'time':>12} {'share':>7}"]
    for k in kernels:
        share = 100.0 * k["seconds"] / total if total > 0 else 0.0
        lines.append(f"  {k['kernel']:<{width}} {k['calls'] // per_run:>6} {_ms(k['seconds'] / per_run):>12} "
                     f"{share:6.2f}%")
    lines.append(f"  {'total':<{width}} {'':>6} {_ms(total / per_run):>12}")
    lines.append(f"  ops on the CPU: {', '.join(result.on_cpu) if result.on_cpu else 'none'}")
    return "\n".join(lines)


def report_text(result: BenchResult) -> str:
    parts = [summary_text(result)]
    if result.profile is not None:
        parts.append(profile_text(result))
    if result.backend_profile:
        parts.append(kernel_profile_text(result, result.ours.stats.runs if result.ours.stats else 1))
    if result.peers:
        parts.append(comparison_text(result))
    return "\n\n".join(parts)
