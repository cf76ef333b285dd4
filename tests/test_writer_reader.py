"""The .lite writer and reader: round trip, 64-byte alignment, dedup, errors.

flatc (the schema compiler, independent of our Python builders) decodes the written file to JSON
as the oracle for "the bytes follow lite.fbs".
"""

from __future__ import annotations

import json
import pathlib
import shutil
import subprocess

import flatbuffers
import numpy as np
import pytest

from lite_converter.ir import ConversionError, Graph, Node, QuantParams, Tensor
from lite_converter.lite_fb import Model as fb_model
from lite_converter.lite_fb.SchemaVersion import SchemaVersion
from lite_converter.lite_ops import LAYOUT_CLASS, OPTIONS_TABLE, all_opcode_names
from lite_converter.passes.memory_plan import MemoryPlan
from lite_converter.reader import LiteFileError, read_model
from lite_converter.writer import serialize

SCHEMA = pathlib.Path(__file__).resolve().parents[1] / "runtime_arm" / "schema" / "lite.fbs"
RELU = {"kind": "RELU", "alpha": 0.0, "beta": 0.0}


def small_graph() -> Graph:
    """conv(NHWC) -> add(bias) -> resize -> output, plus odd-sized constants to stress alignment."""
    g = Graph()
    g.tensors["x"] = Tensor("x", np.dtype(np.float32), ["batch", 5, 7, 3])
    g.add_constant("w", np.arange(4 * 3 * 3 * 3, dtype=np.float32).reshape(4, 3, 3, 3))
    g.add_constant("bias", np.array([1, 2, 3, 4], np.float32))
    g.add_constant("bias_copy", np.array([1, 2, 3, 4], np.float32))  # same bytes as "bias"
    g.add_constant("scales", np.array([2.0, 2.0], np.float32))
    g.add_constant("unused", np.zeros(3, np.float32))
    g.tensors["odd"] = Tensor("odd", np.dtype(np.uint8), [3], np.array([1, 2, 3], np.uint8))
    g.tensors["y"] = Tensor("y", np.dtype(np.float32), ["batch", 5, 7, 4])
    g.tensors["q"] = Tensor(
        "q",
        np.dtype(np.int8),
        ["batch", 5, 7, 4],
        quant=QuantParams(np.array([0.5, 0.25, 0.125, 1.0], np.float32), np.zeros(4, np.int64), axis=3),
    )
    g.tensors["z"] = Tensor("z", np.dtype(np.float32), ["batch", 5, 7, 4])
    g.tensors["out"] = Tensor("out", np.dtype(np.float32), ["batch", 10, 14, 4])
    g.tensors["out2"] = Tensor("out2", np.dtype(np.uint8), [3])
    g.inputs = ["x"]
    g.outputs = ["out", "out2"]
    g.nodes = [
        Node(
            "CONV_2D",
            "conv1",
            ["x", "w", "bias"],
            ["y"],
            {"padding": "SAME_UPPER", "stride_h": 1, "group": 1, "activation": RELU, "layout": "NHWC"},
        ),
        Node("QUANTIZE", "quant", ["y"], ["q"]),
        Node("DEQUANTIZE", "dequant", ["q"], ["z"]),
        Node("ADD", "add_bias", ["z", "bias_copy"], ["z2"], {"activation": RELU}),
        Node(
            "RESIZE",
            "resize",
            ["z2", "scales", ""],
            ["out"],
            {"mode": "LINEAR", "coordinate_mode": "ASYMMETRIC", "layout": "NHWC"},
        ),
        Node("IDENTITY", "ident", ["odd"], ["out2"]),
    ]
    g.tensors["z2"] = Tensor("z2", np.dtype(np.float32), ["batch", 5, 7, 4])
    g.metadata = {"author": "tests", "vocab": "a b c"}
    g.input_layouts = {"x": "NHWC"}
    return g


