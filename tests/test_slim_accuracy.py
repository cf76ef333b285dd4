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
