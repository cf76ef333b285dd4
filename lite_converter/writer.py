"""Serializes a lowered, channels-last IR graph into the bytes of a .lite file.

Layout of the output: flatbuffers builds back to front, so the weight buffers, written first,
end up at the end of the file, each data vector starting at a 64-byte aligned file offset (the
runtime mmaps the file and uses weights in place). Identical constants share one buffer.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from typing import Any

import flatbuffers
import numpy as np

from lite_converter import __version__
from lite_converter.dtypes import lite_dtype
from lite_converter.ir import VALUE_KINDS, ConversionError, Graph, Node, Tensor
from lite_converter.lite_fb import Buffer as fb_buffer
from lite_converter.lite_fb import Graph as fb_graph
from lite_converter.lite_fb import KeyValue as fb_key_value
from lite_converter.lite_fb import MemoryPlan as fb_memory_plan
from lite_converter.lite_fb import Model as fb_model
from lite_converter.lite_fb import Operator as fb_operator
from lite_converter.lite_fb import Quantization as fb_quantization
from lite_converter.lite_fb import Tensor as fb_tensor
from lite_converter.lite_fb.OpOptions import OpOptions
from lite_converter.lite_fb.SchemaVersion import SchemaVersion
from lite_converter.lite_ops import LAYOUT_CLASS, OPTIONS_TABLE, LayoutClass, opcode_value
from lite_converter.options_codec import encode_options
from lite_converter.passes.memory_plan import MemoryPlan

FILE_IDENTIFIER = b"LITE"
BUFFER_ALIGNMENT = 64
PRODUCER = f"lite_converter {__version__}"


def serialize(graph: Graph, plan: MemoryPlan | None = None) -> bytes:
    """The .lite bytes of ``graph`` (lowered op codes, channels-last layout already applied).

    Raises ConversionError naming the node or tensor when the graph cannot be written: an op
    that is not a .lite op code, an attr that is not a field of its options table, a
    channels-last op still in NCHW, a tensor without a dtype.
    """
    bodies = subgraphs_of(graph)  # control-flow bodies: subgraph i + 1 of the file
    graphs = [graph, *bodies]
    for g in graphs:
        _check_ops(g)
    all_names = [_tensor_order(g) for g in graphs]
    constant_bytes = sum(g.tensors[n].data.nbytes for g, names in zip(graphs, all_names, strict=True)
                         for n in names if g.tensors[n].is_constant)
    total_names = sum(len(names) for names in all_names)
    builder = flatbuffers.Builder(constant_bytes + BUFFER_ALIGNMENT * (total_names + 16) + (1 << 16))

    buffer_indices, buffers = _write_buffers(builder, graphs, all_names)
    shared: dict[tuple, int] = {}  # identical shape / dim-name / quantization objects written once
    subgraph_index = {id(body): i + 1 for i, body in enumerate(bodies)}
    graph_tables = [_write_graph(builder, g, names, buffer_index, shared, subgraph_index)
                    for g, names, buffer_index in zip(graphs, all_names, buffer_indices, strict=True)]
    graph_table = graph_tables[0]
    names = all_names[0]
    subgraphs_vec = (_offset_vector(builder, fb_model.ModelStartSubgraphsVector, graph_tables[1:])
                     if bodies else None)

    buffers_vec = _offset_vector(builder, fb_model.ModelStartBuffersVector, buffers)
    metadata_vec = _offset_vector(
        builder,
        fb_model.ModelStartMetadataVector,
        [_key_value(builder, k, v) for k, v in graph.metadata.items()],
    )
    input_layouts = [graph.input_layouts.get(n, "") for n in graph.inputs]
    output_layouts = [graph.output_layouts.get(n, "") for n in graph.outputs]
    input_layouts_vec = _string_vector(builder, fb_model.ModelStartInputLayoutsVector, input_layouts)
    output_layouts_vec = _string_vector(builder, fb_model.ModelStartOutputLayoutsVector, output_layouts)
    plan_table = _write_plan(builder, plan, names) if plan is not None else None
    producer = builder.CreateString(PRODUCER)
    source_format = builder.CreateString(graph.source_format)

    fb_model.ModelStart(builder)
    fb_model.ModelAddSchemaVersion(builder, SchemaVersion.CURRENT)
    fb_model.ModelAddProducer(builder, producer)
    fb_model.ModelAddSourceFormat(builder, source_format)
    fb_model.ModelAddGraph(builder, graph_table)
    fb_model.ModelAddBuffers(builder, buffers_vec)
    fb_model.ModelAddMetadata(builder, metadata_vec)
    fb_model.ModelAddInputLayouts(builder, input_layouts_vec)
    fb_model.ModelAddOutputLayouts(builder, output_layouts_vec)
    if plan_table is not None:
        fb_model.ModelAddMemoryPlan(builder, plan_table)
    if subgraphs_vec is not None:
        fb_model.ModelAddSubgraphs(builder, subgraphs_vec)
    builder.Finish(fb_model.ModelEnd(builder), FILE_IDENTIFIER)
    return bytes(builder.Output())


def subgraphs_of(graph: Graph) -> list[Graph]:
    """The bodies of the control-flow ops (IR Graphs held in their attrs), nested ones too, each once,
    in the order they are first met: the file's subgraphs 1, 2, ..."""
    found: dict[int, Graph] = {}

    def walk(g: Graph) -> None:
        for node in g.nodes:
            for value in node.attrs.values():
                if isinstance(value, Graph) and id(value) not in found:
                    found[id(value)] = value
                    walk(value)

    walk(graph)
    return list(found.values())


