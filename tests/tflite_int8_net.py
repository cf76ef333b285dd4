"""A full-integer .tflite shaped like the TensorFlow converter's output, built with LiteRT's schema
object API (no TensorFlow here): int8 graph input and outputs, an explicit PAD before a VALID
stride-2 conv with fused RELU6, a SAME depthwise conv (filters [1, KH, KW, C], channel axis 3), ADD
of two different scales, AVERAGE_POOL_2D, MEAN without keepdims to a new scale, FULLY_CONNECTED with
per-tensor weights, int8 SOFTMAX (scale 1/256, zero point -128). Weights are random integers.
"""

from __future__ import annotations

from typing import Any

import flatbuffers
import numpy as np
from ai_edge_litert import schema_py_generated as s


def tflite_int8_net(seed: int = 0) -> bytes:
    """The .tflite bytes; inputs "x" [1, 9, 9, 3] int8, outputs "added" and "probabilities" int8."""
    rng = np.random.default_rng(seed)
    tensors: list[Any] = []
    buffers: list[Any] = [s.BufferT()]
    codes: list[Any] = []
    ops: list[Any] = []

    def quant(scale: Any, zero_point: Any, axis: int = 0) -> Any:  # noqa: ANN401
        q = s.QuantizationParametersT()
        q.scale = [float(v) for v in np.atleast_1d(scale)]
        q.zeroPoint = [int(v) for v in np.atleast_1d(zero_point)]
        q.quantizedDimension = axis
        return q

    def tensor(name: str, shape: list[int], ttype: int, q: Any = None,  # noqa: ANN401
               data: np.ndarray | None = None) -> int:
        t = s.TensorT()
        t.name, t.shape, t.type, t.quantization, t.buffer = name, list(shape), ttype, q, 0
        if data is not None:
            b = s.BufferT()
            b.data = np.frombuffer(np.ascontiguousarray(data).tobytes(), np.uint8)
            buffers.append(b)
            t.buffer = len(buffers) - 1
        tensors.append(t)
        return len(tensors) - 1

    def op(builtin: int, inputs: list[int], outputs: list[int], options_type: int = 0,
           options: Any = None) -> None:  # noqa: ANN401
        if builtin not in [c.builtinCode for c in codes]:
            code = s.OperatorCodeT()
            code.builtinCode, code.deprecatedBuiltinCode, code.version = builtin, min(builtin, 127), 1
            codes.append(code)
        o = s.OperatorT()
        o.opcodeIndex = [c.builtinCode for c in codes].index(builtin)
        o.inputs, o.outputs, o.builtinOptionsType, o.builtinOptions = inputs, outputs, options_type, options
        ops.append(o)

    i8, i32, ops_ = s.TensorType.INT8, s.TensorType.INT32, s.BuiltinOperator

    def weights(name: str, shape: list[int], scale: np.ndarray, axis: int) -> int:
        values = rng.integers(-127, 128, shape).astype(np.int8)
        return tensor(name, shape, i8, quant(scale, [0] * scale.size, axis), values)

    def bias(name: str, scale: np.ndarray, limit: int) -> int:
        values = rng.integers(-limit, limit, scale.size).astype(np.int32)
        return tensor(name, [scale.size], i32, quant(scale, [0] * scale.size, 0), values)

    x = tensor("x", [1, 9, 9, 3], i8, quant(0.02, -5))
    pads = tensor("pads", [4, 2], i32, None, np.array([[0, 0], [1, 1], [1, 1], [0, 0]], np.int32))
    padded = tensor("x_padded", [1, 11, 11, 3], i8, quant(0.02, -5))
    op(ops_.PAD, [x, pads], [padded], s.BuiltinOptions.PadOptions, s.PadOptionsT())

    w1_scale = (rng.random(4) * 0.01 + 0.005).astype(np.float32)
    c1 = tensor("c1", [1, 5, 5, 4], i8, quant(0.03, -128))
    conv = _options(s.Conv2DOptionsT(), padding=s.Padding.VALID, strideH=2, strideW=2, dilationHFactor=1,
                    dilationWFactor=1, fusedActivationFunction=s.ActivationFunctionType.RELU6)
    op(ops_.CONV_2D, [padded, weights("w1", [4, 3, 3, 3], w1_scale, 0),
                      bias("b1", w1_scale * np.float32(0.02), 2000)], [c1],
       s.BuiltinOptions.Conv2DOptions, conv)

    wd_scale = (rng.random(4) * 0.02 + 0.01).astype(np.float32)
    c2 = tensor("c2", [1, 5, 5, 4], i8, quant(0.04, -10))
    depthwise = _options(s.DepthwiseConv2DOptionsT(), padding=s.Padding.SAME, strideH=1, strideW=1,
                         depthMultiplier=1, dilationHFactor=1, dilationWFactor=1)
    op(ops_.DEPTHWISE_CONV_2D, [c1, weights("wd", [1, 3, 3, 4], wd_scale, 3),
                                bias("bd", wd_scale * np.float32(0.03), 500)], [c2],
       s.BuiltinOptions.DepthwiseConv2DOptions, depthwise)

    added = tensor("added", [1, 5, 5, 4], i8, quant(0.05, 0))
    op(ops_.ADD, [c1, c2], [added], s.BuiltinOptions.AddOptions, s.AddOptionsT())
    pooled = tensor("pooled", [1, 2, 2, 4], i8, quant(0.05, 0))
    pool = _options(s.Pool2DOptionsT(), padding=s.Padding.VALID, strideH=2, strideW=2, filterHeight=2,
                    filterWidth=2)
    op(ops_.AVERAGE_POOL_2D, [added], [pooled], s.BuiltinOptions.Pool2DOptions, pool)
    axes = tensor("axes", [2], i32, None, np.array([1, 2], np.int32))
    mean = tensor("mean", [1, 4], i8, quant(0.03, 1))
    op(ops_.MEAN, [pooled, axes], [mean], s.BuiltinOptions.ReducerOptions,
       _options(s.ReducerOptionsT(), keepDims=False))

    logits = tensor("logits", [1, 6], i8, quant(0.1, 0))
    op(ops_.FULLY_CONNECTED, [mean, weights("wf", [6, 4], np.array([0.01], np.float32), 0),
                              bias("bf", np.full(6, 0.0003, np.float32), 300)], [logits],
       s.BuiltinOptions.FullyConnectedOptions, s.FullyConnectedOptionsT())
    probabilities = tensor("probabilities", [1, 6], i8, quant(1 / 256, -128))
    op(ops_.SOFTMAX, [logits], [probabilities], s.BuiltinOptions.SoftmaxOptions,
       _options(s.SoftmaxOptionsT(), beta=1.0))

    graph = _options(s.SubGraphT(), tensors=tensors, operators=ops, inputs=[x],
                     outputs=[added, probabilities])
    model = _options(s.ModelT(), version=3, operatorCodes=codes, subgraphs=[graph], buffers=buffers)
    builder = flatbuffers.Builder(1 << 16)
    builder.Finish(model.Pack(builder), file_identifier=b"TFL3")
    return bytes(builder.Output())


def _options(target: Any, **fields: Any) -> Any:  # noqa: ANN401 - generated object-API classes
    for name, value in fields.items():
        setattr(target, name, value)
    return target
