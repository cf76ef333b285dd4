"""Reads a .lite file back into plain, typed Python objects (for `lite inspect`, tests, tools).

This is not the runtime's loader: it decodes everything eagerly into dataclasses and dicts so
that a human or a test can look at it. Constant data stays a zero-copy numpy view of the bytes.
"""

from __future__ import annotations

import collections
import dataclasses
import os
import struct
from typing import Any

import numpy as np

from lite_converter.dtypes import dtype_name, numpy_dtype
from lite_converter.lite_fb.DType import DType
from lite_converter.lite_fb.Model import Model
from lite_converter.lite_fb.OpOptions import OpOptions
from lite_converter.lite_fb.SchemaVersion import SchemaVersion
from lite_converter.lite_ops import opcode_name
from lite_converter.options_codec import decode_options

FILE_IDENTIFIER = b"LITE"
_OPTIONS_NAMES = {v: k for k, v in vars(OpOptions).items() if not k.startswith("_") and isinstance(v, int)}


class LiteFileError(ValueError):
    """The bytes are not a .lite model this reader understands; the message says why."""


@dataclasses.dataclass
class TensorInfo:
    index: int
    name: str
    dtype: str  # DType name, e.g. "FLOAT32"
    shape: list[int] | None  # physical; -1 = dynamic; None = rank unknown
    dim_names: list[str] | None
    buffer: int  # 0 = activation
    data: np.ndarray | None  # constants only: a read-only view into the file
    data_offset: int | None  # file offset of the constant's first byte
    quantization: dict[str, Any] | None
    variable: bool = False  # state kept across invokes; ``data`` is its initial value

    @property
    def is_constant(self) -> bool:
        return self.buffer != 0 and not self.variable

    @property
    def nbytes(self) -> int | None:
        """Bytes of the tensor: stored size for constants, None for a dynamic activation."""
        if self.data is not None:
            return self.data.nbytes
        if self.shape is None or any(d < 0 for d in self.shape):
            return None
        try:
            itemsize = numpy_dtype_of(self.dtype).itemsize
        except KeyError:
            return None
        return int(np.prod(self.shape, dtype=np.int64)) * itemsize


@dataclasses.dataclass
class OperatorInfo:
    index: int
    opcode: str  # OpCode name, e.g. "CONV_2D"
    name: str
    inputs: list[int]  # tensor indices, -1 = absent optional input
    outputs: list[int]
    options_type: str | None  # the union member, e.g. "Conv2DOptions"
    options: dict[str, Any]


@dataclasses.dataclass
class MemoryPlanInfo:
    arena_bytes: int
    offsets: list[int]  # per tensor index, -1 when not in the arena


@dataclasses.dataclass
class SubgraphInfo:
    """A control-flow body (Model.subgraphs): op options name it as subgraph ``number`` (1-based)."""

    number: int
    tensors: list[TensorInfo]
    operators: list[OperatorInfo]
    inputs: list[int]
    outputs: list[int]
    used_by: list[str]  # "IF 'name' (then)", ... : the ops of any graph that run it

    def op_counts(self) -> dict[str, int]:
        return dict(collections.Counter(op.opcode for op in self.operators).most_common())


