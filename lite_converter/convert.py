"""Model -> .lite, the whole pipeline: one front half (``lower``) and one back half (``to_lite_bytes``).

``load_model`` is the one place a frontend is chosen, by input type: an ``onnx.ModelProto`` or a
path is ONNX, bytes or a path whose file starts like a flatbuffer with the TFL3 identifier (or ends
in .tflite) is TFLite, a Paddle inference model directory or program file (.pdmodel, or .json
with its .pdiparams) is Paddle. ``lower`` then brings any source to the lowered, channels-last IR:

* ONNX and Paddle (whose frontend writes ONNX-vocabulary nodes; a quantized Paddle model's
  quantize_linear / dequantize_linear pairs become QDQ nodes): check_supported -> optimize ->
  lower_to_lite -> to_channels_last. A QDQ model
  (QuantizeLinear / DequantizeLinear nodes) has those nodes turned into quantization tags first and
  becomes an int8 model after the channels-last pass (frontends/onnx_qdq*.py, docs/IMPORT_INT8.md);
* TFLite: the frontend maps the file onto the lowered, channels-last IR itself (with an int8
  model's own scales), so no pass runs.

For a float source the graph ``lower`` returns is the lowered fp32 graph right after the layout
pass: where slim's int8 pass goes (slim/pipeline.py calls ``load_model`` and ``lower`` rather than
spelling the steps again). ``to_lite_bytes`` = keep_weights_narrow -> plan_memory -> serialize.
The output file is written
only once every step succeeded, atomically: a failed conversion leaves no file (and no temp file)
behind, and never a truncated .lite that a device could try to load.
"""

from __future__ import annotations

import contextlib
import dataclasses
import os
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import onnx

from lite_converter.atomic_write import write_atomically
from lite_converter.frontends.onnx_control_flow import (
    BODY_ATTRS,
    body_model,
    formal_input_count,
    loop_invariant_constants,
    take_constant_captures,
)
from lite_converter.frontends.onnx_frontend import load_onnx
from lite_converter.frontends.onnx_qdq import (
    boundaries_kept,
    dense_tags,
    is_qdq_model,
    restore_dense_tags,
    strip_qdq,
)
from lite_converter.frontends.onnx_qdq_int8 import quantize_from_qdq
from lite_converter.frontends.paddle import is_paddle_model, load_paddle
from lite_converter.frontends.tflite_frontend import TFLITE_IDENTIFIER, load_tflite
from lite_converter.ir import ConversionError, Graph
from lite_converter.passes.keep_tensors import check_known, keep_as_outputs
from lite_converter.passes.keep_weights_narrow import keep_weights_narrow
from lite_converter.passes.layout_nhwc import to_channels_last
from lite_converter.passes.lower_to_lite import lower_to_lite
from lite_converter.passes.lowering import SHAPE_INPUTS
from lite_converter.passes.lowering.conversion_time import value_inputs_read_at_prepare
from lite_converter.passes.memory_plan import plan_memory
from lite_converter.passes.optimize import optimize
from lite_converter.passes.place_channel_pads import place_channel_pads
from lite_converter.passes.support import check_supported
from lite_converter.writer import FILE_IDENTIFIER as LITE_IDENTIFIER
from lite_converter.writer import serialize

ModelSource = str | os.PathLike | onnx.ModelProto | bytes
InputShapes = dict[str, list[int]]
InputValues = dict[str, np.ndarray | int | float]


@dataclasses.dataclass
class LoadedModel:
    """A source model as its frontend read it, before any pass.

    ``source_format``: "onnx", "tflite" or "paddle"; ``quantized``: the model carries its own int8
    scales (a QDQ-ONNX, an int8 .tflite, a quantized Paddle model), which conversion keeps; ``qdq``:
    the graph still holds its QuantizeLinear / DequantizeLinear nodes (``lower`` turns them into the
    int8 model).
    """

    graph: Graph
    source_format: str
    quantized: bool
    qdq: bool = False


