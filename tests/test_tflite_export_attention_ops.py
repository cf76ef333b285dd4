"""The float32 transformer ops of the .tflite exporter (LAYER_NORM, MATMUL, SOFTMAX, SLICE) against
onnxruntime: PP-OCRv4 rec (its SVTR neck has all four), converted at 1x3x48x320 and exported, run by
LiteRT on a rendered text line. In float32 the two runtimes differ only by summation order: the
bound is the fp32 rule of tests/models/oracle.py (1e-4 on probabilities), and the decoded
characters must be the same."""

from __future__ import annotations

import numpy as np
import pytest

from lite_converter.app import zoo
from lite_converter.app.peers.tflite_export import export_tflite
from lite_converter.convert import convert_onnx
from lite_converter.reader import read_model
from tests.models.oracle import onnxruntime_outputs
from tests.test_threads import ocr_input

litert = pytest.importorskip("ai_edge_litert.interpreter", reason="LiteRT not installed: `make bench-deps`")

SHAPE = (1, 3, 48, 320)
BOUND = 1e-4


def test_litert_runs_the_exported_rec_like_onnxruntime() -> None:
    source = zoo.fetch("rec")
    model = read_model(convert_onnx(source, input_shapes={"x": list(SHAPE)}))
    counts = model.op_counts()
    assert all(counts.get(op, 0) >= 3 for op in ("LAYER_NORM", "MATMUL", "SOFTMAX", "SLICE")), counts
    interpreter = litert.Interpreter(model_content=export_tflite(model), num_threads=1)
    interpreter.allocate_tensors()
    x, _ = ocr_input("rec", SHAPE, 0)
    interpreter.set_tensor(interpreter.get_input_details()[0]["index"], x)
    interpreter.invoke()
    theirs = interpreter.get_tensor(interpreter.get_output_details()[0]["index"])
    (expected,) = onnxruntime_outputs(source, {"x": x}).values()
    expected = expected.reshape(theirs.shape)
    assert float(expected.max()) > 0.5  # confident characters: the comparison means something
    assert float(np.abs(theirs - expected).max()) < BOUND
    assert np.array_equal(theirs.argmax(-1), expected.argmax(-1))
