"""Import of int8 models made by other quantizers (docs/IMPORT_INT8.md).

Oracles are the models' own runtimes: onnxruntime on the QDQ .onnx that its quantizer
(``quantize_static``) wrote, run with graph optimizations off (DequantizeLinear -> float op ->
QuantizeLinear, the ONNX meaning of a QDQ graph: its fused int8 kernels differ by CPU, see
``onnxruntime_int8_bound``), and LiteRT on the full-integer .tflite. Their requantization rounds
differently from ours (float rounding / gemmlowp fixed point), so outputs are compared in LSBs of
the output's own scale: none more than 1 LSB apart and >= 90% equal (measured here: 100% equal on
every output; the 1-LSB room is their rounding, up to 10% of MobileNetV2's logits at 224x224 in
docs/IMPORT_INT8.md), and the distribution (0 / 1 / >1 LSB) is printed. Against our own simulation
the same models are exact (the tests at the end).
The tests also check that the imported models really run int8 ops, so an import that silently
fell back to fp32 would fail.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper, numpy_helper
from onnxruntime import quantization

from lite_converter.convert import convert_onnx, convert_tflite
from lite_converter.ir import ConversionError
from lite_converter.reader import LiteModel, read_model
from runtime_arm import Interpreter

MIN_EQUAL = 0.90


# -- models -----------------------------------------------------------------------------------------
def every_op_net(seed: int = 0) -> onnx.ModelProto:
    """Conv+BatchNorm+Relu, depthwise Conv+Clip, Add, MaxPool, two 1x1 convs (one through a written-out
    hard-swish, one through Sigmoid: no int8 kernels) into Concat, GlobalAveragePool, Flatten, Gemm;
    outputs Add and Gemm."""
    rng = np.random.default_rng(seed)

    def weight(*shape: int) -> np.ndarray:
        return (rng.standard_normal(shape) * 0.4).astype(np.float32)

    weights = {"w1": weight(8, 3, 3, 3), "b1": weight(8), "wd": weight(8, 1, 3, 3), "bd": weight(8),
               "w3": weight(4, 8, 1, 1), "w4": weight(4, 8, 1, 1), "b4": weight(4), "wf": weight(16, 8),
               "bf": weight(16), "lo": np.array(0.0, np.float32), "hi": np.array(6.0, np.float32),
               "gamma": weight(8), "beta": weight(8), "mean": weight(8),
               "var": (rng.random(8) + 0.5).astype(np.float32), "three": np.array(3.0, np.float32),
               "six": np.array(6.0, np.float32)}
    nodes = [
        helper.make_node("Conv", ["x", "w1", "b1"], ["c1"], pads=[1, 1, 1, 1], name="conv"),
        # onnxruntime rounds the conv's output before the BatchNorm: the import must not fold them
        helper.make_node("BatchNormalization", ["c1", "gamma", "beta", "mean", "var"], ["n1"], name="bn"),
        helper.make_node("Relu", ["n1"], ["r1"], name="relu"),
        helper.make_node("Conv", ["r1", "wd", "bd"], ["c2"], pads=[1, 1, 1, 1], group=8, name="depthwise"),
        helper.make_node("Clip", ["c2", "lo", "hi"], ["r2"], name="relu6"),
        helper.make_node("Add", ["r1", "r2"], ["sum"], name="add"),
        helper.make_node("MaxPool", ["sum"], ["pooled"], kernel_shape=[2, 2], strides=[2, 2], name="maxpool"),
        helper.make_node("Conv", ["pooled", "w3"], ["c3"], name="conv_a"),
        helper.make_node("Conv", ["pooled", "w4", "b4"], ["c4"], name="conv_b"),
        helper.make_node("Sigmoid", ["c4"], ["s4"], name="sigmoid"),
        # hard-swish written out, every step quantized: must not become one HardSwish op
        helper.make_node("Add", ["c3", "three"], ["h1"], name="hswish_add"),
        helper.make_node("Clip", ["h1", "lo", "hi"], ["h2"], name="hswish_clip"),
        helper.make_node("Mul", ["c3", "h2"], ["h3"], name="hswish_mul"),
        helper.make_node("Div", ["h3", "six"], ["h4"], name="hswish_div"),
        helper.make_node("Concat", ["h4", "s4"], ["cat"], axis=1, name="concat"),
        helper.make_node("GlobalAveragePool", ["cat"], ["gap"], name="gap"),
        helper.make_node("Flatten", ["gap"], ["flat"], name="flatten"),
        helper.make_node("Gemm", ["flat", "wf", "bf"], ["y"], transB=1, name="fc"),
    ]
    graph = helper.make_graph(
        nodes, "every_op_net", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 16, 16])],
        [helper.make_tensor_value_info("sum", TensorProto.FLOAT, [1, 8, 16, 16]),
         helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 16])],
        [numpy_helper.from_array(value, name) for name, value in weights.items()])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], ir_version=8)


class _Batches(quantization.CalibrationDataReader):
    def __init__(self, name: str, shape: tuple[int, ...], count: int, seed: int) -> None:
        rng = np.random.default_rng(seed)
        self._batches = iter([{name: rng.standard_normal(shape).astype(np.float32)} for _ in range(count)])

    def get_next(self) -> dict[str, np.ndarray] | None:
        return next(self._batches, None)


def quantize_qdq(source: Path, target: Path, feed: tuple[str, tuple[int, ...]], activations: str,
                 batches: int) -> Path:
    """onnxruntime's static QDQ quantization: per-channel int8 weights, u8 or s8 activations."""
    activation_type = quantization.QuantType.QUInt8 if activations == "u8" else quantization.QuantType.QInt8
    quantization.quantize_static(str(source), str(target), _Batches(*feed, batches, seed=0),
                                 quant_format=quantization.QuantFormat.QDQ, activation_type=activation_type,
                                 weight_type=quantization.QuantType.QInt8, per_channel=True)
    return target


