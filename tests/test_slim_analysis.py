"""slim.analyze compares like with like, and its plot draws negative SQNR.

A conv with a fused HARD_SWISH becomes, in int8, a conv whose output is the value *before* the
activation plus a table for the activation; the fp32 graph only has the value after it. The report
must compare the table's output with the fp32 fused output (before the fix, the pre-activation int8
value was compared with the post-activation fp32 value: -29 dB on PP-OCR rec layers that were fine).
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest

import slim
from slim.analysis import AnalysisReport, LayerReport
from slim.analysis_plot import CUMULATIVE, NEGATIVE, write_plot

torch = pytest.importorskip("torch")
ort = pytest.importorskip("onnxruntime")
pytest.importorskip("PIL")

from torch import nn  # noqa: E402

from runtime_arm import Interpreter  # noqa: E402


def _hard_swish_net(path: Path) -> None:
    torch.manual_seed(0)
    net = nn.Sequential(nn.Conv2d(3, 16, 3, padding=1), nn.BatchNorm2d(16), nn.Hardswish(),
                        nn.Conv2d(16, 16, 3, padding=1, groups=16), nn.Hardswish(),
                        nn.Conv2d(16, 8, 1), nn.Hardswish()).eval()
    with torch.no_grad():
        net[1].running_mean.uniform_(-0.5, 0.5)
        net[1].running_var.uniform_(0.5, 2.0)
    torch.onnx.export(net, torch.zeros(1, 3, 16, 16), str(path), input_names=["input"], output_names=["out"],
                      dynamic_axes={"input": {0: "n"}, "out": {0: "n"}},
                      dynamo=False)


def test_a_layer_with_a_table_activation_is_compared_after_the_table(tmp_path: Path) -> None:
    path = tmp_path / "hswish.onnx"
    _hard_swish_net(path)
    rng = np.random.default_rng(5)
    batches = [rng.standard_normal((4, 3, 16, 16)).astype(np.float32) for _ in range(4)]
    result = slim.compress(str(path), None, batches, slim.QuantConfig(progress=False), analyze=True)
    report = result.analysis
    assert report is not None
    print(report.table())
    tables = [layer for layer in report.layers if layer.op.endswith("+table")]
    assert tables, [layer.op for layer in report.layers]  # the int8 pass did split HARD_SWISH off
    assert all(layer.sqnr_db > 25 and layer.cosine > 0.99 for layer in report.layers)
    first = report.layers[0]
    assert first.local_sqnr_db == pytest.approx(first.sqnr_db, abs=0.01)  # reads only the model input
    session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    reference = np.concatenate([session.run(None, {"input": b})[0] for b in batches]).astype(np.float64)
    with Interpreter(model_content=result.lite_bytes) as interpreter:
        got = np.concatenate([interpreter.run([b])["out"] for b in batches])
    expected = 10 * math.log10(np.sum(reference ** 2) / np.sum((reference - got) ** 2))
    assert report.outputs["out"][0] == pytest.approx(expected, abs=0.2)


def test_the_plot_draws_negative_sqnr_left_of_zero(tmp_path: Path) -> None:
    from PIL import Image

    report = AnalysisReport([LayerReport("good", "CONV_2D", 31.0, 0.999, 33.0),
                             LayerReport("bad", "CONV_2D", -12.5, 0.2, -9.0),
                             LayerReport("unsimulated", "MEAN", 20.0, 0.99, math.nan)],
                            {"out": (18.0, 0.99)}, [])
    write_plot(report, tmp_path / "plot.png")
    with Image.open(tmp_path / "plot.png") as image:
        pixels = np.asarray(image.convert("RGB"))
    red = np.argwhere(np.all(pixels == NEGATIVE, axis=-1))
    assert red.size, "the negative bar is missing"
    dark_blue = np.argwhere(np.all(pixels == CUMULATIVE, axis=-1))
    assert dark_blue.size
    # the red bar ends where the positive bars start (the 0 dB axis), on its left
    assert red[:, 1].max() <= dark_blue[:, 1].min() + 1
    assert dark_blue[:, 0].min() < red[:, 0].min() < dark_blue[:, 0].max()  # the second of three rows
