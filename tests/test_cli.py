"""The `lite` command run as users run it: a subprocess of `python -m lite_converter.app`.

`lite run` results are compared with onnxruntime on the source ONNX model (skipped when the
runtime library is not built: set LITE_RUNTIME_LIBRARY to build/<dir>/runtime_arm/liblite_runtime.so).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

from lite_converter.app import cli
from lite_converter.reader import read_model

RNG = np.random.default_rng(0)


def lite(*args: str, cwd: Path | None = None, umask: int | None = None) -> subprocess.CompletedProcess:
    """`lite ARGS` in a fresh interpreter (``umask``: the process umask it runs under)."""
    env = dict(os.environ)
    env["PYTHONPATH"] = str(Path(__file__).resolve().parents[1])
    env.pop("LITE_DEBUG", None)
    return subprocess.run(
        [sys.executable, "-m", "lite_converter.app", *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=cwd,
        timeout=300,
        preexec_fn=(lambda: os.umask(umask)) if umask is not None else None,
    )


def conv_softmax_model(path: Path) -> Path:
    """conv -> relu | conv -> concat(axis 1) -> softmax(axis 1) -> reshape, dynamic batch."""
    inits = [
        numpy_helper.from_array(RNG.standard_normal((4, 3, 3, 3)).astype(np.float32), "w1"),
        numpy_helper.from_array(RNG.standard_normal(4).astype(np.float32), "b1"),
        numpy_helper.from_array(RNG.standard_normal((2, 3, 1, 1)).astype(np.float32), "w2"),
        numpy_helper.from_array(np.array([0, 6, -1], np.int64), "shape"),
    ]
    nodes = [
        helper.make_node("Conv", ["x", "w1", "b1"], ["c1"], pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["c1"], ["r1"]),
        helper.make_node("Conv", ["x", "w2"], ["c2"]),
        helper.make_node("Concat", ["r1", "c2"], ["cat"], axis=1),
        helper.make_node("Softmax", ["cat"], ["sm"], axis=1),
        helper.make_node("Reshape", ["sm", "shape"], ["y"]),
    ]
    graph = helper.make_graph(
        nodes,
        "conv_softmax",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 3, 8, 8])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", 6, 64])],
        inits,
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8  # what the installed onnxruntime reads
    onnx.save(model, path)
    return path


def unsupported_model(path: Path) -> Path:
    """Two Det nodes and one custom-domain op among supported ones."""
    nodes = [
        helper.make_node("Relu", ["x"], ["r"], name="relu0"),
        helper.make_node("Det", ["r"], ["d1"], name="det_a"),
        helper.make_node("Det", ["r"], ["d2"], name="det_b"),
        helper.make_node("Add", ["d1", "d2"], ["s"], name="add0"),
        helper.make_node("FancyOp", ["s"], ["y"], name="fancy0", domain="com.example"),
    ]
    graph = helper.make_graph(
        nodes,
        "unsupported",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [3, 3])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [])],
    )
    model = helper.make_model(
        graph, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("com.example", 1)]
    )
    onnx.save(model, path)
    return path


@pytest.fixture
def small_onnx(tmp_path: Path) -> Path:
    return conv_softmax_model(tmp_path / "small.onnx")


@pytest.fixture
def small_lite(small_onnx: Path) -> Path:
    out = small_onnx.with_suffix(".lite")
    result = lite("convert", str(small_onnx), "-o", str(out))
    assert result.returncode == 0, result.stderr
    return out


def no_temp_files(directory: Path) -> bool:
    return not [p for p in directory.iterdir() if p.name.endswith(".tmp")]


def test_convert_writes_a_readable_model_and_prints_a_summary(small_onnx: Path, tmp_path: Path):
    out = tmp_path / "out.lite"
    result = lite("convert", str(small_onnx), "-o", str(out))
    assert result.returncode == 0, result.stderr
    assert "CONV_2D 2" in result.stdout and "SOFTMAX 1" in result.stdout
    assert "ONNX" in result.stdout and ".lite" in result.stdout
    model = read_model(out)
    assert [t.name for t in model.input_tensors] == ["x"] and [t.name for t in model.output_tensors] == ["y"]
    assert model.op_counts()["TRANSPOSE"] == 2  # into NHWC before the convs, back before the reshape
    assert no_temp_files(tmp_path)


def test_convert_with_input_shape_makes_a_static_model_with_a_memory_plan(small_onnx: Path, tmp_path: Path):
    out = tmp_path / "static.lite"
    result = lite("convert", str(small_onnx), "-o", str(out), "--input-shape", "x=2,3,8,8")
    assert result.returncode == 0, result.stderr
    model = read_model(out)
    assert model.tensor("x").shape == [2, 3, 8, 8]
    assert model.memory_plan is not None and model.memory_plan.arena_bytes > 0
    assert "arena" in result.stdout


def test_unsupported_ops_are_all_listed_and_no_file_is_written(tmp_path: Path):
    source = unsupported_model(tmp_path / "bad.onnx")
    out = tmp_path / "bad.lite"
    result = lite("convert", str(source), "-o", str(out))
    assert result.returncode == 1
    assert "Traceback" not in result.stderr
    assert "Det: 2 node(s)" in result.stderr and "det_a" in result.stderr and "det_b" in result.stderr
    assert "FancyOp: 1 node(s)" in result.stderr and "fancy0" in result.stderr
    assert not out.exists() and no_temp_files(tmp_path)


def test_failed_conversion_keeps_an_existing_output_untouched(tmp_path: Path):
    source = unsupported_model(tmp_path / "bad.onnx")
    out = tmp_path / "keep.lite"
    out.write_bytes(b"previous model")
    assert lite("convert", str(source), "-o", str(out)).returncode == 1
    assert out.read_bytes() == b"previous model" and no_temp_files(tmp_path)


def test_failure_while_writing_leaves_no_partial_file(small_onnx: Path, tmp_path: Path, monkeypatch, capsys):
    def broken_fsync(fd: int) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "fsync", broken_fsync)
    out = tmp_path / "partial.lite"
    assert cli.main(["convert", str(small_onnx), "-o", str(out)]) == 1
    assert "No space left on device" in capsys.readouterr().err
    assert not out.exists() and no_temp_files(tmp_path)


def test_failure_in_a_late_pass_leaves_no_file(small_onnx: Path, tmp_path: Path, monkeypatch, capsys):
    from lite_converter import convert
    from lite_converter.ir import ConversionError

    def failing_plan(graph):
        raise ConversionError("planner exploded")

    monkeypatch.setattr(convert, "plan_memory", failing_plan)
    out = tmp_path / "late.lite"
    assert cli.main(["convert", str(small_onnx), "-o", str(out)]) == 1
    assert capsys.readouterr().err.strip() == "lite convert: error: planner exploded"
    assert not out.exists() and no_temp_files(tmp_path)


def test_missing_input_file_is_one_line(tmp_path: Path):
    result = lite("convert", str(tmp_path / "nope.onnx"))
    assert result.returncode == 1
    assert result.stderr.count("\n") == 1 and "nope.onnx" in result.stderr


def test_bad_input_shape_is_a_usage_error(small_onnx: Path):
    result = lite("convert", str(small_onnx), "--input-shape", "x=1,three")
    assert result.returncode == 2 and "integers" in result.stderr


def test_inspect_text_and_json(small_lite: Path):
    text = lite("inspect", str(small_lite))
    assert text.returncode == 0, text.stderr
    for expected in ("inputs:", "x", "FLOAT32", "[N,3,8,8]", "CONV_2D", "weights:", "memory plan"):
        assert expected in text.stdout
    result = lite("inspect", str(small_lite), "--json")
    assert result.returncode == 0, result.stderr
    info = json.loads(result.stdout)
    assert info["op_counts"]["CONV_2D"] == 2
    assert info["inputs"][0]["name"] == "x" and info["inputs"][0]["shape"] == [-1, 3, 8, 8]
    assert info["inputs"][0]["layout"] == "NCHW"
    assert info["weights_bytes"] == (4 * 3 * 3 * 3 + 4 + 2 * 3) * 4 + 3 * 8  # w1, b1, w2 float32; shape int64
    constants = [t for t in info["tensors"] if t["constant"]]
    assert all(t["data_offset"] % 64 == 0 for t in constants)


def test_inspect_refuses_a_file_that_is_not_lite(tmp_path: Path):
    bogus = tmp_path / "bogus.lite"
    bogus.write_bytes(b"\x00" * 100)
    result = lite("inspect", str(bogus))
    assert (
        result.returncode == 1 and "not a .lite model" in result.stderr and "Traceback" not in result.stderr
    )


# -- lite run (needs the runtime library) ----------------------------------------------------------
def test_run_matches_onnxruntime(small_onnx: Path, small_lite: Path, tmp_path: Path):
    import onnxruntime

    x = RNG.standard_normal((2, 3, 8, 8)).astype(np.float32)
    np.savez(tmp_path / "in.npz", x=x)
    result = lite(
        "run", str(small_lite), "--inputs", str(tmp_path / "in.npz"), "--out", str(tmp_path / "out.npz")
    )
    assert result.returncode == 0, result.stderr
    assert "y: float32 [2, 6, 64]" in result.stdout
    expected = onnxruntime.InferenceSession(str(small_onnx), providers=["CPUExecutionProvider"]).run(
        None, {"x": x}
    )[0]
    with np.load(tmp_path / "out.npz") as out:
        np.testing.assert_allclose(out["y"], expected, rtol=1e-4, atol=1e-5)


def test_run_with_random_inputs_needs_shapes_for_dynamic_dims(small_lite: Path):
    result = lite("run", str(small_lite))
    assert result.returncode == 1 and "--input-shape x=" in result.stderr
    result = lite("run", str(small_lite), "--input-shape", "x=1,3,8,8", "--threads", "2")
    assert result.returncode == 0, result.stderr
    assert "y: float32 [1, 6, 64]" in result.stdout


def _subcommands(parser) -> dict:
    """Every sub-parser the ``lite`` command registers, by name (argparse keeps them in its action)."""
    for action in parser._actions:
        if action.choices and isinstance(action.choices, dict):
            return action.choices
    raise AssertionError("the lite parser has no sub-commands")


def test_every_subcommand_help_renders(capsys):
    """argparse %-formats every help string only when --help is asked for: a literal '%' in one (a
    preset's "99.99%") crashed `lite compress --help` with a traceback while every other use worked."""
    names = _subcommands(cli.build_parser())
    assert {"convert", "compress", "bench", "run", "inspect"} <= set(names)
    for name in names:
        with pytest.raises(SystemExit) as stop:
            cli.main([name, "--help"])
        assert stop.value.code == 0, name
        assert "usage: lite " + name in capsys.readouterr().out
