"""A LiteRT reference for models with MediaPipe's custom ``Convolution2DTransposeBias``.

LiteRT's pip package does not register MediaPipe's custom ops, so the selfie-segmentation models
cannot run there as shipped. That op is, by MediaPipe's definition, TFLite's TRANSPOSE_CONV with a
bias (inputs x, weights [O, KH, KW, I], bias; options the raw TfLiteTransposeConvParams struct:
int32 padding 1 SAME / 2 VALID, int32 stride_w, int32 stride_h; output shape that of its output
tensor). Rewriting each such node into the builtin TRANSPOSE_CONV (version 3: bias as 4th input) gives
a file LiteRT runs with its own kernels, an oracle independent of our import of the custom op.
`lite check` (litert_oracle.py) and the corpus run (benchmarks/model_zoo/run.py) use it.
"""

from __future__ import annotations

from typing import Any

import numpy as np

CUSTOM_TRANSPOSE_CONV = b"Convolution2DTransposeBias"


def _schema() -> Any:  # noqa: ANN401 - the generated module
    from ai_edge_litert import schema_py_generated

    return schema_py_generated


def has_custom_transpose_conv(data: bytes) -> bool:
    return CUSTOM_TRANSPOSE_CONV in data


def with_builtin_transpose_conv(data: bytes) -> bytes:
    """The .tflite ``data`` with every Convolution2DTransposeBias node as TRANSPOSE_CONV + bias."""
    import flatbuffers

    s = _schema()
    model = s.ModelT.InitFromObj(s.Model.GetRootAsModel(data, 0))
    custom = [i for i, c in enumerate(model.operatorCodes) if c.customCode == CUSTOM_TRANSPOSE_CONV]
    if not custom:
        return data
    code = s.OperatorCodeT()
    code.builtinCode = code.deprecatedBuiltinCode = s.BuiltinOperator.TRANSPOSE_CONV
    code.version = 3
    model.operatorCodes.append(code)
    transpose_conv = len(model.operatorCodes) - 1
    for subgraph in model.subgraphs:
        for op in subgraph.operators:
            if op.opcodeIndex not in custom:
                continue
            padding, stride_w, stride_h = (int(v) for v in np.frombuffer(bytes(op.customOptions[:12]), "<i4"))
            output = subgraph.tensors[op.outputs[0]]
            buffer = s.BufferT()
            buffer.data = np.frombuffer(np.asarray(output.shape, "<i4").tobytes(), np.uint8)
            model.buffers.append(buffer)
            shape = s.TensorT()
            shape.name, shape.shape, shape.type = b"%s_output_shape" % output.name, [4], s.TensorType.INT32
            shape.buffer = len(model.buffers) - 1
            subgraph.tensors.append(shape)
            options = s.TransposeConvOptionsT()
            options.padding = s.Padding.SAME if padding == 1 else s.Padding.VALID
            options.strideW, options.strideH = stride_w, stride_h
            x, weights, bias = list(op.inputs)[:3]
            op.inputs = [len(subgraph.tensors) - 1, weights, x, bias]
            op.opcodeIndex, op.customOptions = transpose_conv, None
            op.builtinOptionsType, op.builtinOptions = s.BuiltinOptions.TransposeConvOptions, options
    builder = flatbuffers.Builder(len(data) + 4096)
    builder.Finish(model.Pack(builder), file_identifier=b"TFL3")
    return bytes(builder.Output())
