"""Layers mixed precision keeps in fp32 keep fp32 weights (no weight-only int8 rounding left)."""

from __future__ import annotations

import numpy as np
from onnx import numpy_helper

from slim.config import QuantConfig
from slim.fp32_weights import weight_only_sqnr
from slim.pipeline import prepare, quantize
from tests.test_slim_bias_correction import depthwise_net, positive_inputs


def test_kept_layer_gets_its_fp32_weight_back() -> None:
    model = depthwise_net()
    original = {init.name: numpy_helper.to_array(init) for init in model.graph.initializer}["pw"]
    prepared = prepare(model, positive_inputs(2, seed=0), QuantConfig(progress=False))
    weight_only = quantize(prepared, skip_nodes={"pw"})
    pw = next(node for node in weight_only.graph.nodes if node.name == "pw")
    assert weight_only.graph.constant(pw.inputs[1]) is None  # int8-stored weight behind a DEQUANTIZE
    sqnr = weight_only_sqnr(weight_only.graph, prepared.graph, set(weight_only.int8_nodes))
    assert set(sqnr) == {"pw"} and 30.0 < sqnr["pw"] < 60.0  # per-channel int8: ~40 dB

    restored = quantize(prepared, skip_nodes={"pw"}, fp32_weights={"pw"})
    pw = next(node for node in restored.graph.nodes if node.name == "pw")
    weight = restored.graph.constant(pw.inputs[1])
    assert weight is not None and weight.dtype == np.float32
    # the lowered weight is the ONNX one in [Co, KH, KW, Ci] order: same values, bit for bit
    np.testing.assert_array_equal(np.sort(weight.ravel()), np.sort(original.ravel()))
    assert not any(n.op_type == "DEQUANTIZE" and n.outputs[0] == pw.inputs[1] for n in restored.graph.nodes)
