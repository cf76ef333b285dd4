"""ONNX sequences and optionals end to end (docs/OPS.md, "Sequences and optionals"): converted models
against onnxruntime, sequence / optional graph inputs and outputs through Interpreter.run, and the
clear errors for malformed values and kinds (hostile files, element indices out of range, a loop
whose sequence outgrows max_memory_bytes). ONNX's own node tests of these ops run in
test_onnx_node_conformance.py.

Float results within 1e-5 relative (the bodies run the same fp32 kernels as any graph), integers and
the sequence structure (lengths, element shapes) exactly.
"""

from __future__ import annotations

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper

from lite_converter import writer
from lite_converter.convert import convert_onnx, lower
from lite_converter.ir import Graph, Node, Tensor
from lite_converter.writer import serialize
from runtime_arm import Interpreter, LiteError, Status

F32, I64, BOOL = TensorProto.FLOAT, TensorProto.INT64, TensorProto.BOOL
_node = helper.make_node


def _model(nodes: list, inputs: list, outputs: list, opset: int = 17) -> onnx.ModelProto:
    graph = helper.make_graph(nodes, "seq", inputs, outputs)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], ir_version=8)


def _seq_info(name: str, elem: int = F32) -> onnx.ValueInfoProto:
    element = helper.make_tensor_type_proto(elem, None)
    return helper.make_value_info(name, helper.make_sequence_type_proto(element))


def _onnxruntime(model: onnx.ModelProto, feeds: dict) -> list:
    import onnxruntime as ort  # the oracle

    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    return session.run(None, feeds)


def _assert_same(got: object, want: object) -> None:
    if isinstance(want, list):
        assert isinstance(got, list) and len(got) == len(want), (got, want)
        for g, w in zip(got, want, strict=True):
            _assert_same(g, w)
        return
    got, want = np.asarray(got), np.asarray(want)
    assert got.dtype == want.dtype and got.shape == want.shape, (got.dtype, got.shape, want.dtype, want.shape)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


def _split_concat_loop() -> onnx.ModelProto:
    """A Loop that, each iteration, splits x into rows (SplitToSequence), appends the rows times the
    iteration to a carried sequence, and concatenates the carried sequence into a scan output row sum;
    after it, ConcatFromSequence of the final sequence (new axis) and SequenceLength."""
    body = helper.make_graph(
        [_node("Cast", ["i"], ["fi"], to=F32),
         _node("SplitToSequence", ["x"], ["rows"], axis=0, keepdims=0),
         _node("SequenceAt", ["rows", "i"], ["row"]),
         _node("Mul", ["row", "fi"], ["scaled"]),
         _node("SequenceInsert", ["acc_in", "scaled"], ["acc_out"]),
         _node("ConcatFromSequence", ["acc_out"], ["flat"], axis=0),
         _node("ReduceSum", ["flat"], ["total"], keepdims=0),
         _node("Identity", ["c"], ["c_out"])],
        "body",
        [helper.make_tensor_value_info("i", I64, []), helper.make_tensor_value_info("c", BOOL, []),
         _seq_info("acc_in")],
        [helper.make_tensor_value_info("c_out", BOOL, []), _seq_info("acc_out"),
         helper.make_tensor_value_info("total", F32, [])])
    nodes = [_node("SequenceEmpty", [], ["empty"], dtype=F32),
             _node("Loop", ["n", "", "empty"], ["final", "totals"], body=body),
             _node("ConcatFromSequence", ["final"], ["stacked"], axis=0, new_axis=1),
             _node("SequenceLength", ["final"], ["length"])]
    return _model(nodes, [helper.make_tensor_value_info("x", F32, ["rows", 3]),
                          helper.make_tensor_value_info("n", I64, [])],
                  [helper.make_tensor_value_info("stacked", F32, None),
                   helper.make_tensor_value_info("totals", F32, None),
                   helper.make_tensor_value_info("length", I64, []), _seq_info("final")])


