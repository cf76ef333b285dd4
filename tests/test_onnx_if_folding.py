"""ONNX If folded at conversion when its condition is known, against onnxruntime on the original model.

Conditions from Constant nodes, from arithmetic on initializers, from a static input shape, and
from an input pinned with ``input_values`` / ``lite convert --input-value`` (Silero VAD switches on
its ``sr`` input this way); nested Ifs; a recurrent op inside the taken branch. An If whose
condition depends on input data is refused, and the refusal lists the unsupported ops inside its
branches with the rest, at once.
"""

from __future__ import annotations

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

from lite_converter.app.cli import main as lite_main
from lite_converter.convert import convert_onnx
from lite_converter.ir import ConversionError
from runtime_arm import Interpreter
from tests.test_ops_recurrent import assert_close, run_onnxruntime

X = np.arange(-6, 6, dtype=np.float32).reshape(2, 6) / 3


def _branch(name: str, nodes: list[onnx.NodeProto], output: str,
            initializers: list[onnx.TensorProto] | None = None) -> onnx.GraphProto:
    outputs = [helper.make_tensor_value_info(output, TensorProto.FLOAT, None)]
    return helper.make_graph(nodes, name, [], outputs, initializers or [])


THEN = _branch("then", [helper.make_node("Mul", ["x", "two"], ["then_y"])], "then_y",
               [numpy_helper.from_array(np.float32(2), "two")])
ELSE = _branch("else", [helper.make_node("Sigmoid", ["x"], ["else_y"])], "else_y")


def _model(cond_nodes: list[onnx.NodeProto], inputs: dict[str, tuple[int, list]],
           initializers: dict[str, np.ndarray] | None = None, then_branch: onnx.GraphProto = THEN,
           else_branch: onnx.GraphProto = ELSE) -> onnx.ModelProto:
    nodes = [*cond_nodes, helper.make_node("If", ["cond"], ["y"], name="switch", then_branch=then_branch,
                                           else_branch=else_branch)]
    graph = helper.make_graph(
        nodes, "if_model", [helper.make_tensor_value_info(n, t, s) for n, (t, s) in inputs.items()],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
        [numpy_helper.from_array(v, n) for n, v in (initializers or {}).items()])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 9
    return model


def _lite(model: onnx.ModelProto, feeds: dict[str, np.ndarray], **kwargs: object) -> dict[str, np.ndarray]:
    return Interpreter(model_content=convert_onnx(model, **kwargs), threads=1).run(feeds)


@pytest.mark.parametrize("value", [True, False])
def test_constant_condition(value):
    cond = helper.make_node("Constant", [], ["cond"], value=numpy_helper.from_array(np.array(value)))
    model = _model([cond], {"x": (TensorProto.FLOAT, [2, 6])})
    assert_close(_lite(model, {"x": X}), run_onnxruntime(model, {"x": X}))


@pytest.mark.parametrize("threshold", [3, 7])
def test_condition_computed_from_initializers_and_a_static_shape(threshold):
    nodes = [helper.make_node("Shape", ["x"], ["shape"]), helper.make_node("ReduceSum", ["shape"], ["total"]),
             helper.make_node("Greater", ["total", "threshold"], ["cond_1d"]),
             helper.make_node("Squeeze", ["cond_1d"], ["cond"])]
    model = _model(nodes, {"x": (TensorProto.FLOAT, [2, 6])}, {"threshold": np.array([threshold], np.int64)})
    assert_close(_lite(model, {"x": X}), run_onnxruntime(model, {"x": X}))


def _sample_rate_model() -> onnx.ModelProto:
    equal = helper.make_node("Equal", ["sr", "sr_16k"], ["cond"])
    return _model([equal], {"x": (TensorProto.FLOAT, [2, 6]), "sr": (TensorProto.INT64, [])},
                  {"sr_16k": np.array(16000, np.int64)})


@pytest.mark.parametrize("sr", [16000, 8000])
def test_pinned_input_decides_the_branch(sr):
    model = _sample_rate_model()
    ours = _lite(model, {"x": X}, input_values={"sr": np.int64(sr)})
    assert_close(ours, run_onnxruntime(model, {"x": X, "sr": np.array(sr, np.int64)}))


def test_unsupported_op_inside_a_runtime_branch_is_listed():
    """A data-dependent If converts to a runtime IF (tests/test_control_flow.py); an op without a
    lowering inside its branch is named in the one refusal."""
    nodes = [helper.make_node("Unique", ["x"], ["u"]), helper.make_node("Sigmoid", ["x"], ["else_y"])]
    else_branch = _branch("else", nodes, "else_y")
    model = _model([helper.make_node("Equal", ["sr", "sr_16k"], ["cond"])],
                   {"x": (TensorProto.FLOAT, [2, 6]), "sr": (TensorProto.INT64, [])},
                   {"sr_16k": np.array(16000, np.int64)}, else_branch=else_branch)
    with pytest.raises(ConversionError) as raised:
        convert_onnx(model)
    message = str(raised.value)
    assert "unsupported op If" not in message
    assert "unsupported op Unique (inside If 'switch' else_branch): 1 node(s) 'u'" in message
    # pinned to the branch that has the unsupported op: that op is named, now as an inlined node
    with pytest.raises(ConversionError, match=r"Unique: 1 node\(s\) 'switch/else_branch/Unique_0'"):
        convert_onnx(model, input_values={"sr": np.int64(8000)})


