"""The Raspberry Pi packages (``make package``) installed into Debian bookworm arm64 and armhf
userlands (runtime_arm/tools/packaging/rootfs.py: debootstrap, no binfmt) and run under qemu-user:

* the .deb unpacked into the userland: its ``lite_run`` runs PP-OCR's cls model on a line the demo
  rendered and writes the same outputs as the host runtime; ``lite_bench`` runs it;
* a C program compiled against the installed header and library through ``pkg-config`` (the
  userland as the sysroot, Debian's cross gcc) links and runs, with the same outputs;
* the wheel installed by the userland's own pip into a folder and imported by its own Python 3.11
  with Debian's numpy: ``from runtime_arm import Interpreter`` runs the model, same outputs.

Tolerance, as tests/test_cross_arm.py: |arm - host| <= 1e-4 * (|host| + max|host|) (other compilers,
FMA contraction and libm: rounding only). The emulated CPUs are Raspberry Pi cores: Cortex-A72 (Pi 4)
for arm64 and Cortex-A7 (Pi 2/3 class) for armhf.

They run in ``make test-packages`` (LITE_TEST_PACKAGES=1), which CI runs after ``make test``.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from lite_converter.app import zoo
from lite_converter.app.demo import ocr_input
from lite_converter.convert import convert_onnx
from runtime_arm import Interpreter
from runtime_arm.tools.packaging.rootfs import ensure_rootfs
from runtime_arm.tools.packaging.targets import TARGETS, Target, version

if os.environ.get("LITE_TEST_PACKAGES") != "1":
    pytest.skip("the Raspberry Pi package tests run in `make test-packages` (CI runs it after make test): "
                "two debootstrap userlands and pip under qemu take ~5 minutes, ~10 with an empty cache",
                allow_module_level=True)

REPO = Path(__file__).resolve().parents[1]
DIST = REPO / "dist"
SHAPE = (1, 3, 48, 192)
RTOL = 1e-4
C_PROGRAM = r"""
#include <stdio.h>
#include <stdlib.h>
#include "lite_runtime.h"

/* pkg_check model.lite input.raw output.raw: the model on the raw input, output 0 written raw. */
int main(int argc, char** argv) {
  if (argc != 4) return 2;
  lite_model* model = NULL;
  lite_interpreter* it = NULL;
  lite_error error;
  if (lite_model_load_file(argv[1], &model, &error) != LITE_OK ||
      lite_interpreter_create(model, NULL, &it, &error) != LITE_OK) {
    fprintf(stderr, "%s\n", error.message);
    return 1;
  }
  int64_t dims[4] = {1, 3, 48, 192};
  if (lite_interpreter_resize_input(it, 0, dims, 4) != LITE_OK) return 1;
  size_t in_bytes = lite_interpreter_input_bytes(it, 0);
  void* in = malloc(in_bytes);
  FILE* f = fopen(argv[2], "rb");
  if (f == NULL || fread(in, 1, in_bytes, f) != in_bytes) return 1;
  fclose(f);
  if (lite_interpreter_set_input(it, 0, in, in_bytes) != LITE_OK || lite_interpreter_invoke(it) != LITE_OK) {
    fprintf(stderr, "%s\n", lite_interpreter_error_message(it));
    return 1;
  }
  size_t out_bytes = lite_interpreter_output_bytes(it, 0);
  void* out = malloc(out_bytes);
  lite_interpreter_get_output(it, 0, out, out_bytes);
  f = fopen(argv[3], "wb");
  fwrite(out, 1, out_bytes, f);
  fclose(f);
  printf("lite_runtime %s: %zu output bytes\n", lite_version(), out_bytes);
  free(in);
  free(out);
  lite_interpreter_destroy(it);
  lite_model_destroy(model);
  return 0;
}
"""
PYTHON_CHECK = """
import platform
import sys
import numpy as np
import runtime_arm
from runtime_arm import Interpreter
from runtime_arm._library import library_path
with Interpreter(sys.argv[1]) as interpreter:
    outputs = interpreter.run([np.load(sys.argv[2])])
np.save(sys.argv[3], next(iter(outputs.values())))
print(platform.machine(), runtime_arm.__file__, library_path(), "numpy", np.__version__)
"""


@pytest.fixture(scope="module")
def packages() -> Path:
    """dist/ made by ``make package`` (incremental: the cross builds are reused)."""
    for tool in ("qemu-aarch64", "qemu-arm", "dpkg-deb", "aarch64-linux-gnu-gcc", "arm-linux-gnueabihf-gcc"):
        if shutil.which(tool) is None:
            pytest.fail(f"{tool} is missing: `make test-packages` installs it")
    proc = subprocess.run(["make", "-s", "package-deps", "package"], cwd=REPO, capture_output=True, text=True,
                          timeout=3600, env={**os.environ, "MAKEFLAGS": ""})
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    return DIST


@pytest.fixture(scope="module")
def model(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, np.ndarray]:
    """cls.lite, a rendered line as .raw / .npy, and the host runtime's output on it."""
    folder = tmp_path_factory.mktemp("packages")
    lite = folder / "cls.lite"
    convert_onnx(zoo.fetch("cls"), output_path=lite)
    line, _ = ocr_input("cls", SHAPE, seed=3)
    line.tofile(folder / "line.raw")
    np.save(folder / "line.npy", line)
    with Interpreter(str(lite)) as interpreter:
        expected = next(iter(interpreter.run([line]).values()))
    return lite, folder, expected