def output_scales(qdq: onnx.ModelProto) -> dict[str, float]:
    """Scale of each graph output, read from the DequantizeLinear that writes it."""
    initializers = {init.name: numpy_helper.to_array(init) for init in qdq.graph.initializer}
    outputs = {o.name for o in qdq.graph.output}
    return {node.output[0]: float(initializers[node.input[1]]) for node in qdq.graph.node
            if node.op_type == "DequantizeLinear" and node.output[0] in outputs}


# -- comparison -------------------------------------------------------------------------------------
def lsb_distribution(ours: np.ndarray, theirs: np.ndarray, scale: float) -> tuple[float, float, float]:
    """Fractions of values 0, 1 and more than 1 LSB apart."""
    steps = np.rint(np.abs(ours.astype(np.float64) - theirs.astype(np.float64)) / scale)
    return float(np.mean(steps == 0)), float(np.mean(steps == 1)), float(np.mean(steps > 1))


def check_against(ours: dict[str, np.ndarray], theirs: dict[str, np.ndarray], scales: dict[str, float],
                  label: str) -> None:
    assert set(ours) == set(theirs), (sorted(ours), sorted(theirs))
    for name, expected in theirs.items():
        assert ours[name].shape == expected.shape and ours[name].dtype == expected.dtype, name
        zero, one, more = lsb_distribution(ours[name], expected, scales[name])
        print(f"{label} {name}: 0 LSB {zero:.4f}, 1 LSB {one:.4f}, >1 LSB {more:.4f}")
        assert more == 0 and zero >= MIN_EQUAL, (name, zero, one, more)


