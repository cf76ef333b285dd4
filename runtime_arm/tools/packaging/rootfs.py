"""Debian bookworm userlands for arm64 and armhf, for running the packages under qemu-user.

There is no binfmt here, so debootstrap's second stage (which runs the target's programs) cannot
run: ``debootstrap --foreign --variant=minbase`` downloads the packages and unpacks the base, then
every downloaded package is unpacked by hand (dpkg-deb | tar, keeping the merged-/usr symlinks).
Nothing is configured (no maintainer scripts), which is enough to run programs with
``qemu-aarch64 -L ROOT`` / ``qemu-arm -L ROOT``: qemu looks up absolute paths under ROOT first.

The userlands are big (~250 MB each) and slow to make (~2 minutes each, mostly downloading), so they
live in a cache outside the repository: ``$LITE_ROOTFS_DIR``, default ``~/.cache/lite-edge/rootfs``.
A finished userland has a stamp file naming its package set; an unfinished one is made again.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

SUITE = "bookworm"
MIRROR = os.environ.get("LITE_DEBIAN_MIRROR", "http://deb.debian.org/debian")
# python3-numpy for the runtime's Python binding, python3-pip to install the wheel.
PACKAGES = ("python3", "python3-numpy", "python3-pip")
STAMP = ".lite-rootfs-complete"


def cache_dir() -> Path:
    configured = os.environ.get("LITE_ROOTFS_DIR")
    return Path(configured).expanduser() if configured else Path.home() / ".cache" / "lite-edge" / "rootfs"


def _unpack(deb: Path, root: Path) -> None:
    data = subprocess.run(["dpkg-deb", "--fsys-tarfile", str(deb)], check=True, capture_output=True).stdout
    subprocess.run(["tar", "-x", "--keep-directory-symlink", "-C", str(root)], input=data, check=True,
                   capture_output=True)


def _alternatives(root: Path) -> None:
    """The links update-alternatives would make (no maintainer script ran): numpy needs libblas.so.3
    and liblapack.so.3 in the library folder, Debian keeps them in blas/ and lapack/ under it."""
    for provider in ("blas", "lapack"):
        for library in root.glob(f"usr/lib/*/{provider}/lib{provider}.so.3"):
            link = library.parent.parent / library.name
            if not link.exists():
                link.symlink_to(f"{provider}/{library.name}")


def ensure_rootfs(debian_arch: str, progress: bool = True) -> Path:
    """The userland of ``debian_arch`` (arm64 or armhf), made when missing or unfinished."""
    root = cache_dir() / f"{SUITE}-{debian_arch}"
    expected = " ".join(PACKAGES)
    stamp = root / STAMP
    if stamp.is_file() and stamp.read_text().strip() == expected:
        return root
    if shutil.which("debootstrap") is None:
        raise RuntimeError("debootstrap is missing: apt-get install debootstrap (make package-deps does)")
    partial = root.with_name(root.name + ".partial")
    shutil.rmtree(partial, ignore_errors=True)
    partial.parent.mkdir(parents=True, exist_ok=True)
    if progress:
        print(f"making the Debian {SUITE} {debian_arch} userland in {root} (downloads ~120 MB)", flush=True)
    subprocess.run(["debootstrap", "--foreign", "--variant=minbase", f"--arch={debian_arch}",
                    f"--include={','.join(PACKAGES)}", SUITE, str(partial), MIRROR],
                   check=True, capture_output=not progress)
    debs = sorted((partial / "var" / "cache" / "apt" / "archives").glob("*.deb"))
    for deb in debs:
        _unpack(deb, partial)
    for deb in debs:  # the downloads are not needed once unpacked
        deb.unlink()
    _alternatives(partial)
    (partial / STAMP).write_text(expected + "\n")
    shutil.rmtree(root, ignore_errors=True)
    partial.rename(root)
    if progress:
        print(f"{root}: {len(debs)} packages unpacked", flush=True)
    return root
