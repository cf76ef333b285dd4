"""The `lite` command with the models users have: a folder of them, .onnx / .tflite given to inspect,
run and compress, files of no known format, the permissions of written files, and error messages
that name the user's paths (never our temp files). Each test checks the output and the exit status
of the real command (a subprocess)."""

from __future__ import annotations

import stat
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

pytest.importorskip("ai_edge_litert", reason="needs the tflite extra (ai-edge-litert)")
from ai_edge_litert import schema_py_generated as s  # noqa: E402

from tests.test_cli import lite  # noqa: E402
from tests.tflite_builder import TfliteModel, options, run_litert  # noqa: E402


class Result:
    """What `lite` printed and returned, run in this process (the fast way, for most tests)."""

    def __init__(self, returncode: int, stdout: str, stderr: str) -> None:
        self.returncode, self.stdout, self.stderr = returncode, stdout, stderr


@pytest.fixture
def lite_here(capsys: pytest.CaptureFixture[str]):  # noqa: ANN201 - a callable
    from lite_converter.app.cli import main

    def run(*args: str) -> Result:
        capsys.readouterr()
        code = main(list(args))
        captured = capsys.readouterr()
        return Result(code, captured.out, captured.err)

    return run


def conv_onnx(path: Path, output_dims: list[int | str] | None = None) -> Path:
    """Four stride-2 3x3 convolutions on a [1, 3, height, width] input."""
    nodes, weights, previous, channels = [], [], "x", 3
    for i in range(4):
        w = np.random.default_rng(i).standard_normal((4, channels, 3, 3)).astype(np.float32)
        weights.append(numpy_helper.from_array(w, f"w{i}"))
        nodes.append(
            helper.make_node("Conv", [previous, f"w{i}"], [f"c{i}"], strides=[2, 2], pads=[1, 1, 1, 1])
        )
        previous, channels = f"c{i}", 4
    graph = helper.make_graph(
        nodes,
        "convs",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, "height", "width"])],
        [helper.make_tensor_value_info(previous, TensorProto.FLOAT, output_dims)],
        weights,
    )
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]), path)
    return path


def prelu_tflite(path: Path, unsupported: bool = False) -> Path:
    m = TfliteModel()
    x, y = m.tensor("x", [1, 4, 4, 3]), m.tensor("y", [1, 4, 4, 3])
    alpha = m.constant("alpha", np.array([0.1, 0.2, -0.3], np.float32))
    m.op("PRELU", [x, alpha], [y])
    outputs = [y]
    if unsupported:
        z = m.tensor("z", [1, 4, 4, 3])
        m.op("CUSTOM", [y], [z], custom="MaxUnpooling2D")
        outputs = [z]
    path.write_bytes(m.finish([x], outputs))
    return path


# -- lite convert DIR/ ----------------------------------------------------------------------------
def test_convert_folder_goes_on_after_a_failure(tmp_path: Path) -> None:
    models = tmp_path / "models"
    models.mkdir()
    conv_onnx(models / "a_convs.onnx")
    prelu_tflite(models / "b_prelu.tflite")
    prelu_tflite(models / "c_unpool.tflite", unsupported=True)
    (models / "d_broken.onnx").write_bytes(b"\x08\x07garbage that is no protobuf \xff\xff")
    prelu_tflite(models / "e_renamed.bin")  # a .tflite by its identifier
    (models / "notes.txt").write_text("not a model")
    out = tmp_path / "out"
    result = lite("convert", str(models), "-o", str(out))
    assert result.returncode == 1, result.stdout + result.stderr
    lines = result.stdout.splitlines()
    assert [line.split(":")[0] for line in lines[:5]] == [
        "[1/5] a_convs.onnx",
        "[2/5] b_prelu.tflite",
        "[3/5] c_unpool.tflite",
        "[4/5] d_broken.onnx",
        "[5/5] e_renamed.bin",
    ], result.stdout
    table = {line.split()[0]: line.split() for line in lines[5:12] if line.split()}
    assert table["a_convs.onnx"][1:3] == ["ONNX", "ok"] and table["b_prelu.tflite"][1:3] == ["TFLite", "ok"]
    assert table["e_renamed.bin"][1:3] == ["TFLite", "ok"]
    assert table["c_unpool.tflite"][2] == "FAILED" and table["d_broken.onnx"][2] == "FAILED"
    assert "converted 3 of 5 models" in result.stdout and "2 failed" in result.stdout
    assert "unsupported custom op MaxUnpooling2D: 1 node(s) 'z'" in result.stdout
    assert sorted(p.name for p in out.iterdir()) == ["a_convs.lite", "b_prelu.lite", "e_renamed.lite"]
    assert "Traceback" not in result.stdout + result.stderr


