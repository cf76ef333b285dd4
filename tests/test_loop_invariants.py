"""An attention decoder Loop shaped like paddle2onnx's SLANet export: the encoder features are a
carried value the body returns as ``Squeeze(Add(Unsqueeze(x), 0))``, the body multiplies them by a
constant key weight at every step, attends over them (MatMul with the features as B) and reads a
table row at the step number (a value input: the body is prepared again at every step).

The converter (frontends/onnx_loop_invariants.py) reads the features from the outer scope, hoists
the key MatMul out of the Loop and makes the features a value input of the body (packed once per
LOOP eval); the runtime keeps packed weights across the body's re-prepares. Checked against
onnxruntime on the file as written (and the rewritten ModelProto against the original), over
several trip counts and feature maps on one interpreter."""

from __future__ import annotations

import copy

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from lite_converter.convert import convert_onnx
from lite_converter.frontends.onnx_loop_invariants import hoist_loop_invariants
from runtime_arm import Interpreter

F32, I64, BOOL = TensorProto.FLOAT, TensorProto.INT64, TensorProto.BOOL
POSITIONS, CHANNELS, HIDDEN, STEPS = 20, 12, 16, 9


def _decoder() -> onnx.ModelProto:
    info = helper.make_tensor_value_info
    rng = np.random.default_rng(11)

    def weight(name: str, *shape: int) -> onnx.TensorProto:
        return numpy_helper.from_array((rng.standard_normal(shape) * 0.3).astype(np.float32), name)

    nodes = [
        helper.make_node("MatMul", ["feat_in", "wk"], ["keys"]),             # invariant: hoisted
        helper.make_node("MatMul", ["h_in", "wq"], ["query"]),               # [1, HIDDEN]
        helper.make_node("Unsqueeze", ["query", "axis0"], ["query3"]),        # [1, 1, HIDDEN]
        helper.make_node("Add", ["keys", "query3"], ["energy_in"]),
        helper.make_node("Tanh", ["energy_in"], ["energy"]),
        helper.make_node("MatMul", ["energy", "wv"], ["score"]),              # [1, P, 1]
        helper.make_node("Softmax", ["score"], ["attn"], axis=1),
        helper.make_node("Transpose", ["attn"], ["attn_t"], perm=[0, 2, 1]),  # [1, 1, P]
        helper.make_node("MatMul", ["attn_t", "feat_in"], ["context3"]),      # B: the features
        helper.make_node("Squeeze", ["context3", "axis1"], ["context"]),      # [1, C]
        helper.make_node("MatMul", ["context", "wc"], ["ctx_h"]),
        helper.make_node("Unsqueeze", ["i", "axis0"], ["start"]),
        helper.make_node("Add", ["start", "one"], ["stop"]),
        helper.make_node("Slice", ["table", "start", "stop", "axis0"], ["row"]),
        helper.make_node("Add", ["ctx_h", "row"], ["pre"]),
        helper.make_node("Tanh", ["pre"], ["h_out"]),
        # the features returned as paddle2onnx returns them
        helper.make_node("Unsqueeze", ["feat_in", "axis0"], ["feat4"]),
        helper.make_node("Add", ["feat4", "zero"], ["feat4z"]),
        helper.make_node("Squeeze", ["feat4z", "axis0"], ["feat_out"]),
        # a counter that does change: stays carried
        helper.make_node("Add", ["count_in", "onef"], ["count_out"]),
        helper.make_node("Identity", ["c_in"], ["c_out"]),
        helper.make_node("Identity", ["h_out"], ["scan"]),
    ]
    body = helper.make_graph(
        nodes, "body",
        [info("i", I64, []), info("c_in", BOOL, []), info("h_in", F32, [1, HIDDEN]),
         info("feat_in", F32, [1, POSITIONS, CHANNELS]), info("count_in", F32, [1])],
        [info("c_out", BOOL, []), info("h_out", F32, [1, HIDDEN]),
         info("feat_out", F32, [1, POSITIONS, CHANNELS]), info("count_out", F32, [1]),
         info("scan", F32, [1, HIDDEN])],
        [numpy_helper.from_array(np.array([0], np.int64), "axis0"),
         numpy_helper.from_array(np.array([1], np.int64), "axis1"),
         numpy_helper.from_array(np.array([1], np.int64), "one"),
         numpy_helper.from_array(np.array([0.0], np.float32), "zero"),
         numpy_helper.from_array(np.array([1.0], np.float32), "onef"),
         weight("wk", CHANNELS, HIDDEN), weight("wq", HIDDEN, HIDDEN), weight("wv", HIDDEN, 1),
         weight("wc", CHANNELS, HIDDEN)])
    outputs = ["h_final", "feat_final", "count_final", "steps"]
    loop = helper.make_node("Loop", ["trip", "cond0", "h0", "feat", "count0"], outputs, body=body)
    # the features come from an op, as an encoder's do (not a constant, not a graph input)
    encoder = helper.make_node("Relu", ["image"], ["feat"])
    graph = helper.make_graph(
        [encoder, loop], "decoder",
        [info("trip", I64, []), info("h0", F32, [1, HIDDEN]), info("table", F32, [STEPS, HIDDEN]),
         info("image", F32, [1, POSITIONS, CHANNELS])],
        [info("h_final", F32, None), info("feat_final", F32, None), info("count_final", F32, None),
         info("steps", F32, None)],
        [numpy_helper.from_array(np.array(True), "cond0"),
         numpy_helper.from_array(np.array([0.0], np.float32), "count0")])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)


