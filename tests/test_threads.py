"""Threads change speed, never results: 1, 2 and 4 threads give bit-identical outputs on real models.

The dense ops split their work into tiles whose bounds do not depend on the thread count, and every
output value is computed by one microkernel call in a fixed summation order, so the result must be
the same bytes whatever the number of threads. Each run is also held to onnxruntime with the
real-model rule of tests/models/oracle.py, so "identical" cannot mean "identically wrong".
Models: torch MobileNetV2 and ResNet-18 (1x1 and im2col GEMM convolutions, FULLY_CONNECTED) and
PaddleOCR PP-OCRv4 rec on rendered text (MATMUL, dynamic width).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import onnxruntime
import pytest

from lite_converter import zoo
from lite_converter.convert import convert_onnx
from lite_converter.demo import ocr_input
from runtime_arm import Interpreter
from tests.models import ARCHITECTURES, export_onnx
from tests.models.oracle import assert_matches_onnxruntime

THREAD_COUNTS = (1, 2, 4)
REPO = Path(__file__).resolve().parents[1]


def _runs_by_threads(data: bytes, feeds: dict[str, np.ndarray]) -> dict[int, dict[str, np.ndarray]]:
    return {t: Interpreter(model_content=data, threads=t).run(feeds) for t in THREAD_COUNTS}


def _assert_identical_and_correct(data: bytes, onnx_path: Path, feeds: dict[str, np.ndarray],
                                  what: str) -> None:
    runs = _runs_by_threads(data, feeds)
    for threads, outputs in runs.items():
        for name, value in outputs.items():
            assert np.array_equal(value, runs[1][name]), (
                f"{what} {name}: {threads} threads differ from 1 thread by "
                f"{float(np.max(np.abs(value - runs[1][name]))):.3g}")
    assert_matches_onnxruntime(runs[2], onnx_path, feeds, f"{what} (2 threads)")


@pytest.mark.parametrize("name", ["mobilenet_v2", "resnet18"])
def test_torch_cnn_bit_identical_across_threads(name: str, tmp_path: Path):
    arch = ARCHITECTURES[name]
    path = export_onnx(arch, tmp_path)
    feeds = {"input": np.random.default_rng(3).uniform(-2.0, 2.0, size=arch.input_shape).astype(np.float32)}
    _assert_identical_and_correct(convert_onnx(path), path, feeds, name)


def test_ppocr_rec_bit_identical_across_threads():
    path = zoo.fetch("rec")
    image, _ = ocr_input("rec", (1, 3, 48, 320), 5)
    _assert_identical_and_correct(convert_onnx(path), path, {"x": image}, "PP-OCRv4 rec")


_MASKED_RUN = """
import sys
import numpy as np
from runtime_arm import Interpreter
data = open(sys.argv[1], "rb").read()
image = np.load(sys.argv[2])
out = Interpreter(model_content=data, threads=int(sys.argv[4])).run({"x": image})
np.save(sys.argv[3], next(iter(out.values())))
"""


@pytest.mark.parametrize("mask", ["0", "0x1"])
def test_cpu_feature_mask_selects_other_microkernels(mask: str, tmp_path: Path):
    """LITE_CPU_FEATURES_MASK=0 (portable C microkernel) and 0x1 (AVX2 only on x86) run the whole of
    PP-OCRv4 rec through other GEMM variants than this host's best: still onnxruntime's answer, and
    still identical across thread counts. A fresh process per run: the mask is read at first use."""
    path = zoo.fetch("rec")
    image, _ = ocr_input("rec", (1, 3, 48, 320), 6)
    (tmp_path / "m.lite").write_bytes(convert_onnx(path))
    np.save(tmp_path / "x.npy", image)
    env = {**os.environ, "LITE_CPU_FEATURES_MASK": mask}
    outputs = []
    for threads in (1, 2):
        result = tmp_path / f"y{threads}.npy"
        command = [sys.executable, "-c", _MASKED_RUN, str(tmp_path / "m.lite"), str(tmp_path / "x.npy"),
                   str(result), str(threads)]
        subprocess.run(command, check=True, env=env, cwd=REPO)
        outputs.append(np.load(result))
    assert np.array_equal(outputs[0], outputs[1]), f"mask {mask}: 2 threads differ from 1"
    name = onnxruntime.InferenceSession(str(path), providers=["CPUExecutionProvider"]).get_outputs()[0].name
    assert_matches_onnxruntime({name: outputs[0]}, path, {"x": image}, f"PP-OCRv4 rec, cpu mask {mask}")