def test_split_and_concat_from_sequence_inside_a_loop_match_onnxruntime():
    model = _split_concat_loop()
    interpreter = Interpreter(model_content=convert_onnx(model))
    rng = np.random.default_rng(0)
    for rows, n in ((4, 3), (6, 6), (2, 1)):  # shapes and trip counts change between invokes
        feeds = {"x": rng.standard_normal((rows, 3)).astype(np.float32), "n": np.array(n, np.int64)}
        got = interpreter.run(feeds)
        want_all = _onnxruntime(model, feeds)
        for name, want in zip(["stacked", "totals", "length", "final"], want_all, strict=True):
            _assert_same(got[name], want)


def test_sequence_input_and_output_through_run():
    """A list in, a list out; element shapes differ; an empty list is a valid sequence."""
    model = _model([_node("SequenceInsert", ["s", "t"], ["out"]), _node("SequenceLength", ["out"], ["n"])],
                   [_seq_info("s"), helper.make_tensor_value_info("t", F32, None)],
                   [_seq_info("out"), helper.make_tensor_value_info("n", I64, [])])
    interpreter = Interpreter(model_content=convert_onnx(model, input_shapes={"t": [2, 2]}))
    seq = [np.arange(3, dtype=np.float32), np.ones((1, 4), np.float32)]
    t = np.full((2, 2), 7, np.float32)
    got = interpreter.run({"s": seq, "t": t})
    _assert_same(got["out"], seq + [t])
    assert got["n"] == 3
    got = interpreter.run({"s": [], "t": t})
    _assert_same(got["out"], [t])
    with pytest.raises(LiteError, match="element 0"):
        interpreter.run({"s": [np.arange(3, dtype=np.int64)], "t": t})


def test_optional_output_is_none_when_empty():
    """If(cond) gives an optional sequence: None when the branch returns an empty optional."""
    seq_type = helper.make_sequence_type_proto(helper.make_tensor_type_proto(F32, [2]))
    optional_type = helper.make_optional_type_proto(seq_type)
    then_branch = helper.make_graph([_node("Optional", [], ["empty"], type=seq_type)], "then", [],
                                    [helper.make_value_info("empty", optional_type)])
    else_branch = helper.make_graph(
        [_node("Constant", [], ["v"], value=helper.make_tensor("v", F32, [2], [1.0, 2.0])),
         _node("SequenceConstruct", ["v", "v"], ["s"]), _node("Optional", ["s"], ["o"])], "else", [],
        [helper.make_value_info("o", helper.make_optional_type_proto(seq_type))])
    model = _model([_node("If", ["c"], ["out"], then_branch=then_branch, else_branch=else_branch),
                    _node("OptionalHasElement", ["out"], ["has"])],
                   [helper.make_tensor_value_info("c", BOOL, [])],
                   [helper.make_value_info("out", helper.make_optional_type_proto(seq_type)),
                    helper.make_tensor_value_info("has", BOOL, [])], opset=18)
    interpreter = Interpreter(model_content=convert_onnx(model))
    got = interpreter.run({"c": np.array(True)})
    assert got["out"] is None and not got["has"]
    got = interpreter.run({"c": np.array(False)})
    _assert_same(got["out"], [np.array([1.0, 2.0], np.float32)] * 2)
    assert got["has"]


def _sequence_at_model() -> bytes:
    model = _model([_node("SplitToSequence", ["x"], ["s"], axis=0), _node("SequenceAt", ["s", "p"], ["y"])],
                   [helper.make_tensor_value_info("x", F32, [3, 2]),
                    helper.make_tensor_value_info("p", I64, [])],
                   [helper.make_tensor_value_info("y", F32, None)])
    return convert_onnx(model)


def test_element_index_out_of_range_is_a_clear_error():
    interpreter = Interpreter(model_content=_sequence_at_model())
    x = np.arange(6, dtype=np.float32).reshape(3, 2)
    np.testing.assert_array_equal(interpreter.run({"x": x, "p": np.array(-1)})["y"], x[2:])
    for position in (3, -4, 2**62):
        with pytest.raises(LiteError, match="out of range for a sequence of 3") as error:
            interpreter.run({"x": x, "p": np.array(position)})
        assert error.value.code == Status.INVALID_ARGUMENT


