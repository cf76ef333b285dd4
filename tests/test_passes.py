"""ONNX-level passes: support check, constant folding, DCE, Identity removal, BN folding, affine
folding, hard-swish recognition and activation fusion.

Oracle: onnxruntime on the original model versus onnxruntime on the optimized IR exported back
with onnx_export (which expands fused activations into the ops they stand for), plus structural
checks that the rewrite actually happened.
"""

from __future__ import annotations

import collections

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper, numpy_helper

from lite_converter.frontends.onnx_export import export_onnx
from lite_converter.frontends.onnx_frontend import load_onnx
from lite_converter.ir import ConversionError, Graph
from lite_converter.passes.fold_constants import MAX_FOLDED_ELEMENTS
from lite_converter.passes.lower_to_lite import lower_to_lite
from lite_converter.passes.optimize import optimize
from lite_converter.passes.support import check_supported

RNG = np.random.default_rng(1234)


def run_ort(model: onnx.ModelProto, feeds: dict[str, np.ndarray]) -> list[np.ndarray]:
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    session = ort.InferenceSession(model.SerializeToString(), options, providers=["CPUExecutionProvider"])
    return session.run(None, feeds)


def const(name: str, value) -> onnx.TensorProto:
    return numpy_helper.from_array(np.asarray(value), name)


def model_of(
    nodes, inputs: dict[str, list], outputs: list[str], inits=(), opset: int = 17
) -> onnx.ModelProto:
    graph = helper.make_graph(
        nodes,
        "t",
        [helper.make_tensor_value_info(k, TensorProto.FLOAT, v) for k, v in inputs.items()],
        [helper.make_tensor_value_info(o, TensorProto.FLOAT, None) for o in outputs],
        list(inits),
    )
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], ir_version=8)


def optimized(model: onnx.ModelProto, shapes: dict[str, list[int]] | None = None) -> Graph:
    graph = load_onnx(model, shapes)
    check_supported(graph)
    optimize(graph)
    return graph


def assert_same_as_source(model: onnx.ModelProto, graph: Graph, feeds: dict[str, np.ndarray]) -> None:
    expected = run_ort(model, feeds)
    actual = run_ort(export_onnx(graph), feeds)
    assert len(actual) == len(expected)
    for a, e in zip(actual, expected, strict=True):
        assert a.shape == e.shape
        np.testing.assert_allclose(a, e, rtol=1e-4, atol=1e-5)


def ops(graph: Graph) -> collections.Counter:
    return collections.Counter(graph.op_types())


def image(*shape: int) -> np.ndarray:
    return RNG.standard_normal(shape).astype(np.float32)


# -- support check ----------------------------------------------------------------------------------
def test_support_check_lists_every_problem_in_one_message():
    nodes = [
        helper.make_node("Foo", ["x"], ["a"], name="foo1", domain="custom"),
        helper.make_node("Det", ["a"], ["b"], name="det1"),
        helper.make_node("Det", ["b"], ["c"], name="det2"),
        helper.make_node("Gelu", ["c"], ["d"], name="gelu1", approximate="weird"),
        helper.make_node("Cast", ["d"], ["y"], name="cast1", to=TensorProto.BFLOAT16),
    ]
    model = helper.make_model(
        helper.make_graph(
            nodes,
            "t",
            [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 2])],
            [helper.make_tensor_value_info("y", TensorProto.BFLOAT16, None)],
        ),
        opset_imports=[helper.make_opsetid("", 20), helper.make_opsetid("custom", 1)],
    )
    with pytest.raises(ConversionError) as error:
        check_supported(load_onnx(model))
    message = str(error.value)
    assert "custom::Foo: 1 node(s) 'foo1'" in message
    assert "Det: 2 node(s) 'det1', 'det2'" in message
    assert "gelu1" in message and "approximate='weird'" in message
    assert "cast1" in message and "bfloat16" in message


def test_support_check_refuses_shape_inputs_fed_by_graph_input_data():
    model = helper.make_model(
        helper.make_graph(
            [helper.make_node("Reshape", ["x", "shape"], ["y"], name="r")],
            "t",
            [
                helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3]),
                helper.make_tensor_value_info("shape", TensorProto.INT64, [2]),
            ],
            [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
        ),
        opset_imports=[helper.make_opsetid("", 17)],
    )
    with pytest.raises(ConversionError, match="'r'.*shape input"):
        check_supported(load_onnx(model))


