"""The C example (runtime_arm/examples/run_model.c), compiled with plain `cc` against only the
public header and the shared library, gives byte-identical outputs to the Python binding, and
matches onnxruntime."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import numpy as np
import onnxruntime as ort
import pytest

from runtime_arm import Interpreter
from runtime_arm._library import library_path

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def run_model(tmp_path_factory: pytest.TempPathFactory) -> Path:
    compiler = shutil.which("cc")
    assert compiler is not None, "no C compiler (cc) on PATH"
    library = library_path()
    binary = tmp_path_factory.mktemp("c_example") / "run_model"
    command = [
        compiler, "-std=c99", "-Wall", "-Wextra", "-Werror", "-pedantic",
        "-I", str(REPO / "runtime_arm" / "include"),
        str(REPO / "runtime_arm" / "examples" / "run_model.c"),
        "-o", str(binary),
        str(library), f"-Wl,-rpath,{library.parent}",
    ]
    result = subprocess.run(command, capture_output=True, text=True, check=False)
    assert result.returncode == 0, result.stderr
    return binary


def test_c_example_matches_python_binding_and_onnxruntime(
    tmp_path, run_model, small_conv_onnx, small_conv_lite
):
    model = tmp_path / "small.lite"
    model.write_bytes(small_conv_lite)
    x = np.random.default_rng(7).uniform(-1, 1, size=(1, 3, 12, 10)).astype(np.float32)
    (tmp_path / "in.raw").write_bytes(x.tobytes())
    result = subprocess.run(
        [str(run_model), str(model), "--shape", "0:1x3x12x10", "--input", str(tmp_path / "in.raw"),
         "--output", str(tmp_path / "out.raw")],
        capture_output=True, text=True, timeout=60, check=False)
    assert result.returncode == 0, result.stderr
    assert "output 0 'features' float32 [1, 8, 12, 10]:" in result.stdout
    assert "output 1 'pooled' float32 [1, 8, 1, 1]:" in result.stdout

    ours = Interpreter(model).run({"x": x})
    raw = (tmp_path / "out.raw").read_bytes()
    expected = ours["features"].tobytes() + ours["pooled"].tobytes()
    assert raw == expected  # same library, same input: bit-identical

    ref = ort.InferenceSession(small_conv_onnx.SerializeToString()).run(None, {"x": x})
    c_features = np.frombuffer(raw[: ours["features"].nbytes], np.float32).reshape(1, 8, 12, 10)
    np.testing.assert_allclose(c_features, ref[0], rtol=1e-4, atol=1e-4)
    # The printed first values are the output's first values.
    printed = result.stdout.splitlines()[0].split(":", 1)[1].split()
    np.testing.assert_allclose([float(v) for v in printed], c_features.reshape(-1)[:8], rtol=1e-5)


def test_c_example_reports_errors(tmp_path, run_model, small_conv_lite):
    model = tmp_path / "small.lite"
    model.write_bytes(small_conv_lite)
    result = subprocess.run([str(run_model), str(model)], capture_output=True, text=True, timeout=60,
                            check=False)
    assert result.returncode == 1
    assert "resize_input" in result.stderr
    result = subprocess.run([str(run_model), str(tmp_path / "missing.lite")], capture_output=True, text=True,
                            timeout=60, check=False)
    assert result.returncode == 1 and "missing.lite" in result.stderr
    # Pattern inputs (no --input file) run too.
    result = subprocess.run([str(run_model), str(model), "--shape", "0:1x3x4x4", "--repeat", "2"],
                            capture_output=True, text=True, timeout=60, check=False)
    assert result.returncode == 0, result.stderr
    assert "arena bytes:" in result.stdout