def test_malformed_kind_is_refused(monkeypatch: pytest.MonkeyPatch):
    """A Tensor whose kind is not a ValueKind is refused when the model loads."""
    monkeypatch.setattr(writer, "VALUE_KINDS", ("tensor",) * 9 + ("sequence",))
    data = _sequence_at_model()
    with pytest.raises(LiteError, match="unknown value kind 9") as error:
        Interpreter(model_content=data)
    assert error.value.code == Status.INVALID_MODEL


def test_sequence_op_given_a_tensor_is_refused(monkeypatch: pytest.MonkeyPatch):
    """Kinds swapped in the file (a sequence written as a tensor): refused when the op is prepared."""
    monkeypatch.setattr(writer, "VALUE_KINDS", ("sequence", "tensor", "optional_tensor", "optional_sequence"))
    with pytest.raises(LiteError, match="must be a sequence or optional") as error:
        interpreter = Interpreter(model_content=_sequence_at_model())
        interpreter.run({"x": np.zeros((3, 2), np.float32), "p": np.array(0)})
    assert error.value.code == Status.INVALID_MODEL


def test_tensor_op_given_a_sequence_is_refused_at_load():
    graph = Graph(source_format="onnx")
    graph.tensors = {"s": Tensor("s", np.dtype(np.float32), None, kind="sequence"),
                     "y": Tensor("y", np.dtype(np.float32), [3])}
    graph.inputs, graph.outputs = ["s"], ["y"]
    graph.nodes = [Node("RELU", "relu", ["s"], ["y"])]
    with pytest.raises(LiteError, match="RELU.* reads 's', a SEQUENCE value; the op takes tensors") as error:
        Interpreter(model_content=serialize(graph))
    assert error.value.code == Status.INVALID_MODEL


@pytest.mark.parametrize(("opcode", "inputs", "output_kind"), [
    ("OPTIONAL_GET_ELEMENT", ["x"], "sequence"),
    ("OPTIONAL_HAS_ELEMENT", ["x"], "optional_tensor"),
    ("SEQUENCE_AT", ["s", "p"], "sequence"),
    ("SEQUENCE_LENGTH", ["s"], "optional_sequence"),
])
def test_op_writing_a_tensor_into_a_sequence_output_is_refused(opcode: str, inputs: list[str],
                                                               output_kind: str):
    """The converse of the kind checks above: an op that writes a plain tensor (OptionalGetElement of a
    tensor passes it through) into an output the file declares a sequence or optional left a value that
    no sequence reader could read (fuzz_c_api found it: tests/fuzz/regressions/c_api/
    optional_get_element_tensor_into_sequence.lite). Refused when the op is prepared, naming the output."""
    graph = Graph(source_format="onnx")
    graph.tensors = {"x": Tensor("x", np.dtype(np.float32), [2]),
                     "s": Tensor("s", np.dtype(np.float32), None, kind="sequence"),
                     "p": Tensor("p", np.dtype(np.int64), []),
                     "y": Tensor("y", np.dtype(np.float32), None, kind=output_kind)}
    graph.inputs, graph.outputs = inputs, ["y"]
    graph.nodes = [Node(opcode, "node", inputs, ["y"])]
    feeds = {"x": np.ones(2, np.float32), "s": [np.ones(2, np.float32)], "p": np.array(0)}
    message = f"{opcode} 'node': output 0 'y' is an? .*, the op writes a tensor"
    with pytest.raises(LiteError, match=message) as error:
        Interpreter(model_content=serialize(graph)).run({name: feeds[name] for name in inputs})
    assert error.value.code == Status.INVALID_MODEL


