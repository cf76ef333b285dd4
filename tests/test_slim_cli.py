"""``lite compress`` with the slim algorithms' options: --bias-correction, --sqnr-target, --analyze."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import onnx
import pytest
from PIL import Image

from lite_converter.app import cli
from lite_converter.reader import read_model
from tests.test_slim_bias_correction import depthwise_net, positive_inputs


def test_compress_with_analysis_bias_correction_and_sqnr_target(tmp_path: Path,
                                                                capsys: pytest.CaptureFixture[str]) -> None:
    model = tmp_path / "dw.onnx"
    onnx.save(depthwise_net(), model)
    (tmp_path / "calib").mkdir()
    for i, batch in enumerate(positive_inputs(3, seed=0)):
        np.save(tmp_path / "calib" / f"{i}.npy", batch)
    report = tmp_path / "report.png"
    status = cli.main(["compress", str(model), "-o", str(tmp_path / "dw.lite"), "--data",
                       str(tmp_path / "calib"), "--bias-correction", "--sqnr-target", "20",
                       "--analyze", str(report)])
    out = capsys.readouterr().out
    assert status == 0, out
    assert "mixed precision: target met with 0 layer(s) kept in fp32" in out
    table = [line.split() for line in out.splitlines() if line.startswith(("dw ", "pw "))]
    assert [row[:2] for row in table] == [["dw", "CONV_2D"], ["pw", "CONV_2D"]]
    assert all(float(row[2]) > 20 and 0.99 < float(row[3]) <= 1.0 for row in table)
    with Image.open(report) as image:
        assert image.format == "PNG"
    assert read_model((tmp_path / "dw.lite").read_bytes()) is not None
