"""Bad input to `lite` and `slim` (issue 19): each gets one clear message and exit status 1 (2 for
command-line usage), never "internal error" or a traceback, and loses nothing (no partial or temp
files). Run as users run it: a subprocess of `python -m lite_converter.app`."""

from __future__ import annotations

import os
import pickle
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper

import slim
from lite_converter.atomic_write import remove_stale_temp_files, write_atomically
from tests.test_cli import conv_softmax_model, lite, no_temp_files


def assert_user_error(result: subprocess.CompletedProcess, command: str, *parts: str,
                      status: int = 1) -> None:
    assert result.returncode == status, (result.returncode, result.stderr)
    assert "internal error" not in result.stderr and "Traceback" not in result.stderr, result.stderr
    for part in parts:
        assert part in result.stderr, result.stderr
    if status == 1:
        assert result.stderr.startswith(f"lite {command}: error: "), result.stderr
        assert len(result.stderr.strip().splitlines()) == 1, result.stderr


@pytest.fixture
def small_onnx(tmp_path: Path) -> Path:
    return conv_softmax_model(tmp_path / "small.onnx")


@pytest.fixture
def small_lite(small_onnx: Path) -> Path:
    out = small_onnx.with_suffix(".lite")
    assert lite("convert", str(small_onnx), "-o", str(out)).returncode == 0
    return out


@pytest.fixture
def dynamic_lite(tmp_path: Path, small_conv_lite: bytes) -> Path:
    """tests/conftest.py's small conv net: input x [1, 3, H, W] with dynamic H and W."""
    path = tmp_path / "dynamic.lite"
    path.write_bytes(small_conv_lite)
    return path


# -- lite convert ----------------------------------------------------------------------------------
def test_an_empty_onnx_file_is_refused(tmp_path: Path) -> None:
    empty = tmp_path / "empty.onnx"
    empty.write_bytes(b"")
    result = lite("convert", str(empty), "-o", str(tmp_path / "out.lite"))
    assert_user_error(result, "convert", f"ONNX model {empty} is empty (0 bytes)")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["empty.onnx"]


def test_an_onnx_model_without_operators_is_refused(tmp_path: Path) -> None:
    graph = helper.make_graph([], "nothing", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1])],
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1])])
    path = tmp_path / "noop.onnx"
    onnx.save(helper.make_model(graph), path)
    result = lite("convert", str(path), "-o", str(tmp_path / "out.lite"))
    assert_user_error(result, "convert", "has no operators (graph 'nothing' has no nodes)")
    garbage = tmp_path / "garbage.onnx"  # protobuf reads these bytes as a model with ir_version 7, no graph
    garbage.write_bytes(b"\x08\x07")
    assert_user_error(lite("convert", str(garbage)), "convert", "has no operators")
    assert not (tmp_path / "out.lite").exists() and not (tmp_path / "garbage.lite").exists()


def test_an_output_in_a_missing_folder_names_the_folder(small_onnx: Path, tmp_path: Path) -> None:
    target = tmp_path / "missing" / "deeper" / "m.lite"
    result = lite("convert", str(small_onnx), "-o", str(target))
    assert_user_error(result, "convert", f"the output folder does not exist: {target.parent}")
    assert ".tmp" not in result.stderr


def test_a_stale_temp_file_of_a_killed_writer_is_removed_by_the_next_write(tmp_path: Path) -> None:
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True,
                          text=True, check=True)
    dead_pid = int(dead.stdout)
    stale = tmp_path / f".m.lite.{dead_pid}.abc123.tmp"
    stale.write_bytes(b"x" * 4096)
    alive = tmp_path / f".m.lite.{os.getppid()}.def456.tmp"  # a live writer's: left alone
    alive.write_bytes(b"y")
    other = tmp_path / f".other.lite.{dead_pid}.abc123.tmp"  # another file's: not ours to judge now
    other.write_bytes(b"z")
    write_atomically(tmp_path / "m.lite", b"model")
    assert (tmp_path / "m.lite").read_bytes() == b"model"
    assert not stale.exists() and alive.exists() and other.exists()
    assert remove_stale_temp_files(str(tmp_path), "other.lite") == [str(other)]


