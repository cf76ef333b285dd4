"""The default ``config="int8"`` on hard data, with no tuning (issue 13, CI-sized slice).

* PP-OCRv4 rec on rendered lines of tests/datasets (40% Chinese, 17 faces, textured and tinted
  backgrounds, low contrast, blur, noise, JPEG, rotation) from the held-out seed, calibrated on 64
  lines of the calibration seed: int8 character accuracy within issue 13's 1.0 point of fp32 (the
  default before session ptq14, ranges only, measured -1.46 here and failed it; int8_fast, the
  abs_max ranges, lost 3.3 points on such lines; since the layers nearest the input stay fp32,
  slim/input_layers.py, see the test's figure below);
* a CNN trained here briefly on Fashion-MNIST (Debian's dataset-fashion-mnist), calibrated on 64
  images of the half it was not trained on: int8 top-1 within 0.5 points of onnxruntime's fp32 on
  2,000 test images.

The full evaluation (1,000 lines, 50 pages for det, cls) is benchmarks/int8_hard_data.py.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("PIL")
torch = pytest.importorskip("torch")
ort = pytest.importorskip("onnxruntime")

from torch import nn  # noqa: E402

import slim  # noqa: E402
from benchmarks.int8_hard_data import batched, rec_accuracy  # noqa: E402
from lite_converter.app import zoo  # noqa: E402
from lite_converter.convert import convert_onnx  # noqa: E402
from runtime_arm import Interpreter  # noqa: E402
from tests.datasets import fashion_mnist, splits, text_corpus, text_lines  # noqa: E402

REC_LINES = 240
CALIBRATION = 64


@pytest.fixture(scope="module")
def rec_scores(tmp_path_factory: pytest.TempPathFactory) -> tuple[float, float]:
    """(fp32, int8) character accuracy % of PP-OCRv4 rec on REC_LINES held-out hard lines."""
    if not text_corpus.fonts_available():
        pytest.skip(text_corpus.missing_fonts_message())
    folder = tmp_path_factory.mktemp("rec_hard")
    crops, truths = text_lines.render_lines(splits.HOLDOUT_SEED, REC_LINES)
    calibration, _ = text_lines.render_lines(splits.CALIBRATION_SEED, CALIBRATION)
    source = str(zoo.fetch("rec"))
    convert_onnx(source, folder / "rec.lite")
    result = slim.compress(source, None, batched(text_lines.rec_input(calibration), 8), "int8")
    inputs = text_lines.rec_input(crops)
    fp32 = rec_accuracy((folder / "rec.lite").read_bytes(), inputs, truths)
    int8 = rec_accuracy(result.lite_bytes, inputs, truths)
    print(f"\nPP-OCRv4 rec, {REC_LINES} hard lines: fp32 {fp32:.2f}%, int8 {int8:.2f}%")
    return fp32, int8


def test_rec_default_int8_keeps_most_of_fp32_on_hard_lines(rec_scores: tuple[float, float]) -> None:
    """The guard against going back: abs_max ranges (int8_fast) lost 3.29 points on such lines; the
    ranges-only default of before measured -1.46 on these 240 (fp32 97.55%, int8 96.09%)."""
    fp32, int8 = rec_scores
    assert fp32 >= 90.0, fp32  # the fp32 model reads the rendered text: the comparison is not vacuous
    assert int8 >= fp32 - 2.0, (fp32, int8)


def test_rec_default_int8_within_one_point_on_hard_lines(rec_scores: tuple[float, float]) -> None:
    """Issue 13's bound. The ranges-only default of before failed it here (-1.46; -1.29 / -1.49 on
    1,000 lines of the evaluation / held-out seeds); with the input-side layers in fp32 it measured
    -0.25 here (fp32 97.55%, int8 97.30%; -0.45 / -0.23 on those 1,000-line sets,
    benchmarks/COMPRESSION.md)."""
    fp32, int8 = rec_scores
    assert int8 >= fp32 - 1.0, (fp32, int8)


class FashionNet(nn.Module):
    """Two conv blocks (BN, ReLU, max pool), a depthwise-separable block and a linear head."""

    def __init__(self) -> None:
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(1, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(16, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(32, 32, 3, padding=1, groups=32), nn.BatchNorm2d(32), nn.ReLU6(),
            nn.Conv2d(32, 64, 1), nn.BatchNorm2d(64), nn.ReLU(), nn.AdaptiveAvgPool2d(1))
        self.classifier = nn.Linear(64, 10)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.classifier(torch.flatten(self.features(x), 1))


@pytest.mark.skipif(not fashion_mnist.available(), reason="Debian's dataset-fashion-mnist is not installed")
def test_fashion_mnist_default_int8_within_half_a_point(tmp_path: Path) -> None:
    images, labels = fashion_mnist.load("train")
    train_x, train_y = fashion_mnist.subset(*fashion_mnist.half(images, labels, 0), splits.TRAINING_SEED,
                                            12_000)
    calibration_x, _ = fashion_mnist.subset(*fashion_mnist.half(images, labels, 1), splits.CALIBRATION_SEED,
                                            CALIBRATION)
    test_x, test_y = fashion_mnist.subset(*fashion_mnist.load("t10k"), splits.EVALUATION_SEED, 2_000)
    torch.manual_seed(0)
    torch.set_num_threads(2)
    net = FashionNet()
    optimizer = torch.optim.Adam(net.parameters(), 3e-3)
    x, y = torch.from_numpy(fashion_mnist.normalized(train_x)), torch.from_numpy(train_y)
    for _ in range(2):
        for i in torch.randperm(len(x)).split(128):
            optimizer.zero_grad()
            nn.functional.cross_entropy(net(x[i]), y[i]).backward()
            optimizer.step()
    net.eval()
    path = tmp_path / "fashion.onnx"
    torch.onnx.export(net, x[:1], str(path), input_names=["input"], output_names=["logits"],
                      dynamic_axes={"input": {0: "n"}, "logits": {0: "n"}}, dynamo=False)
    inputs = fashion_mnist.normalized(test_x)
    session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    fp32 = 100.0 * float(np.mean(session.run(None, {"input": inputs})[0].argmax(1) == test_y))
    result = slim.compress(str(path), None, batched(fashion_mnist.normalized(calibration_x), 16), "int8")
    with Interpreter(model_content=result.lite_bytes) as interpreter:
        logits = np.concatenate([interpreter.run([b])["logits"] for b in batched(inputs, 250)])
    int8 = 100.0 * float(np.mean(logits.argmax(1) == test_y))
    print(f"\nFashion-MNIST, 2,000 test images: fp32 {fp32:.2f}%, int8 {int8:.2f}%")
    # the net has learned (chance is 10%): 2 epochs on 12,000 images (CI time) gave 77.15% (int8 76.95%)
    # on an AVX2 host and 74.00% (int8 73.65%) on an AVX-512 one, whose torch kernels train another net
    assert fp32 >= 70.0, fp32
    assert int8 >= fp32 - 0.5, (fp32, int8)
