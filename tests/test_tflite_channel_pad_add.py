"""A TFLite PAD along the channels feeding an ADD (MediaPipe's residual blocks: BlazeFace, hand recrop,
palm detection widen the shortcut 24 -> 28 channels that way): the converter schedules the PAD right
before the ADD as its input 0 (passes/place_channel_pads.py) and the runtime's ADD computes the padded
operand itself (ops/binary.cc, absorb_producer). Outputs against LiteRT's builtin kernels, on one
thread and on two; the profile shows whether the PAD was absorbed (no eval of its own, computed by the
ADD), and the cases the fusion must leave alone stay correct."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("ai_edge_litert", reason="needs the tflite extra (ai-edge-litert)")
from ai_edge_litert import schema_py_generated as s  # noqa: E402

from lite_converter.convert import convert_tflite  # noqa: E402
from runtime_arm import Interpreter  # noqa: E402
from tests.tflite_builder import TfliteModel, options, run_litert  # noqa: E402

HW = [37, 29]  # 1073 pixels: the 2-thread run splits the rows into blocks


def _model(x_channels: int, begin: int, end: int, *, pad_second: bool = False, fill: float | None = None,
           activation: str = "RELU", pad_read_twice: bool = False, spatial: bool = False) -> bytes:
    """x -> PAD -> p; b -> MUL(b, 0.5) -> m (an op between the PAD and the ADD, as the block's convs are);
    y = ADD(p, m) (or ADD(m, p)) with a fused RELU, or none, or followed by a PRELU op (which the import
    fuses into the ADD: palm detection's blocks)."""
    channels = x_channels + begin + end
    m = TfliteModel()
    x = m.tensor("x", [1, *HW, x_channels])
    out_hw = [HW[0] + 2, HW[1]] if spatial else HW
    b = m.tensor("b", [1, *out_hw, channels])
    pads = np.array([[0, 0], [1, 1] if spatial else [0, 0], [0, 0], [begin, end]], np.int32)
    padded = m.tensor("padded", [1, *out_hw, channels])
    pad_inputs = [x, m.constant("pads", pads)]
    if fill is not None:
        pad_inputs.append(m.constant("fill", np.array(fill, np.float32)))
    m.op("PADV2" if fill is not None else "PAD", pad_inputs, [padded])
    half = m.tensor("half", [1, *out_hw, channels])
    m.op("MUL", [b, m.constant("scale", np.array([0.5], np.float32))], [half], options(s.MulOptionsT()))
    y = m.tensor("y", [1, *out_hw, channels])
    fused = s.ActivationFunctionType.RELU if activation == "RELU" else s.ActivationFunctionType.NONE
    add_options = options(s.AddOptionsT(), fusedActivationFunction=fused)
    total = m.tensor("sum", [1, *out_hw, channels]) if activation == "PRELU" else y
    m.op("ADD", [half, padded] if pad_second else [padded, half], [total], add_options)
    if activation == "PRELU":
        slopes = np.linspace(-0.5, 0.75, channels, dtype=np.float32).reshape(1, 1, channels)
        m.op("PRELU", [total, m.constant("slopes", slopes)], [y])
    outputs = [y]
    if pad_read_twice:
        z = m.tensor("z", [1, *out_hw, channels])
        m.op("MUL", [padded, y], [z], options(s.MulOptionsT()))
        outputs = [z]
    return m.finish([x, b], outputs)


def _feeds(data: bytes) -> list[np.ndarray]:
    rng = np.random.default_rng(5)
    with Interpreter(model_content=convert_tflite(data)) as interpreter:
        shapes = [detail["shape"] for detail in interpreter.get_input_details()]
    return [rng.standard_normal(shape).astype(np.float32) * 3 for shape in shapes]


def _check(data: bytes, tmp_path: Path) -> bool:
    """Our outputs against LiteRT on 1 and 2 threads; whether the PAD was computed by the ADD."""
    path = tmp_path / "model.tflite"
    path.write_bytes(data)
    feeds = _feeds(data)
    theirs = run_litert(path, feeds)
    converted = convert_tflite(data)
    absorbed = []
    for threads in (1, 2):
        with Interpreter(model_content=converted, threads=threads) as interpreter:
            interpreter.set_profiling(True)
            ours = list(interpreter.run(list(feeds)).values())
            rows = interpreter.profile()
        for mine, ref in zip(ours, theirs, strict=True):
            # PAD, MUL by 0.5 and ADD + RELU: the same float operations as LiteRT's builtin kernels.
            np.testing.assert_allclose(mine, ref, rtol=1e-6, atol=1e-6, err_msg=f"{threads} thread(s)")
        pad = next(r for r in rows if r["op"] == "PAD")
        add = next(r for r in rows if r["op"] == "ADD")
        absorbed.append(pad["calls"] == 0 and pad["computed_by"] == add["index"])
    assert absorbed[0] == absorbed[1]
    return absorbed[0]


@pytest.mark.parametrize(("x_channels", "begin", "end"),
                         [(24, 0, 4), (8, 0, 8), (42, 0, 6), (5, 3, 2), (16, 16, 0)])
@pytest.mark.parametrize("pad_second", [False, True], ids=["pad_first", "pad_second"])
def test_channel_pad_is_computed_by_the_add(x_channels: int, begin: int, end: int, pad_second: bool,
                                            tmp_path: Path) -> None:
    assert _check(_model(x_channels, begin, end, pad_second=pad_second), tmp_path)


@pytest.mark.parametrize("fill", [0.0, -0.0, 1.5])
def test_padv2_fill_value(fill: float, tmp_path: Path) -> None:
    assert _check(_model(12, 2, 6, fill=fill, activation="NONE"), tmp_path)


@pytest.mark.parametrize(("x_channels", "begin", "end"), [(32, 0, 32), (20, 1, 3)])
def test_add_with_a_fused_prelu(x_channels: int, begin: int, end: int, tmp_path: Path) -> None:
    assert _check(_model(x_channels, begin, end, activation="PRELU"), tmp_path)


def test_pad_read_twice_stays_a_pass(tmp_path: Path) -> None:
    assert not _check(_model(24, 0, 4, pad_read_twice=True), tmp_path)


def test_spatial_pad_stays_a_pass(tmp_path: Path) -> None:
    assert not _check(_model(24, 0, 4, spatial=True), tmp_path)
