"""The ARM targets: cross builds (``make cross``) run under qemu-user against the host.

* every kernel test executable (kernels_neon/tests/test_*.c: optimized kernels against ref/) runs on
  the host sanitizer build and under the emulated CPUs of its architecture: aarch64
  ``-cpu max,sve=off,sme=off`` (NEON, dotprod and i8mm; SVE/SME off so NEON kernels are what runs),
  ``-cpu cortex-a53`` and ``-cpu cortex-a72`` (plain NEON, Raspberry Pi 3 / 4: the dispatcher must fall
  back), ``-cpu cortex-a76`` (dotprod without i8mm, Raspberry Pi 5; for the tests that dispatch on
  dotprod) and armv7 ``-cpu cortex-a7`` (Raspberry Pi 2/3 32-bit: NEON + VFPv4). A test named for one
  ISA (``..._avx512``, ``..._aarch64_...``) runs only where that ISA's build is;
* an executable that runs no check is a skip with the reasons it printed, never a pass, and one that
  runs no check without declaring a skip fails; every kernel variant an executable declares skipped on
  one CPU must run on another (``test_every_kernel_variant_runs_somewhere``), except variants that
  need features neither the host nor qemu has (AVX-512, VNNI, AMX on an AVX2 host: qemu 7.2's TCG
  emulates no AVX-512 and Intel SDE is not available), which are printed as not covered;
* the runtime core's unit tests (runtime_arm/tests: verifier, planner, loader, thread pool) run on
  aarch64 and on 32-bit armv7, where size_t is 32 bits and shape arithmetic overflows differently;
* real converted models (PP-OCR cls and rec, a torch MobileNetV2) run with the ARM ``run_model``
  and their outputs are compared with the host runtime's.

Tolerance for the models: |arm - host| <= 1e-4 * (|host| + max|host|). The kernels are the same
source, but the compilers differ (x86-64 vs aarch64/armv7 gcc), and with them FMA contraction,
vectorized reduction order and libm (expf, tanhf): the differences are rounding, a few ulp per op,
that grow through a deep graph but stay far below 1e-4 of the output's scale. A wrong kernel or a
dispatch bug changes outputs by orders of magnitude more.

Binaries for ARM are not registered with binfmt here: qemu is always called explicitly.
"""

from __future__ import annotations

import fcntl
import functools
import hashlib
import json
import os
import re
import shutil
import subprocess
import tempfile
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np
import onnx
import pytest

from lite_converter.app import zoo
from lite_converter.app.demo import ocr_input
from lite_converter.convert import convert_onnx
from runtime_arm import Interpreter
from tests.expected_skips import record_not_covered

REPO = Path(__file__).resolve().parents[1]
BUILD = Path(os.environ.get("LITE_CROSS_BUILD_ROOT") or REPO / "build")  # as `make cross`
KERNEL_TEST_DIR = REPO / "kernels_neon" / "tests"
KERNEL_TESTS = sorted(path.stem for path in KERNEL_TEST_DIR.glob("test_*.c"))
RESULT_LINE = re.compile(r"^(\d+) passed, (\d+) failed$")
SKIP_LINE = re.compile(r"^skipped: (.+)$")
RAN_VARIANT_LINE = re.compile(r"^ran variant: (.+)$")
VARIANT_SKIP = re.compile(r"^(?P<variant>.+): the CPU lacks (?P<features>[\w -]+)$")

# name -> (architecture = build dir, emulator prefix); binfmt is not set up, so the emulator is explicit.
QEMU_AARCH64 = ["qemu-aarch64", "-L", "/usr/aarch64-linux-gnu", "-cpu"]
EMULATED = {
    "aarch64-max": ("aarch64", [*QEMU_AARCH64, "max,sve=off,sme=off"]),
    "aarch64-a53": ("aarch64", [*QEMU_AARCH64, "cortex-a53"]),
    "aarch64-a72": ("aarch64", [*QEMU_AARCH64, "cortex-a72"]),
    "aarch64-a76": ("aarch64", [*QEMU_AARCH64, "cortex-a76"]),
    "armv7-a7": ("armv7", ["qemu-arm", "-L", "/usr/arm-linux-gnueabihf", "-cpu", "cortex-a7"]),
}
# cortex-a76 differs from the others only in dotprod: it runs the tests that dispatch on it.
DOTPROD_ONLY_CPUS = {"aarch64-a76"}
MODEL_RTOL = 1e-4

