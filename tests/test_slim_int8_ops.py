"""int8 runtime ops against the fake-quant simulation on small nets, MobileNetV2 and PP-OCR: every int8 tensor
(and every DEQUANTIZE output, in LSB of its scale) equals it exactly (tests/slim_oracle.py: the arithmetic is
integer, or one float32 operation done the same way on both sides)."""

from __future__ import annotations

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

import slim
from lite_converter.int8 import quantize_multiplier, rounding_shift_right
from runtime_arm import Interpreter
from tests.conftest import small_conv_net
from tests.slim_oracle import assert_exact, int8_mismatches


def every_int8_op_net() -> onnx.ModelProto:
    """Conv+Relu -> MaxPool -> depthwise Conv+Clip(0,6) -> Conv + Add(skip) -> GAP -> Flatten -> Gemm,
    with a Sigmoid branch that stays fp32 (QUANTIZE / DEQUANTIZE at its borders) added back in int8."""
    rng = np.random.default_rng(3)
    w = {
        "w1": rng.standard_normal((8, 3, 3, 3)).astype(np.float32) * 0.4,
        "b1": rng.standard_normal(8).astype(np.float32) * 0.2,
        "wd": rng.standard_normal((8, 1, 3, 3)).astype(np.float32) * 0.5,
        "bd": rng.standard_normal(8).astype(np.float32) * 0.1,
        "w3": rng.standard_normal((8, 8, 1, 1)).astype(np.float32) * 0.3,
        "fc_w": rng.standard_normal((5, 8)).astype(np.float32) * 0.5,
        "fc_b": rng.standard_normal(5).astype(np.float32) * 0.1,
    }
    nodes = [
        helper.make_node("Conv", ["x", "w1", "b1"], ["c1"], pads=[1, 1, 1, 1], name="conv1"),
        helper.make_node("Relu", ["c1"], ["r1"], name="relu1"),
        helper.make_node("MaxPool", ["r1"], ["p1"], kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1],
                         name="maxpool"),
        helper.make_node("Conv", ["p1", "wd", "bd"], ["cd"], pads=[1, 1, 1, 1], group=8, name="depthwise"),
        helper.make_node("Clip", ["cd", "lo", "hi"], ["r2"], name="relu6"),
        helper.make_node("Conv", ["r2", "w3"], ["c3"], name="project"),
        helper.make_node("Add", ["c3", "p1"], ["s"], name="skip"),
        helper.make_node("Sigmoid", ["s"], ["g"], name="gate"),
        helper.make_node("Add", ["g", "s"], ["m"], name="mix"),
        helper.make_node("GlobalAveragePool", ["m"], ["gap"], name="gap"),
        helper.make_node("Flatten", ["gap"], ["flat"], name="flatten"),
        helper.make_node("Gemm", ["flat", "fc_w", "fc_b"], ["y"], transB=1, name="fc"),
    ]
    inits = [numpy_helper.from_array(v, k) for k, v in w.items()]
    inits += [numpy_helper.from_array(np.array(v, np.float32), k) for k, v in (("lo", 0), ("hi", 6))]
    graph = helper.make_graph(nodes, "every_int8_op",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 12, 12])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 5])], inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], ir_version=8)


def _batches(shape: tuple[int, ...], count: int, seed: int = 0) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(shape).astype(np.float32) for _ in range(count)]


def test_multiplier_and_rounding_shift() -> None:
    """The fixed-point parameters are exact where they can be and round half toward +inf."""
    assert quantize_multiplier(0.5) == (1 << 30, 31)
    assert quantize_multiplier(1.0) == (1 << 30, 30)
    assert quantize_multiplier(0.0) == (0, 1)
    assert quantize_multiplier(2.0 ** -40) == (0, 1)
    np.testing.assert_array_equal(rounding_shift_right(np.array([3, -3, 5, -5, 4]), 1), [2, -1, 3, -2, 2])


@pytest.mark.parametrize("algorithm", ["abs_max", "avg", "hist", "mse", "kl"])
def test_small_net_every_op_matches_simulation(algorithm: str) -> None:
    model = every_int8_op_net()
    data = _batches((1, 3, 12, 12), 6)
    result = slim.compress(model, None, data, slim.QuantConfig(algorithm=algorithm, progress=False))
    # "gate" (Sigmoid) runs as an int8 lookup table; the input's NCHW -> NHWC TRANSPOSE moves int8 bytes
    # (the input is quantized before it: quantize_int8.py)
    expected = {"x_transpose", "conv1", "maxpool", "depthwise", "project", "skip", "gate", "mix", "gap",
                "flatten", "fc"}
    assert set(result.int8_nodes) == expected
    errors = int8_mismatches(result.graph, {"x": data[0]})
    assert_exact(errors, minimum_nodes=10)