def test_sequence_written_into_an_optional_tensor_output_is_refused():
    """An optional tensor holds at most one element: SplitToSequence's 6 rows written into an output the
    file declares an optional tensor left a value no reader takes (fuzz_c_api, the second finding:
    tests/fuzz/regressions/c_api/split_to_sequence_into_optional_tensor.lite). Refused when it runs."""
    graph = Graph(source_format="onnx")
    graph.tensors = {"x": Tensor("x", np.dtype(np.float32), [3, 6]),
                     "y": Tensor("y", np.dtype(np.float32), None, kind="optional_tensor")}
    graph.inputs, graph.outputs = ["x"], ["y"]
    graph.nodes = [Node("SPLIT_TO_SEQUENCE", "split", ["x"], ["y"], {"axis": 1, "keepdims": False})]
    interpreter = Interpreter(model_content=serialize(graph))
    message = "output 0 'y' is an optional tensor, the op makes a sequence of 6"
    with pytest.raises(LiteError, match=message) as error:
        interpreter.run({"x": np.ones((3, 6), np.float32)})
    assert error.value.code == Status.INVALID_MODEL


@pytest.mark.parametrize(("input_kind", "output_kind"), [("tensor", "sequence"), ("sequence", "tensor"),
                                                        ("tensor", "optional_tensor")])
def test_identity_between_a_tensor_and_a_sequence_is_refused_at_load(input_kind: str, output_kind: str):
    """IDENTITY copies bytes: a tensor into a sequence slot (or back) is refused when the model loads."""
    graph = Graph(source_format="onnx")
    graph.tensors = {name: Tensor(name, np.dtype(np.float32), [2] if kind == "tensor" else None, kind=kind)
                     for name, kind in (("x", input_kind), ("y", output_kind))}
    graph.inputs, graph.outputs = ["x"], ["y"]
    graph.nodes = [Node("IDENTITY", "copy", ["x"], ["y"])]
    message = r"IDENTITY\) reads 'x', a .* value, and writes 'y', a .* value"
    with pytest.raises(LiteError, match=message) as error:
        Interpreter(model_content=serialize(graph))
    assert error.value.code == Status.INVALID_MODEL


@pytest.mark.parametrize("output_kind", ["sequence", "optional_tensor"])
def test_if_whose_body_computes_a_tensor_into_a_sequence_output_is_refused(output_kind: str):
    """Control flow copies a body's value into the op's output: a body tensor into an output the file
    declares a sequence or optional is refused when the op runs (it left no readable value before)."""
    then_branch = helper.make_graph([_node("Relu", ["x"], ["t"])], "then", [],
                                    [helper.make_tensor_value_info("t", F32, [2])])
    else_branch = helper.make_graph([_node("Neg", ["x"], ["e"])], "else", [],
                                    [helper.make_tensor_value_info("e", F32, [2])])
    model = _model([_node("If", ["c"], ["y"], then_branch=then_branch, else_branch=else_branch)],
                   [helper.make_tensor_value_info("c", BOOL, []),
                    helper.make_tensor_value_info("x", F32, [2])],
                   [helper.make_tensor_value_info("y", F32, [2])])
    graph = lower(model)
    graph.tensors["y"].kind, graph.tensors["y"].shape = output_kind, None
    interpreter = Interpreter(model_content=serialize(graph))
    message = "output 0 'y' is a sequence or optional, the body computes a tensor"
    with pytest.raises(LiteError, match=message) as error:
        interpreter.run({"c": np.array(True), "x": np.ones(2, np.float32)})
    assert error.value.code == Status.INVALID_MODEL


def test_tensor_calls_on_a_sequence_input_are_the_callers_error():
    """A sequence input's buffer is the runtime's own format: resizing it as a tensor, writing raw bytes
    into it or taking its data pointer is refused with INVALID_ARGUMENT naming the call that sets it
    (the fuzz target found raw bytes passed through an IDENTITY into an unreadable output)."""
    interpreter = Interpreter(model_content=convert_onnx(_model(
        [_node("SequenceLength", ["s"], ["n"])], [_seq_info("s")],
        [helper.make_tensor_value_info("n", I64, [])])))
    with pytest.raises(LiteError, match="resize_input: input 0 's' is a sequence or optional; set it with "
                                        "lite_interpreter_set_input_sequence") as error:
        interpreter.resize_input(0, [4])
    assert error.value.code == Status.INVALID_ARGUMENT
    out = interpreter.run({"s": [np.ones(3, np.float32), np.ones((2, 2), np.float32)]})
    assert int(out["n"]) == 2
    lib, handle = interpreter._lib, interpreter._live()
    assert lib.lite_interpreter_set_input(handle, 0, None, 0) == Status.INVALID_ARGUMENT
    assert b"set_input: input 0 's' is a sequence" in lib.lite_interpreter_error_message(handle)
    assert not lib.lite_interpreter_input_data(handle, 0)
    assert int(interpreter.run({"s": [np.ones(1, np.float32)]})["n"]) == 1


