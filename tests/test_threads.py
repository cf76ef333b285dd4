"""Threads change speed, never results: 1, 2 and 4 threads give bit-identical outputs on real models.

The dense ops split their work into tiles whose bounds do not depend on the thread count, and every
output value is computed by one microkernel call in a fixed summation order, so the result must be
the same bytes whatever the number of threads. Each run is also held to onnxruntime with the
real-model rule of tests/models/oracle.py, so "identical" cannot mean "identically wrong".
Models: torch MobileNetV2 and ResNet-18 (1x1 and im2col GEMM convolutions, FULLY_CONNECTED) and
PaddleOCR PP-OCRv4 rec on rendered text (MATMUL, dynamic width) and det on a rendered page.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import onnxruntime
import pytest

from lite_converter.app import zoo
from lite_converter.app.demo import ocr_input
from lite_converter.convert import convert_onnx
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


def test_ppocr_det_bit_identical_across_threads():
    """PP-OCRv4 det on a rendered page: its CONCAT, nearest RESIZE, GLOBAL_AVERAGE_POOL (SE blocks),
    transposed convolutions and affine MUL/ADD run as blocks on the pool."""
    path = zoo.fetch("det")
    image, _ = ocr_input("det", (1, 3, 320, 320), 5)
    _assert_identical_and_correct(convert_onnx(path), path, {"x": image}, "PP-OCRv4 det")


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


# Large enough that the float32 ADD/SUB/MUL/DIV path cuts the output into row blocks on the pool,
# with each kind of broadcast over the cut axis: same shape, per channel, per row, a scalar, an input
# of lower rank, batch > 1, and the cut falling on the last dim.
_BROADCAST_CASES = [
    ("Add", (1, 64, 80, 48), (1, 64, 80, 48)),
    ("Mul", (1, 64, 80, 48), (1, 1, 1, 48)),
    ("Sub", (1, 1, 90, 700), (1, 1, 90, 1)),
    ("Div", (2, 3, 120, 100), (3, 1, 1)),
    ("Mul", (1, 1, 1, 70001), ()),
    ("Add", (1, 96, 2, 130), (96, 1, 130)),
]


@pytest.mark.parametrize(("op", "a_shape", "b_shape"), _BROADCAST_CASES)
def test_broadcast_binary_ops_bit_identical_across_threads(op: str, a_shape: tuple[int, ...],
                                                           b_shape: tuple[int, ...], tmp_path: Path):
    import onnx
    from onnx import TensorProto, helper

    graph = helper.make_graph(
        [helper.make_node(op, ["a", "b"], ["y"])], "binary",
        [helper.make_tensor_value_info("a", TensorProto.FLOAT, list(a_shape)),
         helper.make_tensor_value_info("b", TensorProto.FLOAT, list(b_shape))],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    path = tmp_path / "binary.onnx"
    onnx.save(model, path)
    rng = np.random.default_rng(11)
    feeds = {"a": rng.uniform(-3.0, 3.0, size=a_shape).astype(np.float32),
             "b": rng.uniform(0.5, 2.0, size=b_shape).astype(np.float32)}
    runs = _runs_by_threads(convert_onnx(path), feeds)
    expected = onnxruntime.InferenceSession(str(path), providers=["CPUExecutionProvider"]).run(None, feeds)[0]
    for threads, outputs in runs.items():
        (value,) = outputs.values()
        assert np.array_equal(value, runs[1]["y"]), f"{op} {a_shape} x {b_shape}: {threads} threads differ"
        # IEEE add / sub / mul / div of the same operands: onnxruntime's exact bytes
        assert np.array_equal(value, expected), f"{op} {a_shape} x {b_shape}: {threads} threads != ort"


def _check_single_node(tmp_path: Path, node, x: np.ndarray, initializers: list, what: str) -> None:
    """One float32 node reading x (and initializers) -> y: the same bytes at 1, 2 and 4 threads, and
    within 1e-5 of onnxruntime."""
    import onnx
    from onnx import TensorProto, helper

    graph = helper.make_graph([node], "single_node",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, x.shape)],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], initializers)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    path = tmp_path / "single_node.onnx"
    onnx.save(model, path)
    feeds = {"x": x}
    runs = _runs_by_threads(convert_onnx(path), feeds)
    expected = onnxruntime.InferenceSession(str(path), providers=["CPUExecutionProvider"]).run(None, feeds)[0]
    for threads, outputs in runs.items():
        (value,) = outputs.values()
        assert np.array_equal(value, runs[1]["y"]), f"{what}: {threads} threads differ from 1 thread"
        np.testing.assert_allclose(value, expected, rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("mode", ["nearest", "linear"])
def test_resize_bit_identical_across_threads(mode: str, tmp_path: Path):
    """RESIZE (NCHW scales 2x on an odd-sized map, cut into output-row blocks on the pool): the same
    bytes at 1, 2 and 4 threads, and onnxruntime's values."""
    from onnx import helper, numpy_helper

    scales = numpy_helper.from_array(np.array([1.0, 1.0, 2.0, 2.0], dtype=np.float32), "scales")
    x = np.random.default_rng(5).uniform(-4.0, 4.0, size=(2, 16, 61, 67)).astype(np.float32)
    node = helper.make_node("Resize", ["x", "", "scales"], ["y"], mode=mode)
    _check_single_node(tmp_path, node, x, [scales], mode)


@pytest.mark.parametrize("shape", [(64, 300), (3, 40000), (2, 5, 7, 11)])
def test_layer_norm_bit_identical_across_threads(shape: tuple[int, ...], tmp_path: Path):
    """LAYER_NORM (rows in blocks of >= ~16K values on the pool, or one row per task when a row is
    longer): the same bytes at 1, 2 and 4 threads, within 1e-5 of onnxruntime, rows offset by 100
    times their spread."""
    from onnx import helper, numpy_helper

    inner = shape[-1]
    rng = np.random.default_rng(7)
    params = [numpy_helper.from_array(rng.uniform(0.5, 1.5, inner).astype(np.float32), "scale"),
              numpy_helper.from_array(rng.uniform(-1.0, 1.0, inner).astype(np.float32), "bias")]
    x = (100.0 + rng.standard_normal(shape)).astype(np.float32)
    node = helper.make_node("LayerNormalization", ["x", "scale", "bias"], ["y"], axis=-1, epsilon=1e-5)
    _check_single_node(tmp_path, node, x, params, str(shape))
