"""ONNX -> .lite, the whole pipeline in one call.

load_onnx -> check_supported -> optimize -> lower_to_lite -> to_channels_last -> plan_memory -> serialize.
A QDQ model (QuantizeLinear / DequantizeLinear nodes) has those nodes turned into quantization tags
first and becomes an int8 model after the channels-last pass (frontends/onnx_qdq*.py); a .tflite
goes through frontends/tflite_frontend.py instead (docs/IMPORT_INT8.md).
The output file is written only once every step succeeded, atomically: a failed conversion leaves
no file (and no temp file) behind, and never a truncated .lite that a device could try to load.
"""

from __future__ import annotations

import contextlib
import os

import onnx

from lite_converter.atomic_write import write_atomically
from lite_converter.frontends.onnx_frontend import load_onnx
from lite_converter.frontends.onnx_qdq import (
    boundaries_kept,
    dense_tags,
    is_qdq_model,
    restore_dense_tags,
    strip_qdq,
)
from lite_converter.frontends.onnx_qdq_int8 import quantize_from_qdq
from lite_converter.ir import ConversionError, Graph
from lite_converter.passes.layout_nhwc import to_channels_last
from lite_converter.passes.lower_to_lite import lower_to_lite
from lite_converter.passes.memory_plan import plan_memory
from lite_converter.passes.optimize import optimize
from lite_converter.passes.support import check_supported
from lite_converter.writer import serialize


def lower_onnx(
    model: str | os.PathLike | onnx.ModelProto, input_shapes: dict[str, list[int]] | None = None
) -> Graph:
    """The lowered, channels-last IR graph of an ONNX model (everything but serialization)."""
    return lower_graph(load_onnx(model, input_shapes=input_shapes))


def lower_paddle(model: str | os.PathLike, input_shapes: dict[str, list[int]] | None = None,
                 params: str | os.PathLike | None = None) -> Graph:
    """The lowered, channels-last IR graph of a Paddle inference model (directory or program file)."""
    from lite_converter.frontends.paddle import load_paddle

    graph = load_paddle(model, params=params, input_shapes=input_shapes)
    try:
        return lower_graph(graph)
    except (ValueError, IndexError, KeyError, TypeError, ArithmeticError) as err:
        # A Paddle file carries no checker of its own: ops whose declared shapes contradict each
        # other get this far (tests/test_paddle_fuzz.py); say so instead of crashing.
        raise ConversionError(f"{model}: the Paddle model is inconsistent, conversion stopped at "
                              f"{type(err).__name__}: {err}") from err


def lower_graph(graph: Graph) -> Graph:
    """Support check, optimization, lowering and layout of a frontend's ONNX-vocabulary graph.

    A graph with QuantizeLinear / DequantizeLinear nodes (QDQ-ONNX, quantized Paddle models)
    becomes an int8 graph with the scales those nodes carry."""
    qdq = is_qdq_model(graph)
    int8_weighted = strip_qdq(graph) if qdq else set()
    with boundaries_kept(graph) if qdq else contextlib.nullcontext():
        check_supported(graph)
        optimize(graph)
        saved_tags = dense_tags(graph) if qdq else {}
        lower_to_lite(graph)
        restore_dense_tags(graph, saved_tags)
    to_channels_last(graph)
    if qdq:
        quantize_from_qdq(graph, int8_weighted)
    return graph


def convert_tflite(model: str | os.PathLike | bytes, output_path: str | os.PathLike | None = None) -> bytes:
    """Converts a .tflite model (fp32 or full-integer int8) and returns the .lite bytes."""
    from lite_converter.frontends.tflite_frontend import load_tflite

    graph = load_tflite(model)
    data = serialize(graph, plan_memory(graph))
    if output_path is not None:
        write_atomically(output_path, data)
    return data


def convert_paddle(
    model: str | os.PathLike,
    output_path: str | os.PathLike | None = None,
    input_shapes: dict[str, list[int]] | None = None,
    params: str | os.PathLike | None = None,
) -> bytes:
    """Converts a Paddle inference model and returns the .lite bytes; no Paddle package is needed.

    ``model`` is a directory holding inference.pdmodel (ProgramDesc) or inference.json (PIR) with
    inference.pdiparams, or the program file itself. Otherwise as convert_onnx.
    """
    graph = lower_paddle(model, input_shapes, params)
    data = serialize(graph, plan_memory(graph))
    if output_path is not None:
        write_atomically(output_path, data)
    return data


def convert_onnx(
    model: str | os.PathLike | onnx.ModelProto,
    output_path: str | os.PathLike | None = None,
    input_shapes: dict[str, list[int]] | None = None,
) -> bytes:
    """Converts an ONNX model (path or ModelProto) and returns the .lite bytes.

    ``input_shapes`` fixes graph input shapes (e.g. {"x": [1, 3, 224, 224]}); dims left dynamic in
    the model stay dynamic otherwise. When ``output_path`` is given the bytes are also written there.
    Raises lite_converter.ir.ConversionError with a user-facing message when conversion fails.
    """
    graph = lower_onnx(model, input_shapes)
    data = serialize(graph, plan_memory(graph))
    if output_path is not None:
        write_atomically(output_path, data)
    return data