def test_shape_computed_from_shapes_is_accepted():
    nodes = [helper.make_node("Shape", ["x"], ["s"]), helper.make_node("Reshape", ["x", "s"], ["y"])]
    check_supported(load_onnx(model_of(nodes, {"x": ["N", 3]}, ["y"])))


# -- constant folding ---------------------------------------------------------------------------
def flatten_by_shape_model() -> onnx.ModelProto:
    """Reshape(x, Concat(Unsqueeze(Gather(Shape(x), 0)), [-1])): the export pattern of flatten."""
    nodes = [
        helper.make_node("Shape", ["x"], ["s"]),
        helper.make_node("Gather", ["s", "zero"], ["n"], axis=0),
        helper.make_node("Unsqueeze", ["n", "axes0"], ["n1"]),
        helper.make_node("Concat", ["n1", "minus1"], ["target"], axis=0),
        helper.make_node("Reshape", ["x", "target"], ["flat"]),
        helper.make_node("Relu", ["flat"], ["y"]),
    ]
    inits = [
        const("zero", np.array(0, np.int64)),
        const("axes0", np.array([0], np.int64)),
        const("minus1", np.array([-1], np.int64)),
    ]
    return model_of(nodes, {"x": ["N", 3, 4, 4]}, ["y"], inits)


def test_shape_subgraph_folds_when_shapes_are_static():
    model = flatten_by_shape_model()
    graph = optimized(model, {"x": [2, 3, 4, 4]})
    assert ops(graph) == {"Reshape": 1, "Relu": 1}
    reshape = next(n for n in graph.nodes if n.op_type == "Reshape")
    assert graph.constant(reshape.inputs[1]).tolist() == [2, -1]
    assert graph.tensors["y"].shape == [2, 48]
    assert_same_as_source(model, graph, {"x": image(2, 3, 4, 4)})


def test_shape_read_of_a_static_dim_folds_even_when_other_dims_are_dynamic():
    nodes = [
        helper.make_node("Shape", ["x"], ["s"]),
        helper.make_node("Gather", ["s", "one"], ["c"], axis=0),
        helper.make_node("Gather", ["s", "zero"], ["n"], axis=0),
        helper.make_node("Cast", ["c"], ["cf"], to=TensorProto.FLOAT),
        helper.make_node("Cast", ["n"], ["nf"], to=TensorProto.FLOAT),
        helper.make_node("Mul", ["x", "cf"], ["a"]),
        helper.make_node("Mul", ["a", "nf"], ["y"]),
    ]
    model = model_of(
        nodes,
        {"x": ["N", 3, "H", "W"]},
        ["y"],
        [const("one", np.array(1, np.int64)), const("zero", np.array(0, np.int64))],
    )
    graph = optimized(model)
    folded = [n for n in graph.nodes if n.op_type == "Mul" and graph.constant(n.inputs[1]) is not None]
    assert len(folded) == 1 and graph.constant(folded[0].inputs[1]).item() == 3.0
    assert ops(graph)["Shape"] == 1  # the dynamic batch dim still needs it
    assert_same_as_source(model, graph, {"x": image(2, 3, 5, 7)})


def test_huge_constant_of_shape_is_not_folded():
    big = int(np.sqrt(MAX_FOLDED_ELEMENTS)) + 8
    nodes = [
        helper.make_node(
            "ConstantOfShape",
            ["shape"],
            ["zeros"],
            value=numpy_helper.from_array(np.array([1.0], np.float32)),
        ),
        helper.make_node("Add", ["x", "zeros"], ["y"]),
    ]
    model = model_of(nodes, {"x": [big, big]}, ["y"], [const("shape", np.array([big, big], np.int64))])
    graph = optimized(model)
    assert ops(graph)["ConstantOfShape"] == 1
    assert all(t.data is None or t.data.size <= MAX_FOLDED_ELEMENTS for t in graph.tensors.values())


