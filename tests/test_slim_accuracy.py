"""int8 post-training quantization keeps the accuracy of a trained classifier.

A small MobileNetV2-style network (inverted residuals, depthwise convs, ReLU6, skip Adds, global
average pool, linear head) is trained here on scikit-learn's digits, upsampled to 16x16 (training
time on a shared 2-core machine); its fp32 accuracy (onnxruntime on the exported ONNX) and its int8
accuracy (our runtime on the slim.compress output) are measured on held-out digits.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import slim

torch = pytest.importorskip("torch")
datasets = pytest.importorskip("sklearn.datasets")
ort = pytest.importorskip("onnxruntime")

from torch import nn  # noqa: E402

from runtime_arm import Interpreter  # noqa: E402
from tests.models.mobilenet_v2 import InvertedResidual, conv_bn_relu6  # noqa: E402

SIZE = 16
EPOCHS = 6
TRAIN = 1437


class DigitsNet(nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.features = nn.Sequential(
            conv_bn_relu6(1, 16, 3),
            InvertedResidual(16, 16, 1, 2),
            InvertedResidual(16, 24, 2, 4),
            InvertedResidual(24, 24, 1, 4),
            InvertedResidual(24, 32, 2, 4),
            InvertedResidual(32, 32, 1, 4),
            conv_bn_relu6(32, 64, 1),
        )
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.classifier = nn.Linear(64, 10)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.classifier(torch.flatten(self.pool(self.features(x)), 1))


def digits() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Train / test images [N,1,SIZE,SIZE] in [-1, 1] and labels."""
    bunch = datasets.load_digits()
    images = (bunch.images.astype(np.float32) / 16.0 - 0.5) / 0.5
    images = np.kron(images, np.ones((SIZE // 8, SIZE // 8), np.float32))[:, None]
    order = np.random.default_rng(0).permutation(len(images))
    images, labels = images[order], bunch.target[order]
    return images[:TRAIN], labels[:TRAIN], images[TRAIN:], labels[TRAIN:]


@pytest.fixture(scope="module")
def trained(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, np.ndarray, np.ndarray, np.ndarray]:
    train_x, train_y, test_x, test_y = digits()
    threads = torch.get_num_threads()
    torch.set_num_threads(1)  # on a loaded 2-core machine, 2 threads are many times slower than 1
    try:
        return _train_and_export(tmp_path_factory, train_x, train_y, test_x, test_y)
    finally:
        torch.set_num_threads(threads)


Trained = tuple[Path, np.ndarray, np.ndarray, np.ndarray]


def _train_and_export(tmp_path_factory: pytest.TempPathFactory, train_x: np.ndarray, train_y: np.ndarray,
                      test_x: np.ndarray, test_y: np.ndarray) -> Trained:
    torch.manual_seed(0)
    model = DigitsNet()
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    x, y = torch.from_numpy(train_x), torch.from_numpy(train_y).long()
    generator = torch.Generator().manual_seed(0)
    model.train()
    for _ in range(EPOCHS):
        for batch in torch.randperm(len(x), generator=generator).split(64):
            optimizer.zero_grad()
            nn.functional.cross_entropy(model(x[batch]), y[batch]).backward()
            optimizer.step()
    model.eval()
    path = tmp_path_factory.mktemp("digits") / "digits.onnx"
    with torch.no_grad():
        torch.onnx.export(model, (x[:1],), str(path), input_names=["input"], output_names=["logits"],
                          dynamic_axes={"input": {0: "n"}, "logits": {0: "n"}}, opset_version=13,
                          dynamo=False)
    return path, train_x, test_x, test_y


def accuracy_fp32(path: Path, images: np.ndarray, labels: np.ndarray) -> float:
    session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    logits = session.run(None, {"input": images})[0]
    return float((logits.argmax(1) == labels).mean())


def accuracy_lite(data: bytes, images: np.ndarray, labels: np.ndarray) -> float:
    with Interpreter(model_content=data) as interpreter:
        chunks = [interpreter.run([images[i:i + 60]])["logits"] for i in range(0, len(images), 60)]
    logits = np.concatenate(chunks)
    return float((logits.argmax(1) == labels).mean())


@pytest.mark.parametrize("algorithm", ["abs_max", "kl", "mse"])
def test_int8_digits_accuracy_within_half_a_point(trained, algorithm: str, tmp_path: Path) -> None:
    path, train_x, test_x, test_y = trained
    fp32 = accuracy_fp32(path, test_x, test_y)
    calibration = [train_x[i:i + 32] for i in range(0, 256, 32)]
    result = slim.compress(path, tmp_path / "digits.lite", calibration,
                           slim.QuantConfig(algorithm=algorithm, progress=False))
    convs = [n for n in result.graph.nodes if n.op_type in ("CONV_2D", "FULLY_CONNECTED", "ADD")]
    assert all(n.name in result.int8_nodes for n in convs)
    int8 = accuracy_lite(result.lite_bytes, test_x, test_y)
    print(f"digits {algorithm}: fp32 {fp32:.4f} int8 {int8:.4f}")
    assert fp32 >= 0.9
    assert int8 >= fp32 - 0.005, (fp32, int8)


# -- analysis and mixed precision -------------------------------------------------------------------
DAMAGED = "/features/features.3/body/body.1/body.1.0/Conv"  # a depthwise conv + ReLU6


def calibration_batches(train_x: np.ndarray) -> list[np.ndarray]:
    return [train_x[i:i + 32] for i in range(0, 256, 32)]


def sqnr_against_onnxruntime(path: Path, lite: bytes, images: np.ndarray) -> float:
    """Output SQNR (dB) of the int8 model against onnxruntime's fp32 logits, computed here."""
    session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    reference = session.run(None, {"input": images})[0].astype(np.float64)
    with Interpreter(model_content=lite) as interpreter:
        chunks = [interpreter.run([images[i:i + 32]])["logits"] for i in range(0, len(images), 32)]
    got = np.concatenate(chunks)
    return float(10 * np.log10(np.sum(reference ** 2) / np.sum((reference - got) ** 2)))


def test_analysis_reports_every_int8_layer_and_the_true_output_sqnr(trained, tmp_path: Path) -> None:
    from PIL import Image

    from slim.analysis_plot import write_plot

    path, train_x, _, _ = trained
    calibration = calibration_batches(train_x)
    result = slim.compress(path, None, calibration, slim.QuantConfig(progress=False), analyze=True)
    report = result.analysis
    assert report is not None
    weighted = {n.name for n in result.graph.nodes if n.op_type in ("CONV_2D", "FULLY_CONNECTED")}
    assert weighted and weighted <= {layer.node for layer in report.layers}
    expected = sqnr_against_onnxruntime(path, result.lite_bytes, np.concatenate(calibration))
    print(report.table())
    assert report.outputs["logits"][0] == pytest.approx(expected, abs=0.2)
    # the first conv reads only the quantized model input, so the error it adds alone is all there is
    first = report.layers[0]
    assert first.local_sqnr_db == pytest.approx(first.sqnr_db, abs=0.01)
    assert all(layer.cosine > 0.99 and layer.sqnr_db > 15 for layer in report.layers)
    write_plot(report, tmp_path / "report.png")
    with Image.open(tmp_path / "report.png") as image:
        assert image.format == "PNG" and image.height > 16 * len(report.layers)
        assert len(image.getcolors(1 << 16) or []) > 3  # text, grid, two bar colours


def test_mixed_precision_keeps_a_damaged_layer_in_fp32(trained) -> None:
    path, train_x, _, _ = trained
    calibration = calibration_batches(train_x)
    # clipping one ReLU6 output at its 90th percentile costs ~25 dB of output SQNR and 4-5 points
    damaged = dict(progress=False, overrides={DAMAGED: "hist"}, percentile=0.9)
    result = slim.compress(path, None, calibration, slim.QuantConfig(**damaged, sqnr_target=30.0))
    mixed = result.mixed_precision
    assert mixed is not None
    print(mixed.fp32_layers, mixed.history)
    assert mixed.history[0][1] < 30.0  # int8 alone misses the target
    assert mixed.target_met and 1 <= len(mixed.fp32_layers) <= 3
    assert DAMAGED in mixed.fp32_layers and DAMAGED in result.fp32_nodes
    assert sqnr_against_onnxruntime(path, result.lite_bytes, np.concatenate(calibration)) >= 29.8


def test_mixed_precision_meets_an_accuracy_target(trained) -> None:
    path, train_x, test_x, test_y = trained
    fp32 = accuracy_fp32(path, test_x, test_y)
    damaged = dict(progress=False, overrides={DAMAGED: "hist"}, percentile=0.9)
    config = slim.QuantConfig(**damaged, accuracy_target=fp32 - 0.005,
                              eval_fn=lambda lite: accuracy_lite(lite, test_x, test_y))
    result = slim.compress(path, None, calibration_batches(train_x), config)
    mixed = result.mixed_precision
    assert mixed is not None
    print(fp32, mixed.fp32_layers, mixed.history)
    assert mixed.history[0][1] < fp32 - 0.005  # int8 alone misses it
    assert mixed.target_met and 1 <= len(mixed.fp32_layers) <= 3
    assert accuracy_lite(result.lite_bytes, test_x, test_y) >= fp32 - 0.005
