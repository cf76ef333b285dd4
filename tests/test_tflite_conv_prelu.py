"""TFLite CONV_2D / DEPTHWISE_CONV_2D followed by a per-channel PRELU: imported as the conv's fused PRELU
(MediaPipe's face-mesh and iris models have 23 and 53 PRELUs, half of them right after a conv), and
left as its own node when the conv's output is needed elsewhere. Outputs against LiteRT either way.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("ai_edge_litert", reason="needs the tflite extra (ai-edge-litert)")
from ai_edge_litert import schema_py_generated as s  # noqa: E402

from lite_converter.convert import load_model, lower  # noqa: E402
from tests.tflite_builder import TfliteModel, assert_matches_litert, options  # noqa: E402

CHANNELS = 6


def _model(depthwise: bool, conv_output_also_added: bool, slope_shape: tuple[int, ...]) -> bytes:
    rng = np.random.default_rng(7)
    m = TfliteModel()
    x = m.tensor("x", [1, 9, 7, CHANNELS])
    conv = m.tensor("conv", [1, 9, 7, CHANNELS])
    y = m.tensor("y", [1, 9, 7, CHANNELS])
    window = {"padding": s.Padding.SAME, "strideH": 1, "strideW": 1}
    window.update(dilationHFactor=1, dilationWFactor=1)
    if depthwise:
        weight = rng.standard_normal((1, 3, 3, CHANNELS)).astype(np.float32)
        opts = options(s.DepthwiseConv2DOptionsT(), depthMultiplier=1, **window)
    else:
        weight = (rng.standard_normal((CHANNELS, 3, 3, CHANNELS)) * 0.3).astype(np.float32)
        opts = options(s.Conv2DOptionsT(), **window)
    bias = rng.standard_normal(CHANNELS).astype(np.float32)
    m.op("DEPTHWISE_CONV_2D" if depthwise else "CONV_2D", [x, m.constant("w", weight), m.constant("b", bias)],
         [conv], opts)
    slope = np.linspace(-0.5, 0.75, CHANNELS, dtype=np.float32).reshape(slope_shape)
    m.op("PRELU", [conv, m.constant("slope", slope)], [y])
    if not conv_output_also_added:
        return m.finish([x], [y])
    z = m.tensor("z", [1, 9, 7, CHANNELS])
    m.op("ADD", [conv, y], [z], options(s.AddOptionsT()))
    return m.finish([x], [z])


@pytest.mark.parametrize("depthwise", [False, True], ids=["conv", "depthwise"])
@pytest.mark.parametrize("slope_shape", [(1, 1, CHANNELS), (CHANNELS,)], ids=["hwc", "c"])
def test_prelu_after_conv_is_fused(depthwise: bool, slope_shape: tuple[int, ...], tmp_path: Path) -> None:
    data = _model(depthwise, conv_output_also_added=False, slope_shape=slope_shape)
    ops = [node.op_type for node in lower(load_model(data, frontend="tflite")).nodes]
    assert "PRELU" not in ops and ops.count("CONV_2D") == 1, ops
    feeds = [np.random.default_rng(3).standard_normal((1, 9, 7, CHANNELS)).astype(np.float32)]
    assert_matches_litert(data, feeds, tmp_path)


def test_prelu_stays_when_the_conv_output_is_read_twice(tmp_path: Path) -> None:
    data = _model(False, conv_output_also_added=True, slope_shape=(1, 1, CHANNELS))
    ops = [node.op_type for node in lower(load_model(data, frontend="tflite")).nodes]
    assert "PRELU" in ops, ops
    feeds = [np.random.default_rng(4).standard_normal((1, 9, 7, CHANNELS)).astype(np.float32)]
    assert_matches_litert(data, feeds, tmp_path)
