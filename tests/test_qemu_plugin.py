"""The qemu instruction counter (benchmarks/qemu_insn_count + lite_converter.app.bench_qemu).

What makes a count usable: it is deterministic (same binary, model and CPU: the same number), it
counts inference only (loading and the first run, which packs weights, are outside the markers: the
count grows by one inference's worth per extra run, with no fixed offset), and it follows the work
(a model with more MACs costs more instructions).
"""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from lite_converter.app.bench_qemu import REPO_ROOT, TARGETS, count_instructions, shape_arguments

SHAPE = {0: [1, 3, 24, 24]}


@pytest.fixture(scope="module")
def built() -> None:
    """lite_bench for both targets and the plugin, brought up to date (incremental)."""
    if shutil.which("qemu-aarch64") is None or shutil.which("aarch64-linux-gnu-gcc") is None:
        pytest.fail("qemu-user / the cross compilers are not installed: `make test` installs them")
    proc = subprocess.run(["make", "-s", "cross", "qemu-plugin"], cwd=REPO_ROOT, capture_output=True,
                          text=True, timeout=1800)
    assert proc.returncode == 0, f"make failed:\n{proc.stdout[-4000:]}\n{proc.stderr[-4000:]}"


@pytest.fixture(scope="module")
def small_model(tmp_path_factory: pytest.TempPathFactory, small_conv_lite: bytes) -> Path:
    path = tmp_path_factory.mktemp("insn") / "small_conv.lite"
    path.write_bytes(small_conv_lite)
    return path


def test_count_is_deterministic_and_excludes_setup(built: None, small_model: Path):
    one = count_instructions(small_model, "aarch64", runs=1, shapes=SHAPE)
    again = count_instructions(small_model, "aarch64", runs=1, shapes=SHAPE)
    three = count_instructions(small_model, "aarch64", runs=3, shapes=SHAPE)
    assert one["instructions"] == again["instructions"]
    assert (one["iterations"], three["iterations"]) == (1, 3)
    # Three inferences cost three times one, up to the few instructions of the loop and markers:
    # loading, allocation and weight packing (first run) are not counted.
    assert abs(three["instructions"] - 3 * one["instructions"]) < 200
    # A conv net of 24x24x(3*9*8 + 8*8) MACs cannot run in fewer instructions than ~MACs / 4 lanes.
    macs = 24 * 24 * (3 * 9 * 8 + 8 * 8)
    assert macs / 4 < one["instructions_per_inference"] < 200 * macs


def test_count_follows_the_work(built: None, small_model: Path):
    small = count_instructions(small_model, "aarch64", runs=1, shapes=SHAPE)
    large = count_instructions(small_model, "aarch64", runs=1, shapes={0: [1, 3, 48, 48]})
    assert 3.0 < large["instructions"] / small["instructions"] < 5.0  # 4x the pixels


def test_count_on_armv7(built: None, small_model: Path):
    result = count_instructions(small_model, "armv7", runs=2, shapes=SHAPE)
    assert result["cpu"] == "cortex-a7" and result["iterations"] == 2
    assert result["instructions_per_inference"] > 24 * 24 * (3 * 9 * 8 + 8 * 8) / 4


def test_shape_arguments():
    assert shape_arguments({0: [1, 3, 48, 192], 2: [5]}) == ["--shape", "0:1x3x48x192", "--shape", "2:5"]


def test_unknown_target_is_refused(small_model: Path):
    with pytest.raises(ValueError, match="unknown target"):
        count_instructions(small_model, "riscv64")


def test_lite_bench_reports(built: None, small_model: Path):
    """lite_bench's JSON report on aarch64 with two threads: every field, ordered latency statistics."""
    spec = TARGETS["aarch64"]
    proc = subprocess.run([*spec.command(), str(spec.lite_bench), str(small_model), "--json",
                           "--threads", "2", "--warmup", "1", "--runs", "5", *shape_arguments(SHAPE)],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr
    report = json.loads(proc.stdout)
    assert (report["threads"], report["warmup"], report["runs"]) == (2, 1, 5)
    assert 0 < report["min_ms"] <= report["median_ms"] <= report["p90_ms"]
    assert report["init_ms"] > 0 and report["first_run_ms"] > 0
    assert report["arena_bytes"] >= 24 * 24 * 8 * 4  # at least one 24x24x8 fp32 activation
    assert report["peak_rss_kb"] > 0
    bad = subprocess.run([*spec.command(), str(spec.lite_bench), str(small_model), "--runs", "0"],
                         capture_output=True, text=True, timeout=300)
    assert bad.returncode == 2 and "usage" in bad.stderr


def test_top_functions(built: None, small_model: Path):
    """top=N attributes the count to functions of the statically linked lite_bench: the GEMM
    microkernel that runs this model's convolutions is among the top three (beside im2col)."""
    shared = count_instructions(small_model, "aarch64", runs=1, shapes=SHAPE)
    result = count_instructions(small_model, "aarch64", runs=1, shapes=SHAPE, top=3)
    functions = result["top_functions"]
    assert 1 <= len(functions) <= 3
    counts = [count for _, count in functions]
    assert counts == sorted(counts, reverse=True) and sum(counts) <= result["instructions_per_inference"]
    assert any(name.startswith("lite_f32_gemm") for name, _ in functions), functions
    # Same code, linked differently (no PLT calls): the totals agree closely.
    assert abs(result["instructions"] - shared["instructions"]) < 0.01 * shared["instructions"]
