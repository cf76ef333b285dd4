"""The ONNX reader on malformed files (issue 19, `make fuzz`'s onnx target): each file the fuzzer found
under tests/fuzz/regressions/onnx/, and the family each one stands for, gets one clear
ConversionError, exit status 1 from `lite convert` with a message naming the node or tensor, no
traceback, no "internal error" and no output file."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

from lite_converter.convert import convert_onnx
from lite_converter.ir import ConversionError
from tests.fuzz.corpus_guard import refuse_regression_corpus, regression_folders_named
from tests.test_bad_input_cli import assert_user_error
from tests.test_cli import lite

REGRESSIONS = Path(__file__).parent / "fuzz" / "regressions" / "onnx"

# What each fuzzer finding must be told (the file's name says what it was).
EXPECTED = {
    "and_with_one_input.onnx": "And 'And_0' has 1 inputs, the ONNX schema wants 2",
    "initializer_of_undefined_type.onnx": "tensor 'w_conv' has an undefined or unknown element type (0)",
    "attribute_of_undefined_type.onnx": ("ArgMax node 0 '': attribute 'axis' is UNDEFINED, "
                                         "the ONNX schema wants INT"),
    "op_type_not_utf8.onnx": "node 0: its op type is not UTF-8 text: b'A\\x8e\\x8eM)n'",
    "reshape_dim_past_int64.onnx": ("tensor 'flat' has the shape [2, 142170847265272113417220]: "
                                    "a dimension past 2^63 - 1"),
}


def test_every_regression_file_has_an_expected_message() -> None:
    assert sorted(p.name for p in REGRESSIONS.iterdir()) == sorted(EXPECTED)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_fuzzer_findings_are_clear_conversion_errors(name: str, tmp_path: Path) -> None:
    out = tmp_path / "out.lite"
    result = lite("convert", str(REGRESSIONS / name), "-o", str(out))
    assert_user_error(result, "convert", EXPECTED[name])
    assert list(tmp_path.iterdir()) == []


def _model(nodes: list[onnx.NodeProto], initializers: list[onnx.TensorProto] = (),
           sparse: list[onnx.SparseTensorProto] = ()) -> onnx.ModelProto:
    graph = helper.make_graph(
        nodes, "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 4])], list(initializers))
    graph.sparse_initializer.extend(sparse)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])


def _add_w(weight: onnx.TensorProto | None = None,
           sparse: onnx.SparseTensorProto | None = None) -> onnx.ModelProto:
    node = helper.make_node("Add", ["x", "w"], ["y"], name="add")
    return _model([node], [weight] if weight is not None else [], [sparse] if sparse is not None else [])


def _weight(dims: list[int], raw: bytes, data_type: int = TensorProto.FLOAT) -> onnx.TensorProto:
    tensor = TensorProto(name="w", data_type=data_type, dims=dims)
    tensor.raw_data = raw
    return tensor


def _sparse(dims: list[int], indices: list[int]) -> onnx.SparseTensorProto:
    values = helper.make_tensor("w", TensorProto.FLOAT, [len(indices)], [1.0] * len(indices))
    index = helper.make_tensor("w_index", TensorProto.INT64, [len(indices)], indices)
    return helper.make_sparse_tensor(values, index, dims)


def _not_utf8(model: onnx.ModelProto, marker: bytes) -> onnx.ModelProto:
    """The model with every occurrence of ``marker`` in its bytes replaced by bytes that are not UTF-8
    (protobuf then hands those string fields back as bytes)."""
    data = model.SerializeToString()
    assert marker in data
    return onnx.ModelProto.FromString(data.replace(marker, b"\x8e" * len(marker)))


# The family of each finding: arity (And with one input) and tensors whose declared type, dims and
# data disagree (an initializer of type UNDEFINED).
FAMILY = {
    "conv_without_inputs": (_model([helper.make_node("Conv", [], ["y"], name="conv")]),
                            "Conv 'conv' has 0 inputs, the ONNX schema wants 2 to 3"),
    "relu_with_two_outputs": (_model([helper.make_node("Relu", ["x"], ["y", "z"], name="relu")]),
                              "Relu 'relu' has 2 outputs, the ONNX schema wants 1"),
    "required_input_left_empty": (_model([helper.make_node("Add", ["x", ""], ["y"], name="add")]),
                                  "Add 'add' leaves its required input 'B' empty"),
    "node_name_not_utf8": (_not_utf8(_model([helper.make_node("Relu", ["x"], ["y"], name="QQQQ")]), b"QQQQ"),
                           "node 0: its name is not UTF-8 text"),
    "initializer_name_not_utf8": (
        _not_utf8(_model([helper.make_node("Relu", ["x"], ["y"])],
                         [helper.make_tensor("UUUU", TensorProto.FLOAT, [1], [0.0])]), b"UUUU"),
        "initializer 0: its name is not UTF-8 text"),
    "axis_given_as_a_string": (_model([helper.make_node("Softmax", ["x"], ["y"], name="sm", axis="1")]),
                               "Softmax node 0 'sm': attribute 'axis' is STRING, the ONNX schema wants INT"),
    "constant_without_output": (
        _model([helper.make_node("Constant", [], [], name="c", value_float=1.0),
                helper.make_node("Relu", ["x"], ["y"], name="relu")]),
        "Constant node 'c' has 0 outputs"),
    "unknown_element_type": (_add_w(_weight([4], b"\0" * 16, data_type=99)),
                             "tensor 'w' has an undefined or unknown element type (99)"),
    "raw_data_shorter_than_dims": (_add_w(_weight([1, 4], b"\0" * 12)),
                                   "tensor 'w' of shape [1, 4] and type FLOAT has data that does not match"),
    "typed_data_shorter_than_dims": (
        _add_w(TensorProto(name="w", data_type=TensorProto.FLOAT, dims=[1, 4], float_data=[1.0, 2.0, 3.0])),
        "tensor 'w' of shape [1, 4] and type FLOAT has data that does not match"),
    "negative_dim": (_add_w(_weight([-1, 4], b"")), "tensor 'w' has a negative dimension: [-1, 4]"),
    "dims_of_2_to_the_62_elements": (
        _add_w(_weight([2**31, 2**31], b"")),
        "tensor 'w' of shape [2147483648, 2147483648] has 4611686018427387904 elements"),
    "sparse_dense_copy_over_1_gib": (
        _add_w(sparse=_sparse([2**20, 2**10], [0])),
        "sparse tensor 'w' of shape [1048576, 1024] would need 4294967296 bytes"),
    "sparse_index_outside_dims": (_add_w(sparse=_sparse([1, 4], [0, 9])),
                                  "sparse tensor 'w' of shape [1, 4] has indices that do not fit it"),
    "sparse_negative_index": (_add_w(sparse=_sparse([1, 4], [-1])),
                              "sparse tensor 'w' of shape [1, 4] has indices that do not fit it"),
    "tile_then_reshape_past_int64": (  # the output's shape left to inference
        helper.make_model(helper.make_graph(
            [helper.make_node("Tile", ["x", "reps"], ["t"], name="tile"),
             helper.make_node("Reshape", ["t", "flat"], ["y"], name="flatten")], "g",
            [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4])],
            [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
            [numpy_helper.from_array(np.array([2**40, 2**40], np.int64), "reps"),
             numpy_helper.from_array(np.array([-1], np.int64), "flat")]),
            opset_imports=[helper.make_opsetid("", 17)]),
        "tensor 'y' has the shape [4835703278458516698824704]: a dimension past 2^63 - 1"),
}


@pytest.mark.parametrize("case", sorted(FAMILY))
def test_the_family_of_each_finding_gets_a_clear_error(case: str, tmp_path: Path) -> None:
    model, message = FAMILY[case]
    with pytest.raises(ConversionError) as caught:
        convert_onnx(model)
    assert message in str(caught.value)
    path = tmp_path / f"{case}.onnx"
    path.write_bytes(model.SerializeToString())
    result = lite("convert", str(path), "-o", str(tmp_path / "out.lite"))
    assert_user_error(result, "convert", message)
    assert not (tmp_path / "out.lite").exists()


@pytest.mark.parametrize("weight", ["dense", "sparse"])
def test_well_formed_initializers_still_convert_and_run(weight: str) -> None:
    """The controls: the checks refuse only what is malformed (onnxruntime gives the same sums)."""
    import onnxruntime

    from runtime_arm.interpreter import Interpreter

    dense = helper.make_tensor("w", TensorProto.FLOAT, [1, 4], [0.0, 1.0, 0.0, 1.0])
    model = _add_w(dense) if weight == "dense" else _add_w(sparse=_sparse([1, 4], [1, 3]))
    x = np.arange(4, dtype=np.float32).reshape(1, 4)
    y = Interpreter(model_content=convert_onnx(model)).run({"x": x})["y"]
    if weight == "dense":  # onnxruntime does not take sparse initializers
        session = onnxruntime.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
        np.testing.assert_array_equal(y, session.run(None, {"x": x})[0])
    np.testing.assert_array_equal(y, x + np.array([[0, 1, 0, 1]], dtype=np.float32))


# The TFLite reader's findings (make fuzz's tflite target). A tensor name that is not UTF-8 first
# raised a traceback; the frontend now reads names as LiteRT does (bytes, shown with U+FFFD where they
# are not UTF-8), so that file converts and its model runs.
TFLITE_EXPECTED: dict[str, str | None] = {
    "tensor_name_not_utf8.tflite": None,
    # static tensors whose dims fit int64 but whose bytes do not: the memory plan's offsets overflowed
    "activations_past_int64_bytes.tflite": "the activations need 25034944251301955776 bytes, past 2^63 - 1",
}


@pytest.mark.parametrize("name", sorted(TFLITE_EXPECTED))
def test_tflite_fuzzer_findings_are_clear_conversion_errors(name: str, tmp_path: Path) -> None:
    directory = REGRESSIONS.parent / "tflite"
    assert sorted(p.name for p in directory.iterdir()) == sorted(TFLITE_EXPECTED)
    result = lite("convert", str(directory / name), "-o", str(tmp_path / "out.lite"))
    expected = TFLITE_EXPECTED[name]
    if expected is not None:
        assert_user_error(result, "convert", expected)
        assert list(tmp_path.iterdir()) == []
        return
    assert result.returncode == 0 and "Traceback" not in result.stderr, result.stderr
    ran = lite("run", str(tmp_path / "out.lite"))
    assert ran.returncode == 0 and "Traceback" not in ran.stderr, ran.stderr


# The Paddle reader's findings (make fuzz's paddle target, fed ProgramDesc seeds since 2026-11-27):
# each program file alone in a model folder, as the target runs it.
PADDLE_EXPECTED = {
    "pool2d_zero_ksize.pdmodel": "the Paddle model is inconsistent, conversion stopped at ZeroDivisionError",
}


@pytest.mark.parametrize("name", sorted(PADDLE_EXPECTED))
def test_paddle_fuzzer_findings_are_clear_conversion_errors(name: str, tmp_path: Path) -> None:
    directory = REGRESSIONS.parent / "paddle"
    assert sorted(p.name for p in directory.iterdir()) == sorted(PADDLE_EXPECTED)
    model = tmp_path / "model"
    model.mkdir()
    (model / "inference.pdmodel").write_bytes((directory / name).read_bytes())
    result = lite("convert", str(model), "-o", str(tmp_path / "out.lite"))
    assert_user_error(result, "convert", PADDLE_EXPECTED[name])
    assert sorted(p.name for p in tmp_path.iterdir()) == ["model"]


def test_fuzzer_command_lines_naming_a_regression_folder_are_refused(tmp_path: Path) -> None:
    """libFuzzer writes new inputs into the first folder it is given: the regression folders (listed
    exactly above) must never be one, while their files and folders elsewhere are fine."""
    folders = [REGRESSIONS.parent, *sorted(p for p in REGRESSIONS.parent.iterdir() if p.is_dir())]
    assert len(folders) == 5
    files = [str(p) for p in REGRESSIONS.iterdir()]
    accepted = ["-timeout=30", str(tmp_path), *files]
    assert regression_folders_named(accepted) == []
    for folder in folders:
        assert regression_folders_named([*accepted, str(folder)]) == [str(folder)]
        with pytest.raises(SystemExit, match="is a regression folder"):
            refuse_regression_corpus(["-runs=1", str(folder)])
    refuse_regression_corpus(accepted)