# Features that neither this host's CPU (then the host run would have them) nor qemu-user can give:
# qemu 7.2's TCG emulates x86 up to AVX2 (no AVX-512 of any kind, no AMX) and Intel SDE is not
# available here. A variant needing one is counted as not covered, printed, and runs on a host that
# has them (Ice Lake / Zen 4 for AVX-512 VNNI and VBMI, Sapphire Rapids for AMX).
NOT_EMULATED_FEATURES = {"avx512", "avx512vnni", "avx512vbmi", "amx-int8"}

# A kernel test named for one ISA runs where that ISA's build is; these names do not say it.
ARCHITECTURES_BY_NAME = {
    "test_qs8_gemm_runs": {"x86_64"},  # the AVX-512 VNNI runs kernel; no other architecture has one
    "test_qs8_dwconv_arm": {"aarch64", "armv7"},
}


def kernel_test_architectures(name: str) -> set[str]:
    """Where a kernel test executable has something to check, from its name."""
    if name in ARCHITECTURES_BY_NAME:
        return ARCHITECTURES_BY_NAME[name]
    if re.search(r"_(avx2|avx512\w*)$", name):
        return {"x86_64"}
    if "_aarch64_" in name:
        return {"aarch64"}
    if "_armv7_" in name:
        return {"armv7"}
    return {"x86_64", "aarch64", "armv7"}


def kernel_test_cpus(name: str) -> list[str]:
    """The emulated CPUs a kernel test runs on."""
    source = (KERNEL_TEST_DIR / f"{name}.c").read_text()
    dispatches_on_dotprod = "LITE_CPU_ARM_DOTPROD" in source or "LITE_CPU_ARM_I8MM" in source
    architectures = kernel_test_architectures(name)
    return [cpu for cpu, (arch, _) in sorted(EMULATED.items())
            if arch in architectures and (cpu not in DOTPROD_ONLY_CPUS or dispatches_on_dotprod)]


QEMU_KERNEL_CASES = [(name, cpu) for name in KERNEL_TESTS for cpu in kernel_test_cpus(name)]
HOST_KERNEL_TESTS = [name for name in KERNEL_TESTS if "x86_64" in kernel_test_architectures(name)]


@pytest.fixture(scope="session")
def cross_builds() -> Path:
    """build/aarch64 and build/armv7, brought up to date by ``make cross`` (incremental)."""
    for tool in ("qemu-aarch64", "qemu-arm", "aarch64-linux-gnu-gcc", "arm-linux-gnueabihf-gcc"):
        if shutil.which(tool) is None:
            pytest.fail(f"{tool} is not installed: `make test` installs it")
    proc = subprocess.run(["make", "-s", "cross"], cwd=REPO, capture_output=True, text=True, timeout=1800)
    assert proc.returncode == 0, f"make cross failed:\n{proc.stdout[-4000:]}\n{proc.stderr[-4000:]}"
    return BUILD


@dataclass
class KernelRun:
    """What one kernel test executable reported (kernel_test.h's protocol)."""

    label: str
    returncode: int
    closing: str | None  # the "N passed, M failed" line
    passed: int = 0
    failed: int = 0
    skips: list[str] = field(default_factory=list)
    ran_variants: set[str] = field(default_factory=set)
    stderr_tail: str = ""

    def skipped_variants(self) -> dict[str, set[str]]:
        """variant -> the features this CPU lacked for it."""
        found = {}
        for reason in self.skips:
            match = VARIANT_SKIP.match(reason)
            if match:
                found[match.group("variant")] = set(match.group("features").split())
        return found


