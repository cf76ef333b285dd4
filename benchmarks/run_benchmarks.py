"""Regenerates benchmarks/RESULTS.md (what `make bench` runs): our runtime against every installed peer.

Models: MobileNetV2-1.0 and ResNet-18 at 224 (the torch architectures of tests/models, seeded weights,
exported to ONNX) and PaddleOCR's PP-OCRv4 det at 640x640 and rec at 48x320 (lite_converter.app.zoo), each at
1 and 2 threads. Every (model, threads) row is one `lite bench --compare` measurement: all runtimes in
this process, interleaved per iteration, so the machine's load drifts hit them alike. The table also
gives the stripped runtime library per target and the instructions per inference under qemu for
aarch64 and armv7 (lite_converter.app.bench_qemu).
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime
import os
import platform
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from lite_converter.app import bench_qemu  # noqa: E402
from lite_converter.app.bench import BenchConfig, BenchResult, benchmark  # noqa: E402
from lite_converter.app.peers import PEERS  # noqa: E402
from lite_converter.atomic_write import write_atomically  # noqa: E402

COMMAND = "make bench  (= .venv/bin/python benchmarks/run_benchmarks.py)"


@dataclasses.dataclass(frozen=True)
class Workload:
    label: str
    input_shape: tuple[int, ...]
    fetch: Callable[[Path], Path]  # writes/finds the ONNX file, returns its path


def _torch_model(name: str) -> Callable[[Path], Path]:
    def fetch(directory: Path) -> Path:
        from tests.models import ARCHITECTURES, export_onnx

        return export_onnx(ARCHITECTURES[name], directory / name)

    return fetch


def _zoo_model(key: str) -> Callable[[Path], Path]:
    def fetch(directory: Path) -> Path:
        from lite_converter.app import zoo

        source = zoo.fetch(key)
        target = directory / key / source.name  # a folder of its own: peers write converted files beside
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(source, target)
        return target

    return fetch


WORKLOADS = [
    Workload("MobileNetV2-1.0", (1, 3, 224, 224), _torch_model("mobilenet_v2")),
    Workload("ResNet-18", (1, 3, 224, 224), _torch_model("resnet18")),
    Workload("PP-OCRv4 det", (1, 3, 640, 640), _zoo_model("det")),
    Workload("PP-OCRv4 rec", (1, 3, 48, 320), _zoo_model("rec")),
]


def _input_name(onnx_path: Path) -> str:
    import onnx

    graph = onnx.load(str(onnx_path), load_external_data=False).graph
    initializers = {t.name for t in graph.initializer}
    return next(i.name for i in graph.input if i.name not in initializers)


def _commit() -> str:
    done = subprocess.run(["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"], capture_output=True,
                          text=True, check=False)
    return done.stdout.strip() or "unknown"


# -- the machine ----------------------------------------------------------------------------------
def cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


def stripped_size(library: Path, strip: str) -> str:
    """Bytes of the library after `strip`, or why it cannot be told."""
    if not library.is_file():
        return f"not built ({library.relative_to(REPO) if library.is_relative_to(REPO) else library})"
    if shutil.which(strip) is None:
        return f"{strip} not installed"
    with tempfile.TemporaryDirectory() as directory:
        copy = Path(directory) / library.name
        shutil.copy(library, copy)
        done = subprocess.run([strip, "--strip-unneeded", str(copy)], capture_output=True, text=True,
                              check=False)
        if done.returncode != 0:
            return f"strip failed: {done.stderr.strip()}"
        return f"{copy.stat().st_size / 1024:.0f} KiB ({copy.stat().st_size} bytes)"


def library_sizes() -> list[tuple[str, str]]:
    from runtime_arm._library import library_path

    return [
        (f"x86-64 (host, {library_path()})", stripped_size(library_path(), "strip")),
        ("aarch64 (build/aarch64, `make cross`)",
         stripped_size(REPO / "build/aarch64/runtime_arm/liblite_runtime.so", "aarch64-linux-gnu-strip")),
        ("armv7 (build/armv7, `make cross`)",
         stripped_size(REPO / "build/armv7/runtime_arm/liblite_runtime.so", "arm-linux-gnueabihf-strip")),
    ]


# -- the report -----------------------------------------------------------------------------------
def _cell(result: BenchResult, peer: str) -> str:
    row = next(r for r in result.peers if r.name == peer)
    if row.stats is None:
        return "not run¹"
    ours = result.ours.stats
    assert ours is not None
    return f"{row.stats.median * 1e3:.1f} ({row.stats.median / ours.median:.2f})"


def results_markdown(rows: list[tuple[Workload, BenchResult]], notes: list[str], runs: int, warmup: int,
                     elapsed: float, instructions: list[str]) -> str:
    peers = list(PEERS)
    first = rows[0][1]
    versions = {OURS_LABEL: first.ours.version}
    for _, result in rows:
        for peer in result.peers:
            if peer.version:
                versions[peer.name] = peer.version
    lines = [
        "# Benchmarks",
        "",
        f"Generated by `{COMMAND}` on {datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC "
        f"in {elapsed / 60:.1f} min, repository at commit {_commit()}.",
        "",
        f"- Machine: {cpu_model()}, {os.cpu_count()} cores (shared with other jobs: absolute times are "
        "noisy; "
        f"the ratios come from one interleaved run per row), Linux {platform.release()}, Python "
        f"{platform.python_version()}.",
        f"- Runtimes: {', '.join(f'{name} {version}' for name, version in versions.items())}.",
        f"- Method: per row, every runtime loads the same model and the same random input; {warmup} warm-up "
        f"runs, then {runs} timed runs, each iteration running every runtime once in a new random order "
        "(seeded), so that what one run leaves behind (evicted caches, workers still spinning) falls on "
        "every runtime alike. A run copies the inputs in, infers and copies the outputs out. Times are "
        "medians in ms; "
        "the ratio in parentheses is that runtime's median over ours (> 1: we are faster). GFLOP/s is "
        "our achieved rate (FLOPs from lite_converter/flops.py: 2 x MACs of conv/FC/matmul plus "
        "elementwise work). Peers run on the source ONNX (onnxruntime), its MNN conversion (MNN's "
        "converter module), its ncnn conversion (pnnx) and, for LiteRT, a .tflite written from our "
        "converted .lite graph by lite_converter/app/peers/tflite_export.py (the same folded and fused "
        "graph we run; no ONNX -> TFLite converter installs here without TensorFlow).",
        "- These are the numbers of the commit named above, nothing tuned for the table: rerun `make bench` "
        "after kernel work lands. On a machine whose 2 cores are busy with other jobs, 2-thread rows "
        "mostly measure contention (runtimes whose workers spin while waiting suffer most). onnxruntime "
        "runs with its session option session.force_spinning_stop=1: its workers still spin during a run "
        "(its default) but stop when the run returns. Without it they keep spinning for at least 300 ms "
        "after each run, so at 2 threads every runtime interleaved with it ran on busy cores (MobileNetV2, "
        "2026-11-21: ours 9.8 ms beside a spinning session, 5.4 ms beside one with the option; onnxruntime "
        "alone at 2 threads, 6 alternated pairs of processes of 290 runs: median of medians 4.17 ms without "
        "the option, 4.07 ms with it). Likewise the GNU OpenMP runtime inside the ncnn and MNN wheels "
        "runs with GOMP_SPINCOUNT=10000 (lite_converter/app/peers/base.py): by default its idle workers spin "
        "300,000 rounds after every parallel region, past the end of a run (2026-11-26, ResNet-18, 2 "
        "threads: ours 13.0 ms right after an ncnn run, 11.6 ms with the setting, 11.0 ms after our own "
        "run; ncnn itself 18.6 ms by default, 18.4 ms with it).",
        "",
        "| model | input | threads | GFLOPs | lite ms | lite GFLOP/s | "
        + " | ".join(f"{p} ms (ratio)" for p in peers) + " | max abs diff vs ours |",
        "|" + " --- |" * (7 + len(peers)),
    ]
    for workload, result in rows:
        stats = result.ours.stats
        assert stats is not None
        diffs = ", ".join(f"{p.name} {p.max_abs_diff:.2g}" for p in result.peers
                          if p.max_abs_diff is not None)
        lines.append(
            f"| {workload.label} | {'x'.join(str(d) for d in workload.input_shape)} | {result.threads} | "
            f"{result.flops.total / 1e9:.3f} | {stats.median * 1e3:.1f} | {result.gflops_per_second:.2f} | "
            + " | ".join(_cell(result, p) for p in peers) + f" | {diffs or '-'} |")
    lines += ["", "¹ Not run:"]
    lines += [f"- {note}" for note in notes] or ["- (every peer ran every model)"]
    lines += ["", "## Runtime library size (stripped)", "",
              "| target | liblite_runtime.so |", "| --- | --- |"]
    lines += [f"| {target} | {size} |" for target, size in library_sizes()]
    lines += ["", "## Instructions per inference under qemu (aarch64, armv7)", ""]
    lines += instructions
    return "\n".join(lines) + "\n"


OURS_LABEL = "lite"

# (target, qemu -cpu; None: the target's default): every NEON level, plus the cores most edge users own
# (Cortex-A76: Raspberry Pi 5, dot product without i8mm; Cortex-A53 / A72: Raspberry Pi 3 / 4, no dot
# product).
QEMU_CPUS = (("aarch64", None), ("aarch64", "cortex-a76"), ("aarch64", "cortex-a72"),
             ("aarch64", "cortex-a53"), ("armv7", None))
# Also counted with the packed-weight bound a memory-tight board would set (packed_weight_ratio 1.5; the
# default is no bound): what it saves in memory and costs in instructions.
BOUNDED_RATIO = 1.5
BOUNDED_CPUS = (("aarch64", "cortex-a72"), ("armv7", None))


def _memory_cell(count: dict) -> str:
    """Memory committed (arena + scratch + packed weights) and its multiple of the weights."""
    memory, weights = count.get("memory_bytes"), count.get("weights_bytes")
    return f"{memory / 1e6:.1f} MB ({memory / weights:.2f}x)" if memory and weights else "-"


def _instruction_counts(models: list[tuple[Workload, Path, int]]) -> list[str]:
    """Instructions per inference of each (static-shape) .lite under qemu, one counted run each
    (the count is deterministic), single-threaded, with the memory the runtime committed."""
    lines = ["Counted by `lite_converter.app.bench_qemu` (the cross-built `lite_bench` under qemu-user "
             "with an instruction-counting plugin; loading and the first run excluded; 1 thread). A device-"
             "independent cost figure, not a latency. Memory: what the interpreter committed (arena + "
             "scratch + packed weights, `lite_interpreter_memory_bytes`) and its multiple of the model's "
             "weight bytes, with the default packed_weight_ratio (no bound) and, where marked, 1.5 "
             "(`lite bench MODEL --target aarch64 --cpu cortex-a72 --packed-weight-ratio 1.5`).", "",
             "| model | target (qemu -cpu) | instructions per inference | FLOPs per instruction | memory |",
             "| --- | --- | --- | --- | --- |"]
    for workload, lite_path, flops in models:
        runs = [(target, cpu, None) for target, cpu in QEMU_CPUS]
        runs += [(target, cpu, BOUNDED_RATIO) for target, cpu in BOUNDED_CPUS]
        for target, cpu, ratio in runs:
            label = workload.label + (f", packed_weight_ratio {ratio}" if ratio is not None else "")
            try:
                count = bench_qemu.count_instructions(lite_path, target=target, runs=1, cpu=cpu,
                                                      packed_weight_ratio=ratio)
            except Exception as error:  # noqa: BLE001 - report the failure in the table
                lines.append(f"| {label} | {target} | failed: {type(error).__name__}: "
                             f"{str(error)[-200:]} | - | - |")
                continue
            per_inference = count["instructions_per_inference"]
            lines.append(f"| {label} | {target} ({count['cpu']}) | {per_inference / 1e6:.1f} M | "
                         f"{flops / per_inference:.2f} | {_memory_cell(count)} |")
    return lines


def _int8_section(fp32_models: list[tuple[Workload, Path, int]], sources: dict[str, Path],
                  args: argparse.Namespace, workdir: Path) -> list[str]:
    """int8 rows (1 thread), int8 sizes and int8 instruction counts of every workload."""
    from benchmarks.int8_benchmarks import bench_int8, int8_markdown, onnx_bytes

    rows, sizes, int8_models = [], [], []
    for workload, fp32_lite, flops in fp32_models:
        onnx_path = sources[workload.label]
        workload_rows, int8_lite = bench_int8(workload.label, onnx_path, fp32_lite, _input_name(onnx_path),
                                              workload.input_shape, [1], args.runs, args.warmup, workdir)
        rows += workload_rows
        sizes.append((workload.label, onnx_bytes(onnx_path), int8_lite.stat().st_size))
        renamed = dataclasses.replace(workload, label=f"{workload.label} int8")
        int8_models.append((renamed, int8_lite, flops))
    counts = ["Skipped (--no-qemu)."] if args.no_qemu else _instruction_counts(int8_models)
    return int8_markdown(rows, sizes, counts)


# Sections measured by hand (per-layer analyses, issue figures) live below this line of RESULTS.md;
# a rerun rewrites only what is above it.
KEEP_MARKER = "<!-- make bench rewrites everything above this line and keeps everything below it -->"


def kept_sections(output: Path) -> str:
    """The marker and the hand-measured sections after it in the current report ("" if none): a
    rerun must not delete analyses that `make bench` cannot regenerate."""
    try:
        previous = output.read_text()
    except FileNotFoundError:
        return ""
    position = previous.find(KEEP_MARKER)
    return "" if position < 0 else "\n" + previous[position:]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--warmup", type=int, default=3)
    parser.add_argument("--threads", default="1,2", help="comma-separated thread counts (default 1,2)")
    parser.add_argument("--models", help="comma-separated subset of: "
                        + ", ".join(w.label for w in WORKLOADS))
    parser.add_argument("--output", type=Path, default=REPO / "benchmarks" / "RESULTS.md")
    parser.add_argument("--workdir", type=Path, help="keep exported and converted models here")
    parser.add_argument("--no-qemu", action="store_true", help="skip the instruction counts under qemu")
    parser.add_argument("--no-int8", action="store_true", help="skip the int8 section")
    args = parser.parse_args(argv)
    selected = [w for w in WORKLOADS if not args.models or w.label in args.models.split(",")]
    threads = [int(t) for t in args.threads.split(",")]

    start = datetime.datetime.now().timestamp()
    rows: list[tuple[Workload, BenchResult]] = []
    notes: dict[tuple[str, str], list[str]] = {}  # (peer, reason) -> the rows it applies to
    lite_models: list[tuple[Workload, Path, int]] = []
    sources: dict[str, Path] = {}  # label -> the fp32 ONNX
    with tempfile.TemporaryDirectory(prefix="lite-benchmarks-") as temporary:
        workdir = args.workdir or Path(temporary)
        for workload in selected:
            onnx_path = workload.fetch(workdir)
            shapes = {_input_name(onnx_path): list(workload.input_shape)}
            for count in threads:
                print(f"{workload.label} {workload.input_shape} threads {count} ...", flush=True)
                result = benchmark(BenchConfig(onnx_path, shapes, count, args.warmup, args.runs,
                                               compare=tuple(PEERS), workdir=onnx_path.parent))
                rows.append((workload, result))
                for peer in result.peers:
                    if peer.unavailable:
                        where = notes.setdefault((peer.name, peer.unavailable), [])
                        label = f"{workload.label} ({count} thread{'s' if count > 1 else ''})"
                        where.append(label)
            lite_models.append((workload, result.lite_path, result.flops.total))
            sources[workload.label] = onnx_path
        instructions = ["Skipped (--no-qemu)."] if args.no_qemu else _instruction_counts(lite_models)
        int8_lines = [] if args.no_int8 else _int8_section(lite_models, sources, args, workdir)
        elapsed = datetime.datetime.now().timestamp() - start
        note_lines = [f"{peer} on {', '.join(where)}: {reason}" for (peer, reason), where in notes.items()]
        text = results_markdown(rows, note_lines, args.runs, args.warmup, elapsed, instructions)
        text += "\n".join(int8_lines) + ("\n" if int8_lines else "")
    text += kept_sections(args.output)
    write_atomically(args.output, text.encode())  # a failed run leaves the old report whole
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