def _feeds(trip: int, seed: int) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(seed)
    return {"trip": np.array(trip, np.int64), "h0": rng.standard_normal((1, HIDDEN)).astype(np.float32),
            "table": rng.standard_normal((STEPS, HIDDEN)).astype(np.float32),
            "image": rng.standard_normal((1, POSITIONS, CHANNELS)).astype(np.float32)}


def test_rewrite_frees_the_features_and_hoists_the_key_matmul() -> None:
    import onnxruntime as ort  # the oracle

    original = _decoder()
    rewritten = copy.deepcopy(original)
    assert hoist_loop_invariants(rewritten)
    loop = next(n for n in rewritten.graph.node if n.op_type == "Loop")
    assert list(loop.input) == ["trip", "cond0", "h0", "count0"]  # the counter stays carried
    body = loop.attribute[0].g
    assert [(n.op_type, list(n.input)) for n in rewritten.graph.node if n.op_type == "MatMul"] == \
        [("MatMul", ["feat", "wk"])]
    assert "feat" in {name for n in body.node for name in n.input}  # read from the outer scope
    a = ort.InferenceSession(original.SerializeToString(), providers=["CPUExecutionProvider"])
    b = ort.InferenceSession(rewritten.SerializeToString(), providers=["CPUExecutionProvider"])
    for trip in (STEPS, 0):
        feeds = _feeds(trip, 3)
        for want, got in zip(a.run(None, feeds), b.run(None, feeds), strict=True):
            np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)


def test_attention_decoder_matches_onnxruntime() -> None:
    import onnxruntime as ort  # the oracle

    model = _decoder()
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    interpreter = Interpreter(model_content=convert_onnx(model))
    # new features at every call: the body's packed copy of them must follow
    for seed, trip in enumerate((STEPS, 3, 0, 1, STEPS, STEPS)):
        feeds = _feeds(trip, seed)
        want = session.run(None, feeds)
        got = interpreter.run(feeds)
        for name, w in zip(("h_final", "feat_final", "count_final", "steps"), want, strict=True):
            g = got[name]
            assert g.shape == w.shape, (name, trip, g.shape, w.shape)
            np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-5, err_msg=f"{name}, trip {trip}")