def test_dynamic_shape_net_and_skip_list() -> None:
    data = _batches((1, 3, 9, 7), 3, seed=1)
    config = slim.QuantConfig(skip_nodes=["conv2"], progress=False)
    result = slim.compress(small_conv_net(), None, data, config)
    assert "conv2" not in result.int8_nodes and "conv1" in result.int8_nodes
    errors = int8_mismatches(result.graph, {"x": data[0]})
    assert_exact(errors)


def test_mobilenet_v2_every_int8_tensor_matches_simulation(tmp_path) -> None:
    """The full MobileNetV2 graph (random weights, random BatchNorm statistics) at 64x64."""
    torch = pytest.importorskip("torch")
    from tests.models import ARCHITECTURES, build_seeded

    model = build_seeded(ARCHITECTURES["mobilenet_v2_legacy"])
    path = tmp_path / "mobilenet_v2.onnx"
    with torch.no_grad():
        torch.onnx.export(model, (torch.zeros(1, 3, 64, 64),), str(path), input_names=["input"],
                          output_names=["logits"], opset_version=13, dynamo=False)
    data = _batches((1, 3, 64, 64), 4, seed=2)
    result = slim.compress(str(path), tmp_path / "mobilenet_v2.lite", data, slim.QuantConfig(progress=False))
    convs = [n for n in result.graph.nodes if n.op_type == "CONV_2D"]
    assert len(convs) == 52 and all(n.name in result.int8_nodes for n in convs)
    errors = int8_mismatches(result.graph, {"input": data[0]})
    assert_exact(errors, minimum_nodes=60)
    ratio = (tmp_path / "mobilenet_v2.lite").stat().st_size / path.stat().st_size
    assert ratio <= 0.27, ratio


@pytest.mark.parametrize(("key", "shape"), [("cls", (1, 3, 48, 192)), ("rec", (1, 3, 48, 160)),
                                            ("det", (1, 3, 96, 96))])
def test_ppocr_int8_ops_match_simulation(key: str, shape: tuple[int, ...]) -> None:
    """Real models nobody here wrote (HardSwish convs stay fp32, with QUANTIZE / DEQUANTIZE borders)."""
    from lite_converter.app import zoo

    path = zoo.fetch(key)
    rng = np.random.default_rng(0)
    data = [rng.uniform(-1, 1, shape).astype(np.float32) for _ in range(3)]
    result = slim.compress(path, None, data, slim.QuantConfig(progress=False))
    assert len(result.int8_nodes) >= 20
    errors = int8_mismatches(result.graph, {result.graph.inputs[0]: data[0]})
    assert_exact(errors, minimum_nodes=20)


def test_concat_of_int8_convs_shares_one_scale() -> None:
    rng = np.random.default_rng(5)
    weights = {name: rng.standard_normal(shape).astype(np.float32) * scale for name, shape, scale in
               (("wa", (4, 3, 3, 3), 0.3), ("wb", (6, 3, 1, 1), 1.5), ("wc", (5, 10, 1, 1), 0.3))}
    nodes = [
        helper.make_node("Conv", ["x", "wa"], ["a"], pads=[1, 1, 1, 1], name="branch_a"),
        helper.make_node("Conv", ["x", "wb"], ["b"], name="branch_b"),
        helper.make_node("Concat", ["a", "b"], ["ab"], axis=1, name="concat"),
        helper.make_node("Conv", ["ab", "wc"], ["y"], name="merge"),
    ]
    graph = helper.make_graph(nodes, "concat_net",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 6, 6])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 5, 6, 6])],
                              [numpy_helper.from_array(v, k) for k, v in weights.items()])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], ir_version=8)
    data = _batches((1, 3, 6, 6), 3, seed=4)
    result = slim.compress(model, None, data, slim.QuantConfig(progress=False))
    assert {"branch_a", "branch_b", "concat", "merge"} <= set(result.int8_nodes)
    concat = next(n for n in result.graph.nodes if n.op_type == "CONCAT")
    shared = (*concat.inputs, concat.outputs[0])
    scales = {float(result.graph.tensors[name].quant.scale[0]) for name in shared}
    assert len(scales) == 1
    errors = int8_mismatches(result.graph, {"x": data[0]})
    assert_exact(errors, minimum_nodes=4)