@dataclasses.dataclass
class LiteModel:
    file_size: int
    schema_version: int
    producer: str
    source_format: str
    tensors: list[TensorInfo]
    operators: list[OperatorInfo]
    inputs: list[int]
    outputs: list[int]
    metadata: dict[str, str]
    input_layouts: list[str]
    output_layouts: list[str]
    buffer_count: int
    memory_plan: MemoryPlanInfo | None
    subgraphs: list[SubgraphInfo] = dataclasses.field(default_factory=list)

    def tensor(self, name: str) -> TensorInfo:
        for tensor in self.tensors:
            if tensor.name == name:
                return tensor
        raise KeyError(name)

    @property
    def input_tensors(self) -> list[TensorInfo]:
        return [self.tensors[i] for i in self.inputs]

    @property
    def output_tensors(self) -> list[TensorInfo]:
        return [self.tensors[i] for i in self.outputs]

    def op_counts(self) -> dict[str, int]:
        """Op code name -> number of ops, most frequent first."""
        return dict(collections.Counter(op.opcode for op in self.operators).most_common())

    def all_op_counts(self) -> dict[str, int]:
        """Like ``op_counts`` over the main graph and every control-flow body."""
        counts = collections.Counter(op.opcode for op in self.operators)
        for graph in self.subgraphs:
            counts.update(op.opcode for op in graph.operators)
        return dict(counts.most_common())

    @property
    def weights_bytes(self) -> int:
        """Bytes of constant data (bodies included: they share the model's buffers), each buffer once."""
        seen: dict[int, int] = {}
        for tensor in [*self.tensors, *(t for graph in self.subgraphs for t in graph.tensors)]:
            if tensor.data is not None:
                seen[tensor.buffer] = tensor.data.nbytes
        return sum(seen.values())

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready description (constant data left out)."""
        return {
            "file_size": self.file_size,
            "schema_version": self.schema_version,
            "producer": self.producer,
            "source_format": self.source_format,
            "metadata": self.metadata,
            "inputs": [
                _io_dict(t, layout) for t, layout in zip(self.input_tensors, self.input_layouts, strict=False)
            ],
            "outputs": [
                _io_dict(t, layout)
                for t, layout in zip(self.output_tensors, self.output_layouts, strict=False)
            ],
            "op_counts": self.op_counts(),
            "operators": [dataclasses.asdict(op) for op in self.operators],
            "tensors": [
                {
                    "index": t.index,
                    "name": t.name,
                    "dtype": t.dtype,
                    "shape": t.shape,
                    "dim_names": t.dim_names,
                    "constant": t.is_constant,
                    "variable": t.variable,
                    "buffer": t.buffer,
                    "data_offset": t.data_offset,
                    "bytes": t.nbytes,
                    "quantization": t.quantization,
                }
                for t in self.tensors
            ],
            "weights_bytes": self.weights_bytes,
            "buffer_count": self.buffer_count,
            "memory_plan": None if self.memory_plan is None else dataclasses.asdict(self.memory_plan),
            "subgraphs": [
                {
                    "subgraph": graph.number,
                    "used_by": graph.used_by,
                    "inputs": [graph.tensors[i].name for i in graph.inputs],
                    "outputs": [graph.tensors[i].name for i in graph.outputs],
                    "op_counts": graph.op_counts(),
                    "operators": [dataclasses.asdict(op) for op in graph.operators],
                    "tensors": [{"index": t.index, "name": t.name, "dtype": t.dtype, "shape": t.shape,
                                 "constant": t.is_constant} for t in graph.tensors],
                }
                for graph in self.subgraphs
            ],
        }


def _io_dict(tensor: TensorInfo, layout: str) -> dict[str, Any]:
    return {
        "name": tensor.name,
        "dtype": tensor.dtype,
        "shape": tensor.shape,
        "dim_names": tensor.dim_names,
        "layout": layout,
    }


def numpy_dtype_of(name: str) -> np.dtype:
    """numpy dtype of a DType name as the reader reports it ("FLOAT32" -> float32)."""
    return numpy_dtype(getattr(DType, name))


def read_model(source: bytes | bytearray | memoryview | str | os.PathLike) -> LiteModel:
    """Decodes a .lite file given as bytes or a path; LiteFileError when it is not one."""
    if isinstance(source, str | os.PathLike):
        with open(source, "rb") as f:
            data = f.read()
    else:
        data = bytes(source)
    check_header(data)
    try:
        return _decode(data)
    except (IndexError, struct.error, ValueError, TypeError) as error:
        if isinstance(error, LiteFileError):
            raise
        raise LiteFileError(f"corrupt .lite file: {error}") from None


def check_header(data: bytes) -> None:
    """Checks the identifier and that this reader knows the schema version."""
    if len(data) < 8 or data[4:8] != FILE_IDENTIFIER:
        raise LiteFileError("not a .lite model (file identifier 'LITE' missing)")
    try:
        version = Model.GetRootAs(data, 0).SchemaVersion()
    except (IndexError, struct.error) as error:
        raise LiteFileError(f"corrupt .lite file: {error}") from None
    if version > SchemaVersion.CURRENT:
        raise LiteFileError(
            f"the model uses .lite schema version {version}; this lite_converter reads up to "
            f"{SchemaVersion.CURRENT}: upgrade lite_converter"
        )
    if version == 0:
        raise LiteFileError("corrupt .lite file: schema version 0")


def _string(value: bytes | None) -> str:
    return "" if value is None else value.decode("utf-8")


def _decode(data: bytes) -> LiteModel:
    model = Model.GetRootAs(data, 0)
    graph = model.Graph()
    if graph is None:
        raise LiteFileError("corrupt .lite file: no graph")
    buffers = [model.Buffers(i) for i in range(model.BuffersLength())]
    tensors = [_tensor(graph.Tensors(i), i, buffers, data) for i in range(graph.TensorsLength())]
    operators = [_operator(graph.Operators(i), i) for i in range(graph.OperatorsLength())]
    subgraphs = [_subgraph(model.Subgraphs(s), s + 1, buffers, data) for s in range(model.SubgraphsLength())]
    _note_users(operators, subgraphs)
    for body in subgraphs:
        _note_users(body.operators, subgraphs)
    plan = model.MemoryPlan()
    return LiteModel(
        file_size=len(data),
        schema_version=model.SchemaVersion(),
        producer=_string(model.Producer()),
        source_format=_string(model.SourceFormat()),
        tensors=tensors,
        operators=operators,
        inputs=[int(graph.Inputs(i)) for i in range(graph.InputsLength())],
        outputs=[int(graph.Outputs(i)) for i in range(graph.OutputsLength())],
        metadata={
            _string(model.Metadata(i).Key()): _string(model.Metadata(i).Value())
            for i in range(model.MetadataLength())
        },
        input_layouts=[_string(model.InputLayouts(i)) for i in range(model.InputLayoutsLength())],
        output_layouts=[_string(model.OutputLayouts(i)) for i in range(model.OutputLayoutsLength())],
        buffer_count=len(buffers),
        memory_plan=None
        if plan is None
        else MemoryPlanInfo(
            int(plan.ArenaBytes()), [int(plan.Offsets(i)) for i in range(plan.OffsetsLength())]
        ),
        subgraphs=subgraphs,
    )


def _subgraph(graph: Any, number: int, buffers: list[Any], data: bytes) -> SubgraphInfo:
    if graph is None:
        raise LiteFileError(f"corrupt .lite file: subgraph {number} is empty")
    return SubgraphInfo(
        number=number,
        tensors=[_tensor(graph.Tensors(i), i, buffers, data) for i in range(graph.TensorsLength())],
        operators=[_operator(graph.Operators(i), i) for i in range(graph.OperatorsLength())],
        inputs=[int(graph.Inputs(i)) for i in range(graph.InputsLength())],
        outputs=[int(graph.Outputs(i)) for i in range(graph.OutputsLength())],
        used_by=[],
    )


# The option fields that name a body, and how `lite inspect` calls that body's role.
_BODY_FIELDS = {"then_subgraph": "then", "else_subgraph": "else", "body_subgraph": "body"}


def _note_users(operators: list[OperatorInfo], subgraphs: list[SubgraphInfo]) -> None:
    """Records on each body which ops run it (an index out of range is the runtime's error to report)."""
    for op in operators:
        for field, role in _BODY_FIELDS.items():
            number = op.options.get(field)
            if isinstance(number, int) and 1 <= number <= len(subgraphs):
                subgraphs[number - 1].used_by.append(f"{op.opcode} '{op.name}' ({role})")


def _tensor(fb: Any, index: int, buffers: list[Any], data: bytes) -> TensorInfo:
    name = _string(fb.Name())
    dtype = dtype_name(fb.Dtype())
    shape = None if fb.ShapeIsNone() else [int(fb.Shape(j)) for j in range(fb.ShapeLength())]
    dim_names = None if fb.DimNamesIsNone() else [_string(fb.DimNames(j)) for j in range(fb.DimNamesLength())]
    buffer = int(fb.Buffer())
    array = offset = None
    if buffer != 0:
        if buffer >= len(buffers):
            raise LiteFileError(f"tensor '{name}' refers to buffer {buffer} of {len(buffers)}")
        array, offset = _constant(buffers[buffer], name, dtype, shape, data)
    quant = fb.Quantization()
    quantization = None
    if quant is not None:
        quantization = {
            "scale": [float(quant.Scale(j)) for j in range(quant.ScaleLength())],
            # an absent zero_point vector means zeros (the writer omits it for symmetric per-channel weights)
            "zero_point": [int(quant.ZeroPoint(j)) for j in range(quant.ZeroPointLength())]
            or [0] * quant.ScaleLength(),
            "axis": int(quant.Axis()),
        }
    return TensorInfo(index, name, dtype, shape, dim_names, buffer, array, offset, quantization,
                      bool(fb.Variable()))


def _constant(
    buffer: Any, name: str, dtype: str, shape: list[int] | None, data: bytes
) -> tuple[np.ndarray, int]:
    table = buffer._tab
    field = table.Offset(4)
    start = table.Vector(field) if field else 0
    size = table.VectorLen(field) if field else 0
    try:
        np_dtype = numpy_dtype_of(dtype).newbyteorder("<")
    except (KeyError, AttributeError):
        raise LiteFileError(f"constant '{name}' has unknown dtype {dtype}") from None
    if shape is None or any(d < 0 for d in shape):
        raise LiteFileError(f"constant '{name}' has no static shape")
    count = int(np.prod(shape, dtype=np.int64))
    if count * np_dtype.itemsize != size:
        raise LiteFileError(f"constant '{name}': {size} bytes of data for shape {shape} {dtype}")
    array = np.frombuffer(data, np_dtype, count, start).reshape(shape)
    return array, start


def _operator(fb: Any, index: int) -> OperatorInfo:
    options_type = int(fb.OptionsType())
    table_name = _OPTIONS_NAMES.get(options_type) if options_type else None
    options: dict[str, Any] = {}
    if table_name is not None:
        union = fb.Options()
        if union is not None:
            options = decode_options(table_name, union)
    return OperatorInfo(
        index=index,
        opcode=opcode_name(int(fb.Opcode())),
        name=_string(fb.Name()),
        inputs=[int(fb.Inputs(j)) for j in range(fb.InputsLength())],
        outputs=[int(fb.Outputs(j)) for j in range(fb.OutputsLength())],
        options_type=table_name,
        options=options,
    )
