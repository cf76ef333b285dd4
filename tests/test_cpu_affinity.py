"""``cpu_affinity="fast"``: the interpreter's threads on the fastest CPUs (C API, Python, CLI).

This host's CPUs are alike, so "fast" must choose nothing here. A fake sysfs tree (the runtime reads
``$LITE_SYSFS_CPU_ROOT`` instead of /sys/devices/system/cpu) that makes this host's highest-numbered
CPU the big core shows the pinning itself: the chosen CPUs, the calling thread's own mask back after
every invoke, and outputs byte-equal to unpinned runs. The C++ core tests check the ranking and
that workers and the caller really run on the chosen CPUs (runtime_arm/tests/core_*affinity*,
core_thread_pinning_tests.cc).
"""

from __future__ import annotations

import ctypes
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest

from lite_converter.app.cli import main
from runtime_arm import Interpreter, LiteError, Status
from runtime_arm._library import MEMORY_COPY, ErrorStruct, OptionsStruct, load_library

REPO = Path(__file__).resolve().parents[1]
SYSFS = Path("/sys/devices/system/cpu")
ALLOWED = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else []

needs_linux = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="CPU affinity is Linux-only")
needs_two_cpus = pytest.mark.skipif(len(ALLOWED) < 2, reason="needs two allowed CPUs to tell pinned from not")


def sysfs_ranks(root: Path, cpus: list[int]) -> dict[int, int] | None:
    """Each CPU's cpu_capacity, else cpufreq max frequency, when every CPU has one; else None."""
    for name in ("cpu_capacity", "cpufreq/cpuinfo_max_freq"):
        try:
            ranks = {cpu: int((root / f"cpu{cpu}" / name).read_text()) for cpu in cpus}
        except (OSError, ValueError):
            continue
        if all(value > 0 for value in ranks.values()):
            return ranks
    return None


def expected_choice(ranks: dict[int, int] | None, threads: int) -> tuple[int, ...]:
    """The documented rule: the `threads` highest ranks, ties by CPU number, none when it cannot help."""
    if ranks is None or len(set(ranks.values())) == 1 or threads >= len(ranks):
        return ()
    return tuple(sorted(sorted(ranks, key=lambda cpu: (-ranks[cpu], cpu))[:threads]))


@pytest.fixture
def big_core_sysfs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[int]:
    """A sysfs tree where this host's last allowed CPU is a big core (1024) and the others little
    (512), read by interpreters created while the fixture is active. Yields the big CPU."""
    big = ALLOWED[-1]
    for cpu in ALLOWED:
        (tmp_path / f"cpu{cpu}").mkdir()
        (tmp_path / f"cpu{cpu}" / "cpu_capacity").write_text("1024\n" if cpu == big else "512\n")
    monkeypatch.setenv("LITE_SYSFS_CPU_ROOT", str(tmp_path))
    yield big


@pytest.fixture
def restore_affinity() -> Iterator[None]:
    """This (pytest's) thread's CPU mask, put back whatever a test did to it."""
    before = os.sched_getaffinity(0)
    yield
    os.sched_setaffinity(0, before)


def conv_input(height: int = 17, width: int = 23) -> np.ndarray:
    return np.random.default_rng(3).standard_normal((1, 3, height, width)).astype(np.float32)


def output_bytes(outputs: dict[str, np.ndarray]) -> dict[str, bytes]:
    return {name: array.tobytes() for name, array in outputs.items()}


@needs_linux
@pytest.mark.parametrize("threads", [1, 2])
def test_fast_on_this_host_chooses_what_sysfs_says_and_changes_no_value(small_conv_lite: bytes, threads: int):
    expected = expected_choice(sysfs_ranks(SYSFS, ALLOWED), threads)
    x = conv_input()
    with Interpreter(model_content=small_conv_lite, threads=threads) as plain, \
            Interpreter(model_content=small_conv_lite, threads=threads, cpu_affinity="fast") as fast:
        assert plain.cpu_affinity_cpus == ()
        assert fast.cpu_affinity_cpus == expected
        want = output_bytes(plain.run(x))
        for _ in range(3):
            assert output_bytes(fast.run(x)) == want


@needs_linux
@needs_two_cpus
@pytest.mark.parametrize("threads", [1, 2])
def test_big_core_is_chosen_and_the_callers_own_mask_comes_back(
        small_conv_lite: bytes, big_core_sysfs: int, restore_affinity: None, threads: int):
    ranks = {cpu: 1024 if cpu == big_core_sysfs else 512 for cpu in ALLOWED}
    expected = expected_choice(ranks, threads)
    if threads == 1:
        assert expected == (big_core_sysfs,)
    x = conv_input()
    with Interpreter(model_content=small_conv_lite, threads=threads) as plain, \
            Interpreter(model_content=small_conv_lite, threads=threads, cpu_affinity="fast") as fast:
        assert fast.cpu_affinity_cpus == expected
        want = output_bytes(plain.run(x))
        before = os.sched_getaffinity(0)
        assert output_bytes(fast.run(x)) == want
        assert os.sched_getaffinity(0) == before
        # A caller with a narrower mask of its own gets that one back, not the process's.
        own = {ALLOWED[0]}
        os.sched_setaffinity(0, own)
        assert output_bytes(fast.run(x)) == want
        assert os.sched_getaffinity(0) == own