def test_weight_only_int8_for_ops_that_stay_fp32() -> None:
    """With table activations off, HardSwish convs stay fp32 but store their weights as per-channel int8 +
    DEQUANTIZE, decoded at prepare at any size (w2 has more elements than the runtime evaluates at prepare
    for other ops); onnxruntime on the model with the decoded weights is the oracle of the fp32 part."""
    from lite_converter.passes.memory_plan import plan_memory
    from lite_converter.writer import serialize
    rng = np.random.default_rng(8)
    big_channels = 257  # w2: 257 * 257 elements, over the 65536-element prepare-time limit of other ops
    weights = {"w1": rng.standard_normal((big_channels, 3, 3, 3)).astype(np.float32) * 0.3,
               "w2": rng.standard_normal((big_channels, big_channels, 1, 1)).astype(np.float32) * 0.05}
    weights["w1"][5] *= 40.0  # one channel far larger: per-channel scales keep the others precise
    nodes = [helper.make_node("Conv", ["x", "w1"], ["c1"], pads=[1, 1, 1, 1], name="conv_hswish"),
             helper.make_node("HardSwish", ["c1"], ["h1"], name="hswish"),
             helper.make_node("Conv", ["h1", "w2"], ["c2"], name="conv_big"),
             helper.make_node("HardSwish", ["c2"], ["y"], name="hswish2")]

    def model_with(values: dict[str, np.ndarray]) -> onnx.ModelProto:
        graph = helper.make_graph(nodes, "weight_only",
                                  [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 5, 5])],
                                  [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
                                  [numpy_helper.from_array(v, k) for k, v in values.items()])
        return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 14)], ir_version=8)

    data = _batches((1, 3, 5, 5), 2, seed=9)
    g, int8_nodes = _quantize_with(model_with(weights), data, lookup_activations=False)
    assert not int8_nodes
    dequantize = [n for n in g.nodes if n.op_type == "DEQUANTIZE"]
    assert len(dequantize) == 2
    convs = [n for n in g.nodes if n.op_type == "CONV_2D"]
    by_output = {n.outputs[0]: n for n in dequantize}
    decoded = {}
    for conv, name in zip(convs, ("w1", "w2"), strict=True):
        q_weight = g.tensors[by_output[conv.inputs[1]].inputs[0]]
        assert q_weight.data.dtype == np.int8 and q_weight.quant.axis == 0
        assert q_weight.quant.scale.shape == (big_channels,)
        restored = dequantize_weight(q_weight)  # NHWC weight [Co, KH, KW, Ci]
        step = q_weight.quant.scale.reshape(-1, 1, 1, 1)
        assert np.all(np.abs(restored - weights[name].transpose(0, 2, 3, 1)) <= step / 2 + 1e-7)
        decoded[name] = np.ascontiguousarray(restored.transpose(0, 3, 1, 2))
    errors = int8_mismatches(g, {"x": data[0]})
    assert sorted(errors) == sorted(n.name for n in dequantize) and max(errors.values()) == 0.0
    ort = pytest.importorskip("onnxruntime")
    expected = ort.InferenceSession(model_with(decoded).SerializeToString()).run(None, {"x": data[0]})[0]
    with Interpreter(model_content=serialize(g, plan_memory(g))) as interpreter:
        ours = interpreter.run({"x": data[0]})["y"]
    np.testing.assert_allclose(ours, expected, rtol=1e-4, atol=1e-4 * max(1.0, float(np.abs(expected).max())))


def dequantize_weight(tensor) -> np.ndarray:  # noqa: ANN001 - an IR tensor
    from lite_converter.int8 import dequantize

    return dequantize(tensor.data, tensor.quant.scale, 0, tensor.quant.axis)


