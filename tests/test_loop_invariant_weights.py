"""A decoder loop exported as paddle2onnx exports SLANet's: its weights are Loop-carried values the body
passes through unchanged, initialized from constants, and the step number is a Slice start (a value
input: the body is prepared again at every step). The converter gives the body those weights as
constants of its own (folded Transposes, weights packed once) and the runtime keeps the packed weights
across the body's re-prepares. Against onnxruntime over several trip counts on one interpreter, with
a tanh step (the fused TANH's vector path)."""

from __future__ import annotations

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from lite_converter.convert import convert_onnx, load_model, lower
from runtime_arm import Interpreter

F32, I64, BOOL = TensorProto.FLOAT, TensorProto.INT64, TensorProto.BOOL
HIDDEN, STEPS = 24, 12


def _decoder() -> onnx.ModelProto:
    info = helper.make_tensor_value_info
    body = helper.make_graph(
        [helper.make_node("Transpose", ["w_in"], ["w_t"], perm=[1, 0]),
         helper.make_node("MatMul", ["h_in", "w_t"], ["hw"]),
         helper.make_node("Unsqueeze", ["i", "axis0"], ["start"]),
         helper.make_node("Add", ["start", "one"], ["stop"]),
         helper.make_node("Slice", ["table", "start", "stop", "axis0"], ["row"]),
         helper.make_node("Add", ["hw", "b_in"], ["hb"]),
         helper.make_node("Add", ["hb", "row"], ["pre"]),
         helper.make_node("Tanh", ["pre"], ["h_out"]),
         helper.make_node("Identity", ["c_in"], ["c_out"]),
         helper.make_node("Identity", ["h_out"], ["scan"])],
        "body",
        [info("i", I64, []), info("c_in", BOOL, []), info("h_in", F32, [1, HIDDEN]),
         info("w_in", F32, [HIDDEN, HIDDEN]), info("b_in", F32, [HIDDEN])],
        [info("c_out", BOOL, []), info("h_out", F32, [1, HIDDEN]), info("w_in", F32, [HIDDEN, HIDDEN]),
         info("b_in", F32, [HIDDEN]), info("scan", F32, [1, HIDDEN])],
        [numpy_helper.from_array(np.array([0], np.int64), "axis0"),
         numpy_helper.from_array(np.array([1], np.int64), "one")])
    rng = np.random.default_rng(5)
    inits = [numpy_helper.from_array((rng.standard_normal((HIDDEN, HIDDEN)) * 0.4).astype(np.float32), "w"),
             numpy_helper.from_array(rng.standard_normal(HIDDEN).astype(np.float32), "b"),
             numpy_helper.from_array(np.array(True), "cond0")]
    outputs = ["h_final", "w_final", "b_final", "steps"]
    loop = helper.make_node("Loop", ["trip", "cond0", "h0", "w", "b"], outputs, body=body)
    graph = helper.make_graph(
        [loop], "decoder",
        [info("trip", I64, []), info("h0", F32, [1, HIDDEN]), info("table", F32, [STEPS, HIDDEN])],
        [info("h_final", F32, None), info("steps", F32, None)], inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)


def _feeds(trip: int) -> dict[str, np.ndarray]:
    rng = np.random.default_rng(trip)
    return {"trip": np.array(trip, np.int64), "h0": rng.standard_normal((1, HIDDEN)).astype(np.float32),
            "table": rng.standard_normal((STEPS, HIDDEN)).astype(np.float32)}


def test_carried_weights_become_body_constants() -> None:
    model = _decoder()
    loop = next(n for n in lower(load_model(model)).nodes if n.op_type == "LOOP")
    body = next(v for v in loop.attrs.values() if hasattr(v, "nodes"))
    weighted = [n for n in body.nodes if n.op_type in ("FULLY_CONNECTED", "MATMUL")]
    assert weighted and all(body.tensors[n.inputs[1]].data is not None for n in weighted), \
        [(n.op_type, n.inputs) for n in body.nodes]
    assert "TRANSPOSE" not in [n.op_type for n in body.nodes]


def test_decoder_loop_matches_onnxruntime() -> None:
    import onnxruntime as ort  # the oracle

    model = _decoder()
    session = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    interpreter = Interpreter(model_content=convert_onnx(model))
    for trip in (STEPS, 3, 0, 1, STEPS):
        feeds = _feeds(trip)
        want = session.run(None, feeds)
        got = list(interpreter.run(feeds).values())
        for g, w in zip(got, want, strict=True):
            assert g.shape == w.shape, (trip, g.shape, w.shape)
            np.testing.assert_allclose(g, w, rtol=1e-5, atol=1e-6, err_msg=f"trip {trip}")
