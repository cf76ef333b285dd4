"""Logits read by a softmax keep their whole range under percentile calibration (slim/decision_tensors.py).

A sequence head like PP-OCR rec's CTC has more winning logits per batch than a percentile leaves out,
so a percentile range clips winners. The oracle is the largest logit of the calibration data
(numpy). The accuracy effect is measured on rec in benchmarks/COMPRESSION.md: it is not asserted
here, because the head's input, quantized with a percentile range too, clips the same extremes in
a one-layer model.
"""

from __future__ import annotations

import dataclasses

import numpy as np
from onnx import TensorProto, helper, numpy_helper

import slim
from lite_converter.convert import load_model, lower
from slim.decision_tensors import decision_tensors
from slim.pipeline import prepare

STEPS, CLASSES = 40, 256
PERCENTILE = 0.999  # 82 values of a batch's 81,920 left out each side, fewer than its 320 winners


def head_model() -> bytes:
    """An identity MatMul (an int8 FULLY_CONNECTED once converted) and a softmax over the classes."""
    weight = np.eye(CLASSES, dtype=np.float32)
    nodes = [helper.make_node("MatMul", ["x", "w"], ["logits"], name="head"),
             helper.make_node("Softmax", ["logits"], ["probabilities"], axis=-1, name="softmax")]
    graph = helper.make_graph(
        nodes, "ctc_head", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [8, STEPS, CLASSES])],
        [helper.make_tensor_value_info("probabilities", TensorProto.FLOAT, [8, STEPS, CLASSES])],
        [numpy_helper.from_array(weight, "w")])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)]).SerializeToString()


def logits(rng: np.random.Generator, batches: int) -> list[np.ndarray]:
    """Rows with a winner in [7, 8] and a runner-up 0.04-0.08 below it (more than one int8 step of
    the whole range, 8 / 255), the rest 0: confident positions alike, as CTC's blanks are."""
    out = []
    for _ in range(batches):
        rows = np.zeros((8 * STEPS, CLASSES), np.float32)
        index = np.arange(rows.shape[0])
        first = rng.integers(0, CLASSES, index.size)
        second = (first + rng.integers(1, CLASSES, index.size)) % CLASSES
        level = rng.uniform(7.0, 8.0, index.size)
        rows[index, first] = level
        rows[index, second] = level - rng.uniform(0.04, 0.08, index.size)
        out.append(rows.reshape(8, STEPS, CLASSES))
    return out


def test_logits_before_a_softmax_keep_their_whole_range(tmp_path) -> None:  # noqa: ANN001
    rng = np.random.default_rng(11)
    path = tmp_path / "head.onnx"
    path.write_bytes(head_model())
    calibration = logits(rng, 4)
    percentile = slim.QuantConfig(algorithm="hist", percentile=PERCENTILE, progress=False)

    prepared = prepare(str(path), calibration, percentile)
    decided = decision_tensors(prepared.graph) & set(prepared.calibration.ranges)
    assert decided, "the softmax input is a decision tensor"
    observed_max = max(float(x.max()) for x in calibration)
    assert [prepared.calibration.ranges[name][1] for name in decided] == [observed_max] * len(decided)

    plain = prepare(str(path), calibration, dataclasses.replace(percentile, whole_decision_ranges=False))
    assert all(plain.calibration.ranges[name][1] < observed_max for name in decided)  # what it fixes


def test_decision_tensors_follow_byte_movers_and_outputs() -> None:
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 8])
    nodes = [helper.make_node("Relu", ["x"], ["features"]),
             helper.make_node("Reshape", ["features", "shape"], ["flat"]),
             helper.make_node("ArgMax", ["flat"], ["label"], axis=1, keepdims=0),
             helper.make_node("Sigmoid", ["x"], ["score"])]
    outputs = [helper.make_tensor_value_info("label", TensorProto.INT64, [2]),
               helper.make_tensor_value_info("score", TensorProto.FLOAT, [2, 8])]
    graph = helper.make_graph(nodes, "g", [x], outputs,
                              [numpy_helper.from_array(np.array([2, 8], np.int64), "shape")])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    loaded = load_model(model)
    found = decision_tensors(lower(loaded))
    assert {"score", "label"} <= found  # graph outputs
    assert "features" in found or "flat" in found  # the ArgMax input, through the reshape if it is kept
    assert "x" not in found