def run_lite(path: Path, feeds: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    with Interpreter(path) as interpreter:
        return interpreter.run(feeds)


def run_onnxruntime(path: Path, feeds: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    options = ort.SessionOptions()
    options.log_severity_level = 3
    # The unfused QDQ graph: its optimized int8 kernels are CPU-dependent (onnxruntime_int8_bound).
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    session = ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
    names = [o.name for o in session.get_outputs()]
    return dict(zip(names, session.run(names, feeds), strict=True))


def run_litert(path: Path, feeds: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    # LiteRT is needed by the .tflite tests only: imported here, the onnxruntime QDQ tests never depend on it
    litert = pytest.importorskip("ai_edge_litert.interpreter", reason="LiteRT (dev extra) not installed")
    interpreter = litert.Interpreter(model_path=str(path))
    interpreter.allocate_tensors()
    for detail, value in zip(interpreter.get_input_details(), feeds.values(), strict=True):
        interpreter.set_tensor(detail["index"], value.astype(detail["dtype"]))
    interpreter.invoke()
    return {d["name"]: interpreter.get_tensor(d["index"]) for d in interpreter.get_output_details()}


def int8_ops(model: LiteModel) -> dict[str, int]:
    """Op counts of the ops whose first input is an int8 tensor."""
    counts: dict[str, int] = {}
    for op in model.operators:
        if op.inputs and op.inputs[0] >= 0 and model.tensors[op.inputs[0]].dtype == "INT8":
            counts[op.opcode] = counts.get(op.opcode, 0) + 1
    return counts


def random_feeds(name: str, shape: tuple[int, ...], seed: int) -> dict[str, np.ndarray]:
    return {name: np.random.default_rng(seed).standard_normal(shape).astype(np.float32)}


# -- QDQ-ONNX ---------------------------------------------------------------------------------------
@pytest.fixture(scope="module", params=["u8", "s8"])
def every_op_qdq(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp(f"every_op_{request.param}")
    onnx.save(every_op_net(), folder / "x_net.onnx")
    feed = ("x", (1, 3, 16, 16))
    return quantize_qdq(folder / "x_net.onnx", folder / "x_net_qdq.onnx", feed, request.param, 8)


def test_qdq_every_op_matches_onnxruntime(every_op_qdq: Path) -> None:
    lite_path = every_op_qdq.with_suffix(".lite")
    convert_onnx(every_op_qdq, lite_path)
    model = read_model(lite_path)
    counts = int8_ops(model)
    assert (counts.get("CONV_2D"), counts.get("ADD"), counts.get("FULLY_CONNECTED")) == (4, 1, 1), counts
    assert counts.get("MAX_POOL_2D") == 1, counts
    assert "HARD_SWISH" not in model.op_counts() and "DIV" in model.op_counts(), model.op_counts()
    assert [t.dtype for t in model.output_tensors] == ["FLOAT32", "FLOAT32"]
    scales = output_scales(onnx.load(str(every_op_qdq)))
    for seed in range(3):
        feeds = random_feeds("x", (1, 3, 16, 16), 100 + seed)
        theirs = run_onnxruntime(every_op_qdq, feeds)
        check_against(run_lite(lite_path, feeds), theirs, scales, every_op_qdq.stem)


@pytest.fixture(scope="module")
def mobilenet_v2_qdq(tmp_path_factory: pytest.TempPathFactory) -> Path:
    torch = pytest.importorskip("torch")
    from tests.models import ARCHITECTURES, build_seeded

    folder = tmp_path_factory.mktemp("mobilenet_v2_qdq")
    model = build_seeded(ARCHITECTURES["mobilenet_v2_legacy"])
    with torch.no_grad():
        torch.onnx.export(model, (torch.zeros(1, 3, 64, 64),), str(folder / "input_mv2.onnx"),
                          input_names=["input"], output_names=["logits"], opset_version=13, dynamo=False)
    feed = ("input", (1, 3, 64, 64))
    return quantize_qdq(folder / "input_mv2.onnx", folder / "mobilenet_v2_qdq.onnx", feed, "u8", 3)


@pytest.fixture(scope="module")
def mobilenet_v2_lite(mobilenet_v2_qdq: Path) -> Path:
    lite_path = mobilenet_v2_qdq.with_suffix(".lite")
    convert_onnx(mobilenet_v2_qdq, lite_path)
    return lite_path


def test_qdq_mobilenet_v2_matches_onnxruntime(mobilenet_v2_qdq: Path, mobilenet_v2_lite: Path) -> None:
    counts = int8_ops(read_model(mobilenet_v2_lite))
    assert (counts.get("CONV_2D"), counts.get("ADD"), counts.get("FULLY_CONNECTED")) == (52, 10, 1), counts
    scales = output_scales(onnx.load(str(mobilenet_v2_qdq)))
    for seed in range(2):
        feeds = random_feeds("input", (1, 3, 64, 64), 200 + seed)
        check_against(run_lite(mobilenet_v2_lite, feeds), run_onnxruntime(mobilenet_v2_qdq, feeds), scales,
                      "mobilenet_v2 QDQ")


def test_qdq_uint8_weights_are_refused_naming_every_node(tmp_path: Path) -> None:
    """uint8 weights with a zero point other than 128 are outside the symmetric int8 scheme."""
    source = tmp_path / "x_net.onnx"
    onnx.save(every_op_net(), source)
    target = tmp_path / "x_net_u8w.onnx"
    quantization.quantize_static(str(source), str(target), _Batches("x", (1, 3, 16, 16), 2, seed=0),
                                 quant_format=quantization.QuantFormat.QDQ,
                                 activation_type=quantization.QuantType.QUInt8,
                                 weight_type=quantization.QuantType.QUInt8, per_channel=False)
    with pytest.raises(ConversionError) as error:
        convert_onnx(target)
    message = str(error.value)
    qdq = onnx.load(str(target))
    initializers = {init.name: numpy_helper.to_array(init) for init in qdq.graph.initializer}
    offending = [node.name for node in qdq.graph.node
                 if node.op_type == "DequantizeLinear" and initializers.get(node.input[0]) is not None
                 and initializers[node.input[0]].dtype == np.uint8 and initializers[node.input[0]].ndim > 1
                 and (initializers[node.input[2]] != 128).any()]
    assert "uint8 weights" in message and len(offending) >= 2, message
    assert all(f"'{name}'" in message for name in offending), message


def test_qdq_asymmetric_weights_run_fp32_with_their_int32_bias(tmp_path: Path) -> None:
    """A hand-written QDQ conv whose int8 weights have a zero point (not our symmetric scheme): it
    runs in fp32 on exactly the dequantized weights and its large int32 bias, between Q/DQ."""
    rng = np.random.default_rng(3)
    w_scale, in_scale = np.float32(0.01), np.float32(0.02)
    initializers = {
        "xs": np.array(in_scale), "xz": np.array(0, np.int8), "ys": np.array(0.5, np.float32),
        "yz": np.array(-3, np.int8), "wq": rng.integers(-128, 128, (4, 3, 3, 3)).astype(np.int8),
        "ws": np.array(w_scale), "wz": np.array(5, np.int8),
        "bq": rng.integers(-60000, 60000, 4).astype(np.int32), "bs": np.array(w_scale * in_scale),
        "bz": np.array(0, np.int32)}
    nodes = [
        helper.make_node("QuantizeLinear", ["x", "xs", "xz"], ["xq"]),
        helper.make_node("DequantizeLinear", ["xq", "xs", "xz"], ["xd"]),
        helper.make_node("DequantizeLinear", ["wq", "ws", "wz"], ["w"]),
        helper.make_node("DequantizeLinear", ["bq", "bs", "bz"], ["b"]),
        helper.make_node("Conv", ["xd", "w", "b"], ["c"], pads=[1, 1, 1, 1], name="conv"),
        helper.make_node("QuantizeLinear", ["c", "ys", "yz"], ["cq"]),
        helper.make_node("DequantizeLinear", ["cq", "ys", "yz"], ["y"]),
    ]
    graph = helper.make_graph(nodes, "asymmetric", [helper.make_tensor_value_info("x", TensorProto.FLOAT,
                                                                                   [1, 3, 8, 8])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 4, 8, 8])],
                              [numpy_helper.from_array(v, k) for k, v in initializers.items()])
    path = tmp_path / "asymmetric.onnx"
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], ir_version=8), path)
    lite_path = tmp_path / "asymmetric.lite"
    convert_onnx(path, lite_path)
    assert "CONV_2D" not in int8_ops(read_model(lite_path))
    feeds = random_feeds("x", (1, 3, 8, 8), 7)
    check_against(run_lite(lite_path, feeds), run_onnxruntime(path, feeds), {"y": 0.5}, "asymmetric weights")