def _write_graph(builder: flatbuffers.Builder, graph: Graph, names: list[str], buffer_index: dict[str, int],
                 shared: dict[tuple, int], subgraph_index: dict[int, int]) -> int:
    index = {name: i for i, name in enumerate(names)}
    # Symbolic dim names only where users see them (graph inputs and outputs): inside, they are the
    # exporter's inventions ("unk__77") that nothing reads.
    boundary = set(graph.inputs) | set(graph.outputs)
    tensors = [_write_tensor(builder, graph.tensors[name], buffer_index.get(name, 0), shared,
                             with_dim_names=name in boundary) for name in names]
    operators = [_write_operator(builder, node, index, subgraph_index) for node in graph.nodes]
    tensors_vec = _offset_vector(builder, fb_graph.GraphStartTensorsVector, tensors)
    operators_vec = _offset_vector(builder, fb_graph.GraphStartOperatorsVector, operators)
    inputs_vec = builder.CreateNumpyVector(np.array([index[n] for n in graph.inputs], np.int32))
    outputs_vec = builder.CreateNumpyVector(np.array([index[n] for n in graph.outputs], np.int32))
    value_inputs = [graph.inputs.index(n) for n in graph.value_inputs if n in graph.inputs]
    value_inputs_vec = builder.CreateNumpyVector(np.array(value_inputs, np.int32)) if value_inputs else None
    fb_graph.GraphStart(builder)
    fb_graph.GraphAddTensors(builder, tensors_vec)
    fb_graph.GraphAddOperators(builder, operators_vec)
    fb_graph.GraphAddInputs(builder, inputs_vec)
    fb_graph.GraphAddOutputs(builder, outputs_vec)
    if value_inputs_vec is not None:
        fb_graph.GraphAddValueInputs(builder, value_inputs_vec)
    return fb_graph.GraphEnd(builder)


def _check_ops(graph: Graph) -> None:
    """Lists every node that is not a lowered .lite op at once, not just the first."""
    bad = [f"'{node.name}' ({node.op_type})" for node in graph.nodes if node.op_type not in OPTIONS_TABLE]
    if bad:
        raise ConversionError(f"not lowered to .lite op codes: {', '.join(bad)}")


def _tensor_order(graph: Graph) -> list[str]:
    """The tensors to write, in order of first use; tensors nothing refers to are left out."""
    seen: dict[str, None] = {}
    for name in graph.inputs:
        seen[name] = None
    for node in graph.nodes:
        for name in (*node.inputs, *node.outputs):
            if name:
                seen[name] = None
    for name in graph.outputs:
        seen[name] = None
    missing = [name for name in seen if name not in graph.tensors]
    if missing:
        raise ConversionError(f"tensor(s) used but not defined in the graph: {', '.join(missing)}")
    return list(seen)


def _little_endian_bytes(data: np.ndarray) -> bytes:
    array = np.ascontiguousarray(data)
    if array.dtype.byteorder == ">" or (array.dtype.byteorder == "=" and np.little_endian is False):
        array = array.astype(array.dtype.newbyteorder("<"))
    return array.tobytes()


def _aligned_byte_vector(builder: flatbuffers.Builder, payload: bytes) -> int:
    """A [ubyte] vector whose first byte lands on a 64-byte boundary of the finished file.

    flatc 2.0.8's Python ignores force_align; Builder.StartVector aligns the vector's end (the
    builder grows downwards), and Finish pads the whole buffer to the largest alignment used, so
    an offset aligned from the end is aligned from the start too.
    """
    builder.StartVector(1, len(payload), BUFFER_ALIGNMENT)
    builder.head = builder.head - len(payload)
    builder.Bytes[builder.head : builder.head + len(payload)] = payload
    return builder.EndVector()