def test_convert_folder_all_ok_exits_zero_and_writes_beside(tmp_path: Path) -> None:
    conv_onnx(tmp_path / "m.onnx")
    prelu_tflite(tmp_path / "m.tflite")  # one stem, two models: two distinct outputs
    result = lite("convert", str(tmp_path))
    assert result.returncode == 0, result.stdout + result.stderr
    assert (tmp_path / "m.onnx.lite").is_file() and (tmp_path / "m.tflite.lite").is_file()
    assert "converted 2 of 2 models" in result.stdout


def test_convert_empty_folder_fails(tmp_path: Path) -> None:
    result = lite("convert", str(tmp_path))
    assert result.returncode == 1 and "no .onnx, .tflite or Paddle models" in result.stdout


# -- lite inspect / run take source models --------------------------------------------------------
def test_inspect_and_run_take_onnx_and_tflite(tmp_path: Path, lite_here) -> None:
    onnx_path, tflite_path = conv_onnx(tmp_path / "convs.onnx"), prelu_tflite(tmp_path / "prelu.tflite")
    result = lite_here("inspect", str(onnx_path))
    assert result.returncode == 0 and "converted in memory from ONNX" in result.stdout, result.stderr
    assert "CONV_2D    4" in result.stdout and "[1,3,height,width]" in result.stdout
    result = lite_here("inspect", str(tflite_path))
    assert (
        result.returncode == 0
        and "converted in memory from TFLite" in result.stdout
        and "PRELU" in result.stdout
    )
    assert sorted(tmp_path.iterdir()) == sorted([onnx_path, tflite_path]), "nothing is written"

    x = np.random.default_rng(1).standard_normal((1, 4, 4, 3)).astype(np.float32)
    np.savez(tmp_path / "in.npz", x=x)
    result = lite_here(
        "run", str(tflite_path), "--inputs", str(tmp_path / "in.npz"), "--out", str(tmp_path / "o.npz")
    )
    assert result.returncode == 0 and "converted" in result.stdout and "from TFLite" in result.stdout, (
        result.stderr
    )
    with np.load(tmp_path / "o.npz") as outputs:
        np.testing.assert_allclose(outputs["y"], run_litert(tflite_path, [x])[0], rtol=1e-6, atol=1e-6)

    result = lite_here("run", str(onnx_path), "--input-shape", "x=1,3,32,24")
    assert result.returncode == 0, result.stderr
    assert "c3: float32 [1, 4, 2, 2]" in result.stdout, result.stdout


def test_unknown_format_is_named_not_parsed_as_onnx(tmp_path: Path, lite_here) -> None:
    picture = tmp_path / "photo.bin"
    picture.write_bytes(b"\x89PNG\r\n\x1a\n" + bytes(64))
    for command in (
        ["inspect", str(picture)],
        ["run", str(picture)],
        ["convert", str(picture)],
        ["compress", str(picture), "--data", str(tmp_path)],
    ):
        result = lite_here(*command)
        assert result.returncode == 1, (command, result.stderr)
        assert "is not a model format we read" in result.stderr, (command, result.stderr)
        assert "Wire format" not in result.stderr and "Traceback" not in result.stderr