def test_sigterm_during_a_write_leaves_no_temp_file(tmp_path: Path) -> None:
    script = ("import sys, lite_converter.atomic_write as w, os\n"
              "class Slow(bytes):\n"
              "    pass\n"
              "orig = os.fsync\n"
              "def fsync(fd):\n"
              "    print('writing', flush=True); import time; time.sleep(30)\n"
              "os.fsync = fsync\n"
              f"w.write_atomically({str(tmp_path / 'm.lite')!r}, b'x' * (4 << 20))\n")
    process = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True,
                               env=dict(os.environ, PYTHONPATH=str(Path.cwd())))
    assert process.stdout is not None and process.stdout.readline().strip() == "writing"
    process.send_signal(signal.SIGTERM)
    assert process.wait(timeout=30) == -signal.SIGTERM  # it still dies of the signal
    assert no_temp_files(tmp_path) and not (tmp_path / "m.lite").exists()


def test_a_huge_input_shape_is_a_usage_error(small_onnx: Path, small_lite: Path) -> None:
    huge = "x=100000,100000,100000,3"
    for command, model in (("convert", small_onnx), ("run", small_lite)):
        result = lite(command, str(model), "--input-shape", huge)
        assert_user_error(result, command, "a tensor holds at most 2,147,483,648 (2^31)", status=2)
        assert "MemoryError" not in result.stderr


# -- lite run --------------------------------------------------------------------------------------
def test_inputs_that_are_not_an_npz_are_refused(small_lite: Path, tmp_path: Path) -> None:
    text = tmp_path / "inputs.npz"
    text.write_text("not a zip")
    assert_user_error(lite("run", str(small_lite), "--inputs", str(text)), "run",
                      f"{text} is not an .npz file of arrays (np.savez)")
    pickled = tmp_path / "pickled.npz"
    pickled.write_bytes(pickle.dumps({"x": [1, 2, 3]}))
    assert_user_error(lite("run", str(small_lite), "--inputs", str(pickled)), "run", "is not an .npz file")
    objects = tmp_path / "objects.npz"
    np.savez(objects, x=np.array([{"a": 1}], dtype=object))
    assert_user_error(lite("run", str(small_lite), "--inputs", str(objects)), "run", "cannot read its arrays")
    single = tmp_path / "single.npy"
    np.save(single, np.zeros((1, 3, 8, 8), np.float32))
    assert_user_error(lite("run", str(small_lite), "--inputs", str(single)), "run",
                      "holds a single array (.npy)")


def test_out_of_range_threads_are_refused(small_lite: Path) -> None:
    result = lite("run", str(small_lite), "--input-shape", "x=1,3,8,8", "--threads", str(2**32 + 2))
    assert_user_error(result, "run", "threads 4294967298 is out of range")


def test_a_fifo_as_model_is_refused_at_once(tmp_path: Path) -> None:
    fifo = tmp_path / "m.lite"
    os.mkfifo(fifo)
    started = time.monotonic()
    for command in ("run", "inspect"):
        assert_user_error(lite(command, str(fifo)), command, f"{fifo} is not a regular file")
    fifo_onnx = tmp_path / "m.onnx"
    os.mkfifo(fifo_onnx)
    assert_user_error(lite("convert", str(fifo_onnx)), "convert", f"{fifo_onnx} is not a regular file")
    assert time.monotonic() - started < 120


def test_a_wrong_rank_blames_the_caller(small_lite: Path) -> None:
    result = lite("run", str(small_lite), "--input-shape", "x=1,3,8")
    assert_user_error(result, "run", "--input-shape x: rank 3")


def test_run_over_the_memory_bound_says_how_to_raise_it(dynamic_lite: Path) -> None:
    result = lite("run", str(dynamic_lite), "--input-shape", "x=1,3,256,256", "--max-memory-bytes", "64K")
    assert_user_error(result, "run", "OUT_OF_MEMORY", "over max_memory_bytes (65536", "max_memory_bytes")
    ok = lite("run", str(dynamic_lite), "--input-shape", "x=1,3,256,256", "--max-memory-bytes", "64M")
    assert ok.returncode == 0, ok.stderr


