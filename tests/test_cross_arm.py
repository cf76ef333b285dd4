"""The ARM targets: cross builds (``make cross``) run under qemu-user against the host.

* every kernel test executable (kernels_neon/tests/test_*.c: optimized kernels against ref/) runs on
  the host sanitizer build and under four emulated CPUs: aarch64 ``-cpu max,sve=off,sme=off`` (all
  NEON extensions, SVE/SME off so NEON kernels are what runs), aarch64 ``-cpu cortex-a53`` and
  ``-cpu cortex-a72`` (no dotprod/i8mm/fp16, Raspberry Pi 3 / 4: the dispatcher must fall back) and
  armv7 ``-cpu cortex-a7`` (Raspberry Pi 2/3 32-bit: NEON + VFPv4);
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

import os
import re
import shutil
import subprocess
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from lite_converter.app import zoo
from lite_converter.app.demo import ocr_input
from lite_converter.convert import convert_onnx
from runtime_arm import Interpreter

REPO = Path(__file__).resolve().parents[1]
BUILD = Path(os.environ.get("LITE_CROSS_BUILD_ROOT") or REPO / "build")  # as `make cross`
KERNEL_TESTS = sorted(path.stem for path in (REPO / "kernels_neon" / "tests").glob("test_*.c"))
RESULT_LINE = re.compile(r"^(\d+) passed, (\d+) failed$")

# name -> (build dir, emulator prefix); binfmt is not set up, so the emulator is always explicit.
QEMU_AARCH64 = ["qemu-aarch64", "-L", "/usr/aarch64-linux-gnu", "-cpu"]
EMULATED = {
    "aarch64-max": ("aarch64", [*QEMU_AARCH64, "max,sve=off,sme=off"]),
    "aarch64-a53": ("aarch64", [*QEMU_AARCH64, "cortex-a53"]),
    "aarch64-a72": ("aarch64", [*QEMU_AARCH64, "cortex-a72"]),
    "armv7-a7": ("armv7", ["qemu-arm", "-L", "/usr/arm-linux-gnueabihf", "-cpu", "cortex-a7"]),
}
MODEL_RTOL = 1e-4


@pytest.fixture(scope="session")
def cross_builds() -> Path:
    """build/aarch64 and build/armv7, brought up to date by ``make cross`` (incremental)."""
    for tool in ("qemu-aarch64", "qemu-arm", "aarch64-linux-gnu-gcc", "arm-linux-gnueabihf-gcc"):
        if shutil.which(tool) is None:
            pytest.skip(f"{tool} is not installed (make test installs it)")
    proc = subprocess.run(["make", "-s", "cross"], cwd=REPO, capture_output=True, text=True, timeout=1800)
    assert proc.returncode == 0, f"make cross failed:\n{proc.stdout[-4000:]}\n{proc.stderr[-4000:]}"
    return BUILD


def check_kernel_test(command: list[str], name: str) -> None:
    """Runs one kernel test executable; its last line must be "N passed, 0 failed" and its exit 0."""
    proc = subprocess.run(command, capture_output=True, text=True, timeout=600)
    lines = proc.stdout.strip().splitlines()
    match = RESULT_LINE.match(lines[-1]) if lines else None
    detail = f"(exit {proc.returncode}):\n{proc.stderr[-3000:]}"
    assert match is not None, f"{name}: no 'N passed, M failed' line {detail}"
    assert int(match.group(2)) == 0 and proc.returncode == 0, f"{name}: {lines[-1]} {detail}"


@pytest.mark.parametrize("name", KERNEL_TESTS)
def test_kernel_tests_on_host(asan_build: Path, name: str):
    executable = asan_build / "kernels_neon" / f"kernel_{name}"
    assert executable.is_file(), f"{executable} missing: `make asan` builds every kernels_neon/tests/test_*.c"
    check_kernel_test([str(executable)], name)


@pytest.mark.parametrize("cpu", sorted(EMULATED))
@pytest.mark.parametrize("name", KERNEL_TESTS)
def test_kernel_tests_under_qemu(cross_builds: Path, cpu: str, name: str):
    build_dir, emulator = EMULATED[cpu]
    executable = cross_builds / build_dir / "kernels_neon" / f"kernel_{name}"
    assert executable.is_file(), f"{executable} missing after make cross"
    check_kernel_test([*emulator, str(executable)], f"{name} on {cpu}")


def test_harness_reports_failures(tmp_path: Path, cross_builds: Path):
    """The closing line and the exit code of kernel_test.h, checked on a test that must fail."""
    source = tmp_path / "failing.c"
    source.write_text('#include "kernel_test.h"\nint main(void) {\n  KT_CHECK(1 == 1);\n'
                      "  KT_CHECK_CLOSE(1.0f, 1.1f, 0.0f, 1e-3f);\n  KT_CHECK_ULP(1.0f, 1.0f, 0);\n"
                      "  return kt_finish();\n}\n")
    executable = tmp_path / "failing"
    include = str(REPO / "kernels_neon" / "tests")
    subprocess.run(["aarch64-linux-gnu-gcc", "-std=c11", "-Wall", "-Wextra", "-Werror", "-I", include,
                    str(source), "-o", str(executable), "-lm"], check=True)
    proc = subprocess.run([*EMULATED["aarch64-max"][1], str(executable)], capture_output=True, text=True)
    assert proc.stdout.strip().splitlines()[-1] == "2 passed, 1 failed"
    assert proc.returncode != 0
    assert "failing.c:4: FAILED" in proc.stderr


@pytest.mark.parametrize("cpu", ["aarch64-max", "armv7-a7"])
def test_runtime_core_tests_under_qemu(cross_builds: Path, cpu: str):
    build_dir, emulator = EMULATED[cpu]
    executable = cross_builds / build_dir / "runtime_arm" / "runtime_core_tests"
    assert executable.is_file(), f"{executable} missing after make cross"
    proc = subprocess.run([*emulator, str(executable)], capture_output=True, text=True, timeout=600)
    summary = re.search(r"^(\d+) tests, (\d+) failed$", proc.stdout, re.MULTILINE)
    assert summary is not None and proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert summary.group(2) == "0" and int(summary.group(1)) >= 30, summary.group(0)


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