def test_qdq_fake_quantized_float_weights_become_int8(tmp_path: Path) -> None:
    """fp32 weights behind a per-channel QuantizeLinear -> DequantizeLinear pair (how fake-quant
    training exporters write them): rounded to the model's grid, and int8 since symmetric."""
    rng = np.random.default_rng(4)
    weight = (rng.standard_normal((4, 3, 3, 3)) * 0.3).astype(np.float32)
    w_scale = (np.abs(weight).reshape(4, -1).max(axis=1) / 127).astype(np.float32)
    initializers = {
        "xs": np.array(0.03, np.float32), "xz": np.array(3, np.int8), "ys": np.array(0.2, np.float32),
        "yz": np.array(-20, np.int8), "w": weight, "ws": w_scale, "wz": np.zeros(4, np.int8)}
    nodes = [
        helper.make_node("QuantizeLinear", ["x", "xs", "xz"], ["xq"]),
        helper.make_node("DequantizeLinear", ["xq", "xs", "xz"], ["xd"]),
        helper.make_node("QuantizeLinear", ["w", "ws", "wz"], ["wq"], axis=0),
        helper.make_node("DequantizeLinear", ["wq", "ws", "wz"], ["wd"], axis=0),
        helper.make_node("Conv", ["xd", "wd"], ["c"], pads=[1, 1, 1, 1], name="conv"),
        helper.make_node("QuantizeLinear", ["c", "ys", "yz"], ["cq"]),
        helper.make_node("DequantizeLinear", ["cq", "ys", "yz"], ["y"]),
    ]
    graph = helper.make_graph(nodes, "fake_quant", [helper.make_tensor_value_info("x", TensorProto.FLOAT,
                                                                                  [1, 3, 8, 8])],
                              [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 4, 8, 8])],
                              [numpy_helper.from_array(v, k) for k, v in initializers.items()])
    path = tmp_path / "fake_quant.onnx"
    onnx.save(helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)], ir_version=8), path)
    lite_path = tmp_path / "fake_quant.lite"
    convert_onnx(path, lite_path)
    assert int8_ops(read_model(lite_path)).get("CONV_2D") == 1
    for seed in range(3):
        feeds = random_feeds("x", (1, 3, 8, 8), 20 + seed)
        theirs = run_onnxruntime(path, feeds)
        check_against(run_lite(lite_path, feeds), theirs, {"y": 0.2}, "fake-quant weights")