# numpy's float64 spelling of the table activations (vectorized exp / tanh: not the C library's calls)
NUMPY_ACTIVATIONS = {
    "HARD_SWISH": lambda x: x * np.clip(x / 6 + 0.5, 0, 1),
    "HARD_SIGMOID": lambda x: np.clip(np.float64(np.float32(0.2)) * x + 0.5, 0, 1),
    "SIGMOID": lambda x: 1 / (1 + np.exp(-x)),
    "TANH": np.tanh,
    "SILU": lambda x: x / (1 + np.exp(-x)),
}
# (input, output) (scale, zero point): a generic pair, a saturating one, a fine input grid
TABLE_PARAMS = [((0.05, -10), (0.013, -100)), ((0.2, 40), (0.004, 0)), ((0.004, -128), (0.02, 17))]


@pytest.mark.parametrize("op", list(NUMPY_ACTIVATIONS))
def test_lookup_tables_are_the_quantized_fp32_function(op: str) -> None:
    """The simulated 256-entry table (lite_converter.int8.lookup_table) and the runtime's (C++, built at
    prepare) against numpy's float64 functions, an independent spelling, on every input byte. HARD_SWISH
    and HARD_SIGMOID are the same IEEE double operations in all three: 0 LSB. SIGMOID / TANH / SILU go
    through exp / tanh, whose last bit may differ between numpy and the C library: an entry may differ,
    by 1 LSB, only where numpy's real / s_out lies within 1e-9 (relative) of a rounding tie."""
    from lite_converter.int8 import ALL_INT8, lookup_table
    from lite_converter.ir import Graph, Node, QuantParams
    from lite_converter.writer import serialize

    attrs = {"alpha": 0.2, "beta": 0.5}
    q = np.arange(-128, 128)
    distinct = []
    for qx, qy in TABLE_PARAMS:
        real = NUMPY_ACTIVATIONS[op](np.float64(np.float32(qx[0])) * (q - qx[1]))
        steps = real / np.float64(np.float32(qy[0]))
        expected = np.clip(np.rint(steps) + qy[1], -128, 127)
        near_tie = np.abs(steps - np.floor(steps) - 0.5) <= 1e-9 * np.maximum(1.0, np.abs(steps))
        graph = Graph()
        for name, quant in (("x", qx), ("y", qy)):
            graph.add_tensor(name, np.int8, [1, 256])
            graph.tensors[name].quant = QuantParams(np.array([quant[0]], np.float32),
                                                    np.array([quant[1]], np.int64))
        graph.nodes, graph.inputs, graph.outputs = [Node(op, "act", ["x"], ["y"], dict(attrs))], ["x"], ["y"]
        with Interpreter(model_content=serialize(graph)) as interpreter:
            runtime = np.array(interpreter.run({"x": ALL_INT8.reshape(1, 256)})["y"]).reshape(-1)
        for label, table in (("simulation", lookup_table(op, attrs, qx, qy)), ("runtime", runtime)):
            diff = np.abs(table.astype(np.int64) - expected)
            wrong = np.flatnonzero(diff != 0)
            assert diff.max() <= 1 and near_tie[wrong].all(), (label, qx, qy, wrong, steps[wrong])
            if op.startswith("HARD_"):
                assert diff.max() == 0, (label, qx, qy)
        distinct.append(np.unique(expected).size)
    assert max(distinct) >= 40, f"a weak check: the tables map to few bytes ({distinct})"


@pytest.mark.parametrize(("kind", "tolerance"),
                         [("HARD_SWISH", 0.0), ("HARD_SIGMOID", 0.0), ("SIGMOID", 3.4e-4)])
def test_preactivation_range_cuts_only_where_the_activation_is_flat(kind: str, tolerance: float) -> None:
    """The range derived for a split activation's input from its output range: clamping the input to it
    changes no output (SIGMOID: by less than 1/10 of an int8 step of [0, 1])."""
    from lite_converter.passes.split_lookup_activation import preactivation_range

    functions = {"HARD_SWISH": lambda z: z * np.clip(z / 6 + 0.5, 0, 1),
                 "HARD_SIGMOID": lambda z: np.clip(0.2 * z + 0.5, 0, 1),
                 "SIGMOID": lambda z: 1 / (1 + np.exp(-z))}
    for span in (0.5, 2.0, 7.0, 30.0):
        z = np.linspace(-span, span / 3, 2001)
        y = functions[kind](z)
        low, high = preactivation_range({"kind": kind, "alpha": 0.2, "beta": 0.5}, y.min(), y.max())
        assert low <= 0.0 <= high or kind == "HARD_SIGMOID"
        np.testing.assert_allclose(functions[kind](np.clip(z, low, high)), y, rtol=0, atol=tolerance + 1e-12)