def source_format(model: ModelSource) -> str:
    """"tflite" for bytes, a .tflite path or a file with the TFL3 identifier; "paddle" for a Paddle
    inference model (directory or program file); "onnx" for a .onnx path, a path that does not exist
    (the ONNX frontend says so) or a file that starts like a protobuf message. Anything else (a .lite
    file, an image, a zip...) is a ConversionError naming the formats we read, rather than whatever the
    ONNX parser makes of it ("Wire format was corrupt")."""
    if isinstance(model, onnx.ModelProto):
        return "onnx"
    if isinstance(model, bytes | bytearray):
        return "tflite"
    path = Path(model)
    if path.exists() and not path.is_dir() and not path.is_file():  # a FIFO or device: reading blocks
        raise ConversionError(f"{path} is not a regular file")
    if is_paddle_model(path):
        return "paddle"
    if path.suffix.lower() == ".tflite":
        return "tflite"
    if not path.is_file():
        return "onnx"
    with path.open("rb") as file:
        head = file.read(8)
    if head[4:8] == TFLITE_IDENTIFIER:
        return "tflite"
    if head[4:8] == LITE_IDENTIFIER:
        raise ConversionError(f"{path} is a .lite model already (run or inspect it as it is)")
    if path.suffix.lower() == ".onnx" or _starts_like_onnx(head):
        return "onnx"
    raise ConversionError(f"{path} is not a model format we read: ONNX (.onnx), TFLite (.tflite, identifier "
                          f"TFL3) or a Paddle inference model (its first bytes are {head.hex(' ')})")


# (field number, wire type) of every ModelProto field (onnx.proto): a serialized model starts with one.
_MODEL_PROTO_FIELDS = {(1, 0), (2, 2), (3, 2), (4, 2), (5, 0), (6, 2), (7, 2), (8, 2), (14, 2), (20, 2),
                       (25, 2)}


def _starts_like_onnx(head: bytes) -> bool:
    """Whether ``head`` starts with the tag of a ModelProto field (a varint of at most 2 bytes here)."""
    if not head:
        return False
    tag = head[0] & 0x7F
    if head[0] & 0x80:
        if len(head) < 2 or head[1] & 0x80:
            return False
        tag |= head[1] << 7
    return (tag >> 3, tag & 7) in _MODEL_PROTO_FIELDS


def load_model(model: ModelSource, input_shapes: InputShapes | None = None,
               frontend: str | None = None, params: str | os.PathLike | None = None,
               input_values: InputValues | None = None) -> LoadedModel:
    """Reads ``model`` with the frontend its type calls for (:func:`source_format`, or ``frontend``:
    "onnx" / "tflite" / "paddle" when the caller knows).

    ``input_shapes`` fixes ONNX and Paddle input shapes (e.g. {"x": [1, 3, 224, 224]}), and the
    dynamic dims (shape_signature -1) of a .tflite's inputs. ``input_values`` pins ONNX inputs to constants
    (e.g. {"sr": np.int64(16000)}): they leave the model's inputs, and an If whose condition they
    decide is replaced by its branch. ``params``: a Paddle model's parameter file
    when it is not beside the program. Raises ConversionError with a user-facing message.
    """
    kind = frontend or source_format(model)
    if kind == "paddle" and input_values:
        raise ConversionError("input values can be pinned for ONNX models only")
    if kind == "paddle":
        try:
            graph = load_paddle(model, params=params, input_shapes=input_shapes)  # type: ignore[arg-type]
        except _INCONSISTENCIES as err:  # e.g. a pool2d ksize of 0 (make fuzz's paddle target)
            raise _inconsistent("Paddle", err) from err
        qdq = is_qdq_model(graph)
        return LoadedModel(graph, "paddle", quantized=qdq, qdq=qdq)
    if kind == "tflite":
        if input_values:
            raise ConversionError("input values can be pinned for ONNX models only")
        try:
            graph = load_tflite(model, input_shapes)  # type: ignore[arg-type]
        except _INCONSISTENCIES as err:  # e.g. a tensor name that is not UTF-8 (make fuzz's tflite target)
            raise _inconsistent("TFLite", err) from err
        int8 = any(t.quant is not None and t.dtype == np.int8 for t in graph.tensors.values())
        return LoadedModel(graph, "tflite", quantized=int8)
    try:
        graph = load_onnx(model, input_shapes=input_shapes, input_values=input_values)  # type: ignore[arg-type]
    except _INCONSISTENCIES as err:  # shape inference over a file from anywhere (make fuzz's onnx target)
        raise _inconsistent("ONNX", err) from err
    qdq = is_qdq_model(graph)
    return LoadedModel(graph, "onnx", quantized=qdq, qdq=qdq)


