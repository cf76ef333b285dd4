"""The exported Paddle fixtures and the comparison rule the Paddle frontend tests share.

Fixtures are exported by tests/paddle_oracle.py in two subprocesses (ProgramDesc and PIR, run
side by side) into ``$LITE_CACHE_DIR/paddle-fixtures/<key>``, the key hashing the case files and
Paddle's version, so a second run of the suite reuses them and a changed case re-exports.
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np

from lite_converter.app.zoo import cache_dir

REPO = Path(__file__).resolve().parents[1]
FORMATS = ("legacy", "pir")
_SOURCES = ("tests/paddle_op_cases.py", "tests/paddle_nets.py", "tests/paddle_oracle.py")
EXPORT_TIMEOUT_S = 1200


def fixtures_key() -> str:
    digest = hashlib.sha256(importlib.metadata.version("paddlepaddle").encode())
    for source in _SOURCES:
        digest.update((REPO / source).read_bytes())
    return digest.hexdigest()[:16]


def export_fixtures() -> Path:
    """The fixture root (one folder per format, one per case), exported when not cached."""
    root = cache_dir() / "paddle-fixtures" / fixtures_key()
    if all((root / fmt / "report.json").is_file() for fmt in FORMATS):
        return root
    partial = root.with_name(root.name + f".{os.getpid()}.partial")
    shutil.rmtree(partial, ignore_errors=True)
    env = {**os.environ, "PYTHONPATH": str(REPO), "GLOG_minloglevel": "2"}
    processes = [
        subprocess.Popen(
            [sys.executable, "-m", "tests.paddle_oracle", "export", fmt, str(partial / fmt)],
            cwd=REPO,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        for fmt in FORMATS
    ]
    for process in processes:
        output, _ = process.communicate(timeout=EXPORT_TIMEOUT_S)
        if process.returncode != 0:
            raise RuntimeError(f"exporting the Paddle fixtures failed:\n{output[-4000:]}")
    if root.exists():
        shutil.rmtree(root)
    partial.rename(root)
    return root


def export_report(root: Path, fmt: str) -> dict[str, str]:
    return json.loads((root / fmt / "report.json").read_text())


def tolerance(reference: np.ndarray) -> float:
    """1e-4 * max(1, max|ref|) for floats (the project's fp32 bound); integers must be equal."""
    if reference.dtype.kind not in "fc" or reference.size == 0:
        return 0.0
    return 1e-4 * max(1.0, float(np.abs(reference).max()))


def compare(ours: dict[str, np.ndarray], reference: dict[str, np.ndarray], what: str) -> None:
    """Asserts every reference output is matched by ours in shape, dtype and value."""
    assert set(ours) == set(reference), f"{what}: outputs {sorted(ours)} vs Paddle's {sorted(reference)}"
    for name, expected in reference.items():
        got = ours[name]
        assert got.shape == expected.shape, f"{what} '{name}': shape {got.shape} vs Paddle's {expected.shape}"
        assert got.dtype == expected.dtype, f"{what} '{name}': dtype {got.dtype} vs Paddle's {expected.dtype}"
        if expected.size == 0:
            continue
        error = float(np.abs(got.astype(np.float64) - expected.astype(np.float64)).max())
        assert error <= tolerance(expected), (
            f"{what} '{name}': max |ours - Paddle| = {error:.3g} > {tolerance(expected):.3g}"
        )