@pytest.mark.parametrize("axis", [0, 1, 2])
def test_dequantize_per_axis_with_zero_points(axis: int) -> None:
    """DEQUANTIZE of a constant with one scale and zero point per index of any axis (the runtime
    evaluates it at prepare) equals scale[c] * (q - zp[c]) computed here with numpy."""
    from lite_converter.ir import Graph, Node, QuantParams
    from lite_converter.writer import serialize
    from runtime_arm import Interpreter

    rng = np.random.default_rng(axis)
    q = rng.integers(-128, 128, (2, 3, 4)).astype(np.int8)
    channels = q.shape[axis]
    scale = rng.uniform(0.01, 2.0, channels).astype(np.float32)
    zero_point = rng.integers(-20, 20, channels)
    graph = Graph()
    name = graph.add_constant("q", q)
    graph.tensors[name].quant = QuantParams(scale, zero_point.astype(np.int64), axis)
    graph.add_tensor("y", np.float32, list(q.shape))
    graph.nodes = [Node("DEQUANTIZE", "dequantize", [name], ["y"])]
    graph.outputs = ["y"]
    shape = [1, 1, 1]
    shape[axis] = channels
    expected = scale.reshape(shape) * (q.astype(np.float32) - zero_point.reshape(shape).astype(np.float32))
    with Interpreter(model_content=serialize(graph)) as interpreter:
        got = interpreter.run({})["y"]
    np.testing.assert_array_equal(got, expected)


def _quantize_with(model: onnx.ModelProto, data: list[np.ndarray], **flags: bool):
    """The compress pipeline with QuantizeInputs flags that slim.QuantConfig does not expose."""
    from lite_converter.frontends.onnx_frontend import load_onnx
    from lite_converter.passes.layout_nhwc import to_channels_last
    from lite_converter.passes.lower_to_lite import lower_to_lite
    from lite_converter.passes.optimize import optimize
    from lite_converter.passes.quantize_int8 import QuantizeInputs, quantize_int8
    from slim.calibrate import calibrate
    from slim.calibration_data import InputSpec, load_batches

    graph = load_onnx(model)
    specs = [InputSpec(n, graph.tensors[n].dtype, graph.tensors[n].shape) for n in graph.inputs]
    batches = load_batches(data, specs)
    optimize(graph)
    lower_to_lite(graph)
    to_channels_last(graph)
    result = calibrate(graph, batches, slim.QuantConfig(progress=False), {})
    return graph, quantize_int8(graph, QuantizeInputs(result.ranges, result.shapes, set(), **flags))


def test_int8_add_broadcasts_a_constant_and_a_per_channel_operand() -> None:
    """ADD of an int8 conv output and a scalar constant, and of a feature map and a [1, 1, 1, C] gate
    (int8 MUL takes the same broadcast path; PP-OCR's SE gates exercise it in the model tests)."""
    from lite_converter.passes.quantize_int8 import broadcast_supported

    assert broadcast_supported((1, 5, 5, 6), (1, 1, 1, 6)) and broadcast_supported((2, 5, 5, 6), (2, 1, 1, 6))
    assert broadcast_supported((1, 5, 5, 6), ()) and broadcast_supported((1, 5, 5, 6), (5, 5, 6))
    assert not broadcast_supported((1, 5, 5, 6), (1, 5, 1, 6))
    assert not broadcast_supported((1, 1, 1, 6), (1, 5, 5, 6))
    rng = np.random.default_rng(12)
    w = {k: rng.standard_normal(s).astype(np.float32) * 0.5 for k, s in
         (("w1", (6, 3, 3, 3)), ("w2", (6, 6, 1, 1)), ("w3", (4, 6, 1, 1)))}
    inits = [numpy_helper.from_array(v, k) for k, v in w.items()]
    inits.append(numpy_helper.from_array(np.array(-0.7, np.float32), "bias"))
    nodes = [helper.make_node("Conv", ["x", "w1"], ["c0"], pads=[1, 1, 1, 1], name="conv1"),
             helper.make_node("Relu", ["c0"], ["c1"], name="relu1"),  # keeps the ADD out of the conv bias
             helper.make_node("Add", ["bias", "c1"], ["shifted"], name="add_constant"),
             helper.make_node("GlobalAveragePool", ["shifted"], ["gap"], name="gap"),
             helper.make_node("Conv", ["gap", "w2"], ["gate"], name="gate_conv"),
             helper.make_node("Add", ["gate", "shifted"], ["gated"], name="add_per_channel"),
             helper.make_node("Conv", ["gated", "w3"], ["y"], name="conv3")]
    graph = helper.make_graph(nodes, "broadcast_add",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 5, 5])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 14)], ir_version=8)
    data = _batches((1, 3, 5, 5), 3, seed=13)
    g, int8_nodes = _quantize_with(model, data, broadcast_binary=True)
    assert {"add_constant", "add_per_channel"} <= set(int8_nodes)
    errors = int8_mismatches(g, {"x": data[0]})
    assert {"add_constant", "add_per_channel"} <= set(errors)
    assert_exact(errors)
    _, default_nodes = _quantize_with(model, data)  # on by default
    assert {"add_constant", "add_per_channel"} <= set(default_nodes)
    _, off_nodes = _quantize_with(model, data, broadcast_binary=False)
    assert "add_constant" not in off_nodes and "add_per_channel" not in off_nodes


