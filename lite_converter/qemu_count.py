"""Instructions per inference on ARM, counted under qemu-user: a device-independent cost figure.

Emulated time says little about a device (qemu spends very different host time on different guest
instructions), but the number of guest instructions one inference executes is deterministic and,
for one ISA, tracks the work a core does. This module runs the cross-built ``lite_bench``
(``make cross``) under ``qemu-aarch64`` / ``qemu-arm`` with the counting plugin
(``benchmarks/qemu_insn_count``, ``make qemu-plugin``), which counts only between lite_bench's
begin/end markers: loading and the first run (weight packing) are excluded.

It is a proxy, not a latency: it ignores memory stalls, instruction latencies and dual issue.
Compare counts of the same ISA and CPU model only (``-cpu cortex-a53`` lacks dotprod, so its
dispatcher picks other kernels than ``-cpu max``).

The command line is lite_converter/app/bench_qemu.py (`lite bench --target`); slim's automatic
compression counts candidates with it too.
"""

from __future__ import annotations

import dataclasses
import os
import re
import subprocess
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
PLUGIN_PATH = REPO_ROOT / "build" / "qemu-plugin" / "liblite_insn_count.so"
# `make cross` writes <root>/aarch64 and <root>/armv7; LITE_CROSS_BUILD_ROOT moves <root> (default build/).
CROSS_ROOT = Path(os.environ.get("LITE_CROSS_BUILD_ROOT") or REPO_ROOT / "build")
_RESULT = re.compile(r"lite_insn_count: instructions=(\d+) iterations=(\d+) begins=(\d+) ends=(\d+)")
_SYMBOL = re.compile(r"lite_insn_symbol: instructions=(\d+) name=(.*)")
_MEMORY = re.compile(r"^(memory_bytes|weights_bytes): (\d+)$", re.MULTILINE)


@dataclasses.dataclass(frozen=True)
class QemuTarget:
    """How to run one cross target: emulator, the target's library root, build dir, default CPU."""

    qemu: str
    sysroot: str
    build_dir: Path
    default_cpu: str

    @property
    def lite_bench(self) -> Path:
        return self.build_dir / "runtime_arm" / "tools" / "lite_bench"

    @property
    def lite_bench_static(self) -> Path:
        """lite_bench with the runtime linked in: qemu sees its functions' symbols."""
        return self.build_dir / "runtime_arm" / "tools" / "lite_bench_static"

    def command(self, cpu: str | None = None) -> list[str]:
        """The emulator prefix for a target executable (binfmt is not set up: always explicit)."""
        return [self.qemu, "-L", self.sysroot, "-cpu", cpu or self.default_cpu]


# -cpu max would also enable SVE/SME; our kernels are NEON, and peers switch to SME there.
TARGETS: dict[str, QemuTarget] = {
    "aarch64": QemuTarget("qemu-aarch64", "/usr/aarch64-linux-gnu", CROSS_ROOT / "aarch64",
                          "max,sve=off,sme=off"),
    "armv7": QemuTarget("qemu-arm", "/usr/arm-linux-gnueabihf", CROSS_ROOT / "armv7", "cortex-a7"),
}


class InstructionCountError(RuntimeError):
    """lite_bench failed under qemu, or the plugin saw no complete begin/end pair."""


def ensure_built(target: str) -> None:
    """Builds lite_bench for ``target`` and the plugin with the Makefile when either is missing."""
    spec = TARGETS[target]
    if spec.lite_bench.exists() and spec.lite_bench_static.exists() and PLUGIN_PATH.exists():
        return
    subprocess.run(["make", "-s", f"cross-{target}", "qemu-plugin"], cwd=REPO_ROOT, check=True)


def shape_arguments(shapes: Mapping[int, Sequence[int]] | None) -> list[str]:
    """lite_bench's ``--shape INDEX:D0xD1x...`` arguments for input index -> shape."""
    args: list[str] = []
    for index, dims in (shapes or {}).items():
        args += ["--shape", f"{int(index)}:" + "x".join(str(int(d)) for d in dims)]
    return args


def ratio_arguments(packed_weight_ratio: float | None) -> list[str]:
    """lite_bench's ``--packed-weight-ratio R`` (none: the runtime's default)."""
    return [] if packed_weight_ratio is None else ["--packed-weight-ratio", str(packed_weight_ratio)]


def count_instructions(
    model_path: str | os.PathLike,
    target: str = "aarch64",
    runs: int = 2,
    cpu: str | None = None,
    shapes: Mapping[int, Sequence[int]] | None = None,
    threads: int = 1,
    timeout: float = 1800.0,
    top: int = 0,
    packed_weight_ratio: float | None = None,
) -> dict:
    """Guest instructions of one inference of ``model_path`` on ``target`` ("aarch64" | "armv7").

    Runs lite_bench with ``runs`` counted inferences after its uncounted first run. Returns
    ``instructions_per_inference`` (total / iterations; with threads > 1 it sums every thread,
    spinning workers included) plus the raw ``instructions`` and ``iterations`` and the settings.
    With ``top`` > 0 it runs the statically linked lite_bench and adds ``top_functions``: the
    ``top`` functions executing the most instructions, as (symbol, instructions per inference).
    ``packed_weight_ratio`` is the runtime option (None: its default); ``memory_bytes`` (arena +
    scratch + packed weights) and ``weights_bytes`` come from lite_bench's report.
    """
    if target not in TARGETS:
        raise ValueError(f"unknown target {target!r}: expected one of {sorted(TARGETS)}")
    if runs < 1:
        raise ValueError("runs must be >= 1")
    ensure_built(target)
    spec = TARGETS[target]
    cpu = cpu or spec.default_cpu
    with tempfile.TemporaryDirectory(prefix="lite_insn_") as tmp:
        out = Path(tmp) / "count.txt"
        plugin = f"{PLUGIN_PATH},out={out}" + (f",top={top}" if top > 0 else "")
        binary = spec.lite_bench_static if top > 0 else spec.lite_bench
        command = [*spec.command(cpu), "-plugin", plugin, str(binary),
                   str(model_path), "--warmup", "0", "--runs", str(runs), "--threads", str(threads),
                   *shape_arguments(shapes),
                   *ratio_arguments(packed_weight_ratio)]
        proc = subprocess.run(command, capture_output=True, text=True, timeout=timeout)
        if proc.returncode != 0:
            raise InstructionCountError(f"lite_bench failed under {spec.qemu} (exit {proc.returncode}): "
                                        f"{proc.stderr.strip()[-2000:]}")
        report = out.read_text() if out.exists() else ""
        match = _RESULT.search(report)
    if match is None:
        raise InstructionCountError("the plugin wrote no count (is lite_bench stripped?)")
    instructions, iterations, begins, ends = (int(g) for g in match.groups())
    if begins != 1 or ends != 1 or iterations != runs:
        raise InstructionCountError(f"markers seen begin={begins} end={ends} iterations={iterations}, "
                                    f"expected 1, 1, {runs}")
    functions = [(name, int(count) / iterations) for count, name in _SYMBOL.findall(report)]
    memory = {key: int(value) for key, value in _MEMORY.findall(proc.stdout)}
    return {
        "target": target,
        "cpu": cpu,
        "threads": threads,
        "runs": runs,
        "instructions": instructions,
        "iterations": iterations,
        "instructions_per_inference": instructions / iterations,
        **memory,
        **({"top_functions": functions} if top > 0 else {}),
    }
