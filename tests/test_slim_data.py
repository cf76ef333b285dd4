"""Calibration data handling: accepted forms, and errors reported before any work, naming the input."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import onnx
import pytest

import slim
from lite_converter.app.cli import main
from slim.calibration_data import DEFAULT_BATCH, InputSpec, load_batches
from slim.progress import ProgressBar
from tests.conftest import small_conv_net

SPEC = [InputSpec("x", np.dtype(np.float32), [1, 3, "h", "w"])]


def _sample(*shape: int) -> np.ndarray:
    return np.random.default_rng(0).standard_normal(shape).astype(np.float32)


def test_forms_of_data(tmp_path: Path) -> None:
    assert len(load_batches(_sample(5, 3, 4, 4), SPEC)) == 5  # static batch 1: one sample per batch
    dynamic = [InputSpec("x", np.dtype(np.float32), ["n", 3, 4, 4])]
    assert [b["x"].shape[0] for b in load_batches(_sample(20, 3, 4, 4), dynamic)] == [DEFAULT_BATCH, 4]
    assert len(load_batches([{"x": _sample(1, 3, 4, 4)}, _sample(1, 3, 5, 5)], SPEC)) == 2
    np.save(tmp_path / "a.npy", _sample(1, 3, 4, 4))
    np.savez(tmp_path / "b.npz", x=_sample(1, 3, 6, 6))
    np.savez(tmp_path / "c.npz", _sample(1, 3, 2, 2))  # one unnamed array for a single-input model
    assert [b["x"].shape[2] for b in load_batches(tmp_path, SPEC)] == [4, 6, 2]


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ([], "empty"),
        ([_sample(1, 3, 4, 4).astype(np.float64)], "input 'x': dtype float64"),
        ([_sample(2, 3, 4, 4)], "input 'x': shape [2, 3, 4, 4] does not fit the model's [1, 3, ?, ?]"),
        ([_sample(3, 4, 4)], "input 'x': shape [3, 4, 4]"),
        ([_sample(1, 3, 4, 4), {"y": _sample(1, 3, 4, 4)}], "calibration batch 1: unknown inputs ['y']"),
        ([np.zeros((1, 3, 0, 4), np.float32)], "input 'x': empty array"),
        (42, "not an array"),
    ],
)
def test_data_errors_name_the_input(data: object, message: str) -> None:
    with pytest.raises(slim.CalibrationDataError) as error:
        load_batches(data, SPEC)  # type: ignore[arg-type]
    assert message in str(error.value)


def test_errors_come_before_any_work(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    pipeline = sys.modules["slim.pipeline"]

    def no_calibration(*args: object, **kwargs: object) -> None:
        raise AssertionError("calibration started on bad data")

    monkeypatch.setattr(pipeline, "calibrate", no_calibration)
    good = [_sample(1, 3, 4, 4)] * 3
    with pytest.raises(slim.CalibrationDataError, match="batch 3, input 'x'"):
        slim.compress(small_conv_net(), tmp_path / "m.lite", good + [_sample(1, 3, 4, 4).astype(np.int32)])
    (tmp_path / "empty").mkdir()
    with pytest.raises(slim.CalibrationDataError, match="no .npy or .npz files"):
        slim.compress(small_conv_net(), tmp_path / "m.lite", tmp_path / "empty")
    assert not (tmp_path / "m.lite").exists()


def test_bad_config() -> None:
    with pytest.raises(ValueError, match="unknown config 'int4'"):
        slim.compress(small_conv_net(), None, [_sample(1, 3, 4, 4)], "int4")
    with pytest.raises(ValueError, match="unknown calibration algorithm 'max'"):
        slim.QuantConfig(algorithm="max")
    with pytest.raises(ValueError, match="accuracy_target and eval_fn go together"):
        slim.QuantConfig(accuracy_target=0.9)
    with pytest.raises(ValueError, match="max_fp32_layers must be >= 0"):
        slim.QuantConfig(sqnr_target=30.0, max_fp32_layers=-1)


def test_progress_bar(capsys: pytest.CaptureFixture[str]) -> None:
    bar = ProgressBar(3, "calibrating")
    for _ in range(3):
        bar.step()
    bar.close()
    err = capsys.readouterr().err
    assert "calibrating [" in err and "3/3" in err and err.endswith("\n")


def test_cli_compress(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    model = tmp_path / "net.onnx"
    onnx.save(small_conv_net(), model)
    data = tmp_path / "calibration"
    data.mkdir()
    for i in range(3):
        np.save(data / f"{i}.npy", _sample(1, 3, 6, 6) + i)
    assert main(["compress", str(model), "-o", str(tmp_path / "net.lite"), "--data", str(data),
                 "--algorithm", "avg"]) == 0
    out = capsys.readouterr().out
    # conv1, conv2, residual, pool and three layout moves, the model input's NCHW -> NHWC TRANSPOSE among
    # them (the QUANTIZE goes before it: int8 bytes moved)
    assert "int8 ops: 7, fp32 ops: 0" in out and (tmp_path / "net.lite").is_file()
    assert main(["compress", str(model), "--data", str(tmp_path / "missing")]) == 1
    assert "does not exist" in capsys.readouterr().err


def test_per_node_override_changes_only_that_node() -> None:
    batches = [_sample(1, 3, 6, 6) * (1 + 3 * i) for i in range(4)]  # growing ranges: avg < abs_max
    plain = slim.compress(small_conv_net(), None, batches, slim.QuantConfig(progress=False)).graph
    config = slim.QuantConfig(overrides={"conv1": "avg"}, progress=False)
    tuned = slim.compress(small_conv_net(), None, batches, config).graph

    def scale(graph: object, node_name: str) -> float:
        node = next(n for n in graph.nodes if n.name == node_name)  # type: ignore[attr-defined]
        return float(graph.tensors[node.outputs[0]].quant.scale[0])  # type: ignore[attr-defined]

    assert scale(tuned, "conv1") < scale(plain, "conv1")
    assert scale(tuned, "conv2") == scale(plain, "conv2")