# -- TFLite -----------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def mobilenet_v2_tflite(mobilenet_v2_lite: Path) -> Path:
    from lite_converter.app.peers.tflite_export import export_tflite

    path = mobilenet_v2_lite.with_name("mobilenet_v2_int8.tflite")
    path.write_bytes(export_tflite(read_model(mobilenet_v2_lite)))
    return path


def _scale_of_output(model: LiteModel) -> dict[str, float]:
    """Scale of each fp32 graph output's int8 source (the DEQUANTIZE writing it)."""
    scales = {}
    for op in model.operators:
        if op.opcode == "DEQUANTIZE" and op.outputs[0] in model.outputs:
            scales[model.tensors[op.outputs[0]].name] = model.tensors[op.inputs[0]].quantization["scale"][0]
    return scales


def test_tflite_int8_mobilenet_v2_matches_litert(mobilenet_v2_tflite: Path) -> None:
    lite_path = mobilenet_v2_tflite.with_name("from_tflite.lite")
    convert_tflite(mobilenet_v2_tflite, lite_path)
    model = read_model(lite_path)
    counts = int8_ops(model)
    assert (counts.get("CONV_2D"), counts.get("ADD"), counts.get("FULLY_CONNECTED")) == (52, 10, 1), counts
    assert model.source_format == "tflite"
    scales = _scale_of_output(model)
    for seed in range(2):
        feeds = random_feeds("input", (1, 3, 64, 64), 300 + seed)
        check_against(run_lite(lite_path, feeds), run_litert(mobilenet_v2_tflite, feeds), scales,
                      "mobilenet_v2 tflite")


