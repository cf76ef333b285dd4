"""The lite_edge wheel for a Raspberry Pi: the Python packages and the ARM runtime library.

``runtime_arm`` is a ctypes binding, so the wheel is ``py3-none-<platform>``: any Python 3 on that
platform loads the library that sits beside ``runtime_arm/__init__.py``. Which files go in is read
from pyproject.toml's [tool.scikit-build] (wheel.packages, wheel.exclude), as for the host wheel.
The runtime needs numpy only; the converter's dependencies are the ``convert`` extra, so a Pi that
only runs models does not install onnx. The wheel format: PEP 427 (zip, dist-info, RECORD hashes).
"""

from __future__ import annotations

import base64
import fnmatch
import hashlib
import zipfile
from pathlib import Path

import tomllib

from runtime_arm.tools.packaging.targets import REPO, Target, version

DIST_NAME = "lite_edge"
RUNTIME_REQUIREMENT = "numpy"


def _selected_files() -> list[tuple[Path, str]]:
    """(file, path in the wheel) of every Python-package file the host wheel would carry."""
    project = tomllib.loads((REPO / "pyproject.toml").read_text())
    config = project["tool"]["scikit-build"]["wheel"]
    excluded = list(config.get("exclude", []))
    files = []
    for package in config["packages"]:
        for path in sorted((REPO / package).rglob("*")):
            relative = path.relative_to(REPO).as_posix()
            if not path.is_file() or path.suffix in (".so", ".pyc") or \
                    any(fnmatch.fnmatch(relative, pattern) for pattern in excluded):
                continue
            files.append((path, relative))
    return files


def _metadata(project: dict) -> str:
    requirements = project["dependencies"]
    runtime = [r for r in requirements if r.startswith(RUNTIME_REQUIREMENT)]
    convert = [r for r in requirements if not r.startswith(RUNTIME_REQUIREMENT)]
    lines = ["Metadata-Version: 2.1", f"Name: {project['name']}", f"Version: {project['version']}",
             f"Summary: {project['description']}", f"License: {project['license']['text']}",
             f"Requires-Python: {project['requires-python']}"]
    lines += [f"Requires-Dist: {r}" for r in runtime]
    lines += ["Provides-Extra: convert"] + [f'Requires-Dist: {r}; extra == "convert"' for r in convert]
    return "\n".join(lines) + "\n\n" + (REPO / "README.md").read_text()


def _record_line(name: str, data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{name},sha256={digest},{len(data)}"


def build_wheel(target: Target, library: Path, out_dir: Path) -> Path:
    """The wheel of ``target`` with ``library`` (a stripped ARM liblite_runtime.so) in runtime_arm/."""
    project = tomllib.loads((REPO / "pyproject.toml").read_text())["project"]
    tag = f"py3-none-{target.wheel_platform}"
    dist_info = f"{DIST_NAME}-{version()}.dist-info"
    out_dir.mkdir(parents=True, exist_ok=True)
    wheel = out_dir / f"{DIST_NAME}-{version()}-{tag}.whl"
    entries: list[tuple[str, bytes]] = [(name, path.read_bytes()) for path, name in _selected_files()]
    entries.append(("runtime_arm/liblite_runtime.so", library.read_bytes()))
    scripts = project.get("scripts", {})
    entries.append((f"{dist_info}/METADATA", _metadata(project).encode()))
    entries.append((f"{dist_info}/WHEEL", (f"Wheel-Version: 1.0\nGenerator: lite-edge make package\n"
                                           f"Root-Is-Purelib: false\nTag: {tag}\n").encode()))
    if scripts:
        console = "".join(f"{name} = {entry}\n" for name, entry in scripts.items())
        entries.append((f"{dist_info}/entry_points.txt", f"[console_scripts]\n{console}".encode()))
    record = [_record_line(name, data) for name, data in entries] + [f"{dist_info}/RECORD,,"]
    entries.append((f"{dist_info}/RECORD", ("\n".join(record) + "\n").encode()))
    with zipfile.ZipFile(wheel, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data in entries:
            info = zipfile.ZipInfo(name, date_time=(2026, 1, 1, 0, 0, 0))  # reproducible
            info.external_attr = (0o755 if name.endswith(".so") else 0o644) << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, data)
    return wheel