def test_unknown_cpu_affinity_values_are_refused(small_conv_lite: bytes):
    for value in ("fastest", "FAST", "big", "", 1, None):
        with pytest.raises(ValueError, match=r"cpu_affinity must be one of 'none', 'fast', got"):
            Interpreter(model_content=small_conv_lite, cpu_affinity=value)  # type: ignore[arg-type]


def _create(small_conv_lite: bytes, options: ctypes.Structure) -> tuple[int, str, int]:
    """lite_interpreter_create through the C API with `options` as given: status, message, and how
    many CPUs were chosen (-1 when creation failed)."""
    lib = load_library()
    model, it, error = ctypes.c_void_p(), ctypes.c_void_p(), ErrorStruct()
    assert lib.lite_model_load_memory(small_conv_lite, len(small_conv_lite), MEMORY_COPY, ctypes.byref(model),
                                      ctypes.byref(error)) == Status.OK
    try:
        pointer = ctypes.cast(ctypes.pointer(options), ctypes.POINTER(OptionsStruct))
        status = lib.lite_interpreter_create(model, pointer, ctypes.byref(it), ctypes.byref(error))
        chosen = lib.lite_interpreter_cpu_affinity_cpus(it, None, 0) if status == Status.OK else -1
        lib.lite_interpreter_destroy(it)
        return status, error.message.decode(), chosen
    finally:
        lib.lite_model_destroy(model)


@pytest.mark.parametrize("value", [2, -1, 1 << 20])
def test_c_api_refuses_unknown_values_with_a_clear_message(small_conv_lite: bytes, value: int):
    options = load_library().lite_interpreter_options_default()
    assert options.cpu_affinity == 0 and options.struct_size == ctypes.sizeof(OptionsStruct)
    options.cpu_affinity = value
    status, message, _ = _create(small_conv_lite, options)
    assert status == Status.INVALID_ARGUMENT
    assert f"cpu_affinity {value} is unknown" in message and "LITE_CPU_AFFINITY_FAST_CORES" in message


class FirstOptionsStruct(ctypes.Structure):
    """``lite_interpreter_options`` as callers built before cpu_affinity existed."""

    _fields_ = [("struct_size", ctypes.c_size_t), ("num_threads", ctypes.c_int)]


@needs_two_cpus
@pytest.mark.parametrize("padding", [0x00000001, 0xFFFFFFFF, 0x7F7F7F7F])
def test_callers_of_the_first_options_struct_get_no_affinity(
        small_conv_lite: bytes, big_core_sysfs: int, padding: int):
    """Their struct_size covers the old struct's tail padding (16 bytes on 64-bit targets), which they
    never set: the runtime must not read a value there (1 would pin, others would be refused)."""
    old = FirstOptionsStruct(ctypes.sizeof(FirstOptionsStruct), 1)
    tail = ctypes.sizeof(FirstOptionsStruct) - FirstOptionsStruct.num_threads.offset - 4
    if tail >= 4:
        ctypes.memmove(ctypes.addressof(old) + FirstOptionsStruct.num_threads.offset + 4,
                       padding.to_bytes(4, sys.byteorder), 4)
    status, message, chosen = _create(small_conv_lite, old)
    assert status == Status.OK, message
    assert chosen == 0
    # The current struct with FAST_CORES does pin with this tree: the test above could fail.
    options = load_library().lite_interpreter_options_default()
    options.cpu_affinity = 1
    assert _create(small_conv_lite, options)[2] == 1


def test_cpu_affinity_cpus_argument_checks(small_conv_lite: bytes):
    lib = load_library()
    assert lib.lite_interpreter_cpu_affinity_cpus(None, None, 0) == -1
    with Interpreter(model_content=small_conv_lite) as interpreter:
        handle = interpreter._live()
        assert lib.lite_interpreter_cpu_affinity_cpus(handle, None, 0) == 0
        assert lib.lite_interpreter_cpu_affinity_cpus(handle, None, 4) == -1
        assert lib.lite_interpreter_cpu_affinity_cpus(handle, (ctypes.c_int * 1)(), -1) == -1


def test_closed_interpreter_has_no_cpus(small_conv_lite: bytes):
    interpreter = Interpreter(model_content=small_conv_lite, cpu_affinity="fast")
    interpreter.close()
    with pytest.raises(LiteError, match="closed"):
        _ = interpreter.cpu_affinity_cpus