def test_int32_bias_stays_within_the_fast_kernels_range() -> None:
    """A channel whose folded weights are ~0 next to its bias (dead BatchNorm channels in PP-OCR) would
    need an int32 bias beyond 2^31 with its own tiny weight scale; the scale is floored so that the bias
    stays below 2^30 (lite_qs8_gemm_is_exact holds, the fast kernel runs) and results stay exact."""
    rng = np.random.default_rng(21)
    w = rng.standard_normal((8, 4, 1, 1)).astype(np.float32) * 0.5
    w[3] = 1e-9  # a dead channel
    b = np.full(8, 4.0, np.float32)
    nodes = [helper.make_node("Conv", ["x", "w", "b"], ["y"], name="conv")]
    graph = helper.make_graph(nodes, "dead_channel",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4, 6, 6])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
                              [numpy_helper.from_array(w, "w"), numpy_helper.from_array(b, "b")])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 14)], ir_version=8)
    data = _batches((1, 4, 6, 6), 2, seed=22)
    result = slim.compress(model, None, data, slim.QuantConfig(progress=False))
    (conv,) = [n for n in result.graph.nodes if n.op_type == "CONV_2D"]
    bias = result.graph.tensors[conv.inputs[2]].data
    # The fast kernels' condition (qs8_gemm_packed.h): |bias| + k * 255 * 128 < 2^31, here k = 4; an
    # unfloored scale would have saturated channel 3 at 2^31 - 1.
    assert bias.dtype == np.int32 and int(np.abs(bias.astype(np.int64)).max()) + 4 * 255 * 128 < 1 << 31
    assert abs(int(bias[3])) < (1 << 30) + (1 << 12)
    errors = int8_mismatches(result.graph, {"x": data[0]})
    assert errors["conv"] == 0.0, errors


@pytest.mark.parametrize("ratio", [2.0**-20, 0.37, 1.0, 2.0**7])  # 2^-20, 2^7: outside the vector plans
def test_add_and_mul_of_a_scalar_constant_every_byte(ratio: float) -> None:
    """ADD / MUL of an int8 tensor and one constant value run as a 256-entry table built from the
    reference kernel (ops/int8_scalar_table.h); every input byte, with rescales inside and outside
    the vector plans' proven range (PP-OCR det's p2o.Add.14 was outside), equals the simulation."""
    from lite_converter.int8 import add, mul
    from lite_converter.ir import Graph, Node, QuantParams
    from lite_converter.writer import serialize

    def per_tensor(scale: float, zero_point: int) -> QuantParams:
        return QuantParams(np.array([scale], np.float32), np.array([zero_point], np.int64))

    qx, qc, qy = (0.05, -3), (0.02, 10), (0.05 / ratio, 7)
    graph = Graph()
    graph.add_tensor("x", np.int8, [1, 4, 8, 8])
    graph.tensors["x"].quant = per_tensor(*qx)
    constant = graph.add_constant("c", np.array([-77], np.int8))
    graph.tensors[constant].quant = per_tensor(*qc)
    for name, quant in (("sum", qy), ("product", (qy[0] * 0.02, qy[1]))):
        graph.add_tensor(name, np.int8, [1, 4, 8, 8])
        graph.tensors[name].quant = per_tensor(*quant)
    graph.nodes = [Node("ADD", "add", ["x", constant], ["sum"]),
                   Node("MUL", "mul", ["x", constant], ["product"])]
    graph.inputs, graph.outputs = ["x"], ["sum", "product"]
    x = np.arange(-128, 128, dtype=np.int8).reshape(1, 4, 8, 8)
    with Interpreter(model_content=serialize(graph)) as interpreter:
        got = interpreter.run({"x": x})
    c = np.array([-77], np.int8)
    np.testing.assert_array_equal(got["sum"], add(x, qx, c, qc, qy, -128, 127))
    np.testing.assert_array_equal(got["product"], mul(x, qx, c, qc, (qy[0] * 0.02, qy[1]), -128, 127))