# What a model whose parts contradict each other raises deep in inference or lowering.
_INCONSISTENCIES = (ValueError, IndexError, KeyError, TypeError, ArithmeticError)


def _inconsistent(kind: str, err: Exception) -> ConversionError:
    return ConversionError(f"the {kind} model is inconsistent, conversion stopped at "
                           f"{type(err).__name__}: {err}")


def lower(model: ModelSource | LoadedModel, input_shapes: InputShapes | None = None,
          keep_tensors: Sequence[str] = ()) -> Graph:
    """The lowered, channels-last IR graph of ``model`` (everything but memory plan and serialization);
    ``model`` may be what :func:`load_model` returned (then ``input_shapes`` was given there).

    ``keep_tensors``: source tensor names to keep as extra graph outputs where they survive the
    fusions (passes/keep_tensors.py); a name the source model does not have is refused.
    """
    loaded = model if isinstance(model, LoadedModel) else load_model(model, input_shapes)
    graph = loaded.graph
    check_known(graph, keep_tensors)
    if loaded.source_format == "tflite":
        keep_as_outputs(graph, keep_tensors)  # already lowered, in the model's own (NHWC) layout
        return graph  # the frontend produced the lowered, channels-last IR
    try:
        return _lower_onnx_vocabulary(graph, loaded.qdq, keep_tensors)
    except _INCONSISTENCIES as err:
        # A file from anywhere: shapes that contradict each other get this far
        # (tests/test_paddle_fuzz.py, make fuzz's onnx target); say so instead of crashing.
        raise _inconsistent("Paddle" if loaded.source_format == "paddle" else "ONNX", err) from err


def _lower_onnx_vocabulary(graph: Graph, qdq: bool, keep_tensors: Sequence[str] = ()) -> Graph:
    """Support check, optimization, lowering and layout of a frontend's ONNX-vocabulary graph; a graph
    with QuantizeLinear / DequantizeLinear nodes becomes an int8 graph with the scales they carry.
    ``keep_tensors`` become outputs after the fusions and before the layout pass, which brings them
    back to the source layout like any output."""
    int8_weighted = strip_qdq(graph) if qdq else set()
    with boundaries_kept(graph) if qdq else contextlib.nullcontext():
        check_supported(graph)
        optimize(graph)
        convert_bodies(graph)
        saved_tags = dense_tags(graph) if qdq else {}
        lower_to_lite(graph)
        restore_dense_tags(graph, saved_tags)
    keep_as_outputs(graph, keep_tensors)
    to_channels_last(graph)
    if qdq:
        quantize_from_qdq(graph, int8_weighted)
    return graph


def convert_bodies(graph: Graph) -> None:
    """Each If / Loop / Scan body becomes a lowered graph of its own, converted like a model whose
    inputs are the body's formal inputs and the outer values it reads (frontends/onnx_control_flow.py);
    the lowering then emits IF / LOOP / SCAN over them."""
    for node in graph.nodes:
        attrs = BODY_ATTRS.get(node.op_type, ()) if not node.domain else ()
        if not any(isinstance(node.attrs.get(attr), onnx.GraphProto) for attr in attrs):
            continue
        invariants = loop_invariant_constants(graph, node)
        constants = take_constant_captures(graph, node)
        for attr in attrs:
            if isinstance(node.attrs.get(attr), onnx.GraphProto):
                body = load_onnx(body_model(graph, node, attr, constants, invariants))
                # Small integer inputs (a loop's iteration number) may feed shape inputs (a Slice
                # start): those become value inputs, known when the body is prepared.
                body.value_inputs = [n for n in body.inputs if body.tensors[n].dtype is not None
                                     and body.tensors[n].dtype.kind in "iub"]
                body.value_inputs = value_inputs_read_at_prepare(body, SHAPE_INPUTS)
                lowered = _lower_onnx_vocabulary(body, is_qdq_model(body))
                if node.op_type == "Loop":
                    lowered.value_inputs += invariant_matmul_operands(lowered, formal_input_count(node))
                node.attrs[attr] = lowered


