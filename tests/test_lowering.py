"""lower_to_lite: ONNX nodes into .lite ops (docs/OPS.md) with option-table attrs.

Three kinds of checks:

* every lowered node of every ONNX node test case we claim encodes into its options table (the
  writer's own encoder is the judge of attr names, types and enum names);
* the arithmetic the lowering does at conversion time (Gemm -> FULLY_CONNECTED weight transposition,
  alpha/beta folding, pads, axes) is checked against numpy / onnxruntime on the source op;
* small models run end to end through the runtime against onnxruntime (skipped when the runtime
  library is not built).
"""

from __future__ import annotations

import collections
import warnings

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper, numpy_helper

from lite_converter.convert import convert_bodies
from lite_converter.frontends.onnx_frontend import load_onnx
from lite_converter.ir import ConversionError, Graph
from lite_converter.lite_ops import OPTIONS_TABLE
from lite_converter.passes.lower_to_lite import lower_to_lite
from lite_converter.passes.optimize import optimize
from lite_converter.passes.support import check_supported

RNG = np.random.default_rng(99)
CHANNELS_LAST = {
    "CONV_2D",
    "CONV_TRANSPOSE_2D",
    "MAX_POOL_2D",
    "AVERAGE_POOL_2D",
    "GLOBAL_AVERAGE_POOL",
    "GLOBAL_MAX_POOL",
    "RESIZE",
    "DEPTH_TO_SPACE",
    "SPACE_TO_DEPTH",
    "INSTANCE_NORM_NHWC",
    "LRN_NHWC",
}


def const(name: str, value) -> onnx.TensorProto:
    return numpy_helper.from_array(np.asarray(value), name)


def model_of(nodes, inputs: dict, outputs: list[str], inits=(), opset: int = 17) -> onnx.ModelProto:
    def info(name, spec):
        dtype, shape = spec if isinstance(spec, tuple) else (TensorProto.FLOAT, spec)
        return helper.make_tensor_value_info(name, dtype, shape)

    outs = [
        helper.make_tensor_value_info(*(o if isinstance(o, tuple) else (o, TensorProto.FLOAT)), None)
        for o in outputs
    ]
    graph = helper.make_graph(nodes, "t", [info(k, v) for k, v in inputs.items()], outs, list(inits))
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], ir_version=8)


def lowered(model: onnx.ModelProto, shapes=None) -> Graph:
    graph = load_onnx(model, shapes)
    check_supported(graph)
    optimize(graph)
    lower_to_lite(graph)
    return graph


def only(graph: Graph, op: str):
    found = [n for n in graph.nodes if n.op_type == op]
    assert len(found) == 1, [n.op_type for n in graph.nodes]
    return found[0]


def encode(node) -> None:
    """Encodes the node's attrs with the writer's options encoder (raises on any bad attr)."""
    import flatbuffers

    from lite_converter.options_codec import encode_options

    # (a control-flow body is written as its subgraph index)
    attrs = {k: 1 if isinstance(v, Graph) else v for k, v in node.attrs.items() if k != "layout"}
    table = OPTIONS_TABLE[node.op_type]
    if table is None:
        assert not attrs, f"{node.op_type} has no options table but attrs {attrs}"
        return
    encode_options(flatbuffers.Builder(256), table, attrs, node.name)