def test_compress_knows_tflite_by_its_identifier(tmp_path: Path) -> None:
    m = TfliteModel()
    x, y = m.tensor("x", [1, 6, 6, 3]), m.tensor("y", [1, 6, 6, 4])
    w = m.constant("w", np.random.default_rng(2).standard_normal((4, 3, 3, 3)).astype(np.float32))
    b = m.constant("b", np.zeros(4, np.float32))
    conv = options(
        s.Conv2DOptionsT(), padding=s.Padding.SAME, strideH=1, strideW=1, dilationHFactor=1, dilationWFactor=1
    )
    m.op("CONV_2D", [x, w, b], [y], conv)
    source = tmp_path / "float_model.bin"
    source.write_bytes(m.finish([x], [y]))
    data = tmp_path / "calibration"
    data.mkdir()
    for i in range(4):
        np.save(
            data / f"{i}.npy", np.random.default_rng(10 + i).standard_normal((1, 6, 6, 3)).astype(np.float32)
        )
    result = lite("compress", str(source), "--data", str(data), "-o", str(tmp_path / "q.lite"))
    assert result.returncode == 0, result.stdout + result.stderr
    assert "size: TFLite" in result.stdout and (tmp_path / "q.lite").is_file()


# -- written files: permissions and error messages ------------------------------------------------
@pytest.mark.parametrize("umask", [0o022, 0o077, 0o002])
def test_written_lite_files_honour_the_umask(tmp_path: Path, umask: int) -> None:
    source = prelu_tflite(tmp_path / "m.tflite")
    result = lite("convert", str(source), "-o", str(tmp_path / "m.lite"), umask=umask)
    assert result.returncode == 0, result.stderr
    assert stat.S_IMODE((tmp_path / "m.lite").stat().st_mode) == 0o666 & ~umask


def test_overwritten_lite_file_keeps_its_mode(tmp_path: Path) -> None:
    source, target = prelu_tflite(tmp_path / "m.tflite"), tmp_path / "m.lite"
    target.write_bytes(b"old")
    target.chmod(0o640)
    assert lite("convert", str(source), "-o", str(target), umask=0o022).returncode == 0
    assert stat.S_IMODE(target.stat().st_mode) == 0o640 and target.read_bytes()[4:8] == b"LITE"


def test_write_errors_name_the_output_not_a_temp_file(tmp_path: Path, lite_here) -> None:
    source = prelu_tflite(tmp_path / "m.tflite")
    missing_dir = tmp_path / "no_such_dir" / "m.lite"
    a_directory = tmp_path / "taken"
    (a_directory).mkdir()
    for output in (missing_dir, a_directory):
        result = lite_here("convert", str(source), "-o", str(output))
        assert result.returncode == 1, result.stderr
        assert str(output) in result.stderr and ".tmp" not in result.stderr, result.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["m.tflite", "taken"], "no temp file left behind"


# -- symbolic sizes -------------------------------------------------------------------------------
def test_computed_dims_are_printed_short(tmp_path: Path, lite_here) -> None:
    """An exporter's output dim formula (here 154 characters) prints as f(height); --json keeps it whole."""
    formula = "height"
    for _ in range(4):
        formula = f"floor(({formula} + 2*1 - 1*(3 - 1) - 1)/2) + 1"
    model = conv_onnx(tmp_path / "convs.onnx", [1, 4, formula, formula.replace("height", "width")])
    result = lite_here("inspect", str(model))
    assert result.returncode == 0, result.stderr
    assert "c3  FLOAT32  [1,4,f(height),f(width)]" in result.stdout, result.stdout
    assert "floor" not in result.stdout
    converted = lite_here("convert", str(model))
    assert "output c3: FLOAT32 [1,4,f(height),f(width)]" in converted.stdout, converted.stdout
    assert formula in lite_here("inspect", str(tmp_path / "convs.lite"), "--json").stdout