def invariant_matmul_operands(body: Graph, first_captured: int) -> list[str]:
    """A Loop body's captured values (the same at every iteration) read as a MATMUL's B: made value
    inputs, so the runtime packs B once per LOOP eval instead of at every iteration (SLANet's
    attention reads the encoder features that way: 30 % of its time went to packing them)."""
    captured = set(body.inputs[first_captured:]) - set(body.value_inputs)
    return [name for name in dict.fromkeys(
        node.inputs[1] for node in body.nodes if node.op_type == "MATMUL" and len(node.inputs) > 1)
        if name in captured and body.tensors[name].dtype == np.float32]


def to_lite_bytes(graph: Graph) -> bytes:
    """The .lite file of a lowered graph: fp16 / int8 source weights narrowed back (exactly), its arena
    plan for the declared shapes, then serialization."""
    graph = keep_weights_narrow(graph)
    place_channel_pads(graph)  # schedule only: the runtime's ADD then computes the PAD itself
    return serialize(graph, plan_memory(graph))


def convert(
    model: ModelSource | LoadedModel,
    output_path: str | os.PathLike | None = None,
    input_shapes: InputShapes | None = None,
    keep_tensors: Sequence[str] = (),
    input_values: InputValues | None = None,
) -> bytes:
    """Converts an ONNX (float or QDQ), .tflite (float or full-integer int8) or Paddle inference
    (float or quantized) model and returns the .lite bytes; when ``output_path`` is given they are
    also written there, atomically.

    ``input_shapes`` fixes ONNX input shapes; dims left dynamic in the model stay dynamic otherwise.
    ``keep_tensors`` names intermediate tensors of the source model to keep as extra outputs, in
    the source model's layout, for layer-by-layer debugging (passes/keep_tensors.py; those a fusion
    removed are not kept: the file's output list says which were).
    ``input_values`` pins ONNX inputs to constants (see :func:`load_model`).
    Raises lite_converter.ir.ConversionError with a user-facing message when conversion fails.
    """
    loaded = model if isinstance(model, LoadedModel) else load_model(model, input_shapes,
                                                                      input_values=input_values)
    data = to_lite_bytes(lower(loaded, keep_tensors=keep_tensors))
    if output_path is not None:
        write_atomically(output_path, data)
    return data


def convert_onnx(
    model: str | os.PathLike | onnx.ModelProto,
    output_path: str | os.PathLike | None = None,
    input_shapes: InputShapes | None = None,
    keep_tensors: Sequence[str] = (),
    input_values: InputValues | None = None,
) -> bytes:
    """:func:`convert` of an ONNX model (path or ModelProto)."""
    return convert(model, output_path, input_shapes, keep_tensors, input_values)


def convert_tflite(model: str | os.PathLike | bytes, output_path: str | os.PathLike | None = None,
                   input_shapes: InputShapes | None = None) -> bytes:
    """:func:`convert` of a .tflite model (path or bytes), whatever the file's name; ``input_shapes``
    sets the dynamic dims of its inputs."""
    return convert(load_model(model, input_shapes, frontend="tflite"), output_path)


def convert_paddle(
    model: str | os.PathLike,
    output_path: str | os.PathLike | None = None,
    input_shapes: InputShapes | None = None,
    params: str | os.PathLike | None = None,
) -> bytes:
    """:func:`convert` of a Paddle inference model; no Paddle package is needed.

    ``model`` is a directory holding inference.pdmodel (ProgramDesc) or inference.json (PIR) with
    inference.pdiparams, or the program file itself; ``params`` names the parameter file when it is
    not beside the program.
    """
    return convert(load_model(model, input_shapes, frontend="paddle", params=params), output_path)