# -- every claimed ONNX node case lowers into encodable ops -----------------------------------------
def test_every_claimed_node_case_lowers_to_encodable_lite_ops():
    from onnx.backend.test.case.node import collect_testcases

    from lite_converter.passes.support import supported_op_types

    supported = set(supported_op_types())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        cases = collect_testcases(None)
    counts = collections.Counter()
    failures = []
    for case in cases:
        graph_proto = case.model.graph
        if {n.op_type for n in graph_proto.node} - supported or any(
            n.domain not in ("", "ai.onnx") for n in graph_proto.node
        ):
            continue
        if not all(v.type.HasField("tensor_type") for v in [*graph_proto.input, *graph_proto.output]):
            continue
        inputs = case.data_sets[0][0] if case.data_sets else []
        names = [v.name for v in graph_proto.input]
        shapes = {
            n: list(np.shape(a)) for n, a in zip(names, inputs, strict=False) if isinstance(a, np.ndarray)
        }
        try:
            graph = load_onnx(case.model, shapes)
            check_supported(graph)
        except ConversionError:
            counts["refused"] += 1
            continue
        try:
            optimize(graph)
            convert_bodies(graph)
            lower_to_lite(graph)
            for node in graph.nodes:
                assert node.op_type in OPTIONS_TABLE, node.op_type
                assert ("layout" in node.attrs) == (node.op_type in CHANNELS_LAST), node
                encode(node)
            assert all(t.dtype is not None for t in graph.tensors.values())
            counts["lowered"] += 1
        except Exception as error:  # noqa: BLE001 - collected and reported together
            failures.append(f"{case.name}: {type(error).__name__}: {error}")
    assert counts["lowered"] >= 700, counts
    assert not failures, "\n".join(failures[:30])


# -- arithmetic done at conversion time ----------------------------------------------------------
@pytest.mark.parametrize(
    "trans_a, trans_b, c_shape", [(0, 0, (5,)), (1, 1, (1, 5)), (0, 1, (3, 5)), (1, 0, ()), (0, 0, None)]
)
def test_gemm_with_constant_b_becomes_fully_connected_computing_the_same(trans_a, trans_b, c_shape):
    a = RNG.standard_normal((4, 3) if trans_a else (3, 4)).astype(np.float32)
    b = RNG.standard_normal((5, 4) if trans_b else (4, 5)).astype(np.float32)
    inits = [const("b", b)]
    inputs = ["a", "b"]
    if c_shape is not None:
        inits.append(const("c", RNG.standard_normal(c_shape).astype(np.float32)))
        inputs.append("c")
    node = helper.make_node("Gemm", inputs, ["y"], alpha=0.5, beta=2.0, transA=trans_a, transB=trans_b)
    model = model_of([node], {"a": list(a.shape)}, ["y"], inits)
    graph = lowered(model)
    fc = only(graph, "FULLY_CONNECTED")
    w = graph.constant(fc.inputs[1])
    x = a.T if trans_a else a
    result = x @ w.T
    if len(fc.inputs) > 2:
        result = result + graph.constant(fc.inputs[2])
    adds = [n for n in graph.nodes if n.op_type == "ADD"]
    if adds:
        result = result + graph.constant(adds[0].inputs[1])
    expected = ort.InferenceSession(model.SerializeToString()).run(None, {"a": a})[0]
    np.testing.assert_allclose(result, expected, rtol=1e-5, atol=1e-5)
    assert len(adds) == (1 if c_shape == (3, 5) else 0)


def test_matmul_plus_bias_becomes_fully_connected_with_bias_and_activation():
    nodes = [
        helper.make_node("MatMul", ["x", "w"], ["m"]),
        helper.make_node("Add", ["m", "bias"], ["s"]),
        helper.make_node("Relu", ["s"], ["y"]),
    ]
    model = model_of(
        nodes,
        {"x": [2, 7, 4]},
        ["y"],
        [
            const("w", RNG.standard_normal((4, 6)).astype(np.float32)),
            const("bias", RNG.standard_normal(6).astype(np.float32)),
        ],
    )
    graph = lowered(model)
    fc = only(graph, "FULLY_CONNECTED")
    assert [n.op_type for n in graph.nodes] == ["FULLY_CONNECTED"]
    assert fc.attrs["activation"] == {"kind": "RELU", "alpha": 0.0, "beta": 0.0}
    assert graph.constant(fc.inputs[1]).shape == (6, 4)