def test_small_constant_subgraph_is_evaluated():
    nodes = [
        helper.make_node("Range", ["start", "limit", "delta"], ["r"]),
        helper.make_node("Cast", ["r"], ["rf"], to=TensorProto.FLOAT),
        helper.make_node("Sqrt", ["rf"], ["s"]),
        helper.make_node("Add", ["x", "s"], ["y"]),
    ]
    model = model_of(
        nodes,
        {"x": [5]},
        ["y"],
        [
            const("start", np.array(0, np.int64)),
            const("limit", np.array(5, np.int64)),
            const("delta", np.array(1, np.int64)),
        ],
    )
    graph = optimized(model)
    assert ops(graph) == {"Add": 1}
    assert_same_as_source(model, graph, {"x": image(5)})


# -- dead code, identity ------------------------------------------------------------------------
def test_dead_code_and_identity_and_dropout_are_removed_keeping_output_names():
    nodes = [
        helper.make_node("Relu", ["x"], ["a"]),
        helper.make_node("Sigmoid", ["x"], ["unused"]),
        helper.make_node("Dropout", ["a"], ["b"]),
        helper.make_node("Identity", ["b"], ["y"]),
    ]
    model = model_of(nodes, {"x": [2, 3]}, ["y"])
    graph = optimized(model)
    assert ops(graph) == {"Relu": 1}
    assert graph.nodes[0].outputs == ["y"] and graph.outputs == ["y"]
    assert_same_as_source(model, graph, {"x": image(2, 3)})


def test_identity_of_graph_input_to_output_stays():
    graph = optimized(model_of([helper.make_node("Identity", ["x"], ["y"])], {"x": [2]}, ["y"]))
    assert ops(graph) == {"Identity": 1}


# -- BatchNormalization ------------------------------------------------------------------------
def bn_params(prefix: str, channels: int) -> list[onnx.TensorProto]:
    return [
        const(f"{prefix}_scale", RNG.uniform(0.5, 2.0, channels).astype(np.float32)),
        const(f"{prefix}_bias", RNG.standard_normal(channels).astype(np.float32)),
        const(f"{prefix}_mean", RNG.standard_normal(channels).astype(np.float32)),
        const(f"{prefix}_var", RNG.uniform(0.2, 3.0, channels).astype(np.float32)),
    ]


def bn_node(prefix: str, x: str, y: str) -> onnx.NodeProto:
    return helper.make_node(
        "BatchNormalization",
        [x] + [f"{prefix}_{k}" for k in ("scale", "bias", "mean", "var")],
        [y],
        epsilon=1e-3,
    )