@pytest.fixture(scope="module", params=sorted(TARGETS))
def installed(request: pytest.FixtureRequest, packages: Path) -> tuple[Target, Path]:
    """The userland with the .deb unpacked into it (its files removed again afterwards)."""
    target = TARGETS[request.param]
    root = ensure_rootfs(target.debian_arch)
    deb = packages / f"lite-edge-runtime_{version()}_{target.debian_arch}.deb"
    listing = subprocess.run(["dpkg-deb", "--fsys-tarfile", str(deb)], check=True, capture_output=True).stdout
    subprocess.run(["tar", "-x", "--keep-directory-symlink", "-C", str(root)], input=listing, check=True)
    names = subprocess.run(["tar", "-t"], input=listing, check=True, capture_output=True).stdout.split()
    names = [name.decode() for name in names]
    yield target, root
    for name in names:
        path = root / name
        if path.is_file() or path.is_symlink():
            path.unlink()


def _qemu(target: Target, root: Path, *command: str | Path, env: dict[str, str] | None = None) -> str:
    proc = subprocess.run([target.qemu, "-L", str(root), "-cpu", target.qemu_cpu, *map(str, command)],
                          capture_output=True, text=True, timeout=900, env={**os.environ, **(env or {})})
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    return proc.stdout


def _assert_close(ours: np.ndarray, host: np.ndarray) -> None:
    assert ours.shape == host.shape
    bound = RTOL * (np.abs(host) + np.abs(host).max())
    assert np.all(np.abs(ours - host) <= bound), (ours, host)


def test_deb_lite_run_matches_the_host(installed: tuple[Target, Path], model: tuple, tmp_path: Path) -> None:
    target, root = installed
    lite, folder, expected = model
    out = tmp_path / "out.raw"
    shape = "0:" + "x".join(map(str, SHAPE))
    _qemu(target, root, root / "usr/bin/lite_run", lite, "--shape", shape, "--input", folder / "line.raw",
          "--output", out)
    _assert_close(np.fromfile(out, np.float32).reshape(expected.shape), expected)
    bench = _qemu(target, root, root / "usr/bin/lite_bench", lite, "--shape", shape, "--runs", "2")
    assert "median_ms" in bench, bench


def test_pkg_config_program_links_and_runs(installed: tuple[Target, Path], model: tuple,
                                           tmp_path: Path) -> None:
    target, root = installed
    lite, folder, expected = model
    pc_dir = root / "usr" / "lib" / target.triplet / "pkgconfig"
    env = {**os.environ, "PKG_CONFIG_SYSROOT_DIR": str(root), "PKG_CONFIG_LIBDIR": str(pc_dir)}
    flags = subprocess.run(["pkg-config", "--cflags", "--libs", "lite-runtime"], env=env, check=True,
                           capture_output=True, text=True).stdout.split()
    assert f"-I{root}/usr/include" in flags and "-llite_runtime" in flags, flags
    source = tmp_path / "pkg_check.c"
    source.write_text(C_PROGRAM)
    program = tmp_path / "pkg_check"
    subprocess.run([f"{target.triplet}-gcc", *target.cflags, "-std=c99", "-Wall", "-Werror", str(source),
                    "-o", str(program), *flags], check=True)
    out = tmp_path / "out.raw"
    printed = _qemu(target, root, program, lite, folder / "line.raw", out)
    assert f"lite_runtime {version()}" in printed, printed
    _assert_close(np.fromfile(out, np.float32).reshape(expected.shape), expected)


def test_wheel_runs_in_the_userlands_python(installed: tuple[Target, Path], packages: Path, model: tuple,
                                           tmp_path: Path) -> None:
    target, root = installed
    lite, folder, expected = model
    wheel = packages / f"lite_edge-{version()}-py3-none-{target.wheel_platform}.whl"
    site = tmp_path / "site"
    python = root / "usr" / "bin" / "python3"
    _qemu(target, root, python, "-m", "pip", "install", "--no-deps", "--no-index", "--no-compile",
          "--disable-pip-version-check", "--target", site, wheel)
    assert (site / "runtime_arm" / "liblite_runtime.so").is_file()
    script = tmp_path / "check.py"
    script.write_text(PYTHON_CHECK)
    printed = _qemu(target, root, python, script, lite, folder / "line.npy", tmp_path / "out.npy",
                    env={"PYTHONPATH": str(site)}).split()
    machine = {"arm64": "aarch64", "armhf": "armv7l"}[target.debian_arch]
    assert printed[:3] == [machine, str(site / "runtime_arm" / "__init__.py"),
                           str(site / "runtime_arm" / "liblite_runtime.so")], printed
    _assert_close(np.load(tmp_path / "out.npy"), expected)
