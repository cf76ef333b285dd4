"""The runtime's backend seam on real models, and placement as the C API reports it.

The C++ test ``model_outputs_with_a_second_backend_match_cpu_only_bytes`` (runtime_arm/tests/
core_backend_tests.cc, built under ASan/UBSan) runs each model twice: CPU only, and with a test-only
second backend that takes every ADD and 1x1 CONV_2D and runs them on its own separately allocated
memory. Outputs must be the same bytes, each border copied once per invoke, no absorbed pair across
backends; PP-OCRv4 rec is also resized (placement and memory re-planned). The oracle is the
CPU-only run, itself held to onnxruntime by tests/test_real_models.py.
"""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import numpy as np

from lite_converter.app import zoo
from lite_converter.convert import convert_onnx
from runtime_arm import Interpreter
from tests.models import ARCHITECTURES, export_onnx

MODEL_TEST = "model_outputs_with_a_second_backend_match_cpu_only_bytes"


def test_real_models_on_a_second_backend_match_cpu_only(asan_build: Path, tmp_path: Path):
    binary = asan_build / "runtime_arm" / "runtime_core_tests"
    assert binary.is_file(), f"{binary} missing: build with `make asan`"
    mobilenet = tmp_path / "mobilenet_v2.lite"
    mobilenet.write_bytes(convert_onnx(export_onnx(ARCHITECTURES["mobilenet_v2"], tmp_path)))
    rec = tmp_path / "ppocr_rec.lite"
    rec.write_bytes(convert_onnx(zoo.fetch("rec")))  # dynamic width kept
    models = f"mobilenet_v2={mobilenet};rec={rec}@1x3x48x320,1x3x48x160"
    result = subprocess.run([str(binary), MODEL_TEST], capture_output=True, text=True, timeout=900,
                            check=False, env={**os.environ, "LITE_TEST_MODELS": models})
    output = result.stdout + result.stderr
    assert "AddressSanitizer" not in output and "runtime error:" not in output, output
    assert result.returncode == 0 and f"PASS {MODEL_TEST}" in result.stdout, output
    # Both models really crossed the border: ops on each side, copies every invoke.
    pattern = r"^  (\S+)( \(resized\))?: (\d+) ops on the test backend, (\d+) on the CPU, (\d+) border"
    lines = re.findall(pattern, result.stdout, re.MULTILINE)
    assert [(name, bool(resized)) for name, resized, *_ in lines] == [
        ("mobilenet_v2", False), ("rec", True), ("rec", True)], output
    for _, _, on_test, on_cpu, copies in lines:
        assert int(on_test) > 10 and int(on_cpu) > 10 and int(copies) > 10, output


def test_every_op_runs_on_the_cpu_backend(small_conv_lite: bytes):
    interpreter = Interpreter(model_content=small_conv_lite, threads=1)
    lib, handle = interpreter._lib, interpreter._it
    count = lib.lite_interpreter_profile_count(handle)
    assert count > 0
    assert lib.lite_interpreter_op_backend(handle, 0) is None, "placement reported before allocation"
    interpreter.resize_input("x", [1, 3, 12, 10])
    interpreter.allocate_tensors()
    assert [row["backend"] for row in interpreter.profile()] == ["cpu"] * count
    assert lib.lite_interpreter_op_backend(handle, count) is None
    assert lib.lite_interpreter_op_backend(handle, -1) is None
    assert lib.lite_interpreter_op_backend(None, 0) is None
    interpreter.run({"x": np.zeros((1, 3, 12, 10), np.float32)})
    assert {t["storage"] for t in interpreter.tensor_details()} <= {"none", "constant", "arena", "prepared"}
