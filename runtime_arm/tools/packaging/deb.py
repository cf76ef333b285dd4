"""lite-edge-runtime_<version>_<arch>.deb from a cross build of the runtime.

The package holds the shared library, the public header, a pkg-config file and two tools, lite_run
(runtime_arm/examples/run_model.c) and lite_bench (runtime_arm/tools/lite_bench.c). The tools are
compiled here against the staged header and library, exactly as a user of the package compiles
against it, so they carry no build-tree run path. Built with dpkg-deb; files owned by root.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import tempfile
from pathlib import Path

from runtime_arm.tools.packaging.targets import REPO, Target, version

PACKAGE = "lite-edge-runtime"
MAINTAINER = "lite-edge developers <lite-edge@users.noreply.github.com>"
DESCRIPTION = """\
Description: .lite neural network runtime (C API, tools)
 The lite-edge runtime runs models converted to the .lite format (ONNX, TFLite,
 PaddlePaddle sources) with NEON kernels: fp32 and int8, several threads, big-core
 affinity. This package holds the shared library, its C header lite_runtime.h, a
 pkg-config file (lite-runtime) and the lite_run and lite_bench tools.
"""
PKG_CONFIG = """\
prefix=/usr
libdir=${{prefix}}/lib/{triplet}
includedir=${{prefix}}/include

Name: lite-runtime
Description: .lite neural network runtime (C API)
Version: {version}
Libs: -L${{libdir}} -llite_runtime
Cflags: -I${{includedir}}
"""


def _run(*command: str | Path) -> str:
    return subprocess.run([str(c) for c in command], check=True, capture_output=True, text=True).stdout


def _glibc_floor(binaries: list[Path], triplet: str) -> str:
    """The newest GLIBC_x.y symbol version the binaries need: the package's libc6 dependency."""
    needed = set()
    for binary in binaries:
        needed |= set(re.findall(r"GLIBC_(\d+\.\d+)", _run(f"{triplet}-readelf", "-V", "-W", binary)))
    return max(needed, key=lambda v: tuple(int(p) for p in v.split("."))) if needed else "2.17"


def build_deb(target: Target, cross_build: Path, out_dir: Path) -> Path:
    """Builds the .deb of ``target`` from ``cross_build`` (the Makefile's build/aarch64 or build/armv7)."""
    library = cross_build / "runtime_arm" / "liblite_runtime.so"
    if not library.is_file():
        raise FileNotFoundError(f"{library}: run `make cross` first")
    pkg_version = version()
    with tempfile.TemporaryDirectory() as scratch:
        stage = Path(scratch) / PACKAGE
        libdir = stage / "usr" / "lib" / target.triplet
        include = stage / "usr" / "include"
        bindir = stage / "usr" / "bin"
        docdir = stage / "usr" / "share" / "doc" / PACKAGE
        for folder in (libdir / "pkgconfig", include, bindir, docdir, stage / "DEBIAN"):
            folder.mkdir(parents=True)
        _run(f"{target.triplet}-strip", "--strip-unneeded", "-o", libdir / "liblite_runtime.so", library)
        shutil.copy(REPO / "runtime_arm" / "include" / "lite_runtime.h", include)
        (libdir / "pkgconfig" / "lite-runtime.pc").write_text(
            PKG_CONFIG.format(triplet=target.triplet, version=pkg_version))
        tools = {"lite_run": REPO / "runtime_arm" / "examples" / "run_model.c",
                 "lite_bench": REPO / "runtime_arm" / "tools" / "lite_bench.c"}
        for name, source in tools.items():
            _run(f"{target.triplet}-gcc", *target.cflags, "-std=c11", "-O2", "-Wall", "-Wextra", "-Werror",
                 "-fno-ipa-icf", f"-I{include}", source, "-o", bindir / name, f"-L{libdir}", "-llite_runtime",
                 "-Wl,-z,max-page-size=16384", "-Wl,-z,relro", "-Wl,-z,now")
            if name != "lite_bench":  # its marker symbols serve the qemu instruction counter
                _run(f"{target.triplet}-strip", bindir / name)
        (docdir / "copyright").write_text(
            "Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/\n"
            "Upstream-Name: lite-edge\n\nFiles: *\nLicense: Apache-2.0\n"
            " On Debian systems the license is in /usr/share/common-licenses/Apache-2.0.\n")
        glibc = _glibc_floor([libdir / "liblite_runtime.so", *(bindir / n for n in tools)], target.triplet)
        installed_kb = sum(p.stat().st_size for p in stage.rglob("*") if p.is_file()) // 1024 + 1
        (stage / "DEBIAN" / "control").write_text(
            f"Package: {PACKAGE}\nVersion: {pkg_version}\nArchitecture: {target.debian_arch}\n"
            f"Maintainer: {MAINTAINER}\nInstalled-Size: {installed_kb}\nSection: libs\nPriority: optional\n"
            f"Depends: libc6 (>= {glibc}), libstdc++6 (>= 12), libgcc-s1\n{DESCRIPTION}")
        out_dir.mkdir(parents=True, exist_ok=True)
        deb = out_dir / f"{PACKAGE}_{pkg_version}_{target.debian_arch}.deb"
        _run("dpkg-deb", "--root-owner-group", "-Zxz", "--build", stage, deb)
    return deb
