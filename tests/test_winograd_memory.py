"""The packed-weight budget (lite_interpreter_options.packed_weight_ratio) and Winograd convolutions.

A chain of three 3x3 convolutions that the host's cost rule runs as Winograd: a small one first
(16 -> 64 channels), then two 64 -> 64 ones whose transformed weights (F(4,3): 36/9 of the weight)
exceed what a ratio of 1.5 leaves. The ratio decides which layers keep a transformed copy:
`inf` (the default) keeps all, 1.5 keeps the first only, 1 keeps none (those transform their weight per
block at every run). The outputs must match onnxruntime (1e-4 * max(1, max|expected|), test_ops_nn's
fp32 bound) and be the same bytes at every ratio and thread count (the run-time transform is the same
function as the kept one); the committed memory must drop by exactly the copies not kept (less the
one panel of transformed weight a run-time layer adds to its scratch).
"""
from __future__ import annotations

import math

import numpy as np
import pytest
from onnx import TensorProto, helper
from test_ops_nn import _randn, assert_close, make_model, run_onnxruntime

from lite_converter.convert import convert_onnx
from runtime_arm import Interpreter, LiteError


def _model():
    feeds = {"x": _randn(1, 16, 29, 27, seed=1)}
    constants = {}
    nodes = []
    src = "x"
    for i, (cin, cout) in enumerate(((16, 64), (64, 64), (64, 64))):
        constants[f"w{i}"] = _randn(cout, cin, 3, 3, seed=2 + i) * np.float32(0.1)
        constants[f"b{i}"] = _randn(cout, seed=10 + i)
        out = "y" if i == 2 else f"c{i}"
        nodes.append(helper.make_node("Conv", [src, f"w{i}", f"b{i}"], [out], kernel_shape=[3, 3],
                                      pads=[1, 1, 1, 1]))
        if i < 2:
            nodes.append(helper.make_node("Relu", [out], [f"r{i}"]))
            src = f"r{i}"
    return make_model(nodes, feeds, {"y": TensorProto.FLOAT}, constants), feeds


def test_packed_weight_ratio_bounds_memory_with_the_same_outputs():
    model, feeds = _model()
    expected = run_onnxruntime(model, feeds)["y"]
    data = convert_onnx(model)
    memory, outputs = {}, {}
    for ratio in (math.inf, 1.5, 1.0):
        for threads in (1, 2):
            interpreter = Interpreter(model_content=data, threads=threads, packed_weight_ratio=ratio)
            outputs[ratio, threads] = interpreter.run(feeds)["y"]
            if threads == 1:
                memory[ratio] = (interpreter.memory_bytes, interpreter.arena_bytes, interpreter.weights_bytes)
    assert_close("ratio inf", outputs[math.inf, 1], expected)
    default = Interpreter(model_content=data, threads=1)
    default.run(feeds)
    assert default.memory_bytes == memory[math.inf][0], "the default is no bound"
    for key, value in outputs.items():
        assert np.array_equal(value, outputs[math.inf, 1]), f"ratio {key[0]}, {key[1]} threads: other bytes"
    weights = memory[1.5][2]
    assert weights == 64 * 16 * 9 * 4 + 2 * 64 * 64 * 9 * 4 + 3 * 64 * 4
    # transformed F(4,3) weights: 36 positions x (in_c + 1) rows (a bias row) x 64 columns
    u_small, u_large = 36 * 17 * 64 * 4, 36 * 65 * 64 * 4
    assert all(m[1] == memory[1.5][1] for m in memory.values()), "the arena does not depend on the ratio"
    # 1.5 drops the two large copies; their layers' scratch gains one panel of U (nr columns)
    panel = 2 * u_large - (memory[math.inf][0] - memory[1.5][0])
    assert panel in {36 * 65 * nr * 4 for nr in (8, 16, 32)}, panel
    # ratio 1 also drops the first (small) copy
    assert memory[1.5][0] - memory[1.0][0] == u_small

def test_packed_weight_ratio_rejects_negative_and_nan():
    data = convert_onnx(_model()[0])
    for ratio in (-1.0, math.nan):
        with pytest.raises((ValueError, LiteError)):
            Interpreter(model_content=data, packed_weight_ratio=ratio)
