"""Chains of int8 maps composed into one table (lite_converter/passes/compose_tables_int8.py).

The oracle is the fake-quant simulation of the graph WITHOUT the composition: the composed graph must
give the same bytes on every tensor both graphs have (the chain ends, the graph output), and the
int8 model stays within int8 tolerance of onnxruntime fp32 on the source model.
"""

from __future__ import annotations

import numpy as np
import onnx
import onnxruntime as ort
from onnx import TensorProto, helper, numpy_helper

from lite_converter.ir import Graph
from lite_converter.passes.compose_tables_int8 import map_table
from slim.fake_quant import simulate_node
from tests.slim_oracle import int8_mismatches
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


def simulate(graph: Graph, feeds: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Every tensor of a graph whose nodes are all simulated ops, computed node by node."""
    values = dict(feeds)
    values.update({name: t.data for name, t in graph.tensors.items() if t.data is not None})
    for node in graph.nodes:
        values[node.outputs[0]] = simulate_node(graph, node, values)
    return values


def test_composed_chain_gives_the_chain_bytes_and_stays_near_fp32() -> None:
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
    x = data[0]
    expected, got = simulate(plain, {"x": x}), simulate(composed, {"x": x})
    shared = [name for name, t in composed.tensors.items() if name in plain.tensors and not t.is_constant]
    assert len(shared) > 10 and all(np.array_equal(got[name], expected[name]) for name in shared)
    fp32 = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"])
    reference = fp32.run(["y"], {"x": x})[0]
    span = float(reference.max() - reference.min())
    assert float(np.abs(got["y"] - reference).max()) < 0.08 * span


def test_map_tables_are_the_simulated_nodes() -> None:
    """map_table (what the pass composes) is the simulation of the node on every input byte."""
    model = affine_block_net()
    graph, _ = _quantize_with(model, _batches((1, 3, 10, 10), 2, seed=33), compose_tables=False)
    every_byte = np.arange(-128, 128, dtype=np.int8)
    tables = 0
    for node in graph.nodes:
        table = map_table(graph, node)
        if table is None:
            assert node.op_type not in ("HARD_SWISH",) or graph.tensors[node.inputs[0]].dtype != np.int8
            continue
        values = {name: graph.tensors[name].data for name in node.inputs[1:]}
        values[node.inputs[0]] = every_byte
        np.testing.assert_array_equal(table, simulate_node(graph, node, values))
        tables += 1
    assert tables == 9  # three HARD_SWISH, three MUL and three ADD by a scalar


def test_runtime_runs_the_composed_table_exactly() -> None:
    """The runtime's REQUANTIZE(x, table) equals the simulation, and composition is the default."""
    model = affine_block_net()
    data = _batches((1, 3, 10, 10), 3, seed=34)
    composed, _ = _quantize_with(model, data)
    assert [n.op_type for n in composed.nodes].count("REQUANTIZE") == 3
    errors = int8_mismatches(composed, {"x": data[0]})
    assert errors and max(errors.values()) == 0.0, errors
