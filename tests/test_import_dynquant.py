"""Dynamic-quantized ONNX ops and narrow weights (docs/IMPORT_INT8.md, "Dynamic quantization" and
"Weights kept small"); the quantize_dynamic'd models are in tests/test_import_dynquant_models.py.

Oracles: onnxruntime (DynamicQuantizeLinear: bit-exact uint8 output, scale bits and zero point, on data
chosen to hit the special cases: ties at .5, an all-zero input, all-positive / all-negative inputs,
saturation), ONNX's reference implementation (MatMulInteger / ConvInteger equal in int32: onnxruntime's
int8 kernels saturate on this CPU, see run_reference), LiteRT / onnxruntime on float16 and weight-only
int8 sources, whose .lite must keep the weights narrow: at most 1.1x the source file and its constants.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper, numpy_helper
from onnx.reference import ReferenceEvaluator

from lite_converter.convert import convert_onnx, convert_tflite
from lite_converter.reader import read_model
from runtime_arm import Interpreter
from tests.tflite_builder import assert_matches_litert
from tests.tflite_narrow_weights_net import constant_bytes, narrow_weights_tflite

SIZE_BOUND = 1.1  # .lite bytes / source file bytes (both hold the same weights and quantization parameters)


def run_lite(model: bytes, feeds: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    with Interpreter(model_content=model) as interpreter:
        return interpreter.run(feeds)


def run_onnxruntime(model: onnx.ModelProto | Path, feeds: dict[str, np.ndarray],
                    optimized: bool = False) -> dict[str, np.ndarray]:
    options = ort.SessionOptions()
    options.log_severity_level = 3
    if not optimized:
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_DISABLE_ALL
    source = str(model) if isinstance(model, Path) else model.SerializeToString()
    session = ort.InferenceSession(source, options, providers=["CPUExecutionProvider"])
    names = [o.name for o in session.get_outputs()]
    return dict(zip(names, session.run(names, feeds), strict=True))


def run_reference(model: onnx.ModelProto, feeds: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """ONNX's reference implementation: the exact integer result. onnxruntime is no oracle for
    MatMulInteger / ConvInteger with int8 weights on a CPU without AVX-VNNI: its u8 x s8 kernel sums
    pairs of products with vpmaddubsw, which saturates to int16 (measured here: up to 71,373 off on a
    K=300 product; docs/IMPORT_INT8.md)."""
    names = [o.name for o in model.graph.output]
    return dict(zip(names, ReferenceEvaluator(model).run(None, feeds), strict=True))


def _model(nodes: list[onnx.NodeProto], inputs: list[onnx.ValueInfoProto], outputs: list[onnx.ValueInfoProto],
           initializers: list[onnx.TensorProto] | None = None, opset: int = 13) -> onnx.ModelProto:
    graph = helper.make_graph(nodes, "net", inputs, outputs, initializers or [])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], ir_version=8)


def _constant_bytes(model: onnx.ModelProto) -> int:
    return sum(len(numpy_helper.to_array(t).tobytes()) for t in model.graph.initializer)


# -- DynamicQuantizeLinear ----------------------------------------------------------------------------
def dynamic_quantize_net(shape: list[int]) -> onnx.ModelProto:
    node = helper.make_node("DynamicQuantizeLinear", ["x"], ["y", "y_scale", "y_zero_point"], name="dql")
    return _model([node], [helper.make_tensor_value_info("x", TensorProto.FLOAT, shape)],
                  [helper.make_tensor_value_info("y", TensorProto.UINT8, shape),
                   helper.make_tensor_value_info("y_scale", TensorProto.FLOAT, []),
                   helper.make_tensor_value_info("y_zero_point", TensorProto.UINT8, [])], opset=11)


def _hard_inputs() -> dict[str, np.ndarray]:
    rng = np.random.default_rng(7)
    ties = np.array([0.0, 2.55, -2.55, 1.275, 0.005, -0.005, 0.015, 2.0, -1.0, 1.0, 0.5], np.float32)
    return {
        "normal": (rng.standard_normal(1000) * 3).astype(np.float32),
        "positive": (rng.random(1000) * 7 + 0.1).astype(np.float32),
        "negative": (-rng.random(1000) * 0.03 - 1e-4).astype(np.float32),
        "zeros": np.zeros(1000, np.float32),
        "ties": np.resize(ties, 1000).astype(np.float32),
        "huge": (rng.standard_normal(1000) * 1e30).astype(np.float32),
        "tiny": (rng.standard_normal(1000) * 1e-30).astype(np.float32),
        "one_outlier": np.concatenate([rng.standard_normal(999) * 0.01, [100.0]]).astype(np.float32),
    }


@pytest.mark.parametrize("case", sorted(_hard_inputs()))
def test_dynamic_quantize_linear_is_bit_exact(case: str) -> None:
    x = _hard_inputs()[case].reshape(10, 100)
    model = dynamic_quantize_net([10, 100])
    ours = run_lite(convert_onnx(model), {"x": x})
    expected = run_onnxruntime(model, {"x": x})
    assert ours["y"].dtype == np.uint8 and ours["y_zero_point"].dtype == np.uint8
    assert ours["y_scale"].tobytes() == expected["y_scale"].tobytes(), (ours["y_scale"], expected["y_scale"])
    assert ours["y_zero_point"] == expected["y_zero_point"]
    np.testing.assert_array_equal(ours["y"], expected["y"])


# -- MatMulInteger / ConvInteger ----------------------------------------------------------------------
def matmul_integer_net(a_type: int, b: np.ndarray | None, b_shape: list[int], a_zp: np.ndarray | None,
                       b_zp: np.ndarray | None, m: int) -> onnx.ModelProto:
    """MatMulInteger(a, b, a_zp, b_zp); ``b`` is an initializer when given, a graph input otherwise."""
    k = b_shape[0]
    inputs = [helper.make_tensor_value_info("a", a_type, [2, m, k])]
    initializers = []
    if b is None:
        inputs.append(helper.make_tensor_value_info("b", helper.np_dtype_to_tensor_dtype(np.dtype(np.int8)),
                                                    b_shape))
    else:
        initializers.append(numpy_helper.from_array(b, "b"))
    names = ["a", "b", "", ""]
    if a_zp is not None:
        initializers.append(numpy_helper.from_array(a_zp, "a_zp"))
        names[2] = "a_zp"
    if b_zp is not None:
        initializers.append(numpy_helper.from_array(b_zp, "b_zp"))
        names[3] = "b_zp"
    while names[-1] == "":
        names.pop()
    node = helper.make_node("MatMulInteger", names, ["y"], name="mmi")
    return _model([node], inputs, [helper.make_tensor_value_info("y", TensorProto.INT32, [2, m, b_shape[1]])],
                  initializers, opset=10)


@pytest.mark.parametrize(("a_dtype", "b_dtype", "k", "b_constant", "per_column"), [
    (np.uint8, np.int8, 300, True, False),    # quantize_dynamic's default (u8 activations, s8 weights)
    (np.uint8, np.uint8, 1024, True, True),   # QUInt8 weights, a zero point per output column
    (np.int8, np.int8, 64, False, False),     # weights fed at run time
])
def test_matmul_integer_is_exact(a_dtype: type, b_dtype: type, k: int, b_constant: bool,
                                 per_column: bool) -> None:
    rng = np.random.default_rng(k)
    info = np.iinfo(a_dtype)
    a = rng.integers(info.min, info.max + 1, (2, 5, k)).astype(a_dtype)
    b_info = np.iinfo(b_dtype)
    b = rng.integers(b_info.min, b_info.max + 1, (k, 48)).astype(b_dtype)
    a_zp = np.array(info.min + 77, a_dtype)
    b_zp = rng.integers(b_info.min, b_info.max + 1, 48) if per_column else np.array(b_info.min + 5)
    b_zp = b_zp.astype(b_dtype)
    model = matmul_integer_net(helper.np_dtype_to_tensor_dtype(np.dtype(a_dtype)), b if b_constant else None,
                               [k, 48], a_zp, b_zp if b_constant else None, 5)
    feeds = {"a": a} if b_constant else {"a": a, "b": b}
    lite = convert_onnx(model)
    ours, expected = run_lite(lite, feeds), run_reference(model, feeds)
    assert ours["y"].dtype == np.int32
    np.testing.assert_array_equal(ours["y"], expected["y"])
    print(f"onnxruntime max|diff| from the exact product: "
          f"{np.abs(run_onnxruntime(model, feeds)['y'] - expected['y']).max()}")
    if b_constant:  # the weight stays one byte per value
        assert read_model(lite).weights_bytes <= SIZE_BOUND * _constant_bytes(model)


def conv_integer_net(w: np.ndarray, x_zp: int, w_zp: np.ndarray, pads: list[int], strides: list[int],
                     group: int, x_shape: list[int]) -> onnx.ModelProto:
    node = helper.make_node("ConvInteger", ["x", "w", "x_zp", "w_zp"], ["y"], pads=pads, strides=strides,
                            group=group, name="convi")
    initializers = [numpy_helper.from_array(w, "w"), numpy_helper.from_array(w_zp, "w_zp"),
                    numpy_helper.from_array(np.array(x_zp, np.uint8), "x_zp")]
    return _model([node], [helper.make_tensor_value_info("x", TensorProto.UINT8, x_shape)],
                  [helper.make_tensor_value_info("y", TensorProto.INT32, None)], initializers, opset=10)


@pytest.mark.parametrize(("w_dtype", "group", "per_channel"), [
    (np.uint8, 1, False), (np.uint8, 1, True), (np.int8, 1, False), (np.uint8, 4, False)])
def test_conv_integer_is_exact(w_dtype: type, group: int, per_channel: bool) -> None:
    rng = np.random.default_rng(group)
    info = np.iinfo(w_dtype)
    w = rng.integers(info.min, info.max + 1, (16, 8 // group, 3, 3)).astype(w_dtype)
    w_zp = (rng.integers(info.min, info.max + 1, 16) if per_channel else np.array(info.min + 9))
    w_zp = w_zp.astype(w_dtype)
    x = rng.integers(0, 256, (1, 8, 11, 13)).astype(np.uint8)
    model = conv_integer_net(w, 131, w_zp, [1, 0, 1, 2], [2, 1], group, [1, 8, 11, 13])
    ours = run_lite(convert_onnx(model), {"x": x})
    np.testing.assert_array_equal(ours["y"], run_reference(model, {"x": x})["y"])


# -- narrow weights ------------------------------------------------------------------------------------
@pytest.mark.parametrize("weight_type", ["float16", "int8"])
def test_tflite_narrow_weights_stay_narrow(weight_type: str, tmp_path: Path) -> None:
    source = narrow_weights_tflite(weight_type)
    lite = convert_tflite(source)
    weights = read_model(lite).weights_bytes
    print(f"{weight_type} .tflite: {len(source)} bytes ({constant_bytes(source)} of constants), "
          f".lite {len(lite)} ({weights} of constants)")
    assert weights <= SIZE_BOUND * constant_bytes(source) and len(lite) <= SIZE_BOUND * len(source)
    x = np.random.default_rng(1).standard_normal((1, 12, 12, 16)).astype(np.float32)
    assert_matches_litert(source, [x], tmp_path, rtol=1e-4)


def fp16_initializer_net(seed: int = 0) -> onnx.ModelProto:
    """Conv -> Relu -> Gemm with float16 initializers, each widened by a Cast (what fp16 weight
    export tools write for an fp32 graph)."""
    rng = np.random.default_rng(seed)
    weights = {"w_conv": rng.standard_normal((32, 16, 3, 3)) * 0.1, "b_conv": rng.standard_normal(32) * 0.1,
               "w_fc": rng.standard_normal((10, 32 * 8 * 8)) * 0.05, "b_fc": rng.standard_normal(10) * 0.1}
    nodes = [helper.make_node("Cast", [f"{name}_f16"], [name], to=TensorProto.FLOAT, name=f"cast_{name}")
             for name in weights]
    nodes += [helper.make_node("Conv", ["x", "w_conv", "b_conv"], ["c"], pads=[1, 1, 1, 1], name="conv"),
              helper.make_node("Relu", ["c"], ["r"], name="relu"),
              helper.make_node("Flatten", ["r"], ["f"], name="flatten"),
              helper.make_node("Gemm", ["f", "w_fc", "b_fc"], ["y"], transB=1, name="fc")]
    initializers = [numpy_helper.from_array(value.astype(np.float16), f"{name}_f16")
                    for name, value in weights.items()]
    return _model(nodes, [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 16, 8, 8])],
                  [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 10])], initializers)


def weight_only_int8_net(seed: int = 0) -> onnx.ModelProto:
    """MatMul and Conv reading int8 weights through DequantizeLinear (per-channel scales), float
    activations: weight-only int8 as ONNX writes it."""
    rng = np.random.default_rng(seed)
    w_fc = rng.integers(-127, 128, (256, 64)).astype(np.int8)
    w_conv = rng.integers(-127, 128, (64, 16, 3, 3)).astype(np.int8)
    initializers = [numpy_helper.from_array(w_fc, "w_fc_q"),
                    numpy_helper.from_array((rng.random(64) * 0.01 + 0.001).astype(np.float32), "s_fc"),
                    numpy_helper.from_array(w_conv, "w_conv_q"),
                    numpy_helper.from_array((rng.random(64) * 0.01 + 0.001).astype(np.float32), "s_conv")]
    nodes = [helper.make_node("DequantizeLinear", ["w_conv_q", "s_conv"], ["w_conv"], axis=0, name="dq_conv"),
             helper.make_node("DequantizeLinear", ["w_fc_q", "s_fc"], ["w_fc"], axis=1, name="dq_fc"),
             helper.make_node("Conv", ["x", "w_conv"], ["c"], pads=[1, 1, 1, 1], name="conv"),
             helper.make_node("GlobalAveragePool", ["c"], ["g"], name="gap"),
             helper.make_node("Flatten", ["g"], ["f"], name="flatten"),
             helper.make_node("Tile", ["f", "repeats"], ["t"], name="tile"),
             helper.make_node("MatMul", ["t", "w_fc"], ["y"], name="fc")]
    initializers.append(numpy_helper.from_array(np.array([1, 4], np.int64), "repeats"))
    return _model(nodes, [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 16, 8, 8])],
                  [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 64])], initializers)


@pytest.mark.parametrize("kind", ["fp16", "int8"])
def test_onnx_narrow_weights_stay_narrow(kind: str) -> None:
    model = fp16_initializer_net() if kind == "fp16" else weight_only_int8_net()
    lite = convert_onnx(model)
    source_bytes, weights = len(model.SerializeToString()), read_model(lite).weights_bytes
    print(f"{kind} .onnx: {source_bytes} bytes ({_constant_bytes(model)} of constants), "
          f".lite {len(lite)} ({weights} of constants)")
    assert weights <= SIZE_BOUND * _constant_bytes(model) and len(lite) <= SIZE_BOUND * source_bytes
    x = np.random.default_rng(2).standard_normal((1, 16, 8, 8)).astype(np.float32)
    expected = run_onnxruntime(model, {"x": x})["y"]
    ours = run_lite(lite, {"x": x})["y"]
    np.testing.assert_allclose(ours, expected, rtol=1e-4, atol=1e-4 * max(1.0, float(np.abs(expected).max())))


def test_qlinear_matmul_matches_onnxruntime() -> None:
    """u8 x u8 with a constant weight and per-column scales: onnxruntime's kernel is exact here and
    requantizes in float32 as we do, so every output byte must be equal."""
    rng = np.random.default_rng(11)
    b = rng.integers(0, 256, (200, 32)).astype(np.uint8)
    constants = {"a_scale": np.float32(0.02), "a_zp": np.uint8(120), "b": b,
                 "b_scale": (rng.random(32) * 0.01 + 0.002).astype(np.float32),
                 "b_zp": rng.integers(100, 150, 32).astype(np.uint8), "y_scale": np.float32(0.06),
                 "y_zp": np.uint8(128)}
    inputs = ["a", "a_scale", "a_zp", "b", "b_scale", "b_zp", "y_scale", "y_zp"]
    node = helper.make_node("QLinearMatMul", inputs,
                            ["y"], name="qmm")
    model = _model([node], [helper.make_tensor_value_info("a", TensorProto.UINT8, [3, 7, 200])],
                   [helper.make_tensor_value_info("y", TensorProto.UINT8, [3, 7, 32])],
                   [numpy_helper.from_array(np.asarray(v), k) for k, v in constants.items()])
    feeds = {"a": rng.integers(0, 256, (3, 7, 200)).astype(np.uint8)}
    lite = convert_onnx(model)
    ours, expected = run_lite(lite, feeds)["y"], run_onnxruntime(model, feeds)["y"]
    assert ours.dtype == np.uint8
    np.testing.assert_array_equal(ours, expected)
    assert 0 < np.count_nonzero((expected == 0) | (expected == 255)) < expected.size / 2  # saturation hit
    assert read_model(lite).weights_bytes <= SIZE_BOUND * _constant_bytes(model)


def test_float32_weights_stay_float32() -> None:
    """Only exact narrowing: a weight whose values are not fp16 ones (here the conv's, made so by
    adding 1e-4 in float32) keeps its four bytes per value; the fp16 FC weight beside it is FLOAT16."""
    model = fp16_initializer_net()
    conv_weight = numpy_helper.to_array(model.graph.initializer[0]).astype(np.float32) + np.float32(1e-4)
    model.graph.initializer[0].CopyFrom(numpy_helper.from_array(conv_weight, "w_conv_f16"))
    constants = {t.name: t for t in read_model(convert_onnx(model)).tensors if t.data is not None}
    dtypes = {name: (t.dtype, t.data.size) for name, t in constants.items() if t.data.size >= 256}
    assert sorted(dtypes.values()) == [("FLOAT16", 10 * 2048), ("FLOAT32", 32 * 16 * 3 * 3)], dtypes


def test_float16_model_stays_float16() -> None:
    """A float16 ONNX model (fp16 inputs, initializers and compute): its weights stay FLOAT16 in the
    .lite. We compute in float32 between casts and onnxruntime in float16, so outputs agree within a few
    fp16 steps (fp16 epsilon is 9.8e-4): bound 4e-3 * max|ref|."""
    rng = np.random.default_rng(0)
    weights = {"w": rng.standard_normal((64, 32, 3, 3)) * 0.1,
               "wf": rng.standard_normal((64 * 4 * 4, 10)) * 0.05}
    initializers = [numpy_helper.from_array(v.astype(np.float16), name) for name, v in weights.items()]
    nodes = [helper.make_node("Conv", ["x", "w"], ["c"], pads=[1, 1, 1, 1], name="conv"),
             helper.make_node("Relu", ["c"], ["r"], name="relu"),
             helper.make_node("Flatten", ["r"], ["f"], name="flatten"),
             helper.make_node("MatMul", ["f", "wf"], ["y"], name="fc")]
    model = _model(nodes, [helper.make_tensor_value_info("x", TensorProto.FLOAT16, [1, 32, 4, 4])],
                   [helper.make_tensor_value_info("y", TensorProto.FLOAT16, [1, 10])], initializers)
    lite = convert_onnx(model)
    assert read_model(lite).weights_bytes <= SIZE_BOUND * _constant_bytes(model)
    assert len(lite) <= SIZE_BOUND * len(model.SerializeToString())
    feeds = {"x": rng.standard_normal((1, 32, 4, 4)).astype(np.float16)}
    expected = run_onnxruntime(model, feeds)["y"].astype(np.float32)
    ours = run_lite(lite, feeds)["y"]
    assert ours.dtype == np.float16
    assert np.abs(ours.astype(np.float32) - expected).max() <= 4e-3 * np.abs(expected).max()