def test_nested_if_and_an_lstm_in_the_taken_branch():
    rng = np.random.default_rng(0)
    w = rng.standard_normal((1, 16, 6)).astype(np.float32)
    r = rng.standard_normal((1, 16, 4)).astype(np.float32)
    lstm_branch = helper.make_graph(
        [helper.make_node("LSTM", ["x3", "w", "r"], ["y4", "y_h"], hidden_size=4),
         helper.make_node("Reshape", ["y4", "flat"], ["lstm_y"])],
        "lstm", [], [helper.make_tensor_value_info("lstm_y", TensorProto.FLOAT, None)],
        [numpy_helper.from_array(w, "w"), numpy_helper.from_array(r, "r"),
         numpy_helper.from_array(np.array([2, 4], np.int64), "flat")])
    inner = helper.make_node("If", ["mode_is_lstm"], ["inner_y"], name="inner", then_branch=lstm_branch,
                             else_branch=ELSE)
    outer_then = helper.make_graph(
        [helper.make_node("Equal", ["mode", "one"], ["mode_is_lstm"]), inner], "outer_then", [],
        [helper.make_tensor_value_info("inner_y", TensorProto.FLOAT, None)])
    model = _model([helper.make_node("Greater", ["mode", "zero"], ["cond"]),
                    helper.make_node("Unsqueeze", ["x", "axis1"], ["x3"])],
                   {"x": (TensorProto.FLOAT, [2, 6]), "mode": (TensorProto.INT64, [])},
                   {"zero": np.array(0, np.int64), "one": np.array(1, np.int64),
                    "axis1": np.array([1], np.int64)},
                   then_branch=outer_then)
    for mode in (0, 1, 2):
        ours = _lite(model, {"x": X}, input_values={"mode": np.int64(mode)})
        assert_close(ours, run_onnxruntime(model, {"x": X, "mode": np.array(mode, np.int64)}))


def test_pinning_an_unknown_input_or_a_wrong_shape_is_an_error():
    with pytest.raises(ConversionError, match="unknown graph input"):
        convert_onnx(_sample_rate_model(), input_values={"rate": np.int64(1)})
    with pytest.raises(ConversionError, match="shape"):
        convert_onnx(_sample_rate_model(), input_values={"sr": np.array([1, 2], np.int64)})


def test_cli_input_value(tmp_path):
    source = tmp_path / "vad_like.onnx"
    onnx.save(_sample_rate_model(), source)
    output = tmp_path / "vad_like.lite"
    assert lite_main(["convert", str(source), "-o", str(output), "--input-value", "sr=16000"]) == 0
    ours = Interpreter(str(output), threads=1).run({"x": X})
    assert_close(ours, run_onnxruntime(_sample_rate_model(), {"x": X, "sr": np.array(16000, np.int64)}))


def test_refusal_lists_ops_inside_a_loop_body_with_every_other_problem():
    body = helper.make_graph(
        [helper.make_node("Identity", ["cond_in"], ["cond_out"]),
         helper.make_node("Unique", ["x"], ["u"]),
         helper.make_node("Mul", ["carried", "two"], ["carried_out"])],
        "body", [helper.make_tensor_value_info("i", TensorProto.INT64, []),
                 helper.make_tensor_value_info("cond_in", TensorProto.BOOL, []),
                 helper.make_tensor_value_info("carried", TensorProto.FLOAT, None)],
        [helper.make_tensor_value_info("cond_out", TensorProto.BOOL, []),
         helper.make_tensor_value_info("carried_out", TensorProto.FLOAT, None)],
        [numpy_helper.from_array(np.float32(2), "two")])
    nodes = [helper.make_node("Loop", ["trips", "", "x"], ["looped"], name="repeat", body=body),
             helper.make_node("NonMaxSuppression", ["boxes", "scores"], ["picked"], name="nms"),
             helper.make_node("Relu", ["looped"], ["y"])]
    graph = helper.make_graph(
        nodes, "loop_model", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 6]),
                              helper.make_tensor_value_info("boxes", TensorProto.FLOAT, [1, 4, 4]),
                              helper.make_tensor_value_info("scores", TensorProto.FLOAT, [1, 1, 4])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None),
         helper.make_tensor_value_info("picked", TensorProto.INT64, None)],
        [numpy_helper.from_array(np.array(3, np.int64), "trips")])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    with pytest.raises(ConversionError) as raised:
        convert_onnx(model)
    message = str(raised.value)
    assert "unsupported op Loop" not in message  # a runtime LOOP now
    for line in ("unsupported op Unique (inside Loop 'repeat' body): 1 node(s) 'u'",
                 "unsupported op NonMaxSuppression: 1 node(s) 'nms'"):
        assert line in message, message
    assert "Mul" not in message and "Identity" not in message
