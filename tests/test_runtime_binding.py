"""The Python binding over the C API, on a real converted model, against onnxruntime."""

from __future__ import annotations

import os
import struct
import subprocess
import sys
import threading
from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
import pytest

from runtime_arm import Interpreter, LiteError, Status


def reference(model: onnx.ModelProto, x: np.ndarray) -> dict[str, np.ndarray]:
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    names = [o.name for o in session.get_outputs()]
    return dict(zip(names, session.run(None, {"x": x}), strict=True))


def image(shape: tuple[int, ...], seed: int) -> np.ndarray:
    return np.random.default_rng(seed).uniform(-1, 1, size=shape).astype(np.float32)


def assert_close(ours: np.ndarray, ref: np.ndarray) -> None:
    assert ours.shape == ref.shape
    assert ours.dtype == ref.dtype
    np.testing.assert_allclose(ours, ref, rtol=1e-4, atol=1e-4 * max(1.0, float(np.abs(ref).max())))


def test_run_matches_onnxruntime_across_resizes(small_conv_onnx, small_conv_lite):
    it = Interpreter(model_content=small_conv_lite, threads=1)
    arenas = []
    for seed, (h, w) in enumerate([(16, 16), (7, 5), (32, 9), (16, 16)]):
        x = image((1, 3, h, w), seed)
        ours = it.run({"x": x})
        ref = reference(small_conv_onnx, x)
        assert sorted(ours) == sorted(ref) == ["features", "pooled"]
        for name in ref:
            assert_close(ours[name], ref[name])
        arenas.append(it.arena_bytes)
    assert arenas[0] == arenas[3] > arenas[1] > 0  # the plan follows the input size


def test_read_only_and_writable_inputs_run_alike(small_conv_onnx, small_conv_lite):
    """run() takes a writable input's address through its buffer and a read-only one's (an array
    over bytes) through numpy's ctypes view: both are the same data, as onnxruntime sees it."""
    from runtime_arm.interpreter import data_address

    it = Interpreter(model_content=small_conv_lite, threads=1)
    x = image((1, 3, 8, 8), 3)
    frozen = np.frombuffer(x.tobytes(), np.float32).reshape(x.shape)
    assert not frozen.flags.writeable
    assert data_address(x) == x.ctypes.data and data_address(frozen) == frozen.ctypes.data
    ref = reference(small_conv_onnx, x)
    for feed in (x, frozen):
        ours = it.run({"x": feed})
        for name in ref:
            assert_close(ours[name], ref[name])


def test_model_path_and_positional_inputs(tmp_path, small_conv_onnx, small_conv_lite):
    path = tmp_path / "small.lite"
    path.write_bytes(small_conv_lite)
    x = image((1, 3, 6, 6), 3)
    with Interpreter(path) as it:
        ours = it.run([x])
    assert_close(ours["pooled"], reference(small_conv_onnx, x)["pooled"])
    with Interpreter(str(path)) as it:
        assert_close(it.run(x)["features"], reference(small_conv_onnx, x)["features"])


def test_tflite_style_flow(small_conv_onnx, small_conv_lite):
    it = Interpreter(model_content=small_conv_lite)
    inputs = it.get_input_details()
    assert [d["name"] for d in inputs] == ["x"]
    assert inputs[0]["index"] == 0 and inputs[0]["dtype"] is np.float32
    assert inputs[0]["shape"].tolist() == [1, 3, -1, -1]
    assert inputs[0]["quantization"] == (0.0, 0)
    outputs = it.get_output_details()
    assert [d["name"] for d in outputs] == ["features", "pooled"]

    it.resize_input("x", [1, 3, 10, 12])
    it.allocate_tensors()
    assert it.get_input_details()[0]["shape"].tolist() == [1, 3, 10, 12]
    assert it.get_output_details()[0]["shape"].tolist() == [1, 8, 10, 12]
    x = image((1, 3, 10, 12), 4)
    it.set_tensor(0, x)
    it.invoke()
    features = it.get_tensor("features")
    assert_close(features, reference(small_conv_onnx, x)["features"])
    # get_tensor returns a copy; inputs persist, so a second invoke gives the same result.
    features[...] = 0
    it.invoke()
    assert_close(it.get_tensor(0), reference(small_conv_onnx, x)["features"])
    np.testing.assert_array_equal(it.get_tensor("x"), x)


