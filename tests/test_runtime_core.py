"""Drives the runtime core's C++ unit tests (runtime_arm/tests/core_*.cc) built in the sanitizer build.

They cover the verifier (hand-built broken models), the arena planner (no two live tensors overlap,
alignment, aliasing), prepare-time evaluation and the backend seam (a test-only second backend),
with a test-only op registry. Tests that need real models (model_*) run in tests/test_backend_seam.py.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path


def test_core_unit_tests_pass_under_sanitizers(asan_build: Path):
    binary = asan_build / "runtime_arm" / "runtime_core_tests"
    assert binary.is_file(), f"{binary} missing: build with `make asan` (LITE_BUILD_TOOLS=ON)"
    result = subprocess.run([str(binary)], capture_output=True, text=True, timeout=300, check=False)
    output = result.stdout + result.stderr
    assert "AddressSanitizer" not in output and "runtime error:" not in output, output
    assert result.returncode == 0, output
    summary = re.search(r"^(\d+) tests, (\d+) failed$", result.stdout, re.MULTILINE)
    assert summary is not None, output
    passed = re.findall(r"^PASS (\w+)$", result.stdout, re.MULTILINE)
    assert int(summary.group(2)) == 0
    assert len(passed) == int(summary.group(1)) >= 30
    # Each area is covered.
    for prefix in ("verifier_", "planner_", "loader_", "shape_subgraph_", "backend_"):
        assert any(name.startswith(prefix) for name in passed), prefix