def test_tflite_every_op_net_round_trip_matches_litert(every_op_qdq: Path, tmp_path: Path) -> None:
    """Our int8 .lite -> full-integer .tflite (LiteRT runs it) -> .lite again: pools, concat, mean,
    reshape, an fp32 sigmoid between DEQUANTIZE and QUANTIZE."""
    from lite_converter.app.peers.tflite_export import export_tflite

    first = tmp_path / "first.lite"
    convert_onnx(every_op_qdq, first)
    tflite = tmp_path / "every_op.tflite"
    tflite.write_bytes(export_tflite(read_model(first)))
    second = tmp_path / "second.lite"
    convert_tflite(tflite, second)
    model = read_model(second)
    assert int8_ops(model).get("CONV_2D") == 4, int8_ops(model)
    assert [t.name for t in model.output_tensors] == ["sum", "y"]
    scales = _scale_of_output(read_model(first))
    for seed in range(2):
        feeds = random_feeds("x", (1, 3, 16, 16), 400 + seed)
        theirs = run_litert(tflite, feeds)
        theirs = {name: value.reshape(model.output_tensors[i].shape)
                  for i, (name, value) in enumerate(theirs.items())}
        check_against(run_lite(second, feeds), theirs, scales, "every_op tflite")


def test_tflite_tf_style_int8_net_matches_litert(tmp_path: Path) -> None:
    """int8 graph input and outputs, PAD folded into a conv, SAME depthwise, AVERAGE_POOL_2D, MEAN and
    SOFTMAX to new scales (fp32 between DEQUANTIZE and QUANTIZE here): compared in integers."""
    from tests.tflite_int8_net import tflite_int8_net

    data = tflite_int8_net()
    lite_path = tmp_path / "tf_style.lite"
    convert_tflite(data, lite_path)
    model = read_model(lite_path)
    assert int8_ops(model).get("CONV_2D") == 2 and "PAD" not in model.op_counts(), model.op_counts()
    assert [t.dtype for t in (*model.input_tensors, *model.output_tensors)] == ["INT8"] * 3
    tflite = tmp_path / "tf_style.tflite"
    tflite.write_bytes(data)
    for seed in range(3):
        feeds = {"x": np.random.default_rng(500 + seed).integers(-128, 128, (1, 9, 9, 3)).astype(np.int8)}
        steps = {"added": 1.0, "probabilities": 1.0}  # int8 outputs: one step is one LSB
        check_against(run_lite(lite_path, feeds), run_litert(tflite, feeds), steps, "tf-style tflite")


def test_tflite_unsupported_ops_listed_at_once(mobilenet_v2_tflite: Path) -> None:
    from ai_edge_litert import schema_py_generated as schema

    model = schema.ModelT.InitFromPackedBuf(mobilenet_v2_tflite.read_bytes(), 0)
    for code in model.operatorCodes:  # every ADD and the FULLY_CONNECTED become unknown to us
        if code.builtinCode in (schema.BuiltinOperator.ADD, schema.BuiltinOperator.FULLY_CONNECTED):
            code.builtinCode = code.deprecatedBuiltinCode = schema.BuiltinOperator.SEGMENT_SUM
    import flatbuffers

    builder = flatbuffers.Builder(1 << 20)
    builder.Finish(model.Pack(builder), file_identifier=b"TFL3")
    with pytest.raises(ConversionError) as error:
        convert_tflite(bytes(builder.Output()))
    message = str(error.value)  # one line for the 11 nodes, naming 5 of them
    assert message.count("SEGMENT_SUM") == 1 and "op SEGMENT_SUM: 11 node(s)" in message, message
    assert "and 6 more" in message, message


def test_cli_converts_qdq_and_tflite(mobilenet_v2_qdq: Path, mobilenet_v2_tflite: Path, tmp_path: Path,
                                     capsys: pytest.CaptureFixture[str]) -> None:
    from lite_converter.app.cli import main

    assert main(["convert", str(mobilenet_v2_tflite), "-o", str(tmp_path / "t.lite")]) == 0
    assert main(["convert", str(mobilenet_v2_qdq), "-o", str(tmp_path / "q.lite")]) == 0
    out = capsys.readouterr().out
    assert out.count("(int8)") == 2 and "size: TFLite" in out and "size: ONNX" in out
    assert main(["convert", str(tmp_path / "missing.tflite")]) == 1
    assert "no such TFLite file" in capsys.readouterr().err


