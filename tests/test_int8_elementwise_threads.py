"""int8 ADD / MUL split into chunks on the thread pool: every int8 tensor equals slim's simulation and
the same bytes come out at 1, 2 and 4 threads.

The maps are large enough (16 x 72 x 40 = 46K values) that each op is cut into several chunks: a
same-shape ADD (chunks anywhere), an SE-style MUL by a per-channel HardSigmoid gate (chunks of whole
16-channel periods) and an ADD of a constant (a 256-entry table, chunks anywhere)."""

from __future__ import annotations

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

import slim
from runtime_arm import Interpreter
from slim.calibrate import with_outputs
from tests.slim_oracle import assert_exact, int8_mismatches

INPUT_SHAPE = (1, 16, 72, 40)


def _elementwise_net() -> onnx.ModelProto:
    rng = np.random.default_rng(21)
    w = {"w1": (rng.standard_normal((16, 16, 1, 1)) * 0.3).astype(np.float32),
         "w2": (rng.standard_normal((16, 16, 1, 1)) * 0.3).astype(np.float32),
         "se1": (rng.standard_normal((4, 16, 1, 1)) * 0.5).astype(np.float32),
         "se2": (rng.standard_normal((16, 4, 1, 1)) * 0.5).astype(np.float32),
         "w3": (rng.standard_normal((8, 16, 1, 1)) * 0.3).astype(np.float32),
         "shift": np.array(0.75, np.float32)}
    nodes = [
        helper.make_node("Conv", ["x", "w1"], ["a"], name="conv_a"),
        helper.make_node("Conv", ["x", "w2"], ["b"], name="conv_b"),
        helper.make_node("Add", ["a", "b"], ["sum"], name="add_same_shape"),
        helper.make_node("GlobalAveragePool", ["sum"], ["pooled"], name="gap"),
        helper.make_node("Conv", ["pooled", "se1"], ["squeezed"], name="se_reduce"),
        helper.make_node("Relu", ["squeezed"], ["squeezed_relu"], name="se_relu"),
        helper.make_node("Conv", ["squeezed_relu", "se2"], ["expanded"], name="se_expand"),
        helper.make_node("HardSigmoid", ["expanded"], ["gate"], name="gate"),
        helper.make_node("Mul", ["sum", "gate"], ["scaled"], name="mul_per_channel"),
        helper.make_node("Add", ["scaled", "shift"], ["shifted"], name="add_constant"),
        helper.make_node("Conv", ["shifted", "w3"], ["y"], name="conv_out"),
    ]
    graph = helper.make_graph(
        nodes, "int8_elementwise", [helper.make_tensor_value_info("x", TensorProto.FLOAT, list(INPUT_SHAPE))],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
        [numpy_helper.from_array(v, k) for k, v in w.items()])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], ir_version=8)


def test_int8_elementwise_chunks_match_simulation_at_any_thread_count() -> None:
    rng = np.random.default_rng(3)
    data = [rng.standard_normal(INPUT_SHAPE).astype(np.float32) for _ in range(4)]
    result = slim.compress(_elementwise_net(), None, data, slim.QuantConfig(progress=False))
    assert {"add_same_shape", "mul_per_channel", "add_constant"} <= set(result.int8_nodes)
    feeds = {"x": data[0]}
    errors = int8_mismatches(result.graph, feeds)
    assert {"add_same_shape", "mul_per_channel"} <= set(errors), errors
    assert_exact(errors)
    graph = result.graph
    names = [t for node in graph.nodes for t in node.outputs if t and not graph.tensors[t].is_constant]
    model = with_outputs(graph, list(dict.fromkeys(names)))
    runs = {}
    for threads in (1, 2, 4):
        with Interpreter(model_content=model, threads=threads) as interpreter:
            runs[threads] = {name: np.array(value) for name, value in interpreter.run(feeds).items()}
    for threads in (2, 4):
        for name, value in runs[1].items():
            np.testing.assert_array_equal(runs[threads][name], value, err_msg=f"{name}, {threads} threads")
