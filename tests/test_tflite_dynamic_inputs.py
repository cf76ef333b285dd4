"""TFLite inputs with dynamic dims (shape_signature -1), as TF's converter writes for a variable-length
input such as openWakeWord's melspectrogram (signature [-1, -1], stored shape [1, 1]).

Every shape of such a file was computed for the placeholder size, so importing it as it stands gives a
model that only runs at that size (ours refused a real input at run time: "static dim 1 = 1"). Without
shapes the converter refuses it by name; given the input's shape (``input_shapes``, ``lite convert
--input-shape``) it imports the model at that size, against LiteRT resized alike. A dynamic batch dim
alone is imported at its stored size, as before.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("ai_edge_litert", reason="needs the tflite extra (ai-edge-litert)")
from ai_edge_litert import schema_py_generated as s  # noqa: E402

from lite_converter.convert import convert_tflite  # noqa: E402
from lite_converter.ir import ConversionError  # noqa: E402
from lite_converter.reader import read_model  # noqa: E402
from runtime_arm import Interpreter  # noqa: E402
from tests.tflite_builder import TfliteModel, assert_matches_litert, options  # noqa: E402


def _relu_model(shape: list[int], signature: list[int]) -> bytes:
    model = TfliteModel()
    x = model.tensor("audio", shape)
    y = model.tensor("activated", shape)
    for index in (x, y):
        model.tensors[index].shapeSignature = list(signature)
    model.op("RELU", [x], [y])
    return model.finish([x], [y])


def test_dynamic_length_input_is_refused_by_name(tmp_path: Path) -> None:
    data = _relu_model([1, 1], [-1, -1])
    path = tmp_path / "dynamic.tflite"
    path.write_bytes(data)
    # LiteRT itself takes any length: the file really is dynamic
    from ai_edge_litert import interpreter as litert

    interpreter = litert.Interpreter(model_path=str(path))
    interpreter.resize_tensor_input(interpreter.get_input_details()[0]["index"], [1, 320])
    interpreter.allocate_tensors()
    with pytest.raises(ConversionError, match=r"input 'audio' has dynamic dims \(shape_signature \[-1, -1\]"):
        convert_tflite(data)


def test_dynamic_batch_alone_is_imported_at_its_stored_size(tmp_path: Path) -> None:
    data = _relu_model([1, 6], [-1, 6])
    feeds = [np.linspace(-3, 3, 6, dtype=np.float32).reshape(1, 6)]
    assert_matches_litert(data, feeds, tmp_path)


def _framing_model() -> bytes:
    """openWakeWord's melspectrogram front in small: audio [1, L] (signature [-1, -1]) -> two
    EXPAND_DIMS -> [1, 1, L, 1] -> CONV_2D of 4 filters 8 wide, stride 4 (framing + projection) ->
    SQUEEZE -> [1, frames, 4] -> squared. Every shape in the file is the one for L = 1."""
    m = TfliteModel()
    audio = m.tensor("audio", [1, 1])
    wide = m.tensor("wide", [1, 1, 1])
    image = m.tensor("image", [1, 1, 1, 1])
    framed = m.tensor("framed", [1, 1, 1, 4])
    frames = m.tensor("frames", [1, 1, 4])
    power = m.tensor("power", [1, 1, 4])
    for index, signature in ((audio, [-1, -1]), (wide, [-1, 1, -1]), (image, [-1, 1, -1, 1]),
                             (framed, [-1, 1, -1, 4]), (frames, [-1, -1, 4]), (power, [-1, -1, 4])):
        m.tensors[index].shapeSignature = signature
    m.op("EXPAND_DIMS", [audio, m.constant("axis1", np.array(1, np.int32))], [wide])
    m.op("EXPAND_DIMS", [wide, m.constant("axis3", np.array(3, np.int32))], [image])
    weights = m.constant("filters", np.random.default_rng(5).standard_normal((4, 1, 8, 1)).astype(np.float32))
    conv = options(s.Conv2DOptionsT(), padding=s.Padding.VALID, strideH=1, strideW=4, dilationHFactor=1,
                   dilationWFactor=1)
    m.op("CONV_2D", [image, weights, m.constant("bias", np.zeros(4, np.float32))], [framed], conv)
    m.op("SQUEEZE", [framed], [frames], options(s.SqueezeOptionsT(), squeezeDims=[1]))
    m.op("MUL", [frames, frames], [power], s.MulOptionsT())
    return m.finish([audio], [power])


def test_dynamic_length_input_imported_at_the_users_shape(tmp_path: Path) -> None:
    from ai_edge_litert import interpreter as litert

    data = _framing_model()
    audio = np.sin(np.arange(64, dtype=np.float32) / 3.0).reshape(1, 64)
    lite = convert_tflite(data, input_shapes={"audio": [1, 64]})
    assert read_model(lite).input_tensors[0].shape == [1, 64]
    path = tmp_path / "framing.tflite"
    path.write_bytes(data)
    reference = litert.Interpreter(model_path=str(path))
    reference.resize_tensor_input(reference.get_input_details()[0]["index"], [1, 64])
    reference.allocate_tensors()
    reference.set_tensor(reference.get_input_details()[0]["index"], audio)
    reference.invoke()
    expected = reference.get_tensor(reference.get_output_details()[0]["index"])
    with Interpreter(model_content=lite) as ours:
        got = ours.run([audio])["power"]
    assert got.shape == expected.shape == (1, 15, 4)
    np.testing.assert_allclose(got, expected, rtol=1e-5, atol=1e-5 * float(np.abs(expected).max()))


@pytest.mark.parametrize("shapes, message", [
    ({"audio": [2, 64, 1]}, r"shape \[2, 64, 1\] does not fit its signature \[-1, -1\]"),
    ({"sound": [1, 64]}, r"unknown input\(s\) \['sound'\]; the model's inputs are \['audio'\]"),
])
def test_input_shapes_that_do_not_fit_are_refused(shapes: dict, message: str) -> None:
    with pytest.raises(ConversionError, match=message):
        convert_tflite(_framing_model(), input_shapes=shapes)


def test_a_static_dim_cannot_be_changed() -> None:
    with pytest.raises(ConversionError, match=r"changes static dims of its signature \[-1, 6\]"):
        convert_tflite(_relu_model([1, 6], [-1, 6]), input_shapes={"audio": [2, 7]})


def test_lite_convert_takes_the_input_shape_of_a_tflite(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from lite_converter.app.cli import main

    source, output = tmp_path / "framing.tflite", tmp_path / "framing.lite"
    source.write_bytes(_framing_model())
    assert main(["convert", str(source), "-o", str(output), "--input-shape", "audio=1,64"]) == 0
    assert read_model(output.read_bytes()).input_tensors[0].shape == [1, 64]
    assert main(["convert", str(source), "-o", str(output)]) != 0
    assert "--input-shape 'audio=D0,D1,...'" in capsys.readouterr().err