def test_growing_loop_sequence_counts_against_max_memory_bytes():
    """A hostile trip count on a loop that appends to a carried sequence stops with OUT_OF_MEMORY."""
    body = helper.make_graph(
        [_node("SequenceInsert", ["acc_in", "x"], ["acc_out"]), _node("Identity", ["c"], ["c_out"])], "body",
        [helper.make_tensor_value_info("i", I64, []), helper.make_tensor_value_info("c", BOOL, []),
         _seq_info("acc_in")],
        [helper.make_tensor_value_info("c_out", BOOL, []), _seq_info("acc_out")])
    model = _model([_node("SequenceEmpty", [], ["empty"]),
                    _node("Loop", ["n", "", "empty"], ["out"], body=body),
                    _node("SequenceLength", ["out"], ["length"])],
                   [helper.make_tensor_value_info("x", F32, [256]),
                    helper.make_tensor_value_info("n", I64, [])],
                   [helper.make_tensor_value_info("length", I64, [])])
    interpreter = Interpreter(model_content=convert_onnx(model), max_memory_bytes=4 << 20)
    x = np.ones(256, np.float32)
    assert interpreter.run({"x": x, "n": np.array(10)})["length"] == 10
    with pytest.raises(LiteError, match="max_memory_bytes") as error:
        interpreter.run({"x": x, "n": np.array(2**40)})
    assert error.value.code == Status.OUT_OF_MEMORY


def test_if_passing_a_sequence_input_through_matches_onnxruntime():
    """One branch returns the outer sequence as it is (a body of one IDENTITY), the other grows it."""
    then_branch = helper.make_graph([_node("Identity", ["s"], ["same"])], "then", [], [_seq_info("same")])
    else_branch = helper.make_graph([_node("SequenceInsert", ["s", "t"], ["grown"])], "else", [],
                                    [_seq_info("grown")])
    model = _model([_node("If", ["c"], ["out"], then_branch=then_branch, else_branch=else_branch)],
                   [helper.make_tensor_value_info("c", BOOL, []), _seq_info("s"),
                    helper.make_tensor_value_info("t", F32, [2])], [_seq_info("out")])
    interpreter = Interpreter(model_content=convert_onnx(model))
    seq = [np.arange(4, dtype=np.float32).reshape(2, 2), np.ones(3, np.float32)]
    for cond in (True, False):
        feeds = {"c": np.array(cond), "s": seq, "t": np.array([5.0, 6.0], np.float32)}
        _assert_same(interpreter.run(feeds)["out"], _onnxruntime(model, feeds)[0])


def test_sequence_erase_construct_and_optional_tensor_match_onnxruntime():
    """SequenceConstruct, SequenceErase (a position, and the default: the last), SequenceAt, Optional of a
    tensor and OptionalGetElement, with element shapes that differ."""
    model = _model([_node("SequenceConstruct", ["a", "b", "a"], ["s"]),
                    _node("SequenceErase", ["s", "p"], ["s1"]), _node("SequenceErase", ["s1"], ["s2"]),
                    _node("SequenceAt", ["s1", "p"], ["at"]), _node("Optional", ["b"], ["o"]),
                    _node("OptionalGetElement", ["o"], ["b_again"])],
                   [helper.make_tensor_value_info("a", F32, [2, 3]),
                    helper.make_tensor_value_info("b", F32, [4]),
                    helper.make_tensor_value_info("p", I64, [])],
                   [_seq_info("s1"), _seq_info("s2"), helper.make_tensor_value_info("at", F32, None),
                    helper.make_tensor_value_info("b_again", F32, [4])], opset=18)
    interpreter = Interpreter(model_content=convert_onnx(model))
    rng = np.random.default_rng(2)
    for position in (0, 1, -2):
        feeds = {"a": rng.standard_normal((2, 3)).astype(np.float32),
                 "b": rng.standard_normal(4).astype(np.float32), "p": np.array(position, np.int64)}
        got = interpreter.run(feeds)
        for name, want in zip(["s1", "s2", "at", "b_again"], _onnxruntime(model, feeds), strict=True):
            _assert_same(got[name], want)


