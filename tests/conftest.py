"""Shared fixtures (a small real conv net, ONNX + converted .lite; the sanitizer build) and the check
that every skip of a session is on the explicit list tests/expected_skips.txt (tests/expected_skips.py)."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

from tests.expected_skips import ExpectedSkips

REPO = Path(__file__).resolve().parents[1]


def pytest_configure(config: pytest.Config) -> None:
    config.pluginmanager.register(ExpectedSkips(), "expected_skips")
    # A fuzz seed dropped with a warning is coverage lost as quietly as a skip: make it a failure.
    config.addinivalue_line("filterwarnings", "error:fuzzing without")


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log):
    """`--dist loadfile` with the long qemu files split per item (tests/xdist_scheduling.py)."""
    if config.getoption("dist") != "loadfile":
        return None
    from tests.xdist_scheduling import FileScheduling

    return FileScheduling(config, log)


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if hasattr(config, "workerinput"):  # an xdist worker: the long files go out first
        from tests.xdist_scheduling import long_files_first

        items[:] = long_files_first(items)


def small_conv_net(seed: int = 0) -> onnx.ModelProto:
    """Conv(3x3, pad 1) -> Relu -> Conv(1x1) -> Add(residual) -> GlobalAveragePool, dynamic H and W.

    Small enough for fuzzing thousands of mutants, yet it exercises weights, a channels-last
    conversion, an op with two live inputs and a dynamic input shape.
    """
    rng = np.random.default_rng(seed)
    weights = {
        "w1": rng.standard_normal((8, 3, 3, 3)).astype(np.float32) * 0.3,
        "b1": rng.standard_normal(8).astype(np.float32) * 0.1,
        "w2": rng.standard_normal((8, 8, 1, 1)).astype(np.float32) * 0.3,
    }
    nodes = [
        helper.make_node("Conv", ["x", "w1", "b1"], ["c1"], pads=[1, 1, 1, 1], name="conv1"),
        helper.make_node("Relu", ["c1"], ["r1"], name="relu1"),
        helper.make_node("Conv", ["r1", "w2"], ["c2"], name="conv2"),
        helper.make_node("Add", ["c2", "r1"], ["features"], name="residual"),
        helper.make_node("GlobalAveragePool", ["features"], ["pooled"], name="pool"),
    ]
    graph = helper.make_graph(
        nodes,
        "small_conv_net",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, "height", "width"])],
        [
            helper.make_tensor_value_info("features", TensorProto.FLOAT, [1, 8, "height", "width"]),
            helper.make_tensor_value_info("pooled", TensorProto.FLOAT, [1, 8, 1, 1]),
        ],
        [numpy_helper.from_array(value, name) for name, value in weights.items()],
    )
    # IR version 8: what the installed onnxruntime (the oracle) accepts.
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], ir_version=8)


def shape_subgraph_net() -> onnx.ModelProto:
    """Conv, then Reshape to [batch, -1] with the batch read by Shape -> Gather -> Unsqueeze -> Concat."""
    w = np.random.default_rng(1).standard_normal((4, 3, 3, 3)).astype(np.float32) * 0.3
    nodes = [
        helper.make_node("Conv", ["x", "w"], ["c"], pads=[1, 1, 1, 1], strides=[2, 2], name="conv"),
        helper.make_node("Shape", ["c"], ["s"], name="shape"),
        helper.make_node("Gather", ["s", "zero"], ["n"], axis=0, name="batch"),
        helper.make_node("Unsqueeze", ["n", "axes0"], ["u"], name="unsqueeze"),
        helper.make_node("Concat", ["u", "minus_one"], ["target"], axis=0, name="concat"),
        helper.make_node("Reshape", ["c", "target"], ["flat"], name="flatten"),
        helper.make_node("Softmax", ["flat"], ["y"], axis=-1, name="softmax"),
    ]
    initializers = [
        numpy_helper.from_array(w, "w"),
        numpy_helper.from_array(np.array(0, np.int64), "zero"),
        numpy_helper.from_array(np.array([0], np.int64), "axes0"),
        numpy_helper.from_array(np.array([-1], np.int64), "minus_one"),
    ]
    graph = helper.make_graph(
        nodes, "shape_subgraph_net",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["n", 3, "h", "w"])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], initializers)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], ir_version=8)


@pytest.fixture(scope="session")
def small_conv_onnx() -> onnx.ModelProto:
    return small_conv_net()


@pytest.fixture(scope="session")
def small_conv_lite(small_conv_onnx: onnx.ModelProto) -> bytes:
    """The converted .lite bytes of :func:`small_conv_net`."""
    from lite_converter.convert import convert_onnx

    return convert_onnx(small_conv_onnx)


@pytest.fixture(scope="session")
def shape_subgraph_onnx() -> onnx.ModelProto:
    return shape_subgraph_net()


@pytest.fixture(scope="session")
def asan_build() -> Path:
    """The ASan/UBSan build directory (``make asan``): $LITE_ASAN_BUILD, default build/asan.

    A missing build is an error (``make test`` builds it first), never a skip.
    """
    configured = os.environ.get("LITE_ASAN_BUILD")
    path = Path(configured) if configured else REPO / "build" / "asan"
    if not (path / "runtime_arm").is_dir():
        pytest.fail(f"no sanitizer build in {path}: run `make asan`")
    return path


@pytest.fixture(scope="session")
def tsan_build() -> Path:
    """The ThreadSanitizer build directory (``make tsan``): $LITE_TSAN_BUILD, default build/tsan; a
    missing build fails when LITE_TSAN_BUILD is set (``make test``), else the test is skipped."""
    configured = os.environ.get("LITE_TSAN_BUILD")
    path = Path(configured) if configured else REPO / "build" / "tsan"
    if not (path / "runtime_arm" / "concurrent_interpreters").is_file():
        message = f"no ThreadSanitizer build in {path}: run `make tsan`"
        if configured:
            pytest.fail(message)
        pytest.skip(message)
    return path


# The real models of tests/test_real_models.py and tests/test_real_models_float64.py, shared so
# that a session exports and converts each once.
@pytest.fixture(scope="session")
def torch_export(tmp_path_factory: pytest.TempPathFactory) -> Callable[[str], Path]:
    """Exports an architecture on first request, then reuses the file for the whole session."""
    directory = tmp_path_factory.mktemp("torch_exports")
    cache: dict[str, Path] = {}

    from tests.models import ARCHITECTURES, export_onnx

    def get(name: str) -> Path:
        if name not in cache:
            cache[name] = export_onnx(ARCHITECTURES[name], directory)
        return cache[name]

    return get


@pytest.fixture(scope="session")
def paddleocr() -> dict[str, Path]:
    """The three PaddleOCR ONNX files, from the cache or downloaded once."""
    from lite_converter.app import zoo

    return zoo.fetch_all()


@pytest.fixture(scope="session")
def paddleocr_lite(paddleocr: dict[str, Path]) -> Callable[[str], bytes]:
    """The .lite conversion of a PaddleOCR model with its dynamic dims kept, converted once."""
    from lite_converter.convert import convert_onnx

    cache: dict[str, bytes] = {}

    def get(key: str) -> bytes:
        if key not in cache:
            cache[key] = convert_onnx(paddleocr[key])
        return cache[key]

    return get
