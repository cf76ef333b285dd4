"""Chains of int8 maps composed into one table (lite_converter/passes/compose_tables_int8.py).

The tables are built in Python (lite_converter.int8), and the pass composes those; the oracle must not
be that same code. So the composed model is checked against the runtime running the chain UNcomposed:
its LOOKUP ops build their tables in C++ at prepare (ops/lookup_int8.cc, with the C library's exp /
tanh), its ADD / MUL by a scalar run the reference kernels (ops/int8_scalar_table.h). Both must give
the same bytes, on every one of the 256 int8 inputs for chains built directly (every table activation,
fused clamps, negative multipliers), and on every tensor both graphs have for a converted model. The
int8 model also stays within int8 tolerance of onnxruntime fp32 on the source model.
"""

from __future__ import annotations

import copy

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper, numpy_helper

from lite_converter.int8 import ALL_INT8
from lite_converter.ir import Graph, Node, QuantParams
from lite_converter.lite_ops import Int8Role, int8_ops
from lite_converter.passes.compose_tables_int8 import compose_tables_int8, map_table
from lite_converter.writer import serialize
from runtime_arm import Interpreter
from tests.slim_oracle import assert_exact, int8_mismatches, runtime_values
from tests.test_slim_int8_ops import _batches, _quantize_with


def affine_block_net() -> onnx.ModelProto:
    """PP-LCNet's block conv -> HardSwish -> Mul(scale) -> Add(bias), three times: once a plain chain,
    once with the HardSwish output also read by a second op (no composition through it), once with the
    Mul output a graph output (no composition through it either)."""
    rng = np.random.default_rng(31)
    inits = [numpy_helper.from_array(rng.standard_normal(s).astype(np.float32) * 0.4, k) for k, s in
             (("w1", (8, 3, 3, 3)), ("w2", (8, 8, 1, 1)), ("w3", (8, 8, 1, 1)), ("w4", (4, 8, 1, 1)))]
    inits += [numpy_helper.from_array(np.array(v, np.float32), k) for k, v in
              (("s1", 0.8), ("b1", -0.3), ("s2", 1.7), ("b2", 0.25), ("s3", -0.6), ("b3", 0.9))]
    nodes = []
    for i, source in ((1, "x"), (2, "a1"), (3, "a2")):
        pads = [1, 1, 1, 1] if i == 1 else [0, 0, 0, 0]
        nodes += [helper.make_node("Conv", [source, f"w{i}"], [f"c{i}"], pads=pads, name=f"conv{i}"),
                  helper.make_node("HardSwish", [f"c{i}"], [f"h{i}"], name=f"hswish{i}"),
                  helper.make_node("Mul", [f"h{i}", f"s{i}"], [f"m{i}"], name=f"scale{i}"),
                  helper.make_node("Add", [f"m{i}", f"b{i}"], [f"a{i}" if i < 3 else "a3"], name=f"bias{i}")]
    nodes += [helper.make_node("Add", ["a3", "h2"], ["mix"], name="mix"),  # a second reader of h2
              helper.make_node("Conv", ["mix", "w4"], ["y"], name="conv4")]
    graph = helper.make_graph(nodes, "affine_blocks",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 10, 10])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, None),
                               helper.make_tensor_value_info("m3", TensorProto.FLOAT, None)], inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 14)], ir_version=8)


def test_composed_chain_gives_the_runtime_chain_bytes_and_stays_near_fp32() -> None:
    model = affine_block_net()
    data = _batches((1, 3, 10, 10), 3, seed=32)
    plain, plain_nodes = _quantize_with(model, data, compose_tables=False)
    composed, composed_nodes = _quantize_with(model, data, compose_tables=True)
    by_name = {node.name: node for node in composed.nodes}
    # conv1's and conv3's maps compose (hswish -> scale -> bias; hswish3 -> scale3 only up to m3, an
    # output); hswish2 keeps its own table (two readers), scale2 -> bias2 compose behind it.
    assert by_name["conv1_act"].op_type == "REQUANTIZE" and "scale1" not in by_name and "bias1" not in by_name
    assert by_name["conv2_act"].op_type == "HARD_SWISH"
    assert by_name["scale2"].op_type == "REQUANTIZE" and "bias2" not in by_name
    assert by_name["conv3_act"].op_type == "REQUANTIZE" and "scale3" not in by_name
    assert by_name["bias3"].op_type == "ADD"  # reads m3, a graph output
    assert set(composed_nodes) < set(plain_nodes)
    assert "HARD_SWISH" in {node.op_type for node in plain.nodes}
    x = data[0]
    expected, got = runtime_values(plain, {"x": x}), runtime_values(composed, {"x": x})
    shared = [name for name, t in composed.tensors.items() if name in plain.tensors and not t.is_constant]
    assert len(shared) > 10
    differing = [name for name in shared if not np.array_equal(got[name], expected[name])]
    assert not differing, differing
    fp32 = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    reference = fp32.run(["y"], {"x": x})[0]
    span = float(reference.max() - reference.min())
    assert float(np.abs(got["y"] - reference).max()) < 0.08 * span


def _per_tensor(scale: float, zero_point: int) -> QuantParams:
    return QuantParams(np.array([scale], np.float32), np.array([zero_point], np.int64))