# -- the CLI ----------------------------------------------------------------------------------------
def lite(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    """`lite ARGS` as a user runs it (as tests/test_cli.py does)."""
    full_env = {**os.environ, "PYTHONPATH": str(REPO), **(env or {})}
    full_env.pop("LITE_DEBUG", None)
    return subprocess.run([sys.executable, "-m", "lite_converter.app", *args], capture_output=True, text=True,
                          env=full_env, timeout=300)


@pytest.fixture
def conv_lite_file(tmp_path: Path, small_conv_lite: bytes) -> Path:
    path = tmp_path / "small.lite"
    path.write_bytes(small_conv_lite)
    return path


@needs_linux
def test_lite_run_takes_cpu_affinity(conv_lite_file: Path, tmp_path: Path):
    shape = ["--input-shape", "x=1,3,8,8"]
    plain = lite("run", str(conv_lite_file), *shape, "--out", str(tmp_path / "plain.npz"))
    assert plain.returncode == 0, plain.stderr
    assert "cpu affinity" not in plain.stdout
    fast = lite("run", str(conv_lite_file), *shape, "--threads", "2", "--cpu-affinity", "fast",
                "--out", str(tmp_path / "fast.npz"))
    assert fast.returncode == 0, fast.stderr
    expected = expected_choice(sysfs_ranks(SYSFS, ALLOWED), 2)
    if expected:
        assert f"cpu affinity fast: CPUs {', '.join(map(str, expected))}" in fast.stdout
    else:
        assert "cpu affinity fast: no CPUs chosen" in fast.stdout
    with np.load(tmp_path / "plain.npz") as a, np.load(tmp_path / "fast.npz") as b:
        assert a.files == b.files and all(a[k].tobytes() == b[k].tobytes() for k in a.files)


@needs_linux
@needs_two_cpus
def test_lite_run_reports_the_chosen_big_core(conv_lite_file: Path, tmp_path: Path):
    big = ALLOWED[-1]
    for cpu in ALLOWED:
        (tmp_path / f"cpu{cpu}").mkdir()
        (tmp_path / f"cpu{cpu}" / "cpu_capacity").write_text("1024\n" if cpu == big else "512\n")
    result = lite("run", str(conv_lite_file), "--input-shape", "x=1,3,8,8", "--cpu-affinity", "fast",
                  env={"LITE_SYSFS_CPU_ROOT": str(tmp_path)})
    assert result.returncode == 0, result.stderr
    assert f"cpu affinity fast: CPUs {big}\n" in result.stdout


def test_lite_run_refuses_unknown_cpu_affinity(conv_lite_file: Path):
    result = lite("run", str(conv_lite_file), "--input-shape", "x=1,3,8,8", "--cpu-affinity", "big")
    assert result.returncode == 2
    assert "invalid choice: 'big'" in result.stderr and "'none', 'fast'" in result.stderr


@needs_linux
@needs_two_cpus
def test_lite_bench_passes_cpu_affinity_to_our_runtime(conv_lite_file: Path, big_core_sysfs: int, capsys):
    bench = ["bench", str(conv_lite_file), "--input-shape", "x=1,3,8,8", "--runs", "2", "--warmup", "0"]
    status = main([*bench, "--cpu-affinity", "fast"])
    text = capsys.readouterr().out
    assert status == 0, text
    assert f"  cpu affinity fast: CPUs {big_core_sysfs}\n" in text
    assert main(bench) == 0
    assert "cpu affinity" not in capsys.readouterr().out


@pytest.mark.skipif(len(ALLOWED) < 2, reason="needs two CPUs to leave one out")
def test_c_lite_bench_tool_pins_to_the_fast_core(asan_build: Path, small_conv_lite: bytes,
                                                 big_core_sysfs: int, tmp_path: Path):
    """The on-device tool (runtime_arm/tools/lite_bench.c, ASan build): --cpu-affinity fast reports the
    big core of the fake sysfs tree, none reports nothing, and an unknown value is refused."""
    tool = asan_build / "runtime_arm" / "tools" / "lite_bench"
    model = tmp_path / "conv.lite"
    model.write_bytes(small_conv_lite)

    def run(*args: str) -> subprocess.CompletedProcess:
        return subprocess.run([str(tool), str(model), "--shape", "0:1x3x16x16", "--runs", "2", *args],
                              capture_output=True, text=True, check=False, env=os.environ.copy())

    fast = run("--cpu-affinity", "fast")
    assert fast.returncode == 0, fast.stderr
    assert f"cpus: {big_core_sysfs}\n" in fast.stdout
    plain = run("--cpu-affinity", "none", "--json")
    assert plain.returncode == 0 and '"cpus": ""' in plain.stdout
    bad = run("--cpu-affinity", "turbo")
    assert bad.returncode != 0 and "expected none or fast" in bad.stderr
