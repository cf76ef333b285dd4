"""QAT recovers what PTQ loses (issue 13, Done-when 3): Fashion-MNIST, a depthwise-heavy CNN, int8 with
per-tensor weights forced (``QuantConfig(per_tensor_weights=True)``, what an int8 target without
per-channel weights gets). BatchNorm folding leaves the depthwise channels' weights of very
different sizes, so one scale per layer rounds the small channels away: PTQ loses points, and
``int8_qat`` (label-free distillation against the fp32 model) trains weights and ranges back.

Sets drawn disjoint (tests/datasets/splits.py): the CNN is trained on one half of the training split,
calibration / QAT use unlabeled images of the other half, accuracy is measured on the t10k split.

    python -m benchmarks.qat_fashion_mnist                       # the figure in benchmarks/COMPRESSION.md
    (tests/test_qat_fashion_mnist.py runs a CI-sized slice)
"""

from __future__ import annotations

import argparse
import dataclasses
import time
from pathlib import Path

import numpy as np
import torch
from torch import nn

import slim
from runtime_arm import Interpreter
from tests.datasets import fashion_mnist, splits


class DepthwiseNet(nn.Module):
    """A stem conv, three depthwise-separable blocks (BN, ReLU), global pool, linear head."""

    def __init__(self) -> None:
        super().__init__()

        def separable(cin: int, cout: int, stride: int) -> list[nn.Module]:
            return [
                nn.Conv2d(cin, cin, 3, stride, 1, groups=cin),
                nn.BatchNorm2d(cin),
                nn.ReLU(),
                nn.Conv2d(cin, cout, 1),
                nn.BatchNorm2d(cout),
                nn.ReLU(),
            ]

        self.features = nn.Sequential(
            nn.Conv2d(1, 16, 3, 1, 1),
            nn.BatchNorm2d(16),
            nn.ReLU(),
            *separable(16, 32, 2),
            *separable(32, 48, 2),
            *separable(48, 64, 1),
            nn.AdaptiveAvgPool2d(1),
        )
        self.classifier = nn.Linear(64, 10)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.classifier(torch.flatten(self.features(x), 1))


@dataclasses.dataclass
class Sets:
    train: tuple[np.ndarray, np.ndarray]
    unlabeled: np.ndarray
    test: tuple[np.ndarray, np.ndarray]


def sets(train: int, unlabeled: int, test: int) -> Sets:
    images, labels = fashion_mnist.load("train")
    train_x, train_y = fashion_mnist.subset(
        *fashion_mnist.half(images, labels, 0), splits.TRAINING_SEED, train
    )
    other_x, _ = fashion_mnist.subset(
        *fashion_mnist.half(images, labels, 1), splits.CALIBRATION_SEED, unlabeled
    )
    test_x, test_y = fashion_mnist.subset(*fashion_mnist.load("t10k"), splits.EVALUATION_SEED, test)
    return Sets(
        (fashion_mnist.normalized(train_x), train_y),
        fashion_mnist.normalized(other_x),
        (fashion_mnist.normalized(test_x), test_y),
    )


def spread_depthwise_channels(net: DepthwiseNet, decades: float, seed: int = 0) -> None:
    """Scales each depthwise channel's output by a factor log-uniform in [10^-decades, 10^decades]
    (its BatchNorm's weight and bias) and the next 1x1 conv's input channel by the inverse: the fp32
    function is unchanged (ReLU is positively homogeneous), the channels' ranges are as uneven as
    BatchNorm folding leaves them in trained MobileNets (Nagel et al., "Data-Free Quantization", 2019)."""
    generator = torch.Generator().manual_seed(seed)
    layers = list(net.features)
    with torch.no_grad():
        for index, layer in enumerate(layers):
            if isinstance(layer, nn.Conv2d) and layer.groups > 1:
                norm, pointwise = layers[index + 1], layers[index + 3]
                assert isinstance(norm, nn.BatchNorm2d) and isinstance(pointwise, nn.Conv2d)
                factor = 10.0 ** ((torch.rand(layer.out_channels, generator=generator) * 2 - 1) * decades)
                norm.weight.mul_(factor)
                norm.bias.mul_(factor)
                pointwise.weight.div_(factor.reshape(1, -1, 1, 1))