@pytest.mark.parametrize("transpose, group", [(False, 1), (False, 2), (True, 1), (True, 2)])
def test_batch_norm_folds_into_conv(transpose, group):
    op = "ConvTranspose" if transpose else "Conv"
    w_shape = (4, 6 // group, 3, 3) if transpose else (6, 4 // group, 3, 3)
    nodes = [
        helper.make_node(op, ["x", "w", "b"], ["c"], pads=[1, 1, 1, 1], group=group),
        bn_node("bn", "c", "y"),
    ]
    inits = [
        const("w", RNG.standard_normal(w_shape).astype(np.float32)),
        const("b", RNG.standard_normal(6).astype(np.float32)),
        *bn_params("bn", 6),
    ]
    model = model_of(nodes, {"x": [1, 4, 5, 5]}, ["y"], inits)
    graph = optimized(model)
    assert ops(graph) == {op: 1}
    assert_same_as_source(model, graph, {"x": image(1, 4, 5, 5)})


def test_standalone_batch_norm_becomes_mul_add():
    model = model_of(
        [helper.make_node("Relu", ["x"], ["r"]), bn_node("bn", "r", "y")],
        {"x": [2, 3, 4]},
        ["y"],
        bn_params("bn", 3),
    )
    graph = optimized(model)
    assert ops(graph) == {"Relu": 1, "Mul": 1, "Add": 1}
    assert_same_as_source(model, graph, {"x": image(2, 3, 4)})


def test_batch_norm_after_conv_with_two_readers_is_not_folded_into_it():
    nodes = [
        helper.make_node("Conv", ["x", "w"], ["c"]),
        bn_node("bn", "c", "y"),
        helper.make_node("Relu", ["c"], ["z"]),
    ]
    model = model_of(
        nodes,
        {"x": [1, 2, 3, 3]},
        ["y", "z"],
        [const("w", RNG.standard_normal((3, 2, 1, 1)).astype(np.float32)), *bn_params("bn", 3)],
    )
    graph = optimized(model)
    assert ops(graph)["Mul"] == 1 and ops(graph)["Add"] == 1
    assert_same_as_source(model, graph, {"x": image(1, 2, 3, 3)})


def test_per_channel_mul_add_after_conv_fold_into_weights_and_bias():
    nodes = [
        helper.make_node("Conv", ["x", "w"], ["c"]),
        helper.make_node("Mul", ["scale", "c"], ["m"]),
        helper.make_node("Add", ["m", "shift"], ["s"]),
        helper.make_node("Div", ["s", "two"], ["y"]),
    ]
    inits = [
        const("w", RNG.standard_normal((3, 2, 1, 1)).astype(np.float32)),
        const("scale", RNG.standard_normal((3, 1, 1)).astype(np.float32)),
        const("shift", RNG.standard_normal((1, 3, 1, 1)).astype(np.float32)),
        const("two", np.array(2.0, np.float32)),
    ]
    model = model_of(nodes, {"x": [1, 2, 4, 4]}, ["y"], inits)
    graph = optimized(model)
    assert ops(graph) == {"Conv": 1}
    assert_same_as_source(model, graph, {"x": image(1, 2, 4, 4)})


# -- activation fusion ------------------------------------------------------------------------
def conv_then(act_nodes: list[onnx.NodeProto], inits=(), opset: int = 17) -> onnx.ModelProto:
    nodes = [helper.make_node("Conv", ["x", "w", "b"], ["c"], pads=[1, 1, 1, 1]), *act_nodes]
    weights = [
        const("w", RNG.standard_normal((4, 3, 3, 3)).astype(np.float32)),
        const("b", RNG.standard_normal(4).astype(np.float32)),
    ]
    return model_of(nodes, {"x": [1, 3, 6, 6]}, ["y"], [*weights, *inits], opset=opset)


FUSIONS = {
    "relu": ([helper.make_node("Relu", ["c"], ["y"])], [], "RELU"),
    "relu6_clip": (
        [helper.make_node("Clip", ["c", "lo", "hi"], ["y"])],
        [const("lo", np.array(0.0, np.float32)), const("hi", np.array(6.0, np.float32))],
        "CLIP",
    ),
    "clip_min_only": (
        [helper.make_node("Clip", ["c", "lo"], ["y"])],
        [const("lo", np.array(-0.5, np.float32))],
        "CLIP",
    ),
    "sigmoid": ([helper.make_node("Sigmoid", ["c"], ["y"])], [], "SIGMOID"),
    "tanh": ([helper.make_node("Tanh", ["c"], ["y"])], [], "TANH"),
    "hard_sigmoid": (
        [helper.make_node("HardSigmoid", ["c"], ["y"], alpha=0.3, beta=0.4)],
        [],
        "HARD_SIGMOID",
    ),
    "hard_swish": ([helper.make_node("HardSwish", ["c"], ["y"])], [], "HARD_SWISH"),
    "leaky_relu": ([helper.make_node("LeakyRelu", ["c"], ["y"], alpha=0.2)], [], "LEAKY_RELU"),
    "prelu_scalar": (
        [helper.make_node("PRelu", ["c", "slope"], ["y"])],
        [const("slope", np.array([0.25], np.float32))],
        "LEAKY_RELU",
    ),
    "prelu_channel": (
        [helper.make_node("PRelu", ["c", "slope"], ["y"])],
        [const("slope", RNG.uniform(0, 1, (4, 1, 1)).astype(np.float32))],
        "PRELU",
    ),
    "silu": (
        [helper.make_node("Sigmoid", ["c"], ["g"]), helper.make_node("Mul", ["c", "g"], ["y"])],
        [],
        "SILU",
    ),
    "hard_swish_by_hard_sigmoid": (
        [
            helper.make_node("HardSigmoid", ["c"], ["g"], alpha=1.0 / 6, beta=0.5),
            helper.make_node("Mul", ["c", "g"], ["y"]),
        ],
        [],
        "HARD_SWISH",
    ),
    "hard_swish_by_clip_then_div": (
        [
            helper.make_node("Add", ["c", "three"], ["p"]),
            helper.make_node("Clip", ["p", "zero", "six"], ["r"]),
            helper.make_node("Mul", ["c", "r"], ["m"]),
            helper.make_node("Div", ["m", "six"], ["y"]),
        ],
        [
            const("three", np.array(3.0, np.float32)),
            const("zero", np.array(0.0, np.float32)),
            const("six", np.array(6.0, np.float32)),
        ],
        "HARD_SWISH",
    ),
    "hard_swish_by_gate_times_sixth": (
        [
            helper.make_node("Add", ["three", "c"], ["p"]),
            helper.make_node("Clip", ["p", "zero", "six"], ["r"]),
            helper.make_node("Mul", ["r", "sixth"], ["g"]),
            helper.make_node("Mul", ["g", "c"], ["y"]),
        ],
        [
            const("three", np.array(3.0, np.float32)),
            const("zero", np.array(0.0, np.float32)),
            const("six", np.array(6.0, np.float32)),
            const("sixth", np.array(1 / 6, np.float32)),
        ],
        "HARD_SWISH",
    ),
}


@pytest.mark.parametrize("case", sorted(FUSIONS))
def test_activation_fuses_into_conv(case):
    act_nodes, inits, kind = FUSIONS[case]
    model = conv_then(act_nodes, inits)
    graph = optimized(model)
    assert ops(graph) == {"Conv": 1}, ops(graph)
    assert graph.nodes[0].attrs["fused_activation"]["kind"] == kind
    assert graph.nodes[0].outputs == ["y"]
    assert_same_as_source(model, graph, {"x": image(1, 3, 6, 6)})


def test_clip_attributes_of_opset_6_fuse():
    model = conv_then([helper.make_node("Clip", ["c"], ["y"], min=0.0, max=6.0)], opset=10)
    graph = optimized(model)
    assert graph.nodes[0].attrs["fused_activation"] == {"kind": "CLIP", "alpha": 0.0, "beta": 6.0}
    assert_same_as_source(model, graph, {"x": image(1, 3, 6, 6)})


def test_hard_swish_in_opset_11_model_exports_as_hard_sigmoid_mul():
    act_nodes, inits, _ = FUSIONS["hard_swish_by_clip_then_div"]
    model = conv_then(act_nodes, inits, opset=11)
    graph = optimized(model)
    assert graph.nodes[0].attrs["fused_activation"]["kind"] == "HARD_SWISH"
    assert_same_as_source(model, graph, {"x": image(1, 3, 6, 6)})


@pytest.mark.parametrize("producer", ["Gemm", "MatMul", "Add", "Sub", "Mul", "Div"])
def test_activation_fuses_into_dense_and_binary_producers(producer):
    nodes = [helper.make_node(producer, ["x", "w"], ["p"]), helper.make_node("Relu", ["p"], ["y"])]
    shape = (4, 4) if producer in ("Gemm", "MatMul") else (3, 4)
    model = model_of(nodes, {"x": [3, 4]}, ["y"], [const("w", RNG.standard_normal(shape).astype(np.float32))])
    graph = optimized(model)
    assert ops(graph) == {producer: 1}
    assert graph.nodes[0].attrs["fused_activation"]["kind"] == "RELU"
    assert_same_as_source(model, graph, {"x": image(3, 4)})


def test_no_fusion_when_pre_activation_value_is_read_elsewhere():
    nodes = [
        helper.make_node("Add", ["x", "x"], ["p"]),
        helper.make_node("Relu", ["p"], ["y"]),
        helper.make_node("Neg", ["p"], ["z"]),
    ]
    graph = optimized(model_of(nodes, {"x": [3]}, ["y", "z"]))
    assert ops(graph) == {"Add": 1, "Relu": 1, "Neg": 1}
    graph = optimized(model_of(nodes[:2], {"x": [3]}, ["y", "p"]))
    assert ops(graph) == {"Add": 1, "Relu": 1}


def test_clip_with_tensor_bounds_is_not_fused():
    nodes = [helper.make_node("Add", ["x", "x"], ["p"]), helper.make_node("Clip", ["p", "lo"], ["y"])]
    graph = optimized(model_of(nodes, {"x": [3], "lo": []}, ["y"]))
    assert ops(graph) == {"Add": 1, "Clip": 1}


# -- real models ------------------------------------------------------------------------------
@pytest.fixture(scope="module", params=["det", "rec", "cls"])
def paddle_model(request):
    """(key, path) of a PaddleOCR model: from the cache, or downloaded (a failure to fetch fails)."""
    from lite_converter.app import zoo

    return request.param, zoo.fetch(request.param)


def paddle_ocr_input(key: str) -> np.ndarray:
    """Rendered text, not noise: a page for det (on noise its map is ~1e-6, under any 1e-4 bound), a
    line for rec and cls (tests/datasets)."""
    from tests.datasets import text_lines
    from tests.datasets.splits import EVALUATION_SEED
    from tests.det_page import det_page

    if key == "det":
        return det_page()
    crops, _ = text_lines.render_lines(EVALUATION_SEED, 1, chinese_fraction=0.0)
    return text_lines.rec_input(crops) if key == "rec" else text_lines.cls_input(crops)


def test_paddle_ocr_model_optimizes_to_the_same_function(paddle_model):
    from tests.det_page import check_det_against_onnxruntime

    key, path = paddle_model
    model = onnx.load(str(path))
    graph = optimized(model)
    assert "BatchNormalization" not in ops(graph) and "HardSigmoid" not in ops(graph)
    assert any(n.attrs.get("fused_activation", {}).get("kind") == "HARD_SWISH" for n in graph.nodes)
    x = paddle_ocr_input(key)
    expected = run_ort(model, {"x": x})[0]
    actual = run_ort(export_onnx(graph), {"x": x})[0]
    assert actual.shape == expected.shape
    if key == "det":  # (onnxruntime runs both graphs: its own spread is part of the bound)
        check_det_against_onnxruntime(actual, path, x, "det, our optimized graph")
    else:
        assert np.abs(actual - expected).max() <= 1e-4 * max(1.0, np.abs(expected).max())


def test_paddle_ocr_model_lowers_completely(paddle_model):
    from lite_converter.lite_ops import OPTIONS_TABLE

    _, path = paddle_model
    graph = optimized(onnx.load(str(path)))
    lower_to_lite(graph)
    assert set(graph.op_types()) <= set(OPTIONS_TABLE)
    assert all(t.dtype is not None for t in graph.tensors.values())


def test_inference_dropout_mask_becomes_all_true_of_input_shape():
    nodes = [
        helper.make_node("Dropout", ["x", "ratio"], ["y", "mask"]),
        helper.make_node("Cast", ["mask"], ["mask_f"], to=TensorProto.FLOAT),
        helper.make_node("Add", ["y", "mask_f"], ["z"]),
    ]
    model = model_of(nodes, {"x": ["N", 3]}, ["z"], [const("ratio", np.array(0.5, np.float32))])
    graph = optimized(model)
    assert "Dropout" not in ops(graph)
    assert_same_as_source(model, graph, {"x": image(4, 3)})
    lower_to_lite(graph)
    assert {"SHAPE", "CONSTANT_OF_SHAPE"} <= set(graph.op_types())


def test_training_mode_dropout_is_refused():
    nodes = [helper.make_node("Dropout", ["x", "ratio", "training"], ["y"], name="drop")]
    model = helper.make_model(
        helper.make_graph(
            nodes,
            "t",
            [
                helper.make_tensor_value_info("x", TensorProto.FLOAT, [3]),
                helper.make_tensor_value_info("training", TensorProto.BOOL, []),
            ],
            [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
            [const("ratio", np.array(0.5, np.float32))],
        ),
        opset_imports=[helper.make_opsetid("", 13)],
    )
    with pytest.raises(ConversionError, match="drop"):
        graph = load_onnx(model)
        check_supported(graph)
        optimize(graph)
        lower_to_lite(graph)
