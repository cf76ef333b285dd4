"""A refusal lists every unsupported op at once, one line per op type (count and a few node names),
for ONNX and TFLite alike, including the ops inside subgraphs the model runs through control flow."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper

from lite_converter.convert import convert, convert_tflite
from lite_converter.ir import ConversionError

pytest.importorskip("ai_edge_litert", reason="needs the tflite extra (ai-edge-litert)")
from ai_edge_litert import schema_py_generated as s  # noqa: E402

from tests.tflite_builder import TfliteModel, assert_matches_litert, options  # noqa: E402


def _problem_lines(error: pytest.ExceptionInfo[ConversionError]) -> list[str]:
    return [line.strip()[2:] for line in str(error.value).splitlines() if line.strip().startswith("- ")]


def test_tflite_73_unsupported_nodes_make_two_lines() -> None:
    """73 nodes of one unknown builtin and 2 of a MediaPipe custom op: 2 lines, not 75."""
    m = TfliteModel()
    x = m.tensor("x", [1, 4, 4, 2])
    previous = x
    for index in range(73):
        out = m.tensor(f"stage{index}", [1, 4, 4, 2])
        m.op("SEGMENT_SUM", [previous], [out])
        previous = out
    for index in range(2):
        out = m.tensor(f"upsampled{index}", [1, 4, 4, 2])
        m.op("CUSTOM", [previous], [out], custom="MaxPoolingWithArgmax2D")
        previous = out
    with pytest.raises(ConversionError) as error:
        convert_tflite(m.finish([x], [previous]))
    lines = _problem_lines(error)
    assert lines == [
        "unsupported custom op MaxPoolingWithArgmax2D: 2 node(s) 'upsampled0', 'upsampled1'",
        "unsupported op SEGMENT_SUM: 73 node(s) 'stage0', 'stage1', 'stage2', 'stage3', 'stage4' "
        "and 68 more",
    ], str(error.value)


def test_tflite_node_problems_of_one_kind_make_one_line() -> None:
    """Ops we import but not in this form (a non-constant STRIDED_SLICE begin, 3 times): one line."""
    m = TfliteModel()
    x, begin = m.tensor("x", [4, 6]), m.tensor("begin", [2], np.int32)
    end, strides = (
        m.constant("end", np.array([4, 6], np.int32)),
        m.constant("strides", np.array([1, 1], np.int32)),
    )
    outs = [m.tensor(f"cut{i}", [4, 6]) for i in range(3)]
    for out in outs:
        m.op("STRIDED_SLICE", [x, begin, end, strides], [out], options(s.StridedSliceOptionsT()))
    with pytest.raises(ConversionError) as error:
        convert_tflite(m.finish([x, begin], outs))
    assert _problem_lines(error) == [
        "STRIDED_SLICE begin is not a constant: 3 node(s) 'cut0', 'cut1', 'cut2'"
    ]


def _streaming_model(init_op: str | None = None) -> bytes:
    """The shape of the streaming models of the issue: subgraph 0 runs an init subgraph once
    (CALL_ONCE) that assigns a resource variable, then reads, updates and assigns it; ``init_op``
    computes the first value in the init subgraph instead."""
    m = TfliteModel()
    x = m.tensor("x", [1, 4])
    handle = m.resource("state_handle")
    state, y = m.tensor("state", [1, 4]), m.tensor("y", [1, 4])
    m.op("CALL_ONCE", [], [], options(s.CallOnceOptionsT(), initSubgraphIndex=1))
    m.op("VAR_HANDLE", [], [handle], options(s.VarHandleOptionsT(), sharedName=b"state"))
    m.op("READ_VARIABLE", [handle], [state])
    m.op("ADD", [x, state], [y], options(s.AddOptionsT()))
    m.op("ASSIGN_VARIABLE", [handle, y], [])
    m.end_subgraph([x], [y], name="main")
    init_handle = m.resource("init_handle")
    value = m.constant("zeros", np.zeros((1, 4), np.float32))
    m.op("VAR_HANDLE", [], [init_handle], options(s.VarHandleOptionsT(), sharedName=b"state"))
    if init_op is not None:
        computed = m.tensor("computed", [1, 4])
        m.op("CUSTOM", [value], [computed], custom=init_op)
        value = computed
    m.op("ASSIGN_VARIABLE", [init_handle, value], [])
    m.end_subgraph([], [], name="init")
    return m.finish()


def test_tflite_call_once_init_that_computes_is_explained() -> None:
    """The init subgraph is evaluated at conversion only when it assigns constants (the streaming
    model itself imports: tests/test_tflite_streaming.py)."""
    convert_tflite(_streaming_model())
    with pytest.raises(ConversionError) as error:
        convert_tflite(_streaming_model(init_op="RandomInit"))
    assert _problem_lines(error) == [
        "the CALL_ONCE init subgraph 1 'init' runs CUSTOM:RandomInit (operator 1); only VAR_HANDLE and "
        "ASSIGN_VARIABLE of constants are evaluated at conversion",
        "the CALL_ONCE init subgraph 1 'init': ASSIGN_VARIABLE (operator 2) assigns a computed value; only "
        "constants are evaluated at conversion",
    ], _problem_lines(error)


def test_tflite_subgraph_nothing_runs_is_left_out(tmp_path: Path) -> None:
    """A second subgraph no op calls (LiteRT runs subgraph 0 and leaves it alone): subgraph 0 imports."""
    m = TfliteModel()
    x, y = m.tensor("x", [2, 3]), m.tensor("y", [2, 3])
    m.op("PRELU", [x, m.constant("alpha", np.array([0.1, 0.2, 0.3], np.float32))], [y])
    m.end_subgraph([x], [y], name="main")
    a, b = m.tensor("a", [2]), m.tensor("b", [2])
    m.op("CUSTOM", [a], [b], custom="NotRunAnywhere")
    m.end_subgraph([a], [b], name="unused")
    feeds = [np.random.default_rng(30).standard_normal((2, 3)).astype(np.float32)]
    assert_matches_litert(m.finish(), feeds, tmp_path)


def test_onnx_refusal_lists_ops_inside_branches() -> None:
    """An op carrying subgraphs (here a custom-domain one with a nested If) that cannot convert: the
    ops without a lowering inside its bodies are listed too, with where they are."""
    then_branch = helper.make_graph(
        [helper.make_node("Mystery", ["x"], ["t"], name="mystery_in_then", domain="com.example")],
        "then",
        [],
        [helper.make_tensor_value_info("t", TensorProto.FLOAT, [2])],
    )
    else_branch = helper.make_graph(
        [helper.make_node("Identity", ["x"], ["e"], name="plain")],
        "else",
        [],
        [helper.make_tensor_value_info("e", TensorProto.FLOAT, [2])],
    )
    nested = helper.make_node(
        "If", ["c"], ["r"], name="inner_if", then_branch=then_branch, else_branch=else_branch
    )
    body = helper.make_graph(
        [nested, helper.make_node("Unique", ["r"], ["u"], name="unique_in_body")],
        "body",
        [],
        [helper.make_tensor_value_info("u", TensorProto.FLOAT, [None])],
    )
    wrapper = helper.make_node("Wrapper", ["x", "c"], ["y"], name="wrapper", domain="com.example", body=body)
    graph = helper.make_graph(
        [wrapper],
        "g",
        [
            helper.make_tensor_value_info("x", TensorProto.FLOAT, [2]),
            helper.make_tensor_value_info("c", TensorProto.BOOL, []),
        ],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [None])],
    )
    model = helper.make_model(
        graph, opset_imports=[helper.make_opsetid("", 17), helper.make_opsetid("com.example", 1)]
    )
    with pytest.raises(ConversionError) as error:
        convert(onnx.ModelProto.FromString(model.SerializeToString()))
    lines = _problem_lines(error)
    assert "unsupported op com.example::Wrapper: 1 node(s) 'wrapper'" in lines, lines
    assert (
        "unsupported op Unique (inside com.example::Wrapper 'wrapper' body): 1 node(s) 'unique_in_body'"
        in lines
    ), lines
    assert any(
        line.startswith("unsupported op com.example::Mystery (inside If 'inner_if' then_branch)")
        for line in lines
    ), lines
    assert not any("Identity" in line for line in lines), lines


def test_tflite_operator_that_contradicts_its_tensors_is_refused() -> None:
    """A SPLIT_V naming tensors past the tensor list; then a PACK without its options."""
    m = TfliteModel()
    x, y, z = m.tensor("x", [2, 3]), m.tensor("y", [2, 2, 3]), m.tensor("z", [2, 3])
    m.op("PACK", [x, x], [y])
    m.op("SPLIT_V", [x, 99, 98], [z])
    with pytest.raises(ConversionError) as error:
        convert_tflite(m.finish([x], [y, z]))
    lines = _problem_lines(error)
    assert lines[1:] == [], lines  # the PACK is reached once the file's indices are sound:
    assert lines[0] == "operator 1 (SPLIT_V) names tensors [0, 99, 98, 2] of 3", lines
    m = TfliteModel()
    x, y = m.tensor("x", [2, 3]), m.tensor("y", [2, 2, 3])
    m.op("PACK", [x, x], [y])
    with pytest.raises(ConversionError) as error:
        convert_tflite(m.finish([x], [y]))
    lines = _problem_lines(error)
    assert lines[0].startswith("operator 0 (PACK) does not fit its tensors or options: AttributeError"), lines