def test_matmul_of_two_activations_is_matmul():
    graph = lowered(
        model_of([helper.make_node("MatMul", ["a", "b"], ["y"])], {"a": [2, 3], "b": [3, 4]}, ["y"])
    )
    assert only(graph, "MATMUL").attrs == {"activation": {"kind": "NONE", "alpha": 0.0, "beta": 0.0}}


def test_conv_attributes_are_option_fields_in_logical_layout():
    w = RNG.standard_normal((8, 2, 3, 3)).astype(np.float32)
    node = helper.make_node(
        "Conv", ["x", "w"], ["c"], pads=[1, 2, 3, 4], strides=[2, 1], dilations=[1, 2], group=2
    )
    model = model_of(
        [node, helper.make_node("Relu", ["c"], ["y"])], {"x": [1, 4, 9, 9]}, ["y"], [const("w", w)]
    )
    conv = only(lowered(model), "CONV_2D")
    assert conv.attrs == {
        "stride_h": 2,
        "stride_w": 1,
        "dilation_h": 1,
        "dilation_w": 2,
        "pad_top": 1,
        "pad_left": 2,
        "pad_bottom": 3,
        "pad_right": 4,
        "padding": "EXPLICIT",
        "group": 2,
        "activation": {"kind": "RELU", "alpha": 0.0, "beta": 0.0},
        "layout": "NCHW",
    }


def test_conv_prelu_per_channel_slope_becomes_input_3():
    w = RNG.standard_normal((3, 2, 1, 1)).astype(np.float32)
    slope = np.array([0.1, 0.2, 0.3], np.float32).reshape(3, 1, 1)
    nodes = [helper.make_node("Conv", ["x", "w"], ["c"]), helper.make_node("PRelu", ["c", "s"], ["y"])]
    graph = lowered(model_of(nodes, {"x": [1, 2, 4, 4]}, ["y"], [const("w", w), const("s", slope)]))
    conv = only(graph, "CONV_2D")
    assert conv.attrs["activation"]["kind"] == "PRELU"
    assert conv.inputs[2] == ""
    np.testing.assert_array_equal(graph.constant(conv.inputs[3]), slope.reshape(-1))