def _write_buffers(
    builder: flatbuffers.Builder, graphs: list[Graph], all_names: list[list[str]]
) -> tuple[list[dict[str, int]], list[int]]:
    """The constants of every graph (main graph and bodies) as buffers, identical bytes once; per
    graph, tensor name -> buffer index."""
    fb_buffer.BufferStart(builder)
    buffers = [fb_buffer.BufferEnd(builder)]  # buffer 0: "no data"
    by_digest: dict[bytes, int] = {}
    indices: list[dict[str, int]] = []
    for graph, names in zip(graphs, all_names, strict=True):
        buffer_index: dict[str, int] = {}
        for name in names:
            tensor = graph.tensors[name]
            if tensor.data is None:
                continue
            payload = _little_endian_bytes(tensor.data)
            key = hashlib.blake2b(payload, digest_size=32).digest()  # raw bytes: dtype does not matter
            if key not in by_digest:
                data = _aligned_byte_vector(builder, payload)
                fb_buffer.BufferStart(builder)
                fb_buffer.BufferAddData(builder, data)
                by_digest[key] = len(buffers)
                buffers.append(fb_buffer.BufferEnd(builder))
            buffer_index[name] = by_digest[key]
        indices.append(buffer_index)
    return indices, buffers


INT64_MAX = 2**63 - 1


def _shared(shared: dict[tuple, int], key: tuple, create: Callable[[], int]) -> int:
    """The offset of an identical object written earlier, else ``create()``'s. Flatbuffers allows any
    number of references to one object; a dynamic-shape model repeats the same shapes, dim names and
    activation scales hundreds of times (PP-OCR det int8: 2% of the file)."""
    if key not in shared:
        shared[key] = create()
    return shared[key]


def _write_tensor(builder: flatbuffers.Builder, tensor: Tensor, buffer: int, shared: dict[tuple, int],
                  with_dim_names: bool) -> int:
    dtype = tensor.data.dtype if tensor.data is not None else tensor.dtype
    if dtype is None:
        raise ConversionError(f"tensor '{tensor.name}' has no dtype")
    code = lite_dtype(dtype)
    if code is None:
        raise ConversionError(f"tensor '{tensor.name}': dtype {np.dtype(dtype)} has no .lite DType")
    shape = list(tensor.data.shape) if tensor.data is not None else tensor.shape
    if tensor.kind != "tensor":
        shape = [None]  # the runtime's view of the value's buffer: [bytes / dtype size]
    name = builder.CreateString(tensor.name)
    shape_vec = dim_names_vec = quant = None
    if shape is not None:
        dims = [d if isinstance(d, int) and d >= 0 else -1 for d in shape]
        if any(d > INT64_MAX for d in dims):  # shape inference on hostile constants (a Tile's repeats)
            raise ConversionError(f"tensor '{tensor.name}' has the shape {shape}: a dimension past 2^63 - 1")
        shape_vec = _shared(shared, ("shape", *dims),
                            lambda: builder.CreateNumpyVector(np.array(dims, np.int64)))
        if with_dim_names and any(isinstance(d, str) for d in shape):
            labels = [d if isinstance(d, str) else "" for d in shape]
            dim_names_vec = _shared(shared, ("dim_names", *labels), lambda: _offset_vector(
                builder, fb_tensor.TensorStartDimNamesVector,
                [builder.CreateSharedString(label) for label in labels]))
    if tensor.quant is not None:
        q = tensor.quant
        key = ("quant", np.asarray(q.scale, np.float32).tobytes(),
               np.asarray(q.zero_point).astype(np.int64).tobytes(), q.axis)
        quant = _shared(shared, key, lambda: _write_quantization(builder, tensor))
    fb_tensor.TensorStart(builder)
    fb_tensor.TensorAddName(builder, name)
    fb_tensor.TensorAddDtype(builder, code)
    if shape_vec is not None:
        fb_tensor.TensorAddShape(builder, shape_vec)
    if dim_names_vec is not None:
        fb_tensor.TensorAddDimNames(builder, dim_names_vec)
    fb_tensor.TensorAddBuffer(builder, buffer)
    if quant is not None:
        fb_tensor.TensorAddQuantization(builder, quant)
    if tensor.variable:
        fb_tensor.TensorAddVariable(builder, True)
    if tensor.kind != "tensor":
        fb_tensor.TensorAddKind(builder, VALUE_KINDS.index(tensor.kind))
    return fb_tensor.TensorEnd(builder)