# The audit's hostile models (tests/fuzz/regressions/c_api/, rebuilt by tests/test_untrusted_models.py)
# through `lite run`: refused with the tensor or op named, exit status 1, no abort.
HOSTILE_RUNS = {
    "tiny_2gib_tensor.lite": ("OUT_OF_MEMORY: TILE 'tile': output tensor 'y0' of shape [16384, 32768] "
                              "FLOAT32 needs 2147483648 bytes, over max_memory_bytes (1073741824)"),
    "tiny_big_arena.lite": "OUT_OF_MEMORY: the plan needs 2415919168 bytes of activation arena",
    "int8_conv_huge_pad.lite": ("SHAPE_ERROR: CONV_2D 'conv': output [1, 16, 1073741840, 16] "
                                "exceeds 2^31 elements"),
}


@pytest.mark.parametrize("name", sorted(HOSTILE_RUNS))
def test_hostile_models_are_refused_by_lite_run(name: str) -> None:
    path = Path(__file__).parent / "fuzz" / "regressions" / "c_api" / name
    shape = [] if name.startswith("int8") else ["--input-shape", "x=1,1"]
    assert_user_error(lite("run", str(path), *shape), "run", HOSTILE_RUNS[name])


def test_inspect_shows_the_memory_at_given_shapes(dynamic_lite: Path) -> None:
    result = lite("inspect", str(dynamic_lite), "--input-shape", "x=1,3,64,64")
    assert result.returncode == 0, result.stderr
    line = next(x for x in result.stdout.splitlines() if x.startswith("runtime memory at x=[1, 3, 64, 64]: "))
    assert "arena" in line and "bound 1.00 GiB" in line, line
    refused = lite("inspect", str(dynamic_lite), "--input-shape", "x=1,3,512,512", "--max-memory-bytes", "1M")
    assert refused.returncode == 0, refused.stderr
    assert "refused, needs at least" in refused.stdout


# -- slim ------------------------------------------------------------------------------------------
@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf])
def test_slim_refuses_non_finite_calibration_data_before_any_work(small_onnx: Path, bad: float) -> None:
    rng = np.random.default_rng(0)
    batches = [rng.standard_normal((1, 3, 8, 8)).astype(np.float32) for _ in range(3)]
    batches[2][0, 1, 2, 3] = bad
    started = time.monotonic()
    with pytest.raises(slim.CalibrationDataError) as raised:
        slim.compress(small_onnx, None, batches, slim.QuantConfig(progress=False))
    message = str(raised.value)
    assert message.startswith("calibration batch 2, input 'x': "), message
    assert "the first at index [0, 1, 2, 3]" in message and "calibration needs finite data" in message
    assert ("1 NaN" if np.isnan(bad) else "1 Inf") in message
    assert time.monotonic() - started < 30


def test_lite_compress_with_all_nan_data_is_a_user_error(small_onnx: Path, tmp_path: Path) -> None:
    data = tmp_path / "calib"
    data.mkdir()
    np.save(data / "batch0.npy", np.full((1, 3, 8, 8), np.nan, np.float32))
    result = lite("compress", str(small_onnx), "-o", str(tmp_path / "q.lite"), "--data", str(data))
    assert_user_error(result, "compress", "calibration batch 0, input 'x': 192 NaN and 0 Inf values")
    assert not (tmp_path / "q.lite").exists()


def test_a_fifo_given_to_the_python_api_is_refused_at_once(tmp_path: Path) -> None:
    """The converter's own entry refuses it too (not only the CLI): reading a FIFO would block."""
    from lite_converter.convert import convert
    from lite_converter.ir import ConversionError

    for name in ("m.tflite", "m.onnx"):
        fifo = tmp_path / name
        os.mkfifo(fifo)
        with pytest.raises(ConversionError, match="is not a regular file"):
            convert(fifo)
