"""TFLite inputs with dynamic dims (shape_signature -1), as TF's converter writes for a variable-length
input such as openWakeWord's melspectrogram (signature [-1, -1], stored shape [1, 1]).

Every shape of such a file was computed for the placeholder size, so importing it as it stands gives a
model that only runs at that size (ours refused a real input at run time: "static dim 1 = 1"). The
converter refuses it by name; a dynamic batch dim alone is imported at its stored size, as before.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("ai_edge_litert", reason="needs the tflite extra (ai-edge-litert)")
from lite_converter.convert import convert_tflite  # noqa: E402
from lite_converter.ir import ConversionError  # noqa: E402
from tests.tflite_builder import TfliteModel, assert_matches_litert  # noqa: E402


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