def test_dynamic_input_without_resize_is_a_clear_error(small_conv_lite):
    it = Interpreter(model_content=small_conv_lite)
    with pytest.raises(LiteError) as info:
        it.invoke()
    assert info.value.code == Status.SHAPE_ERROR
    assert "resize_input" in info.value.message and "'x'" in info.value.message
    assert isinstance(info.value, RuntimeError)


def test_wrong_inputs_are_clear_errors(small_conv_lite):
    it = Interpreter(model_content=small_conv_lite)
    with pytest.raises(LiteError, match="expects float32, got float64") as info:
        it.run({"x": np.zeros((1, 3, 4, 4))})
    assert info.value.code == Status.INVALID_ARGUMENT
    with pytest.raises(LiteError, match=r"unknown \['y'\], missing \['x'\]"):
        it.run({"y": np.zeros((1, 3, 4, 4), np.float32)})
    with pytest.raises(LiteError, match="no input named"):
        it.resize_input("nope", [1])
    it.resize_input(0, [1, 3, 4, 4])
    with pytest.raises(LiteError, match="call resize_input first"):
        it.set_tensor("x", np.zeros((1, 3, 5, 4), np.float32))
    with pytest.raises(LiteError, match=r"dim 2 is -3") as info:
        it.resize_input(0, [1, 3, -3, 4])
    assert info.value.code == Status.INVALID_ARGUMENT
    # A static dim the model fixes: the caller's mistake, said at the resize (not an op's failure later).
    with pytest.raises(LiteError, match=r"input 'x' has the static dim 1 = 3 in the model, got 5") as info:
        it.resize_input(0, [1, 5, 4, 4])
    assert info.value.code == Status.INVALID_ARGUMENT