def test_conv_1d_runs_as_2d_over_a_unit_height():
    w = RNG.standard_normal((4, 3, 5)).astype(np.float32)
    node = helper.make_node("Conv", ["x", "w"], ["y"], pads=[2, 1], strides=[2])
    graph = lowered(model_of([node], {"x": [1, 3, 20]}, ["y"], [const("w", w)]))
    assert [n.op_type for n in graph.nodes] == ["UNSQUEEZE", "CONV_2D", "SQUEEZE"]
    conv = graph.nodes[1]
    assert graph.constant(conv.inputs[1]).shape == (4, 3, 1, 5)
    assert (conv.attrs["pad_left"], conv.attrs["pad_right"], conv.attrs["stride_w"]) == (2, 1, 2)
    assert graph.tensors["y"].shape == [1, 4, (20 + 2 + 1 - 5) // 2 + 1]


def test_conv_transpose_output_shape_becomes_explicit_pads():
    w = RNG.standard_normal((2, 3, 3, 3)).astype(np.float32)
    node = helper.make_node("ConvTranspose", ["x", "w"], ["y"], strides=[3, 2], output_shape=[10, 8])
    model = model_of([node], {"x": [1, 2, 3, 3]}, ["y"], [const("w", w)])
    conv = only(lowered(model), "CONV_TRANSPOSE_2D")
    a = conv.attrs
    height = (3 - 1) * 3 - a["pad_top"] - a["pad_bottom"] + 3 + a["output_padding_h"]
    width = (3 - 1) * 2 - a["pad_left"] - a["pad_right"] + 3 + a["output_padding_w"]
    expected = ort.InferenceSession(model.SerializeToString()).run(
        None, {"x": RNG.standard_normal((1, 2, 3, 3)).astype(np.float32)}
    )[0]
    assert (height, width) == expected.shape[2:] == (10, 8)


def test_softmax_before_opset_13_is_flatten_softmax_reshape_unless_last_axis():
    node = helper.make_node("Softmax", ["x"], ["y"], axis=1)
    graph = lowered(model_of([node], {"x": [2, 3, 4]}, ["y"], opset=11))
    assert [n.op_type for n in graph.nodes] == ["FLATTEN", "SOFTMAX", "RESHAPE"]
    assert graph.nodes[1].attrs == {"axis": 1}
    graph = lowered(
        model_of([helper.make_node("Softmax", ["x"], ["y"], axis=2)], {"x": [2, 3, 4]}, ["y"], opset=11)
    )
    assert [(n.op_type, n.attrs) for n in graph.nodes] == [("SOFTMAX", {"axis": 2})]
    graph = lowered(
        model_of([helper.make_node("Softmax", ["x"], ["y"], axis=1)], {"x": [2, 3, 4]}, ["y"], opset=13)
    )
    assert [(n.op_type, n.attrs) for n in graph.nodes] == [("SOFTMAX", {"axis": 1})]


def test_axes_inputs_become_option_attrs():
    nodes = [
        helper.make_node("Unsqueeze", ["x", "ax"], ["u"]),
        helper.make_node("ReduceMean", ["u", "rx"], ["r"], keepdims=0),
        helper.make_node("Squeeze", ["r", "sx"], ["y"]),
    ]
    inits = [
        const("ax", np.array([-1], np.int64)),
        const("rx", np.array([1], np.int64)),
        const("sx", np.array([0], np.int64)),
    ]
    graph = lowered(model_of(nodes, {"x": [1, 3]}, ["y"], inits, opset=18))
    assert [(n.op_type, n.attrs) for n in graph.nodes] == [
        ("UNSQUEEZE", {"axes": [2]}),
        ("REDUCE_MEAN", {"axes": [1], "keepdims": False, "noop_with_empty_axes": False}),
        ("SQUEEZE", {"axes": [0]}),
    ]


def test_clip_cast_split_and_resize_forms():
    nodes = [
        helper.make_node("Clip", ["x", "lo", "hi"], ["c"]),
        helper.make_node("Cast", ["c"], ["i"], to=TensorProto.INT64),
        helper.make_node("Split", ["x"], ["s0", "s1"], axis=1, split=[1, 3]),
        helper.make_node("Resize", ["x", "", "scales"], ["r"], mode="linear"),
    ]
    inits = [
        const("lo", np.array(0.0, np.float32)),
        const("hi", np.array(6.0, np.float32)),
        const("scales", np.array([1, 1, 2, 3], np.float32)),
    ]
    model = model_of(nodes, {"x": [1, 4, 5, 5]}, [("i", TensorProto.INT64), "s0", "s1", "r"], inits, opset=12)
    graph = lowered(model)
    assert only(graph, "CLIP").attrs == {"alpha": 0.0, "beta": 6.0}
    assert only(graph, "CAST").attrs == {"to": "INT64"}
    split = only(graph, "SPLIT")
    assert split.attrs == {"axis": 1} and graph.constant(split.inputs[1]).tolist() == [1, 3]
    resize = only(graph, "RESIZE")
    assert graph.constant(resize.inputs[1]).tolist() == [2.0, 3.0] and len(resize.inputs) == 2
    assert (resize.attrs["mode"], resize.attrs["coordinate_mode"]) == ("LINEAR", "HALF_PIXEL")


def test_computed_resize_sizes_get_a_gather_of_h_and_w():
    nodes = [
        helper.make_node("Shape", ["x"], ["s"]),
        helper.make_node("Mul", ["s", "two"], ["sizes"]),
        helper.make_node("Resize", ["x", "", "", "sizes"], ["y"]),
    ]
    graph = lowered(model_of(nodes, {"x": ["N", 2, "H", "W"]}, ["y"], [const("two", np.array([1, 1, 2, 2]))]))
    resize = only(graph, "RESIZE")
    gather = next(n for n in graph.nodes if resize.inputs[2] in n.outputs)
    assert gather.op_type == "GATHER" and graph.constant(gather.inputs[1]).tolist() == [2, 3]


def test_batch_norm_with_tensor_parameters_is_computed_at_run_time():
    nodes = [helper.make_node("BatchNormalization", ["x", "s", "b", "m", "v"], ["y"])]
    graph = lowered(model_of(nodes, {"x": [2, 3, 4, 4], "s": [3], "b": [3], "m": [3], "v": [3]}, ["y"]))
    assert "BatchNormalization" not in graph.op_types() and "UNSQUEEZE" in graph.op_types()


def test_float16_compute_runs_through_float32_casts():
    nodes = [helper.make_node("Sigmoid", ["x"], ["s"]), helper.make_node("Transpose", ["s"], ["y"])]
    graph = lowered(model_of(nodes, {"x": (TensorProto.FLOAT16, [2, 3])}, [("y", TensorProto.FLOAT16)]))
    assert [n.op_type for n in graph.nodes] == ["CAST", "SIGMOID", "CAST", "TRANSPOSE"]
    assert graph.tensors["y"].dtype == np.float16


def decomposed_layer_norm_model(opset: int = 12) -> onnx.ModelProto:
    """(x - mean) / sqrt(mean((x - mean)^2) + eps) * gamma + beta over the last axis, as Paddle writes it."""
    nodes = [
        helper.make_node("ReduceMean", ["x"], ["m"], axes=[-1]),
        helper.make_node("Sub", ["x", "m"], ["d"]),
        helper.make_node("Pow", ["d", "two"], ["p"]),
        helper.make_node("ReduceMean", ["p"], ["v"], axes=[-1]),
        helper.make_node("Add", ["v", "eps"], ["ve"]),
        helper.make_node("Sqrt", ["ve"], ["s"]),
        helper.make_node("Div", ["d", "s"], ["n"]),
        helper.make_node("Mul", ["n", "gamma"], ["g"]),
        helper.make_node("Add", ["g", "beta"], ["y"]),
    ]
    inits = [
        const("two", np.array(2.0, np.float32)),
        const("eps", np.array(1e-5, np.float32)),
        const("gamma", RNG.standard_normal(8).astype(np.float32)),
        const("beta", RNG.standard_normal(8).astype(np.float32)),
    ]
    return model_of(nodes, {"x": [2, 5, 8]}, ["y"], inits, opset=opset)


def test_decomposed_layer_norm_becomes_one_layer_norm():
    graph = lowered(decomposed_layer_norm_model())
    node = only(graph, "LAYER_NORM")
    assert [n.op_type for n in graph.nodes] == ["LAYER_NORM"]
    assert node.attrs["axis"] == 2 and node.attrs["epsilon"] == pytest.approx(1e-5)
    assert len(node.inputs) == 3


def test_layer_norm_pattern_with_a_shared_intermediate_is_left_alone():
    model = decomposed_layer_norm_model()
    model.graph.output.append(helper.make_tensor_value_info("d", TensorProto.FLOAT, None))
    graph = lowered(model)
    assert "LAYER_NORM" not in graph.op_types()


def test_sigmoid_times_input_without_fusable_producer_is_silu():
    nodes = [helper.make_node("Sigmoid", ["x"], ["g"]), helper.make_node("Mul", ["g", "x"], ["y"])]
    graph = lowered(model_of(nodes, {"x": [2, 3]}, ["y"]))
    assert [(n.op_type, n.inputs) for n in graph.nodes] == [("SILU", ["x"])]


GELU_ORDERS = {
    "x_times_a_then_half": [
        helper.make_node("Mul", ["x", "a"], ["m"]),
        helper.make_node("Mul", ["m", "half"], ["y"]),
    ],
    "x_times_half_a": [
        helper.make_node("Mul", ["a", "half"], ["m"]),
        helper.make_node("Mul", ["x", "m"], ["y"]),
    ],
    "half_x_times_a": [
        helper.make_node("Mul", ["half", "x"], ["m"]),
        helper.make_node("Mul", ["m", "a"], ["y"]),
    ],
}


def erf_gelu_model(order: str) -> onnx.ModelProto:
    nodes = [
        helper.make_node("Div", ["x", "sqrt2"], ["s"]),
        helper.make_node("Erf", ["s"], ["e"]),
        helper.make_node("Add", ["one", "e"], ["a"]),
        *GELU_ORDERS[order],
    ]
    inits = [
        const("sqrt2", np.array(np.sqrt(2.0), np.float32)),
        const("one", np.array(1.0, np.float32)),
        const("half", np.array(0.5, np.float32)),
    ]
    return model_of(nodes, {"x": [3, 7]}, ["y"], inits, opset=13)


@pytest.mark.parametrize("order", sorted(GELU_ORDERS))
def test_erf_gelu_becomes_gelu(order):
    graph = lowered(erf_gelu_model(order))
    assert [(n.op_type, n.inputs, n.attrs) for n in graph.nodes] == [
        ("GELU", ["x"], {"approximate_tanh": False})
    ]


@pytest.mark.parametrize(
    "equation, shapes, ops",
    [
        ("ij->ji", [[3, 4]], ["TRANSPOSE"]),
        ("ijk->ki", [[2, 3, 4]], ["REDUCE_SUM", "TRANSPOSE"]),
        ("bij,bjk->bik", [[2, 3, 4], [2, 4, 5]], ["MATMUL"]),
        ("ij,j", [[3, 4], [4]], ["MATMUL"]),
    ],
)
def test_trivial_einsum_lowers_to_one_or_two_ops(equation, shapes, ops):
    names = [f"in{i}" for i in range(len(shapes))]
    model = model_of(
        [helper.make_node("Einsum", names, ["y"], equation=equation)],
        dict(zip(names, shapes, strict=True)),
        ["y"],
    )
    assert [n.op_type for n in lowered(model).nodes] == ops


@pytest.mark.parametrize("equation", ["ii->i", "ij,kl->ijkl", "...ij->...ji", "ijk,jkl->il"])
def test_non_trivial_einsum_is_refused(equation):
    model = model_of(
        [helper.make_node("Einsum", ["a", "b"] if "," in equation else ["a"], ["y"], equation=equation)],
        {"a": [3, 3, 3], "b": [3, 3, 3]} if "," in equation else {"a": [3, 3]},
        ["y"],
    )
    with pytest.raises(ConversionError, match="equation"):
        check_supported(load_onnx(model))


def test_paddle_ocr_rec_resolves_every_rank():
    from lite_converter.app import zoo

    path = zoo.fetch("rec")
    graph = lowered(onnx.load(str(path)))
    assert all(graph.tensors[n].shape is not None for node in graph.nodes for n in node.outputs)


# -- end to end through the runtime ---------------------------------------------------------------
@pytest.fixture(scope="module")
def interpreter():
    from runtime_arm import Interpreter
    from runtime_arm._library import library_path

    library_path()  # a runtime library that is not built fails here, never skips
    return Interpreter


E2E_MODELS = {
    "upsample7_nearest": lambda: model_of(
        [helper.make_node("Upsample", ["x"], ["y"], scales=[1.0, 1.0, 2.0, 3.0], mode="nearest")],
        {"x": [1, 2, 3, 4]},
        ["y"],
        opset=7,
    ),
    "resize10_linear": lambda: model_of(
        [helper.make_node("Resize", ["x", "scales"], ["y"], mode="linear")],
        {"x": [1, 2, 3, 4]},
        ["y"],
        [const("scales", np.array([1, 1, 2, 2], np.float32))],
        opset=10,
    ),
    "resize11_sizes_cubic": lambda: model_of(
        [helper.make_node("Resize", ["x", "roi", "scales", "sizes"], ["y"], mode="cubic")],
        {"x": [1, 2, 5, 6]},
        ["y"],
        [
            const("roi", np.zeros(0, np.float32)),
            const("scales", np.zeros(0, np.float32)),
            const("sizes", np.array([1, 2, 9, 4], np.int64)),
        ],
        opset=11,
    ),
    "group_norm_opset18_per_group_scale": lambda: model_of(
        [helper.make_node("GroupNormalization", ["x", "s", "b"], ["y"], num_groups=2, epsilon=1e-3)],
        {"x": [2, 6, 3, 3]},
        ["y"],
        [const("s", np.array([0.5, 2.0], np.float32)), const("b", np.array([1.0, -1.0], np.float32))],
        opset=18,
    ),
    "rms_norm": lambda: model_of(
        [helper.make_node("RMSNormalization", ["x", "s"], ["y"], axis=-2)],
        {"x": [2, 3, 4]},
        ["y"],
        [const("s", RNG.standard_normal((3, 4)).astype(np.float32))],
        opset=23,
    ),
    "erf_gelu": lambda: erf_gelu_model("half_x_times_a"),
    "decomposed_layer_norm": decomposed_layer_norm_model,
    "silu_of_input": lambda: model_of(
        [helper.make_node("Sigmoid", ["x"], ["g"]), helper.make_node("Mul", ["g", "x"], ["y"])],
        {"x": [2, 3]},
        ["y"],
    ),
    "conv_bn_hardswish_pool_fc": lambda: model_of(
        [
            helper.make_node("Conv", ["x", "w"], ["c"], pads=[1, 1, 1, 1], strides=[2, 2]),
            helper.make_node("BatchNormalization", ["c", "s", "b", "m", "v"], ["n"]),
            helper.make_node("HardSigmoid", ["n"], ["g"], alpha=1 / 6, beta=0.5),
            helper.make_node("Mul", ["n", "g"], ["h"]),
            helper.make_node("GlobalAveragePool", ["h"], ["p"]),
            helper.make_node("Flatten", ["p"], ["f"]),
            helper.make_node("Gemm", ["f", "fw", "fb"], ["y"], transB=1),
        ],
        {"x": [1, 3, 12, 10]},
        ["y"],
        [
            const("w", RNG.standard_normal((6, 3, 3, 3)).astype(np.float32)),
            const("s", RNG.uniform(0.5, 2, 6).astype(np.float32)),
            const("b", RNG.standard_normal(6).astype(np.float32)),
            const("m", RNG.standard_normal(6).astype(np.float32)),
            const("v", RNG.uniform(0.5, 2, 6).astype(np.float32)),
            const("fw", RNG.standard_normal((5, 6)).astype(np.float32)),
            const("fb", RNG.standard_normal(5).astype(np.float32)),
        ],
        opset=12,
    ),
    "softmax_opset11_axis1": lambda: model_of(
        [helper.make_node("Softmax", ["x"], ["y"], axis=1)], {"x": [2, 3, 4]}, ["y"], opset=11
    ),
    "clip_tensor_bounds": lambda: model_of(
        [helper.make_node("Clip", ["x", "lo", "hi"], ["y"])], {"x": [6], "lo": [], "hi": []}, ["y"]
    ),
}


@pytest.mark.parametrize("name", sorted(E2E_MODELS))
def test_end_to_end_against_onnxruntime(name, interpreter):
    from lite_converter.convert import convert_onnx

    model = E2E_MODELS[name]()
    feeds = {
        i.name: RNG.standard_normal([d.dim_value for d in i.type.tensor_type.shape.dim]).astype(np.float32)
        for i in model.graph.input
    }
    expected = ort.InferenceSession(model.SerializeToString()).run(None, feeds)
    outputs = interpreter(model_content=convert_onnx(model), threads=1).run(feeds)
    for info, want in zip(model.graph.output, expected, strict=True):
        got = outputs[info.name]
        assert got.shape == want.shape
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)
