"""``config="int8_qat"`` recovers what PTQ loses (issue 13, Done-when 3; CI-sized slice of
benchmarks/qat_fashion_mnist.py, whose full figure is in benchmarks/COMPRESSION.md).

A depthwise-heavy CNN trained here briefly on Fashion-MNIST (Debian's dataset-fashion-mnist), its
depthwise channels' scales spread over +-1 decade (fp32 unchanged: the uneven ranges BatchNorm folding
leaves in trained MobileNets), int8 with per-tensor weights forced: PTQ loses >= 2 points of top-1 on
held-out test images; label-free QAT (no labels: distillation against the fp32 model on unlabeled
images of the other half of the training split) comes back within 0.5 point of fp32 (onnxruntime).
QAT starts from a cross-layer-equalized model (QatConfig.equalize, slim/equalize.py) and trains 150
steps of 64 unlabeled images at a weight learning rate of 3e-4. Before equalization joined the start,
on session 13's AVX-512 host, 60 steps at 1e-3 ended -0.76 / -1.73 / -1.20 from fp32 over QAT seeds
0 / 1 / 2 (10,000 test images): QAT's small steps cannot undo channel scales spread over two decades.
2026-11-28, this test: fp32 78.35%, PTQ 71.10% (-7.25), PTQ with equalize=True 78.61%, int8_qat 78.70%
(+0.35), 381 s wall on a shared host. On other nets of the benchmark (1 thread; a 2-epoch and a
6-epoch fp32 training) the equalized start and 150 steps at 3e-4 gave +0.10 / -0.06 / -0.12 and
+0.29 / -0.07 / -0.17 over seeds 0 / 1 / 2.
Also the ``lite compress --config int8_qat`` command and its help (in `make test`).
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("onnxruntime")

import slim  # noqa: E402
from benchmarks import qat_fashion_mnist as bench  # noqa: E402
from lite_converter.app import cli  # noqa: E402
from runtime_arm import Interpreter  # noqa: E402
from slim.config import resolve_config  # noqa: E402
from slim.pruning.config import parse_config  # noqa: E402
from tests.datasets import fashion_mnist  # noqa: E402


@pytest.mark.training  # ~2 min of CPU (fp32 training, 150 QAT steps): `make test-training`
@pytest.mark.skipif(not fashion_mnist.available(), reason="Debian's dataset-fashion-mnist is not installed")
def test_qat_recovers_what_per_tensor_ptq_loses(tmp_path: Path) -> None:
    torch.set_num_threads(2)
    data = bench.sets(train=12_000, unlabeled=9_600, test=10_000)
    path = tmp_path / "fashion_depthwise.onnx"
    bench.train_fp32(data, 2, path, decades=1.0)
    result = bench.measure(path, data, calibration=64, steps=150)
    print(f"\nFashion-MNIST depthwise CNN, per-tensor weights, 10,000 test images: "
          f"fp32 {result['fp32']:.2f}%, PTQ {result['ptq']:.2f}%, "
          f"PTQ equalized {result['ptq_equalized']:.2f}%, int8_qat {result['qat']:.2f}% "
          f"({result['steps']} steps, {result['qat_s']:.1f} s)")
    assert result["fp32"] >= 70.0, result  # the net has learned the task: the comparison is not vacuous
    assert result["ptq"] <= result["fp32"] - 2.0, result  # the setting is one PTQ cannot handle
    assert result["qat"] >= result["fp32"] - 0.5, result


def test_lite_compress_int8_qat_command(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The CLI's help lists the preset; a short label-free run writes an int8 .lite that runs and
    follows the fp32 model."""
    with pytest.raises(SystemExit):
        cli.main(["compress", "--help"])
    assert "int8_qat" in capsys.readouterr().out
    model = tmp_path / "net.onnx"
    torch.manual_seed(0)
    net = bench.DepthwiseNet().eval()
    torch.onnx.export(net, torch.zeros(1, 1, 28, 28), str(model), input_names=["input"],
                      output_names=["logits"], dynamic_axes={"input": {0: "n"}, "logits": {0: "n"}},
                      dynamo=False)
    rng = np.random.default_rng(0)
    data = tmp_path / "data"
    data.mkdir()
    for index in range(4):
        np.save(data / f"{index}.npy", rng.standard_normal((8, 1, 28, 28)).astype(np.float32))
    output = tmp_path / "net.lite"
    status = cli.main(["compress", str(model), "-o", str(output), "--data", str(data), "--config", "int8_qat",
                       "--steps", "3"])
    out = capsys.readouterr().out
    assert status == 0 and output.is_file(), out
    assert "quantization-aware training: 3 steps" in out, out
    sample = rng.standard_normal((8, 1, 28, 28)).astype(np.float32)
    with Interpreter(model_path=str(output)) as interpreter:
        logits = interpreter.run([sample])["logits"]
    with torch.no_grad():
        reference = net(torch.from_numpy(sample)).numpy()
    assert np.corrcoef(logits.reshape(-1), reference.reshape(-1))[0, 1] > 0.99


def test_int8_qat_preset_and_errors() -> None:
    config = parse_config("int8_qat")
    assert isinstance(config, slim.QatConfig)
    assert config.quant.algorithm == "hist" and config.finetune.enabled
    with pytest.raises(ValueError, match="trains"):
        resolve_config("int8_qat")
    with pytest.raises(ValueError, match="range_learning_rate"):
        slim.QatConfig(range_learning_rate=0.0)