def fpn_net(linear_branch: bool) -> onnx.ModelProto:
    """FPN-like: a 2x nearest RESIZE added to a finer conv output, a CONCAT of 2x / 4x nearest upsampled
    branches with a conv output, and optionally a linear-resize branch in the CONCAT."""
    rng = np.random.default_rng(41)
    w = {k: rng.standard_normal(s).astype(np.float32) * 0.4 for k, s in
         (("w1", (6, 3, 3, 3)), ("w2", (6, 6, 3, 3)), ("w3", (6, 6, 3, 3)), ("w4", (6, 6, 1, 1)),
          ("w5", (4, 24 if linear_branch else 18, 1, 1)))}
    inits = [numpy_helper.from_array(v, k) for k, v in w.items()]
    inits += [numpy_helper.from_array(np.array([1, 1, f, f], np.float32), f"up{f}") for f in (2, 4)]
    nearest = {"mode": "nearest", "coordinate_transformation_mode": "asymmetric", "nearest_mode": "floor"}
    nodes = [helper.make_node("Conv", ["x", "w1"], ["c1"], pads=[1, 1, 1, 1], name="conv1"),  # 16x16
             helper.make_node("Conv", ["c1", "w2"], ["c2"], pads=[1, 1, 1, 1], strides=[2, 2], name="conv2"),
             helper.make_node("Conv", ["c2", "w3"], ["c3"], pads=[1, 1, 1, 1], strides=[2, 2], name="conv3"),
             helper.make_node("Resize", ["c3", "", "up2"], ["u3"], name="up_c3", **nearest),  # 8x8
             helper.make_node("Add", ["u3", "c2"], ["s2"], name="merge"),
             helper.make_node("Conv", ["s2", "w4"], ["p2"], name="smooth"),
             helper.make_node("Resize", ["p2", "", "up2"], ["q2"], name="up_p2", **nearest),  # 16x16
             helper.make_node("Resize", ["c3", "", "up4"], ["q3"], name="up_c3_4", **nearest)]
    branches = ["q2", "q3", "c1"]
    if linear_branch:
        nodes.append(helper.make_node("Resize", ["s2", "", "up2"], ["l2"], name="up_linear", mode="linear"))
        branches.append("l2")
    nodes += [helper.make_node("Concat", branches, ["cat"], axis=1, name="cat"),
              helper.make_node("Conv", ["cat", "w5"], ["y"], name="head")]
    graph = helper.make_graph(nodes, "fpn",
                              [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 16, 16])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], ir_version=8)


@pytest.mark.parametrize("linear_branch", [False, True])
def test_nearest_upsampling_and_concat_move_int8_bytes(linear_branch: bool) -> None:
    """The nearest RESIZEs run on int8 (no QUANTIZE / DEQUANTIZE around them), equal to the simulation
    (numpy repeat); the CONCAT of int8 branches too (np.concatenate, one shared scale); a linear RESIZE
    stays fp32 and keeps its CONCAT fp32."""
    data = _batches((1, 3, 16, 16), 3, seed=42)
    g, int8_nodes = _quantize_with(fpn_net(linear_branch), data)
    assert {"up_c3", "up_p2", "up_c3_4"} <= set(int8_nodes) and "up_linear" not in int8_nodes
    assert ("cat" in int8_nodes) != linear_branch
    if not linear_branch:
        assert [n.op_type for n in g.nodes].count("QUANTIZE") == 1  # the graph input's only
    errors = int8_mismatches(g, {"x": data[0]})
    moved = ["up_c3", "up_p2", "up_c3_4", "merge"] + ([] if linear_branch else ["cat"])
    assert set(moved) <= set(errors)
    assert_exact(errors)