def _write_quantization(builder: flatbuffers.Builder, tensor: Tensor) -> int:
    assert tensor.quant is not None
    scale = np.asarray(tensor.quant.scale, np.float32).reshape(-1)
    zero_point = np.asarray(tensor.quant.zero_point).reshape(-1).astype(np.int64)
    if tensor.quant.axis is None and (scale.size != 1 or zero_point.size != 1):
        raise ConversionError(f"tensor '{tensor.name}': per-tensor quantization with {scale.size} scales")
    scale_vec = builder.CreateNumpyVector(scale)
    # Per-channel symmetric weights: an absent zero_point vector means all zeros (8 bytes per channel saved).
    all_zero = tensor.quant.axis is not None and not zero_point.any()
    zero_point_vec = None if all_zero else builder.CreateNumpyVector(zero_point)
    fb_quantization.QuantizationStart(builder)
    fb_quantization.QuantizationAddScale(builder, scale_vec)
    if zero_point_vec is not None:
        fb_quantization.QuantizationAddZeroPoint(builder, zero_point_vec)
    fb_quantization.QuantizationAddAxis(builder, -1 if tensor.quant.axis is None else int(tensor.quant.axis))
    return fb_quantization.QuantizationEnd(builder)


def _node_options(node: Node) -> dict[str, Any]:
    """The node's attrs minus `layout`, which only the channels-last ops carry, as "NHWC" by now."""
    attrs = dict(node.attrs)
    layout = attrs.pop("layout", None)
    if layout is not None:
        if LAYOUT_CLASS[node.op_type] is not LayoutClass.CHANNELS_LAST:
            raise ConversionError(f"node '{node.name}' ({node.op_type}): unexpected attribute 'layout'")
        if layout != "NHWC":
            raise ConversionError(
                f"node '{node.name}' ({node.op_type}) is still in layout {layout}: run to_channels_last first"
            )
    return attrs


def _write_operator(builder: flatbuffers.Builder, node: Node, index: dict[str, int],
                    subgraph_index: dict[int, int]) -> int:
    where = f"node '{node.name}' ({node.op_type})"
    attrs = {key: subgraph_index[id(value)] if isinstance(value, Graph) else value
             for key, value in _node_options(node).items()}
    table = OPTIONS_TABLE[node.op_type]
    if table is None and attrs:
        raise ConversionError(f"{where}: takes no attributes, got {', '.join(sorted(attrs))}")
    options = encode_options(builder, table, attrs, where) if table is not None else None
    name = builder.CreateString(node.name)
    inputs = builder.CreateNumpyVector(np.array([index[n] if n else -1 for n in node.inputs], np.int32))
    outputs = builder.CreateNumpyVector(np.array([index[n] if n else -1 for n in node.outputs], np.int32))
    fb_operator.OperatorStart(builder)
    fb_operator.OperatorAddOpcode(builder, opcode_value(node.op_type))
    fb_operator.OperatorAddName(builder, name)
    fb_operator.OperatorAddInputs(builder, inputs)
    fb_operator.OperatorAddOutputs(builder, outputs)
    if options is not None:
        fb_operator.OperatorAddOptionsType(builder, getattr(OpOptions, table))
        fb_operator.OperatorAddOptions(builder, options)
    return fb_operator.OperatorEnd(builder)


def _write_plan(builder: flatbuffers.Builder, plan: MemoryPlan, names: list[str]) -> int:
    if plan.arena_bytes > INT64_MAX:  # static tensors of hostile sizes (each dim fits, their bytes do not)
        largest = max(plan.offsets, key=lambda n: plan.offsets[n], default="")
        raise ConversionError(f"the activations need {plan.arena_bytes} bytes, past 2^63 - 1 (the tensor "
                              f"placed highest: '{largest}')")
    offsets = builder.CreateNumpyVector(np.array([plan.offsets.get(n, -1) for n in names], np.int64))
    fb_memory_plan.MemoryPlanStart(builder)
    fb_memory_plan.MemoryPlanAddArenaBytes(builder, int(plan.arena_bytes))
    fb_memory_plan.MemoryPlanAddOffsets(builder, offsets)
    return fb_memory_plan.MemoryPlanEnd(builder)


def _key_value(builder: flatbuffers.Builder, key: str, value: str) -> int:
    key_offset = builder.CreateString(str(key))
    value_offset = builder.CreateString(str(value))
    fb_key_value.KeyValueStart(builder)
    fb_key_value.KeyValueAddKey(builder, key_offset)
    fb_key_value.KeyValueAddValue(builder, value_offset)
    return fb_key_value.KeyValueEnd(builder)


def _offset_vector(builder: flatbuffers.Builder, start: Any, offsets: list[int]) -> int:
    start(builder, len(offsets))
    for offset in reversed(offsets):
        builder.PrependUOffsetTRelative(offset)
    return builder.EndVector()


def _string_vector(builder: flatbuffers.Builder, start: Any, strings: list[str]) -> int:
    return _offset_vector(builder, start, [builder.CreateString(s) for s in strings])
