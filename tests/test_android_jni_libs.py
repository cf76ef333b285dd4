"""The Java binding's JNI library for ARM (``make android-libs``, run by ``make test``): built by the
Debian cross compilers with the NDK's link flags, 16 KB page aligned, exporting JNI_OnLoad only.

The alignment check reads ``readelf -lW`` (tests/elf_alignment.py); it is shown to fail on a library
linked for 4 KB pages, so a pass means something.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.elf_alignment import alignment_problems

REPO = Path(__file__).resolve().parents[1]
LIBS = REPO / "build" / "java"
ARCHES = {"aarch64": ("AArch64", "aarch64-linux-gnu-gcc"), "armv7": ("ARM", "arm-linux-gnueabihf-gcc")}


@pytest.fixture(scope="module")
def jni_libs() -> Path:
    for tool in ("readelf", "aarch64-linux-gnu-gcc", "arm-linux-gnueabihf-gcc", "javac"):
        if shutil.which(tool) is None:
            pytest.fail(f"{tool} is missing: `make test` installs it (make android-libs)")
    proc = subprocess.run(["make", "-s", "android-libs"], cwd=REPO, capture_output=True, text=True,
                          timeout=3600, env={**os.environ, "MAKEFLAGS": ""})
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    return LIBS


def _readelf(*args: str) -> str:
    return subprocess.run(["readelf", *args], capture_output=True, text=True, check=True).stdout


@pytest.mark.parametrize("arch", sorted(ARCHES))
def test_jni_library_is_16k_aligned_and_exports_jni_onload_only(jni_libs: Path, arch: str) -> None:
    folder = jni_libs / f"linux-{arch}"
    jni, runtime = folder / "liblite_jni.so", folder / "liblite_runtime.so"
    assert alignment_problems(jni) == []
    assert alignment_problems(runtime) == []
    assert f"Machine:                           {ARCHES[arch][0]}" in _readelf("-h", str(jni))
    dynamic = _readelf("-dW", str(jni))
    assert "Shared library: [liblite_runtime.so]" in dynamic
    assert "BIND_NOW" in dynamic or "NOW" in dynamic  # -z now, as the NDK links
    exported = {line.split()[-1] for line in _readelf("--dyn-syms", "-W", str(jni)).splitlines()
                if " GLOBAL " in line and " UND " not in line and " FUNC " in line}
    assert exported == {"JNI_OnLoad"}, exported


def test_the_check_fails_on_a_library_for_4k_pages(tmp_path: Path) -> None:
    source = tmp_path / "tiny.c"
    source.write_text("int lite_tiny(int x) { return x + 1; }\n")
    library = tmp_path / "libtiny.so"
    subprocess.run(["aarch64-linux-gnu-gcc", "-shared", "-fPIC", "-Wl,-z,max-page-size=4096",
                    "-Wl,-z,common-page-size=4096", "-o", str(library), str(source)], check=True)
    problems = alignment_problems(library)
    assert problems and "needs >= 0x4000" in problems[0], problems