def onnxruntime_int8_bound(scale: float) -> float:
    """How far onnxruntime's optimized (fused int8) MobileNetV2 may be from ours.

    With VNNI its u8 x s8 GEMM sums exactly (1 LSB: its float requantization rounds differently).
    Without VNNI (AVX2 only, e.g. the AMD EPYC hosts of this project) it multiplies with
    vpmaddubsw, which saturates each pair's sum to int16; onnxruntime documents this and suggests
    reduce_range. Measured there: 3.0 LSB on MobileNetV2's logits; bounded at 4.
    """
    flags = Path("/proc/cpuinfo").read_text() if Path("/proc/cpuinfo").exists() else ""
    has_vnni = " avx512_vnni" in flags or " avx_vnni" in flags
    return (1.01 if has_vnni else 4.01) * scale


def test_bench_runs_int8_peers(mobilenet_v2_qdq: Path, mobilenet_v2_lite: Path) -> None:
    """`lite bench INT8.lite --compare onnxruntime,litert`: onnxruntime on the QDQ .onnx beside it,
    LiteRT on the full-integer .tflite exported from it; both agree with us within their bound
    (onnxruntime_int8_bound: its fused kernels saturate on CPUs without VNNI)."""
    from lite_converter.app.bench import BenchConfig, benchmark

    lite_path = mobilenet_v2_lite.with_name("mobilenet_v2_qdq.lite")
    assert lite_path == mobilenet_v2_lite and mobilenet_v2_qdq.with_suffix(".lite") == lite_path
    result = benchmark(BenchConfig(lite_path, runs=2, warmup=0, compare=("onnxruntime", "litert")))
    scale = output_scales(onnx.load(str(mobilenet_v2_qdq)))["logits"]
    assert [peer.name for peer in result.peers] == ["onnxruntime", "litert"]
    for peer in result.peers:
        assert peer.unavailable is None and peer.stats is not None, peer
        assert peer.max_abs_diff is not None, peer
        bound = onnxruntime_int8_bound(scale) if peer.name == "onnxruntime" else 1.01 * scale
        assert peer.max_abs_diff <= bound, (peer.name, peer.max_abs_diff, scale)



# -- imported int8 models against our own simulation ----------------------------------------------------
# The peers above round differently from us (1 LSB apart is their arithmetic, not a fault); against our
# own simulation every int8 tensor of an imported model is exact (0 LSB), QUANTIZE / DEQUANTIZE
# included, as for the models slim quantizes (tests/slim_oracle.py).
def _assert_imported_int8_exact(path: Path | bytes, feeds: dict[str, np.ndarray], minimum_nodes: int) -> None:
    from lite_converter.convert import lower
    from tests.slim_oracle import assert_exact, int8_mismatches

    assert_exact(int8_mismatches(lower(path), feeds), minimum_nodes=minimum_nodes)


def test_imported_qdq_every_op_net_equals_the_simulation(every_op_qdq: Path) -> None:
    _assert_imported_int8_exact(every_op_qdq, random_feeds("x", (1, 3, 16, 16), 600), 20)


@pytest.mark.parametrize("source", ["mobilenet_v2_qdq", "mobilenet_v2_tflite"])
def test_imported_mobilenet_v2_equals_the_simulation(source: str, request: pytest.FixtureRequest) -> None:
    feeds = random_feeds("input", (1, 3, 64, 64), 601)
    _assert_imported_int8_exact(request.getfixturevalue(source), feeds, 60)


def test_imported_tf_style_tflite_equals_the_simulation() -> None:
    """int8 graph input: the convs, ADD, RESHAPE, FULLY_CONNECTED and 6 QUANTIZE / DEQUANTIZE borders are
    exact (11 nodes); AVERAGE_POOL_2D, MEAN and SOFTMAX run fp32 between those borders."""
    from tests.tflite_int8_net import tflite_int8_net

    feeds = {"x": np.random.default_rng(7).integers(-128, 128, (1, 9, 9, 3)).astype(np.int8)}
    _assert_imported_int8_exact(tflite_int8_net(), feeds, 11)
