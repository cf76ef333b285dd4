"""Whole real models through the whole pipeline, against onnxruntime on the very same ONNX file.

Two families:

* CNNs written here in torch (tests/models/), seeded random weights with non-trivial BatchNorm
  statistics, exported by both torch exporters (dynamo with external data, and legacy);
* the PaddleOCR mobile models that nobody here wrote (lite_converter.app.zoo): PP-OCRv4 det and rec and
  the mobile v2 direction classifier, with dynamic input dims resolved by the runtime.

Each output must satisfy ``max|ours - ort| <= 1e-4 * max(1, max|ort|)`` (or twice onnxruntime's own
optimized-vs-unoptimized spread when that is larger, see tests/models/oracle.py): on a photograph
for the CNNs (tests/datasets/photos.py), on rendered text for the OCR models, whose answers (text mask,
decoded string, rotation) must also agree. tests/test_layer_oracles.py holds every layer of these
models to a bound of its own, which a model-level tolerance cannot do.
tests/test_real_models_float64.py holds the same models' error against a float64 evaluation.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import numpy as np
import onnx
import pytest

from lite_converter import reader
from lite_converter.app.demo import DET_PROBABILITY_THRESHOLD, ctc_greedy_decode, ocr_input
from lite_converter.convert import convert_onnx
from runtime_arm import Interpreter
from tests.datasets.photos import photograph
from tests.models import ARCHITECTURES
from tests.models.oracle import assert_matches_onnxruntime

OCR_INPUT = "x"


# -- torch-built CNNs -------------------------------------------------------------------------------
@pytest.mark.parametrize("name", sorted(ARCHITECTURES))
def test_torch_cnn_matches_onnxruntime(name: str, torch_export: Callable[[str], Path]):
    arch = ARCHITECTURES[name]
    path = torch_export(name)
    if arch.dynamo:
        # The point of the dynamo export: weights live in a side file the frontend must load.
        assert path.with_name(path.name + ".data").is_file(), "dynamo export wrote no external data"
    data = convert_onnx(path)
    feeds = {"input": photograph(arch.input_shape)}
    ours = Interpreter(model_content=data, threads=1).run(feeds)
    reference = assert_matches_onnxruntime(ours, path, feeds, name)
    assert float(np.std(reference["logits"])) > 1e-2, "degenerate logits: the comparison would prove nothing"


# -- PaddleOCR mobile models ------------------------------------------------------------------------
def _check_ocr_run(interpreter: Interpreter, onnx_path: Path, key: str, shape: tuple[int, ...],
                   seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Runs rendered text through both engines, compares; returns (ours, onnxruntime's) first output.

    Rendered text rather than noise: on noise the detector's probability map is ~0 everywhere, and
    a bound of 1e-4 on values of 1e-4 would let a runtime that outputs zeros pass.
    """
    image, _ = ocr_input(key, shape, seed)
    feeds = {OCR_INPUT: image}
    ours = interpreter.run(feeds)
    reference = assert_matches_onnxruntime(ours, onnx_path, feeds, f"{key} {shape}")
    (name,) = reference
    return ours[name], reference[name]


def test_ppocr_det_dynamic_then_resized(paddleocr: dict[str, Path], paddleocr_lite: Callable[[str], bytes]):
    interpreter = Interpreter(model_content=paddleocr_lite("det"), threads=1)
    for shape, seed in [((1, 3, 640, 640), 2), ((1, 3, 480, 800), 3)]:
        if shape != (1, 3, 640, 640):
            interpreter.resize_input(OCR_INPUT, list(shape))
        ours, reference = _check_ocr_run(interpreter, paddleocr["det"], "det", shape, seed)
        text_pixels = reference > DET_PROBABILITY_THRESHOLD
        assert text_pixels.mean() > 0.01, "the detector found no text: the comparison would prove nothing"
        disagreeing = np.mean((ours > DET_PROBABILITY_THRESHOLD) != text_pixels)
        assert disagreeing < 1e-4, f"text masks differ on {disagreeing:.3%} of pixels at {shape}"


def _characters(onnx_path: Path) -> list[str]:
    model = onnx.load(str(onnx_path), load_external_data=False)
    return {prop.key: prop.value for prop in model.metadata_props}["character"].split("\n")


def test_ppocr_rec_dynamic(paddleocr: dict[str, Path], paddleocr_lite: Callable[[str], bytes]):
    interpreter = Interpreter(model_content=paddleocr_lite("rec"), threads=1)
    ours, reference = _check_ocr_run(interpreter, paddleocr["rec"], "rec", (1, 3, 48, 320), seed=4)
    characters = _characters(paddleocr["rec"])
    expected_text = ctc_greedy_decode(reference[0], characters)
    assert expected_text, "onnxruntime read no text: the input would prove little"
    assert ctc_greedy_decode(ours[0], characters) == expected_text


def test_ppocr_cls_dynamic(paddleocr: dict[str, Path], paddleocr_lite: Callable[[str], bytes]):
    interpreter = Interpreter(model_content=paddleocr_lite("cls"), threads=1)
    ours, reference = _check_ocr_run(interpreter, paddleocr["cls"], "cls", (1, 3, 48, 192), seed=5)
    assert ours.argmax(axis=-1).tolist() == reference.argmax(axis=-1).tolist()


def test_ppocr_cls_fixed_input_shape(paddleocr: dict[str, Path]):
    shape = [1, 3, 48, 192]
    data = convert_onnx(paddleocr["cls"], input_shapes={OCR_INPUT: shape})
    declared = {tensor.name: tensor.shape for tensor in reader.read_model(data).input_tensors}
    assert declared == {OCR_INPUT: shape}
    _check_ocr_run(Interpreter(model_content=data, threads=1), paddleocr["cls"], "cls", tuple(shape), seed=6)


def test_ppocr_dynamic_dims_stay_dynamic(paddleocr_lite: Callable[[str], bytes]):
    """Without input_shapes, the det model's batch, height and width must not be frozen."""
    (det_input,) = reader.read_model(paddleocr_lite("det")).input_tensors
    assert det_input.shape is not None and len(det_input.shape) == 4
    batch, channels, height, width = det_input.shape
    assert channels == 3
    assert batch < 0 and height < 0 and width < 0, f"dynamic dims were frozen: {det_input.shape}"


def test_ppocr_rec_character_list_in_metadata(paddleocr: dict[str, Path],
                                              paddleocr_lite: Callable[[str], bytes]):
    characters = "\n".join(_characters(paddleocr["rec"]))
    assert len(characters.splitlines()) > 6000  # the Chinese dictionary, read from the ONNX file
    assert reader.read_model(paddleocr_lite("rec")).metadata.get("character") == characters