def test_round_trip_keeps_everything_the_runtime_needs():
    g = small_graph()
    model = read_model(serialize(g, MemoryPlan(arena_bytes=4096, offsets={"y": 0, "z": 1024})))

    assert model.schema_version == SchemaVersion.CURRENT
    assert model.producer.startswith("lite_converter ")
    assert model.source_format == "onnx"
    assert model.metadata == {"author": "tests", "vocab": "a b c"}
    assert [t.name for t in model.input_tensors] == ["x"]
    assert [t.name for t in model.output_tensors] == ["out", "out2"]
    assert model.input_layouts == ["NHWC"] and model.output_layouts == ["", ""]

    x = model.tensor("x")
    assert x.dtype == "FLOAT32" and x.shape == [-1, 5, 7, 3] and x.dim_names == ["batch", "", "", ""]
    np.testing.assert_array_equal(model.tensor("w").data, g.tensors["w"].data)
    assert model.tensor("odd").dtype == "UINT8"
    q = model.tensor("q").quantization
    assert q == {"scale": [0.5, 0.25, 0.125, 1.0], "zero_point": [0, 0, 0, 0], "axis": 3}
    assert "unused" not in [t.name for t in model.tensors]

    conv, quant, _, add, resize, _ = model.operators
    assert conv.opcode == "CONV_2D" and conv.name == "conv1"
    assert conv.options["padding"] == "SAME_UPPER" and conv.options["activation"]["kind"] == "RELU"
    assert "layout" not in conv.options
    assert quant.options_type == "QuantizeOptions"
    assert add.options["activation"] == {"kind": "RELU", "alpha": 0.0, "beta": 0.0}
    assert resize.options["mode"] == "LINEAR" and resize.options["coordinate_mode"] == "ASYMMETRIC"
    assert resize.inputs[2] == -1
    assert model.op_counts()["CONV_2D"] == 1

    assert model.memory_plan is not None and model.memory_plan.arena_bytes == 4096
    offsets = {model.tensors[i].name: o for i, o in enumerate(model.memory_plan.offsets) if o >= 0}
    assert offsets == {"y": 0, "z": 1024}


def test_every_buffer_starts_64_byte_aligned_and_holds_the_bytes():
    g = small_graph()
    for i, size in enumerate([1, 3, 5, 17, 63, 65, 130]):  # sizes that would misalign a packed layout
        g.add_constant(f"c{i}", np.arange(size, dtype=np.uint8))
        g.nodes.append(Node("IDENTITY", f"id{i}", [f"c{i}"], [f"o{i}"]))
        g.tensors[f"o{i}"] = Tensor(f"o{i}", np.dtype(np.uint8), [size])
        g.outputs.append(f"o{i}")
    data = serialize(g)
    assert len(data) % 64 == 0
    model = read_model(data)
    constants = [t for t in model.tensors if t.is_constant]
    assert len(constants) == 12
    for tensor in constants:
        assert tensor.data_offset % 64 == 0, tensor.name
        raw = data[tensor.data_offset : tensor.data_offset + tensor.data.nbytes]
        assert (
            raw
            == g.tensors[tensor.name]
            .data.astype(g.tensors[tensor.name].data.dtype.newbyteorder("<"))
            .tobytes()
        )


def test_identical_constants_share_one_buffer():
    model = read_model(serialize(small_graph()))
    assert model.tensor("bias").buffer == model.tensor("bias_copy").buffer != 0
    # buffer 0 (empty) + w + bias + scales + odd
    assert model.buffer_count == 5
    assert model.weights_bytes == 108 * 4 + 16 + 8 + 3


@pytest.mark.skipif(shutil.which("flatc") is None, reason="flatc not installed")
def test_flatc_decodes_the_file_with_the_schema(tmp_path):
    (tmp_path / "m.lite").write_bytes(serialize(small_graph()))
    subprocess.run(
        [
            "flatc",
            "--json",
            "--strict-json",
            "--defaults-json",
            "--raw-binary",
            "-o",
            str(tmp_path),
            str(SCHEMA),
            "--",
            str(tmp_path / "m.lite"),
        ],
        check=True,
        capture_output=True,
    )
    decoded = json.loads((tmp_path / "m.json").read_text())
    ops = decoded["graph"]["operators"]
    assert [op["opcode"] for op in ops] == ["CONV_2D", "QUANTIZE", "DEQUANTIZE", "ADD", "RESIZE", "IDENTITY"]
    assert ops[0]["options_type"] == "Conv2DOptions"
    assert ops[0]["options"]["padding"] == "SAME_UPPER"
    assert ops[0]["options"]["activation"]["kind"] == "RELU"
    assert ops[4]["options"]["mode"] == "LINEAR"
    tensors = {t["name"]: t for t in decoded["graph"]["tensors"]}
    assert tensors["x"]["shape"] == [-1, 5, 7, 3]
    assert tensors["q"]["dtype"] == "INT8"
    assert decoded["buffers"][0] == {}