def train_fp32(data: Sets, epochs: int, path: Path, decades: float = 0.0) -> None:
    """Trains DepthwiseNet with labels, spreads its depthwise channels by ``decades`` and exports it
    to ONNX at ``path``."""
    torch.manual_seed(0)
    net = DepthwiseNet()
    optimizer = torch.optim.Adam(net.parameters(), 3e-3)
    x, y = torch.from_numpy(data.train[0]), torch.from_numpy(data.train[1])
    for _ in range(epochs):
        for index in torch.randperm(len(x)).split(128):
            optimizer.zero_grad()
            nn.functional.cross_entropy(net(x[index]), y[index]).backward()
            optimizer.step()
    net.eval()
    spread_depthwise_channels(net, decades)
    torch.onnx.export(
        net,
        x[:1],
        str(path),
        input_names=["input"],
        output_names=["logits"],
        dynamic_axes={"input": {0: "n"}, "logits": {0: "n"}},
        dynamo=False,
    )


def accuracy(lite_or_onnx: bytes | Path, data: Sets) -> float:
    """Top-1 % on the test set: a .lite on our runtime, or the ONNX fp32 model on onnxruntime."""
    inputs, labels = data.test
    if isinstance(lite_or_onnx, Path):
        import onnxruntime as ort

        session = ort.InferenceSession(str(lite_or_onnx), providers=["CPUExecutionProvider"])
        logits = session.run(None, {"input": inputs})[0]
    else:
        with Interpreter(model_content=lite_or_onnx) as interpreter:
            logits = np.concatenate(
                [interpreter.run([inputs[i : i + 250]])["logits"] for i in range(0, len(inputs), 250)]
            )
    return 100.0 * float(np.mean(logits.argmax(1) == labels))


def batches(inputs: np.ndarray, size: int) -> list[np.ndarray]:
    return [inputs[i : i + size] for i in range(0, len(inputs), size)]


def measure(path: Path, data: Sets, calibration: int, steps: int) -> dict[str, float]:
    """fp32 (onnxruntime), PTQ int8 without and with cross-layer equalization and QAT int8 (our
    runtime) accuracy, QAT seconds. QAT starts from the equalized model (QatConfig.equalize)."""
    quant = slim.QuantConfig(algorithm="hist", per_tensor_weights=True, progress=False)
    calibration_batches = batches(data.unlabeled[:calibration], 16)
    ptq = slim.compress(str(path), None, calibration_batches, quant)
    equalized = slim.compress(str(path), None, calibration_batches, dataclasses.replace(quant, equalize=True))
    config = slim.QatConfig(
        quant=quant,
        finetune=slim.FinetuneConfig(steps=steps, batch_size=64, learning_rate=3e-4, progress=False),
    )
    start = time.monotonic()
    qat = slim.compress(str(path), None, data.unlabeled, config)
    seconds = time.monotonic() - start
    return {
        "fp32": accuracy(path, data),
        "ptq": accuracy(ptq.lite_bytes, data),
        "ptq_equalized": accuracy(equalized.lite_bytes, data),
        "qat": accuracy(qat.lite_bytes, data),
        "qat_s": seconds,
        "steps": qat.training.steps,
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--train", type=int, default=12_000, help="labelled training images (fp32 net)")
    parser.add_argument("--epochs", type=int, default=2, help="fp32 training epochs")
    parser.add_argument("--qat-images", type=int, default=10_000, help="unlabeled images for QAT")
    parser.add_argument("--qat-steps", type=int, default=150, help="QAT steps of 64 unlabeled images")
    parser.add_argument("--calibration", type=int, default=64)
    parser.add_argument("--test", type=int, default=10_000)
    parser.add_argument(
        "--spread",
        type=float,
        default=1.0,
        help="depthwise channel scales spread over +-this many decades (fp32 unchanged)",
    )
    parser.add_argument("--folder", default="/tmp", help="where the ONNX model is written")
    args = parser.parse_args()
    torch.set_num_threads(2)
    data = sets(args.train, args.qat_images, args.test)
    path = Path(args.folder) / "fashion_depthwise.onnx"
    train_fp32(data, args.epochs, path, args.spread)
    result = measure(path, data, args.calibration, args.qat_steps)
    print(f"Fashion-MNIST, depthwise CNN, int8 with per-tensor weights, {args.test} test images")
    print(f"{'model':<34}{'top-1 %':>9}{'vs fp32':>9}")
    for key, name in (
        ("fp32", "fp32 (onnxruntime)"),
        ("ptq", f"PTQ int8 ({args.calibration} images)"),
        ("ptq_equalized", "PTQ int8, equalize=True"),
        ("qat", f"int8_qat ({result['steps']} steps, {result['qat_s']:.0f} s)"),
    ):
        print(f"{name:<34}{result[key]:>9.2f}{result[key] - result['fp32']:>+9.2f}")


if __name__ == "__main__":
    main()
