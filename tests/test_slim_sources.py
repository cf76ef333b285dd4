"""slim.compress goes through the converter's own front half (lite_converter.convert.load_model /
lower) for every source the converter reads, and refuses a model that is quantized already.

* the graph slim calibrates is the graph ``lite convert`` writes, byte for byte once serialized;
* a QDQ-ONNX or an int8 .tflite source is refused before any work, with a message that says what to
  do instead; doing that (``convert``) works;
* a float .tflite compresses like a float ONNX model: every int8 tensor equals the simulation, and
  the output stays near LiteRT's fp32 run of the same .tflite (the independent oracle);
* ``load_model`` picks the frontend by input type: a .tflite without its suffix, bytes, a ModelProto.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import onnx
import pytest
from onnxruntime import quantization

import slim
from lite_converter.convert import convert, convert_onnx, convert_tflite, load_model, to_lite_bytes
from lite_converter.ir import ConversionError
from lite_converter.reader import read_model
from runtime_arm import Interpreter
from slim.config import resolve_config
from slim.pipeline import prepare
from tests.conftest import small_conv_net
from tests.slim_oracle import int8_mismatches
from tests.tflite_int8_net import tflite_int8_net

SHAPE = (1, 3, 12, 12)


def _batches(count: int, seed: int = 0) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(SHAPE).astype(np.float32) for _ in range(count)]


def _no_calibration(*args: object, **kwargs: object) -> None:
    raise AssertionError("calibration started on a quantized model")


@pytest.fixture(scope="module")
def float_tflite(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from lite_converter.app.peers.tflite_export import export_tflite

    folder = tmp_path_factory.mktemp("float_tflite")
    convert_onnx(small_conv_net(), folder / "net.lite", input_shapes={"x": list(SHAPE)})
    path = folder / "net.tflite"
    path.write_bytes(export_tflite(read_model(folder / "net.lite")))
    return path


def test_slim_calibrates_the_graph_the_converter_writes() -> None:
    shapes = {"x": list(SHAPE)}
    prepared = prepare(small_conv_net(), _batches(2), resolve_config("int8"), shapes)
    assert to_lite_bytes(prepared.graph) == convert(small_conv_net(), input_shapes=shapes)


def test_qdq_source_is_refused_before_any_work(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    source = tmp_path / "net.onnx"
    onnx.save(small_conv_net(), source)
    qdq = tmp_path / "net_qdq.onnx"
    reader_batches = iter([{"x": b} for b in _batches(2)])

    class Reader(quantization.CalibrationDataReader):
        def get_next(self) -> dict[str, np.ndarray] | None:
            return next(reader_batches, None)

    quantization.quantize_static(str(source), str(qdq), Reader(), quant_format=quantization.QuantFormat.QDQ,
                                 weight_type=quantization.QuantType.QInt8, per_channel=True)
    monkeypatch.setattr(sys.modules["slim.pipeline"], "calibrate", _no_calibration)
    target = tmp_path / "net_int8.lite"
    with pytest.raises(ConversionError) as error:
        slim.compress(qdq, target, _batches(2))
    message = str(error.value)
    assert f"{qdq} is quantized already (a QDQ model" in message
    assert f"`lite convert {qdq}`" in message and "compress the float model" in message
    assert not target.exists()
    # what the message says to do instead: the converter keeps the model's own int8 scales
    model = read_model(convert(qdq, target))
    assert any(t.dtype == "INT8" for t in model.tensors) and target.exists()


def test_int8_tflite_source_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys.modules["slim.pipeline"], "calibrate", _no_calibration)
    with pytest.raises(ConversionError, match=r"the model is quantized already \(an int8 \.tflite\)"):
        slim.compress(tflite_int8_net(), None, [np.zeros((1, 9, 9, 3), np.int8)])


def test_float_tflite_compresses_like_an_onnx_model(float_tflite: Path, tmp_path: Path) -> None:
    target = tmp_path / "net_int8.lite"
    # abs_max ranges: the 2-step bound below assumes no value is clipped (the int8 default's
    # percentile ranges clip the extremes of random data on purpose)
    result = slim.compress(float_tflite, target, _batches(4, seed=1), config="int8_fast")
    assert result.graph.source_format == "tflite"
    assert {"CONV_2D", "ADD", "GLOBAL_AVERAGE_POOL"} <= {n.op_type for n in result.graph.nodes
                                                         if n.name in result.int8_nodes}
    feeds = {"x": _batches(1, seed=7)[0]}
    assert max(int8_mismatches(result.graph, feeds).values()) == 0.0
    # LiteRT is the oracle of this test only: imported here, the ONNX tests never depend on it
    litert = pytest.importorskip("ai_edge_litert.interpreter", reason="LiteRT (dev extra) not installed")
    interpreter = litert.Interpreter(model_path=str(float_tflite))
    interpreter.allocate_tensors()
    interpreter.set_tensor(interpreter.get_input_details()[0]["index"], feeds["x"])
    interpreter.invoke()
    theirs = {d["name"]: interpreter.get_tensor(d["index"]) for d in interpreter.get_output_details()}
    with Interpreter(target) as ours_interpreter:
        ours = ours_interpreter.run(feeds)
    written_by = {node.outputs[0]: node for node in result.graph.nodes}
    for name, expected in theirs.items():
        # int8 against fp32: within 2 steps of the output's int8 scale after three int8 layers
        quant = result.graph.tensors[written_by[name].inputs[0]].quant
        assert written_by[name].op_type == "DEQUANTIZE" and quant is not None
        steps = np.abs(ours[name] - expected).max() / float(quant.scale[0])
        print(f"{name}: max |int8 - LiteRT fp32| = {steps:.2f} steps")
        assert steps <= 2.0, name


def test_the_frontend_is_chosen_by_input_type(float_tflite: Path, tmp_path: Path) -> None:
    renamed = tmp_path / "net.bin"
    renamed.write_bytes(float_tflite.read_bytes())
    assert load_model(renamed).source_format == "tflite"
    assert load_model(float_tflite.read_bytes()).source_format == "tflite"
    assert load_model(small_conv_net()).source_format == "onnx"
    assert convert(renamed) == convert_tflite(float_tflite)
    # a .tflite's static dims are fixed: only its dynamic (-1) ones can be set
    with pytest.raises(ConversionError, match="changes static dims|unknown input"):
        convert(float_tflite, input_shapes={"x": [1, 3, 8, 8]})
    onnx_file = tmp_path / "net.onnx"
    onnx.save(small_conv_net(), onnx_file)
    with pytest.raises(ConversionError, match="not a .tflite file"):
        convert_tflite(onnx_file)