def test_unknown_op_is_refused_naming_every_bad_node():
    g = small_graph()
    g.nodes.append(Node("Conv", "onnx_conv", ["x"], ["v"]))
    g.nodes.append(Node("FANCY", "fancy_node", ["x"], ["u"]))
    with pytest.raises(ConversionError, match="onnx_conv.*Conv.*fancy_node.*FANCY"):
        serialize(g)


def test_unknown_attribute_is_refused_naming_node_and_attribute():
    g = small_graph()
    g.nodes[0].attrs["stride"] = 2
    with pytest.raises(ConversionError, match="conv1.*stride"):
        serialize(g)


def test_attribute_on_op_without_options_is_refused():
    g = small_graph()
    g.nodes.append(Node("WHERE", "where_node", ["x", "x", "x"], ["v"], {"axis": 1}))
    g.tensors["v"] = Tensor("v", np.dtype(np.float32), [1])
    with pytest.raises(ConversionError, match="where_node.*axis"):
        serialize(g)


def test_bad_enum_name_is_refused():
    g = small_graph()
    g.nodes[4].attrs["mode"] = "BICUBIC"
    with pytest.raises(ConversionError, match="resize.*BICUBIC"):
        serialize(g)


def test_channels_last_op_still_in_nchw_is_refused():
    g = small_graph()
    g.nodes[0].attrs["layout"] = "NCHW"
    with pytest.raises(ConversionError, match="conv1.*NCHW.*to_channels_last"):
        serialize(g)


def test_tensor_without_dtype_is_refused():
    g = small_graph()
    g.tensors["y"].dtype = None
    with pytest.raises(ConversionError, match="'y' has no dtype"):
        serialize(g)


def test_vector_and_bytes_options_round_trip():
    g = Graph()
    g.tensors["x"] = Tensor("x", np.dtype(np.int64), [2, 3])
    g.tensors["t"] = Tensor("t", np.dtype(np.int64), [3, 2])
    g.tensors["s"] = Tensor("s", np.dtype(np.int64), [2])
    g.tensors["c"] = Tensor("c", np.dtype(np.float32), [2, 3])
    g.inputs = ["x"]
    g.outputs = ["t", "c"]
    g.nodes = [
        Node("TRANSPOSE", "tr", ["x"], ["t"], {"perm": [1, 0]}),
        Node("SHAPE", "sh", ["x"], ["s"], {"start": 0, "perm": [1, 0]}),
        Node("CONSTANT_OF_SHAPE", "cos", ["s"], ["c"], {"value": np.array([1.5], np.float32)}),
        Node("CAST", "cast", ["x"], ["f"], {"to": "FLOAT32"}),
    ]
    g.tensors["f"] = Tensor("f", np.dtype(np.float32), [2, 3])
    ops = read_model(serialize(g)).operators
    assert ops[0].options == {"perm": [1, 0]}
    assert ops[1].options["perm"] == [1, 0] and ops[1].options["end"] == 2147483647
    assert bytes(ops[2].options["value"]) == np.array([1.5], "<f4").tobytes()
    assert ops[3].options["to"] == "FLOAT32"


def test_every_schema_op_has_an_options_entry_and_a_layout_class():
    assert set(all_opcode_names()) == set(OPTIONS_TABLE) == set(LAYOUT_CLASS)


def test_reader_refuses_foreign_bytes():
    with pytest.raises(LiteFileError, match="not a .lite model"):
        read_model(b"\x00" * 64)


def test_reader_refuses_a_newer_schema_version():
    builder = flatbuffers.Builder(64)
    fb_model.ModelStart(builder)
    fb_model.ModelAddSchemaVersion(builder, SchemaVersion.CURRENT + 1)
    builder.Finish(fb_model.ModelEnd(builder), b"LITE")
    with pytest.raises(LiteFileError, match=f"schema version {SchemaVersion.CURRENT + 1}.*upgrade"):
        read_model(bytes(builder.Output()))


def test_reader_reports_truncated_files_cleanly():
    data = serialize(small_graph())
    with pytest.raises(LiteFileError):
        read_model(data[:200])
