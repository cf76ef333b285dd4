"""Float .tflite models whose weights are stored narrow, as TFLite's converter writes them (built with
tests/tflite_builder.py): every weight is a FLOAT16 constant (float16 post-training quantization) or an
INT8 constant with per-channel scales (weight-only int8), each read through a DEQUANTIZE. The graph:
CONV_2D (SAME, RELU) -> DEPTHWISE_CONV_2D (stride 2) -> MEAN over H, W -> FULLY_CONNECTED.
"""

from __future__ import annotations

import numpy as np
from ai_edge_litert import schema_py_generated as s

from tests.tflite_builder import TfliteModel, options


def narrow_weights_tflite(weight_type: str, seed: int = 0, channels: int = 128) -> bytes:
    """The .tflite bytes; ``weight_type`` "float16" or "int8"; input "x" [1, 12, 12, 16] float32,
    output "logits" [1, 32]."""
    rng = np.random.default_rng(seed)
    m = TfliteModel()

    def weight(name: str, shape: list[int], axis: int) -> int:
        """A narrow constant and the DEQUANTIZE that widens it; returns the float32 tensor."""
        value = (rng.standard_normal(shape) * 0.2).astype(np.float32)
        if weight_type == "float16":
            narrow = m.constant(f"{name}_f16", value.astype(np.float16))
        else:
            along = [-1 if d == axis else 1 for d in range(len(shape))]
            scale = (np.abs(np.moveaxis(value, axis, 0)).reshape(shape[axis], -1).max(axis=1) / 127)
            scale = scale.astype(np.float32)
            narrow = m.constant(f"{name}_int8",
                                np.clip(np.rint(value / scale.reshape(along)), -127, 127).astype(np.int8))
            m.tensors[narrow].quantization = options(
                s.QuantizationParametersT(), scale=[float(v) for v in scale], zeroPoint=[0] * scale.size,
                quantizedDimension=axis)
        wide = m.tensor(name, shape)
        m.op("DEQUANTIZE", [narrow], [wide])
        return wide

    def bias(name: str, size: int) -> int:
        return m.constant(name, (rng.standard_normal(size) * 0.1).astype(np.float32))

    x = m.tensor("x", [1, 12, 12, 16])
    conv = m.tensor("conv", [1, 12, 12, channels])
    m.op("CONV_2D", [x, weight("w_conv", [channels, 3, 3, 16], 0), bias("b_conv", channels)], [conv],
         options(s.Conv2DOptionsT(), padding=s.Padding.SAME, strideH=1, strideW=1, dilationHFactor=1,
                 dilationWFactor=1, fusedActivationFunction=s.ActivationFunctionType.RELU))
    depthwise = m.tensor("depthwise", [1, 6, 6, channels])
    m.op("DEPTHWISE_CONV_2D", [conv, weight("w_depthwise", [1, 5, 5, channels], 3),
                               bias("b_depthwise", channels)], [depthwise],
         options(s.DepthwiseConv2DOptionsT(), padding=s.Padding.SAME, strideH=2, strideW=2, depthMultiplier=1,
                 dilationHFactor=1, dilationWFactor=1))
    mean = m.tensor("mean", [1, channels])
    m.op("MEAN", [depthwise, m.constant("axes", np.array([1, 2], np.int32))], [mean],
         options(s.ReducerOptionsT(), keepDims=False))
    logits = m.tensor("logits", [1, 32])
    m.op("FULLY_CONNECTED", [mean, weight("w_fc", [32, channels], 0), bias("b_fc", 32)], [logits],
         s.FullyConnectedOptionsT())
    return m.finish([x], [logits])


def constant_bytes(tflite: bytes) -> int:
    """Bytes of constant data in a .tflite (its buffers): the weights the file carries."""
    model = s.ModelT.InitFromObj(s.Model.GetRootAs(tflite, 0))
    return sum(len(b.data) for b in model.buffers or [] if b.data is not None)