@pytest.mark.parametrize("shape, axis, split", [
    ((3, 0), 0, None),        # rows of nothing: every element is empty
    ((0, 4), 1, None),        # nothing before the axis
    ((2, 0, 3), 1, None),     # an empty axis: an empty sequence
    ((2, 5), 1, [2, 0, 3]),   # a zero-length piece among others
    ((0, 5), 1, [5, 0]),
    ((4, 0), 0, 3),           # a scalar chunk over an empty row
])
def test_split_and_concat_of_empty_tensors_match_onnxruntime(shape: tuple, axis: int, split: object):
    """Zero-sized tensors and zero-length pieces are valid ONNX values; splitting and re-joining them
    copies nothing (no memcpy from or to an unallocated, null buffer: the fuzzer found one in the split)."""
    inputs = [helper.make_tensor_value_info("x", F32, list(shape))]
    split_inputs = ["x"]
    initializers = []
    if split is not None:
        values = [split] if isinstance(split, int) else split
        dims = [] if isinstance(split, int) else [len(split)]
        initializers.append(helper.make_tensor("split", I64, dims, values))
        split_inputs.append("split")
    nodes = [_node("SplitToSequence", split_inputs, ["s"], axis=axis),
             _node("SequenceLength", ["s"], ["n"])]
    outputs = [_seq_info("s"), helper.make_tensor_value_info("n", I64, [])]
    if shape[axis] > 0:  # ConcatFromSequence of an empty sequence is an error in onnxruntime too
        nodes.append(_node("ConcatFromSequence", ["s"], ["joined"], axis=axis))
        outputs.append(helper.make_tensor_value_info("joined", F32, None))
    graph = helper.make_graph(nodes, "seq", inputs, outputs, initializer=initializers)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)
    feeds = {"x": np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape)}
    got = Interpreter(model_content=convert_onnx(model)).run(feeds)
    for name, want in zip([o.name for o in outputs], _onnxruntime(model, feeds), strict=True):
        _assert_same(got[name], want)


@pytest.mark.parametrize("split", [None, 3])
def test_split_of_an_empty_tensor_into_too_many_pieces_is_refused(split: int | None):
    """A [10^9, 0] input holds no bytes, but its sequence of 10^9 (or 10^9 / 3) empty rows would need
    an entry each: refused against max_memory_bytes before any per-piece bookkeeping is allocated
    (the fuzzer found a 1 GiB allocation there); a modest count still runs."""
    inputs = ["x"] if split is None else ["x", "split"]
    initializers = [] if split is None else [helper.make_tensor("split", I64, [], [split])]
    graph = helper.make_graph([_node("SplitToSequence", inputs, ["s"], axis=0),
                               _node("SequenceLength", ["s"], ["n"])], "seq",
                              [helper.make_tensor_value_info("x", F32, ["rows", 0])],
                              [helper.make_tensor_value_info("n", I64, [])], initializer=initializers)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)
    interpreter = Interpreter(model_content=convert_onnx(model))
    rows = 10**9
    with pytest.raises(LiteError, match="a sequence of .* elements needs .* over max_memory_bytes") as error:
        interpreter.run({"x": np.zeros((rows, 0), np.float32)})
    assert error.value.code == Status.OUT_OF_MEMORY
    feeds = {"x": np.zeros((1000, 0), np.float32)}
    assert interpreter.run(feeds)["n"] == _onnxruntime(model, feeds)[0]