# A chain step: (op, attrs, output (scale, zero point)) for a table activation; (op, constant byte,
# its (scale, zero point), output (scale, zero point), fused activation) for ADD / MUL by a scalar.
CHAINS = {
    "hard_swish_mul_add": [("HARD_SWISH", {}, (0.031, -71)), ("MUL", 93, (0.0097, 0), (0.027, -40), None),
                           ("ADD", -55, (0.011, 0), (0.023, -12), None)],
    "hard_sigmoid_mul_add_relu": [("HARD_SIGMOID", {"alpha": 0.2, "beta": 0.5}, (1 / 255, -128)),
                                  ("MUL", 120, (0.013, -7), (0.006, -3), None),
                                  ("ADD", -90, (0.004, 20), (0.0035, -30), {"kind": "RELU"})],
    "sigmoid_add_mul": [("SIGMOID", {}, (1 / 256, -128)), ("ADD", 100, (0.005, -20), (0.0061, -100), None),
                        ("MUL", -77, (0.02, 10), (0.019, 3), None)],
    "tanh_mul_negative_add_clip": [("TANH", {}, (1 / 128, 0)), ("MUL", -101, (0.012, 0), (0.0105, 2), None),
                                   ("ADD", 33, (0.01, -4), (0.009, 1),
                                    {"kind": "CLIP", "alpha": -0.5, "beta": 0.6})],
    "silu_add_mul_add": [("SILU", {}, (0.025, -115)), ("ADD", -12, (0.04, 30), (0.03, -90), None),
                         ("MUL", 64, (0.015, -1), (0.024, -60), None),
                         ("ADD", 7, (0.1, 0), (0.031, -50), None)],
}


def chain_graph(steps: list[tuple], qx: tuple[float, int]) -> Graph:
    """An int8 [1, 256] input through the chain's steps, each output int8 with its own parameters."""
    graph = Graph()
    source = graph.add_tensor("x", np.int8, [1, 256])
    graph.tensors[source].quant = _per_tensor(*qx)
    graph.inputs = [source]
    for i, step in enumerate(steps):
        out = graph.add_tensor(f"t{i}", np.int8, [1, 256])
        if len(step) == 3:
            op, attrs, qy = step
            graph.nodes.append(Node(op, f"step{i}", [source], [out], dict(attrs)))
        else:
            op, byte, qc, qy, activation = step
            constant = graph.add_constant(f"c{i}", np.array([byte], np.int8))
            graph.tensors[constant].quant = _per_tensor(*qc)
            attrs = {"activation": activation} if activation else {}
            graph.nodes.append(Node(op, f"step{i}", [source, constant], [out], attrs))
        graph.tensors[out].quant = _per_tensor(*qy)
        source = out
    graph.outputs = [source]
    return graph


def _run(graph: Graph, x: np.ndarray) -> np.ndarray:
    with Interpreter(model_content=serialize(graph)) as interpreter:
        return np.array(interpreter.run({graph.inputs[0]: x})[graph.outputs[0]])


@pytest.mark.parametrize("chain", list(CHAINS))
def test_uncomposed_chain_in_the_runtime_equals_the_composed_table_on_every_byte(chain: str) -> None:
    """Every table activation of the runtime (int8_ops(LOOKUP)) heads one chain; each chain runs as
    separate runtime ops and as the one composed REQUANTIZE table: the 256 outputs are equal."""
    steps = CHAINS[chain]
    plain = chain_graph(steps, qx=(0.047, 9))
    composed = copy.deepcopy(plain)
    merged = compose_tables_int8(composed)
    assert len(merged) == len(steps) - 1 and [n.op_type for n in composed.nodes] == ["REQUANTIZE"]
    x = ALL_INT8.reshape(1, 256)
    chain_bytes, table_bytes = _run(plain, x), _run(composed, x)
    assert len(np.unique(chain_bytes)) >= 16, "the chain maps most inputs to a few bytes: a weak check"
    np.testing.assert_array_equal(table_bytes, chain_bytes)


def test_chains_cover_every_table_activation() -> None:
    assert {steps[0][0] for steps in CHAINS.values()} == set(int8_ops(Int8Role.LOOKUP))


def test_map_tables_are_what_the_runtime_ops_compute_on_every_byte() -> None:
    """map_table (what the pass composes) for every map node of the converted model, against the runtime
    running that node alone (C++ tables, reference ADD / MUL) on all 256 input bytes."""
    model = affine_block_net()
    graph, _ = _quantize_with(model, _batches((1, 3, 10, 10), 2, seed=33), compose_tables=False)
    x = ALL_INT8.reshape(1, 256)
    tables = 0
    for node in graph.nodes:
        table = map_table(graph, node)
        if table is None:
            int8_input = graph.tensors[node.inputs[0]].dtype == np.int8
            assert node.op_type not in int8_ops(Int8Role.LOOKUP) or not int8_input
            continue
        alone = Graph()
        for name in (*node.inputs, *node.outputs):
            alone.tensors[name] = copy.deepcopy(graph.tensors[name])
        alone.tensors[node.inputs[0]].shape = alone.tensors[node.outputs[0]].shape = [1, 256]
        alone.nodes = [copy.deepcopy(node)]
        alone.inputs, alone.outputs = [node.inputs[0]], [node.outputs[0]]
        np.testing.assert_array_equal(table, _run(alone, x).reshape(-1), err_msg=node.name)
        tables += 1
    assert tables == 9  # three HARD_SWISH, three MUL and three ADD by a scalar


def test_runtime_runs_the_composed_table_exactly() -> None:
    """The runtime's REQUANTIZE(x, table) equals the simulation, and composition is the default."""
    model = affine_block_net()
    data = _batches((1, 3, 10, 10), 3, seed=34)
    composed, _ = _quantize_with(model, data)
    assert [n.op_type for n in composed.nodes].count("REQUANTIZE") == 3
    assert_exact(int8_mismatches(composed, {"x": data[0]}), minimum_nodes=8)
