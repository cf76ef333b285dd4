"""TFLite ADD / SUB / MUL followed by an activation op of its own (RELU, RELU6, LEAKY_RELU, PRELU with one
slope or one per channel): imported as the binary op's fused activation, as MediaPipe's residual blocks
need (BlazeFace: 16 ADD -> RELU, iris: 26 ADD -> PRELU), and left as its own node when the sum is read
elsewhere or is a graph output. Outputs against LiteRT either way, on one thread and on two (the
binary op's row blocks on the pool)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("ai_edge_litert", reason="needs the tflite extra (ai-edge-litert)")
from ai_edge_litert import schema_py_generated as s  # noqa: E402

from lite_converter.convert import convert_tflite, load_model, lower  # noqa: E402
from runtime_arm import Interpreter  # noqa: E402
from tests.tflite_builder import TfliteModel, options, run_litert  # noqa: E402

SHAPE = [1, 40, 33, 12]  # 15840 values: the 2-thread run splits the rows into blocks
CHANNELS = SHAPE[-1]
BINARY_OPTIONS = {"ADD": s.AddOptionsT, "SUB": s.SubOptionsT, "MUL": s.MulOptionsT}


def _model(binary: str, activation: str, *, broadcast: bool = False, sum_read_twice: bool = False,
           sum_is_output: bool = False, slope_shape: tuple[int, ...] = (1, 1, CHANNELS)) -> bytes:
    m = TfliteModel()
    a = m.tensor("a", SHAPE)
    b = m.tensor("b", [1, 1, 1, CHANNELS] if broadcast else SHAPE)
    total = m.tensor("sum", SHAPE)
    y = m.tensor("y", SHAPE)
    m.op(binary, [a, b], [total], options(BINARY_OPTIONS[binary]()))
    if activation == "PRELU":
        size = int(np.prod(slope_shape))
        slope = np.linspace(-0.5, 0.75, size, dtype=np.float32).reshape(slope_shape)
        m.op("PRELU", [total, m.constant("slope", slope)], [y])
    elif activation == "LEAKY_RELU":
        m.op("LEAKY_RELU", [total], [y], options(s.LeakyReluOptionsT(), alpha=0.125))
    else:
        m.op(activation, [total], [y])
    outputs = [y, total] if sum_is_output else [y]
    if sum_read_twice:
        z = m.tensor("z", SHAPE)
        m.op("ADD", [total, y], [z], options(s.AddOptionsT()))
        outputs = [z]
    return m.finish([a, b], outputs)


def _feeds(broadcast: bool) -> list[np.ndarray]:
    rng = np.random.default_rng(11)
    b_shape = [1, 1, 1, CHANNELS] if broadcast else SHAPE
    return [rng.standard_normal(shape).astype(np.float32) * 4 for shape in (SHAPE, b_shape)]


def _check(data: bytes, feeds: list[np.ndarray], tmp_path: Path) -> None:
    path = tmp_path / "model.tflite"
    path.write_bytes(data)
    theirs = run_litert(path, feeds)
    converted = convert_tflite(data)
    for threads in (1, 2):
        with Interpreter(model_content=converted, threads=threads) as interpreter:
            ours = list(interpreter.run(list(feeds)).values())
        for mine, ref in zip(ours, theirs, strict=True):
            # ADD/SUB/MUL then a piecewise-linear activation: the same float operations as LiteRT.
            np.testing.assert_allclose(mine, ref, rtol=1e-6, atol=1e-6, err_msg=f"{threads} thread(s)")


def _ops(data: bytes) -> list[str]:
    return [node.op_type for node in lower(load_model(data, frontend="tflite")).nodes]


@pytest.mark.parametrize("binary", ["ADD", "SUB", "MUL"])
@pytest.mark.parametrize("activation", ["RELU", "RELU6", "LEAKY_RELU", "PRELU"])
@pytest.mark.parametrize("broadcast", [False, True], ids=["same", "broadcast"])
def test_activation_after_binary_is_fused(
    binary: str, activation: str, broadcast: bool, tmp_path: Path
) -> None:
    data = _model(binary, activation, broadcast=broadcast)
    ops = _ops(data)
    assert ops == [binary], ops
    _check(data, _feeds(broadcast), tmp_path)


@pytest.mark.parametrize("slope_shape", [(CHANNELS,), (1, 1, 1, CHANNELS), (1,)], ids=["c", "nhwc", "one"])
def test_prelu_slope_shapes(slope_shape: tuple[int, ...], tmp_path: Path) -> None:
    data = _model("ADD", "PRELU", slope_shape=slope_shape)
    assert _ops(data) == ["ADD"]
    _check(data, _feeds(False), tmp_path)


def test_prelu_with_slopes_per_pixel_stays(tmp_path: Path) -> None:
    data = _model("ADD", "PRELU", slope_shape=(40, 33, CHANNELS))
    assert _ops(data) == ["ADD", "PRELU"]
    _check(data, _feeds(False), tmp_path)


@pytest.mark.parametrize("case", ["sum_read_twice", "sum_is_output"])
@pytest.mark.parametrize("activation", ["RELU", "PRELU"])
def test_activation_stays_when_the_sum_is_needed(case: str, activation: str, tmp_path: Path) -> None:
    data = _model("ADD", activation, **{case: True})
    assert activation in _ops(data)
    _check(data, _feeds(False), tmp_path)
