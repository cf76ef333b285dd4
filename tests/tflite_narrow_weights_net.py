"""Float .tflite models whose weights are stored narrow, as TFLite's converter writes them, built with
LiteRT's schema object API (no TensorFlow here): every weight is a FLOAT16 constant (float16
post-training quantization) or an INT8 constant with per-channel scales (weight-only int8), each read
through a DEQUANTIZE. The graph: CONV_2D (SAME, RELU) -> DEPTHWISE_CONV_2D -> MEAN over H, W ->
FULLY_CONNECTED.
"""

from __future__ import annotations

from typing import Any

import flatbuffers
import numpy as np
from ai_edge_litert import schema_py_generated as s


def _options(target: Any, **fields: Any) -> Any:  # noqa: ANN401 - generated object-API classes
    for name, value in fields.items():
        setattr(target, name, value)
    return target


def narrow_weights_tflite(weight_type: str, seed: int = 0, channels: int = 128) -> bytes:
    """The .tflite bytes; ``weight_type`` "float16" or "int8"; input "x" [1, 12, 12, 16] float32,
    output "logits" [1, 32]."""
    rng = np.random.default_rng(seed)
    tensors: list[Any] = []
    buffers: list[Any] = [s.BufferT()]
    codes: list[Any] = []
    ops: list[Any] = []
    f32 = s.TensorType.FLOAT32

    def tensor(name: str, shape: list[int], ttype: int, data: np.ndarray | None = None,
               quant: Any = None) -> int:  # noqa: ANN401
        t = _options(s.TensorT(), name=name, shape=list(shape), type=ttype, buffer=0, quantization=quant)
        if data is not None:
            buffers.append(_options(s.BufferT(), data=np.frombuffer(np.ascontiguousarray(data).tobytes(),
                                                                     np.uint8)))
            t.buffer = len(buffers) - 1
        tensors.append(t)
        return len(tensors) - 1

    def op(builtin: int, inputs: list[int], outputs: list[int], options_type: int = 0,
           options: Any = None) -> None:  # noqa: ANN401
        if builtin not in [c.builtinCode for c in codes]:
            codes.append(_options(s.OperatorCodeT(), builtinCode=builtin,
                                  deprecatedBuiltinCode=min(builtin, 127), version=1))
        ops.append(_options(s.OperatorT(), opcodeIndex=[c.builtinCode for c in codes].index(builtin),
                            inputs=inputs, outputs=outputs, builtinOptionsType=options_type,
                            builtinOptions=options))

    def weight(name: str, shape: list[int], axis: int) -> int:
        """A narrow constant and the DEQUANTIZE that widens it; returns the float32 tensor."""
        value = (rng.standard_normal(shape) * 0.2).astype(np.float32)
        if weight_type == "float16":
            narrow = tensor(f"{name}_f16", shape, s.TensorType.FLOAT16, value.astype(np.float16))
        else:
            moved = np.moveaxis(value, axis, 0).reshape(shape[axis], -1)
            scale = (np.abs(moved).max(axis=1) / 127).astype(np.float32)
            q = np.clip(np.rint(value / scale.reshape([-1 if d == axis else 1 for d in range(len(shape))])),
                        -127, 127).astype(np.int8)
            quant = _options(s.QuantizationParametersT(), scale=[float(v) for v in scale],
                             zeroPoint=[0] * scale.size, quantizedDimension=axis)
            narrow = tensor(f"{name}_int8", shape, s.TensorType.INT8, q, quant)
        wide = tensor(name, shape, f32)
        op(s.BuiltinOperator.DEQUANTIZE, [narrow], [wide])
        return wide

    def bias(name: str, size: int) -> int:
        return tensor(name, [size], f32, (rng.standard_normal(size) * 0.1).astype(np.float32))

    x = tensor("x", [1, 12, 12, 16], f32)
    conv_out = tensor("conv", [1, 12, 12, channels], f32)
    op(s.BuiltinOperator.CONV_2D, [x, weight("w_conv", [channels, 3, 3, 16], 0), bias("b_conv", channels)],
       [conv_out], s.BuiltinOptions.Conv2DOptions,
       _options(s.Conv2DOptionsT(), padding=s.Padding.SAME, strideH=1, strideW=1, dilationHFactor=1,
                dilationWFactor=1, fusedActivationFunction=s.ActivationFunctionType.RELU))
    depthwise_out = tensor("depthwise", [1, 6, 6, channels], f32)
    op(s.BuiltinOperator.DEPTHWISE_CONV_2D,
       [conv_out, weight("w_depthwise", [1, 5, 5, channels], 3), bias("b_depthwise", channels)],
       [depthwise_out], s.BuiltinOptions.DepthwiseConv2DOptions,
       _options(s.DepthwiseConv2DOptionsT(), padding=s.Padding.SAME, strideH=2, strideW=2, depthMultiplier=1,
                dilationHFactor=1, dilationWFactor=1))
    axes = tensor("axes", [2], s.TensorType.INT32, np.array([1, 2], np.int32))
    mean = tensor("mean", [1, channels], f32)
    op(s.BuiltinOperator.MEAN, [depthwise_out, axes], [mean], s.BuiltinOptions.ReducerOptions,
       _options(s.ReducerOptionsT(), keepDims=False))
    logits = tensor("logits", [1, 32], f32)
    op(s.BuiltinOperator.FULLY_CONNECTED, [mean, weight("w_fc", [32, channels], 0), bias("b_fc", 32)],
       [logits], s.BuiltinOptions.FullyConnectedOptions, s.FullyConnectedOptionsT())
    graph = _options(s.SubGraphT(), tensors=tensors, operators=ops, inputs=[x], outputs=[logits])
    model = _options(s.ModelT(), version=3, operatorCodes=codes, subgraphs=[graph], buffers=buffers)
    builder = flatbuffers.Builder(1 << 16)
    builder.Finish(model.Pack(builder), file_identifier=b"TFL3")
    return bytes(builder.Output())


def constant_bytes(tflite: bytes) -> int:
    """Bytes of constant data in a .tflite (its buffers): the weights the file carries."""
    model = s.ModelT.InitFromObj(s.Model.GetRootAs(tflite, 0))
    return sum(len(b.data) for b in model.buffers or [] if b.data is not None)
