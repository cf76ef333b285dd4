"""``config="int8_qat"`` recovers what PTQ loses (issue 13, Done-when 3; CI-sized slice of
benchmarks/qat_fashion_mnist.py, whose full figure is in benchmarks/COMPRESSION.md).

A depthwise-heavy CNN trained here briefly on Fashion-MNIST (Debian's dataset-fashion-mnist), its
depthwise channels' scales spread over +-1 decade (fp32 unchanged: the uneven ranges BatchNorm folding
leaves in trained MobileNets), int8 with per-tensor weights forced: PTQ loses >= 2 points of top-1 on
held-out test images; label-free QAT (no labels: distillation against the fp32 model on unlabeled
images of the other half of the training split) comes back within 0.5 point of fp32 (onnxruntime).
Measured by benchmarks/qat_fashion_mnist.py (the same net and training, 60 QAT steps of 64 unlabeled
images, 10,000 test images): fp32 77.56%, PTQ 64.43% (-13.13), int8_qat 77.54% (-0.02); this test
(2,000 test images): fp32 77.75%, PTQ 65.20%, int8_qat 77.65% (-0.10), 271 s wall on a host shared by
~9 jobs. Marked ``training`` (`make test-training`).
Evaluated on all 10,000 t10k images since session 13's AVX-512 host: on 2,000 images the QAT-minus-fp32
figure differed from the 10,000-image one by up to 0.84 point for the same model (1 image = 0.05 point
there), as large as the 0.5 bound. On that host (fp32 78.35% on 10,000) int8_qat at 60 steps gave -0.76
/ -1.73 / -1.20 over QAT seeds 0 / 1 / 2 (120 steps -0.22 / -1.48 / -0.73; 240 -1.39 / -0.63 / -0.26):
the recipe's own spread, not evaluation noise, and short of the bound at 60 steps.
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


@pytest.mark.training  # ~1 min of CPU (fp32 training, 60 QAT steps): `make test-training`
@pytest.mark.skipif(not fashion_mnist.available(), reason="Debian's dataset-fashion-mnist is not installed")
def test_qat_recovers_what_per_tensor_ptq_loses(tmp_path: Path) -> None:
    torch.set_num_threads(2)
    data = bench.sets(train=12_000, unlabeled=3_840, test=10_000)
    path = tmp_path / "fashion_depthwise.onnx"
    bench.train_fp32(data, 2, path, decades=1.0)
    result = bench.measure(path, data, calibration=64, steps=60)
    print(f"\nFashion-MNIST depthwise CNN, per-tensor weights, 10,000 test images: "
          f"fp32 {result['fp32']:.2f}%, PTQ {result['ptq']:.2f}%, int8_qat {result['qat']:.2f}% "
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