def execute_kernel_test(command: tuple[str, ...], label: str) -> KernelRun:
    proc = subprocess.run(list(command), capture_output=True, text=True, timeout=600)
    lines = proc.stdout.strip().splitlines()
    match = RESULT_LINE.match(lines[-1]) if lines else None
    run = KernelRun(label, proc.returncode, lines[-1] if match else None, stderr_tail=proc.stderr[-3000:])
    if match:
        run.passed, run.failed = int(match.group(1)), int(match.group(2))
    for line in lines:
        if skip := SKIP_LINE.match(line):
            run.skips.append(skip.group(1))
        elif ran := RAN_VARIANT_LINE.match(line):
            run.ran_variants.add(ran.group(1))
    return run


def shared_run_folder() -> Path | None:
    """A folder the pytest-xdist workers of this one test run share (None without xdist).

    `make test` hands this file's items to both workers, so the coverage test would otherwise run again
    every executable the other worker ran (minutes under qemu)."""
    run_id = os.environ.get("PYTEST_XDIST_TESTRUNUID")
    if not run_id:
        return None
    folder = Path(tempfile.gettempdir()) / f"lite-kernel-runs-{run_id}"
    folder.mkdir(exist_ok=True)
    return folder


@functools.cache
def run_kernel_test(command: tuple[str, ...], label: str) -> KernelRun:
    """Runs a kernel test executable once per test run (the item tests and the coverage test share it,
    across xdist workers too: a worker that needs a run the other is making waits for its result)."""
    folder = shared_run_folder()
    if folder is None:
        return execute_kernel_test(command, label)
    key = hashlib.sha256("\0".join(command).encode()).hexdigest()[:32]
    result = folder / f"{key}.json"
    with open(folder / f"{key}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if result.exists():
            fields = json.loads(result.read_text())
            return KernelRun(**{**fields, "ran_variants": set(fields["ran_variants"])})
        run = execute_kernel_test(command, label)
        partial = result.with_suffix(".partial")
        partial.write_text(json.dumps({**asdict(run), "ran_variants": sorted(run.ran_variants)}))
        partial.replace(result)
        return run


def not_covered_note(features: set[str]) -> str:
    return (f"not covered on this machine: the host lacks {' '.join(sorted(features))} and qemu 7.2 emulates "
            "no AVX-512/AMX (Intel SDE is not available)")


def check_kernel_test(run: KernelRun) -> None:
    """Exit 0 and "N passed, 0 failed"; a run of no check is a skip with its declared reasons, or fails."""
    detail = f"(exit {run.returncode}):\n{run.stderr_tail}"
    assert run.closing is not None, f"{run.label}: no 'N passed, M failed' line {detail}"
    assert run.failed == 0 and run.returncode == 0, f"{run.label}: {run.closing} {detail}"
    if run.passed == 0:
        assert run.skips, f"{run.label}: ran no check and declared no skip (kt_skip / kt_cpu_has)"
        lacking = set().union(set(), *run.skipped_variants().values()) & NOT_EMULATED_FEATURES
        note = f" [{not_covered_note(lacking)}]" if lacking else ""
        pytest.skip(f"{run.label} ran no check: {'; '.join(dict.fromkeys(run.skips))}{note}")


def host_kernel_run(asan_build: Path, name: str) -> KernelRun:
    executable = asan_build / "kernels_neon" / f"kernel_{name}"
    assert executable.is_file(), f"{executable} missing: `make asan` builds every kernels_neon/tests/test_*.c"
    return run_kernel_test((str(executable),), f"{name} on the host")


def emulated_kernel_run(cross_builds: Path, name: str, cpu: str) -> KernelRun:
    build_dir, emulator = EMULATED[cpu]
    executable = cross_builds / build_dir / "kernels_neon" / f"kernel_{name}"
    assert executable.is_file(), f"{executable} missing after make cross"
    return run_kernel_test((*emulator, str(executable)), f"{name} on {cpu}")


@pytest.mark.parametrize("name", HOST_KERNEL_TESTS)
def test_kernel_tests_on_host(asan_build: Path, name: str):
    check_kernel_test(host_kernel_run(asan_build, name))


@pytest.mark.parametrize(("name", "cpu"), QEMU_KERNEL_CASES)
def test_kernel_tests_under_qemu(cross_builds: Path, name: str, cpu: str):
    check_kernel_test(emulated_kernel_run(cross_builds, name, cpu))


def test_every_kernel_variant_runs_somewhere(request: pytest.FixtureRequest, asan_build: Path,
                                             cross_builds: Path):
    """Each variant an executable declares skipped on one CPU runs on another (host or qemu)."""
    uncovered, not_covered, ran = [], [], 0
    for name in KERNEL_TESTS:
        runs = [emulated_kernel_run(cross_builds, name, cpu) for cpu in kernel_test_cpus(name)]
        if name in HOST_KERNEL_TESTS:
            runs.append(host_kernel_run(asan_build, name))
        ran_variants = set().union(*(run.ran_variants for run in runs if run.returncode == 0))
        ran += len(ran_variants)
        skipped: dict[str, tuple[set[str], list[str]]] = {}
        for run in runs:
            for variant, lacking in run.skipped_variants().items():
                skipped.setdefault(variant, (lacking, []))[1].append(run.label.removeprefix(f"{name} on "))
        for variant, (lacking, where) in sorted(skipped.items()):
            if variant in ran_variants:
                continue
            line = f"{name}: {variant} (skipped on {', '.join(where)}: lacks {' '.join(sorted(lacking))})"
            (not_covered if lacking <= NOT_EMULATED_FEATURES else uncovered).append(line)
    record_not_covered(request.config, not_covered)
    assert ran > 0, "no kernel test reported a variant it ran"
    assert not uncovered, "variants skipped everywhere though a CPU here has them:\n" + "\n".join(uncovered)


def test_harness_reports_failures(tmp_path: Path, cross_builds: Path):
    """The closing line, the skip lines and the exit code of kernel_test.h, on a test that must fail."""
    source = tmp_path / "failing.c"
    source.write_text('#include "kernel_test.h"\nint main(void) {\n  KT_CHECK(1 == 1);\n'
                      "  KT_CHECK_CLOSE(1.0f, 1.1f, 0.0f, 1e-3f);\n  KT_CHECK_ULP(1.0f, 1.0f, 0);\n"
                      '  kt_skip("part two: not on this CPU");\n  return kt_finish();\n}\n')
    executable = tmp_path / "failing"
    include = str(REPO / "kernels_neon" / "tests")
    subprocess.run(["aarch64-linux-gnu-gcc", "-std=c11", "-Wall", "-Wextra", "-Werror", "-I", include,
                    str(source), "-o", str(executable), "-lm"], check=True)
    proc = subprocess.run([*EMULATED["aarch64-max"][1], str(executable)], capture_output=True, text=True)
    assert proc.stdout.strip().splitlines() == ["skipped: part two: not on this CPU", "2 passed, 1 failed"]
    assert proc.returncode != 0
    assert "failing.c:4: FAILED" in proc.stderr


def test_a_run_of_no_check_is_a_skip_or_a_failure():
    """The runner's verdicts on runs that checked nothing: a declared skip skips, silence fails."""
    declared = KernelRun("x on y", 0, "0 passed, 0 failed", skips=["v: the CPU lacks amx-int8"])
    with pytest.raises(pytest.skip.Exception, match="ran no check: v: the CPU lacks amx-int8.*not covered"):
        check_kernel_test(declared)
    with pytest.raises(AssertionError, match="ran no check and declared no skip"):
        check_kernel_test(KernelRun("x on y", 0, "0 passed, 0 failed"))
    with pytest.raises(AssertionError, match="1 failed"):
        check_kernel_test(KernelRun("x on y", 1, "3 passed, 1 failed", passed=3, failed=1))
    check_kernel_test(KernelRun("x on y", 0, "3 passed, 0 failed", passed=3, skips=["part"]))


@pytest.mark.parametrize("cpu", ["aarch64-max", "armv7-a7"])
def test_runtime_core_tests_under_qemu(cross_builds: Path, cpu: str):
    build_dir, emulator = EMULATED[cpu]
    executable = cross_builds / build_dir / "runtime_arm" / "runtime_core_tests"
    assert executable.is_file(), f"{executable} missing after make cross"
    proc = subprocess.run([*emulator, str(executable)], capture_output=True, text=True, timeout=600)
    summary = re.search(r"^(\d+) tests, (\d+) failed$", proc.stdout, re.MULTILINE)
    assert summary is not None and proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert summary.group(2) == "0" and int(summary.group(1)) >= 30, summary.group(0)


# -- the library's size and exports ------------------------------------------------------------------

# Issue 14: the stripped aarch64 library, everything in it, is at most 600 KB (the file grows in 16 KB
# steps: docs/ARCHITECTURE.md). Functions whose presence shows "everything": the OpenCL backend and its
# kernel source, control flow, variables, int8 GEMM and the NEON fp32 kernels.
ARM_LIBRARY_BUDGET_BYTES = 600 * 1024
ARM_LIBRARY_MUST_CONTAIN = ("_ZN4lite13OpenClBackend6create", "_ZN4lite19kOpenClKernelSourceE",
                            "loop_evalEPNS_9OpContext", "scan_evalEPNS_9OpContext",
                            "assign_variable_evalEPNS_9OpContext",
                            "lite_qs8_gemm_packed_compute", "lite_f32_winograd_nhwc_aarch64_neonfma",
                            "lite_f32_gemm_ukernel_6x16_aarch64_neonfma")
NM = {"aarch64": "aarch64-linux-gnu-nm", "armv7": "arm-linux-gnueabihf-nm"}


def test_stripped_aarch64_library_fits_the_size_budget(cross_builds: Path):
    library = cross_builds / "aarch64" / "runtime_arm" / "liblite_runtime.so"
    stripped = cross_builds / "aarch64" / "liblite_runtime.stripped.so"  # written by make cross
    assert stripped.stat().st_mtime >= library.stat().st_mtime, f"{stripped} is older than {library}"
    size = stripped.stat().st_size
    assert size <= ARM_LIBRARY_BUDGET_BYTES, (
        f"stripped aarch64 liblite_runtime.so is {size} bytes, over the {ARM_LIBRARY_BUDGET_BYTES}-byte "
        "budget: see docs/ARCHITECTURE.md (library size on ARM) for what is compiled for size")
    symbols = subprocess.run([NM["aarch64"], str(library)], capture_output=True, text=True, check=True).stdout
    missing = [name for name in ARM_LIBRARY_MUST_CONTAIN if name not in symbols]
    assert not missing, f"the aarch64 library lacks {missing}: the budget is for the whole runtime"


@pytest.mark.parametrize("arch", ["aarch64", "armv7"])
def test_arm_library_exports_only_the_c_api(cross_builds: Path, arch: str):
    """runtime_arm/cmake/liblite_runtime.map: the C API's lite_* functions, no libstdc++ templates."""
    library = cross_builds / arch / "runtime_arm" / "liblite_runtime.so"
    listing = subprocess.run([NM[arch], "-D", "--defined-only", str(library)], capture_output=True, text=True,
                             check=True).stdout
    exported = {line.split()[-1] for line in listing.splitlines() if line.strip()}
    header = (REPO / "runtime_arm" / "include" / "lite_runtime.h").read_text()
    declared = set(re.findall(r"^LITE_API\b[^(]*?\b(lite_\w+)\s*\(", header, re.MULTILINE))
    assert len(declared) >= 40, "lite_runtime.h's LITE_API declarations not found"
    if "LITE_RUNTIME_SEQUENCES:BOOL=OFF" in (cross_builds / arch / "CMakeCache.txt").read_text():
        # the header's "Sequences and optionals" calls: absent from a build without them (documented)
        declared = {name for name in declared if not re.search(r"_kind$|_sequence(_|$)|_has_element$", name)}
    assert exported == declared, (f"exported but not in the C API: {sorted(exported - declared)}; "
                                  f"in the C API but not exported: {sorted(declared - exported)}")


# -- real models: ARM run_model against the host runtime --------------------------------------------

def run_on_arm(cross_builds: Path, cpu: str, model: Path, inputs: np.ndarray, tmp_path: Path) -> bytes:
    """Runs model on inputs with the target's run_model under qemu; returns the raw output bytes."""
    build_dir, emulator = EMULATED[cpu]
    input_path, output_path = tmp_path / f"{cpu}.in", tmp_path / f"{cpu}.out"
    input_path.write_bytes(np.ascontiguousarray(inputs, np.float32).tobytes())
    command = [*emulator, str(cross_builds / build_dir / "runtime_arm" / "run_model"), str(model),
               "--input", str(input_path), "--output", str(output_path)]
    proc = subprocess.run(command, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, f"run_model on {cpu} failed: {proc.stderr[-3000:]}"
    return output_path.read_bytes()


def compare_with_host(cross_builds: Path, model: Path, inputs: np.ndarray, cpus: list[str],
                      tmp_path: Path) -> None:
    """The host runtime's outputs (flattened in output order) against each ARM run's."""
    host_outputs = Interpreter(model_path=str(model), threads=1).run(inputs)
    host = np.concatenate([np.asarray(value, np.float32).ravel() for value in host_outputs.values()])
    scale = float(np.max(np.abs(host)))
    assert scale > 1e-3 and float(np.std(host)) > 1e-4, "degenerate outputs: the comparison proves nothing"
    for cpu in cpus:
        arm = np.frombuffer(run_on_arm(cross_builds, cpu, model, inputs, tmp_path), np.float32)
        assert arm.shape == host.shape, f"{cpu}: {arm.size} output values, host has {host.size}"
        np.testing.assert_allclose(arm, host, rtol=MODEL_RTOL, atol=MODEL_RTOL * scale,
                                   err_msg=f"{model.name} on {cpu}")


@pytest.fixture(scope="module")
def paddleocr() -> dict[str, Path]:
    return zoo.fetch_all(["cls", "rec"])


def convert_fixed(onnx_path: Path, shape: list[int], out: Path) -> Path:
    """Converts with the input frozen to ``shape`` (static shapes: the ARM run needs no --shape)."""
    convert_onnx(onnx_path, out, input_shapes={"x": shape})
    return out


@pytest.mark.parametrize(("key", "shape", "cpus"), [
    ("cls", [1, 3, 48, 192], ["aarch64-max", "aarch64-a53", "armv7-a7"]),
    ("rec", [1, 3, 48, 320], ["aarch64-max", "armv7-a7"]),
])
def test_ppocr_on_arm_matches_host(cross_builds: Path, paddleocr: dict[str, Path], tmp_path: Path, key: str,
                                   shape: list[int], cpus: list[str]):
    model = convert_fixed(paddleocr[key], shape, tmp_path / f"{key}.lite")
    image, _ = ocr_input(key, tuple(shape), 11)  # rendered text: outputs far from trivial
    compare_with_host(cross_builds, model, image, cpus, tmp_path)


@pytest.fixture(scope="module")
def mobilenet_v2_lite(tmp_path_factory: pytest.TempPathFactory) -> Callable[[], Path]:
    def get() -> Path:
        from tests.models import ARCHITECTURES, export_onnx

        directory = tmp_path_factory.mktemp("mobilenet_v2")
        onnx_path = export_onnx(ARCHITECTURES["mobilenet_v2_legacy"], directory)
        convert_onnx(onnx_path, directory / "mobilenet_v2.lite")
        return directory / "mobilenet_v2.lite"

    return get


def test_mobilenet_v2_on_aarch64_matches_host(cross_builds: Path, mobilenet_v2_lite: Callable[[], Path],
                                              tmp_path: Path):
    image = np.random.default_rng(3).standard_normal((1, 3, 224, 224)).astype(np.float32)
    compare_with_host(cross_builds, mobilenet_v2_lite(), image, ["aarch64-max"], tmp_path)


@pytest.mark.parametrize("name", ["bilstm_2x128", "bigru_2x96_batch4"])
def test_recurrent_model_on_arm_matches_host(cross_builds: Path, tmp_path: Path, name: str):
    """The stacked bidirectional LSTM / GRU of tests/models/recurrent_nets.py: the aarch64 GEMV of the
    per-step recurrence (batch 1) and the GEMM (batch 4), NEON and the armv7 portable paths."""
    pytest.importorskip("torch")  # the training extra (installed by `make test`)
    from tests.models.recurrent_nets import NETS, export_recurrent

    net = NETS[name]
    model = tmp_path / f"{name}.lite"
    convert_onnx(export_recurrent(net, tmp_path), model, input_shapes={"x": [24, net.batch, net.features]})
    x = np.random.default_rng(5).standard_normal((24, net.batch, net.features)).astype(np.float32)
    compare_with_host(cross_builds, model, x, ["aarch64-max", "aarch64-a53", "armv7-a7"], tmp_path)


def grouped_conv_net() -> onnx.ModelProto:
    """A ResNeXt-style block on a 1x64x14x13 input: 1x1 64 -> 128, a 3x3 grouped conv (groups 32, 4
    channels per group) + PRelu, a grouped 1x1 (groups 4) 128 -> 64 and a residual Add, then a widening
    stride-2 grouped 3x3 (groups 8, 8 -> 12 channels per group)."""
    from onnx import TensorProto, helper, numpy_helper

    rng = np.random.default_rng(17)

    def w(*shape: int, k: float = 0.2) -> np.ndarray:
        return (rng.standard_normal(shape) * k).astype(np.float32)

    inits = {"w0": w(128, 64, 1, 1), "w1": w(128, 4, 3, 3), "b1": w(128, k=0.1), "slope": w(128, 1, 1, k=0.3),
             "w2": w(64, 32, 1, 1), "b2": w(64, k=0.1), "w3": w(96, 8, 3, 3), "b3": w(96, k=0.1)}
    n = helper.make_node
    nodes = [n("Conv", ["x", "w0"], ["c0"]), n("Relu", ["c0"], ["r0"]),
             n("Conv", ["r0", "w1", "b1"], ["c1"], pads=[1, 1, 1, 1], group=32),
             n("PRelu", ["c1", "slope"], ["p1"]),
             n("Conv", ["p1", "w2", "b2"], ["c2"], group=4), n("Add", ["c2", "x"], ["s"]),
             n("Conv", ["s", "w3", "b3"], ["y"], pads=[1, 1, 1, 1], strides=[2, 2], group=8)]
    graph = helper.make_graph(nodes, "grouped",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 64, 14, 13])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
                              [numpy_helper.from_array(v, k) for k, v in inits.items()])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], ir_version=8)


def test_grouped_convolutions_on_arm_match_onnxruntime(cross_builds: Path, tmp_path: Path):
    """fp32 grouped convolutions (one GEMM per group, runtime_arm/src/ops/conv2d_grouped.cc) on the
    aarch64 and armv7 GEMM kernels against onnxruntime, within MODEL_RTOL of the output's scale."""
    import onnxruntime as ort

    model = grouped_conv_net()
    lite = tmp_path / "grouped.lite"
    convert_onnx(model, lite)
    x = np.random.default_rng(18).standard_normal((1, 64, 14, 13)).astype(np.float32)
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    expected = session.run(None, {"x": x})[0]
    scale = float(np.max(np.abs(expected)))
    for cpu in ["aarch64-a72", "armv7-a7"]:
        arm = np.frombuffer(run_on_arm(cross_builds, cpu, lite, x, tmp_path), np.float32)
        np.testing.assert_allclose(arm.reshape(expected.shape), expected, rtol=MODEL_RTOL,
                                   atol=MODEL_RTOL * scale, err_msg=cpu)