def test_load_errors_carry_code_and_message(tmp_path, small_conv_lite):
    with pytest.raises(LiteError) as info:
        Interpreter(tmp_path / "missing.lite")
    assert info.value.code == Status.IO_ERROR and "missing.lite" in info.value.message
    with pytest.raises(LiteError) as info:
        Interpreter(model_content=b"\x00" * 64)
    assert info.value.code == Status.INVALID_MODEL
    with pytest.raises(LiteError) as info:
        Interpreter(model_content=small_conv_lite[: len(small_conv_lite) // 2])
    assert info.value.code == Status.INVALID_MODEL


def _table_field_position(data: bytes, table: int, field: int) -> int:
    """File offset of scalar field `field` of the flatbuffer table at `table` (independent reader)."""
    vtable = table - struct.unpack_from("<i", data, table)[0]
    vtable_size = struct.unpack_from("<H", data, vtable)[0]
    assert 4 + 2 * field < vtable_size, "field not present"
    offset = struct.unpack_from("<H", data, vtable + 4 + 2 * field)[0]
    assert offset != 0, "field not present"
    return table + offset


def test_newer_schema_version_is_refused_with_update_message(small_conv_lite):
    data = bytearray(small_conv_lite)
    root = struct.unpack_from("<I", data, 0)[0]
    struct.pack_into("<I", data, _table_field_position(data, root, 0), 7)  # Model.schema_version
    with pytest.raises(LiteError) as info:
        Interpreter(model_content=bytes(data))
    assert info.value.code == Status.VERSION_MISMATCH
    assert info.value.message == (
        "model schema version 7 is newer than this runtime supports (1): update the runtime")


def test_unsupported_op_codes_are_listed_together(small_conv_lite):
    from lite_converter.lite_fb.Model import Model

    data = bytearray(small_conv_lite)
    graph = Model.GetRootAs(bytes(data), 0).Graph()
    patched = []
    for i in range(graph.OperatorsLength()):
        op = graph.Operators(i)
        if op.Opcode() == 100:  # CONV_2D: stored (not the default), so it can be patched in place
            position = _table_field_position(data, op._tab.Pos, 0)
            struct.pack_into("<H", data, position, 990 + i)
            patched.append((990 + i, op.Name().decode()))
    assert len(patched) == 2
    with pytest.raises(LiteError) as info:
        Interpreter(model_content=bytes(data))
    assert info.value.code == Status.UNSUPPORTED
    for code, name in patched:
        assert f"opcode {code}" in info.value.message and f"'{name}'" in info.value.message


def test_interpreters_in_threads_agree(small_conv_onnx, small_conv_lite):
    x = image((1, 3, 24, 20), 5)
    expected = reference(small_conv_onnx, x)["features"]
    results: list[np.ndarray] = []
    errors: list[BaseException] = []

    def work() -> None:
        try:
            it = Interpreter(model_content=small_conv_lite)
            for _ in range(20):
                results.append(it.run({"x": x})["features"])
        except BaseException as error:  # reported in the main thread
            errors.append(error)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert len(results) == 80
    for r in results:
        assert_close(r, expected)


def test_library_lookup_reports_how_to_build(tmp_path):
    env = dict(os.environ, LITE_RUNTIME_LIBRARY=str(tmp_path / "nowhere.so"))
    code = "from runtime_arm import Interpreter\nInterpreter(model_content=b'x')"
    result = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                            cwd=Path(__file__).resolve().parents[1], check=False)
    assert result.returncode != 0
    assert "nowhere.so does not exist" in result.stderr


def _file_mappings(path: Path) -> list[tuple[int, int]]:
    """Address ranges of this process's mappings of `path` (from /proc/self/maps)."""
    ranges = []
    for line in Path("/proc/self/maps").read_text().splitlines():
        fields = line.split(maxsplit=5)
        if len(fields) == 6 and fields[5] == str(path):
            start, end = (int(v, 16) for v in fields[0].split("-"))
            ranges.append((start, end))
    return ranges


def test_weights_are_used_in_place_from_the_mapped_file(tmp_path, small_conv_lite):
    path = (tmp_path / "small.lite").resolve()
    path.write_bytes(small_conv_lite)
    it = Interpreter(path)
    it.resize_input(0, [1, 3, 8, 8])
    it.allocate_tensors()
    mappings = _file_mappings(path)
    assert mappings, "the model file is not mapped"
    constants = [t for t in it.tensor_details() if t["storage"] == "constant"]
    assert len(constants) >= 3
    for t in constants:
        assert any(start <= t["address"] and t["address"] + t["bytes"] <= end for start, end in mappings), t
        assert t["address"] % 64 == 0, t
    for t in it.tensor_details():
        if t["storage"] == "arena":
            assert t["arena_offset"] % 64 == 0 and t["address"] % 64 == 0, t
    it.close()
    assert not _file_mappings(path), "closing the interpreter must unmap the model"


def test_shape_subgraph_runs_at_prepare_time(shape_subgraph_onnx):
    from lite_converter.convert import convert_onnx

    it = Interpreter(model_content=convert_onnx(shape_subgraph_onnx))
    for shape in [(2, 3, 9, 7), (1, 3, 4, 16)]:
        x = image(shape, 11)
        ours = it.run({"x": x})["y"]
        ref = reference(shape_subgraph_onnx, x)["y"]
        assert_close(ours, ref)
        details = {t["name"]: t for t in it.tensor_details()}
        # Shape -> Gather -> Unsqueeze -> Concat were computed at prepare time from shapes alone.
        for name in ("s", "n", "u", "target"):
            assert details[name]["storage"] == "prepared", details[name]
        assert details["c"]["storage"] == "arena"
