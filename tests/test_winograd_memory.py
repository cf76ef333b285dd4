"""The packed-weight budget (lite_interpreter_options.packed_weight_ratio) and Winograd convolutions.

A chain of three 3x3 convolutions on a small map that the host's cost rule runs as Winograd, whose
weights outweigh the activations and the run-time scratch (as in ResNet-18's last stages; the scratch of a
weight transformed per block at run time grows with the GEMM's panel width: 32 columns on AVX-512, where
64->128 channels gave a floor of 1.56 MB above its 1.48 MB of weights). `inf` (the default) keeps every
transformed weight; a finite ratio bounds all the interpreter commits (arena, scratch, packed weights)
by ratio x the weight bytes: the layers prepare without their transformed copies, and the copies that
save the most per byte are kept while they fit (the others transform their weight per block at every
run). The outputs must match onnxruntime (1e-4 * max(1, max|expected|), test_ops_nn's fp32 bound) at
every ratio (a bound may change a layer's tile size, hence its rounding) and be the same bytes at 1 and
2 threads; the committed memory must stay within each bound and grow with it.
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
    feeds = {"x": _randn(1, 96, 10, 10, seed=1)}
    constants = {}
    nodes = []
    src = "x"
    for i, (cin, cout) in enumerate(((96, 192), (192, 192), (192, 192))):
        constants[f"w{i}"] = _randn(cout, cin, 3, 3, seed=2 + i) * np.float32(0.05)
        constants[f"b{i}"] = _randn(cout, seed=10 + i)
        out = "y" if i == 2 else f"c{i}"
        nodes.append(helper.make_node("Conv", [src, f"w{i}", f"b{i}"], [out], kernel_shape=[3, 3],
                                      pads=[1, 1, 1, 1]))
        if i < 2:
            nodes.append(helper.make_node("Relu", [out], [f"r{i}"]))
            src = f"r{i}"
    return make_model(nodes, feeds, {"y": TensorProto.FLOAT}, constants), feeds


def _run(data: bytes, feeds: dict, ratio: float, threads: int) -> tuple[np.ndarray, Interpreter]:
    interpreter = Interpreter(model_content=data, threads=threads, packed_weight_ratio=ratio)
    return interpreter.run(feeds)["y"], interpreter


def test_packed_weight_ratio_bounds_memory_with_the_same_outputs():
    model, feeds = _model()
    expected = run_onnxruntime(model, feeds)["y"]
    data = convert_onnx(model)
    unbounded, it_inf = _run(data, feeds, math.inf, 1)
    assert_close("ratio inf", unbounded, expected)
    weights = it_inf.weights_bytes
    assert weights == (96 * 192 + 2 * 192 * 192) * 9 * 4 + 3 * 192 * 4
    default = Interpreter(model_content=data, threads=1)
    default.run(feeds)
    assert default.memory_bytes == it_inf.memory_bytes, "the default is no bound"
    # a bound below what the activations alone need: no copy kept
    bare, it_bare = _run(data, feeds, 1e-6, 1)
    floor = it_bare.memory_bytes
    assert floor < weights < it_inf.memory_bytes
    assert it_bare.arena_bytes == it_inf.arena_bytes, "the arena does not depend on the ratio"
    # bounds between: each holds, and a larger one keeps more
    previous = floor
    for fraction in (0.25, 0.5, 1.0):
        ratio = (floor + fraction * (it_inf.memory_bytes - floor)) / weights
        outputs = [_run(data, feeds, ratio, threads) for threads in (1, 2)]
        memory = outputs[0][1].memory_bytes
        assert memory <= ratio * weights, (ratio, memory)
        assert memory >= previous, (ratio, memory, previous)
        previous = memory
        assert_close(f"ratio {ratio:.2f}", outputs[0][0], expected)
        assert np.array_equal(outputs[0][0], outputs[1][0]), f"ratio {ratio:.2f}: 2 threads give other bytes"
    assert previous > floor, "some copy fits the largest bound"
    assert_close("ratio 1e-6", bare, expected)
    assert np.array_equal(bare, _run(data, feeds, 1e-6, 2)[0]), "2 threads give other bytes"


def test_packed_weight_ratio_rejects_negative_and_nan():
    data = convert_onnx(_model()[0])
    for ratio in (-1.0, math.nan):
        with pytest.raises((ValueError, LiteError)):
            Interpreter(model_content=data, packed_weight_ratio=ratio)
