"""The bookkeeping of a .tflite being written: tensors, buffers, operator codes, the flatbuffer.

:mod:`lite_converter.app.peers.tflite_export` maps each .lite op onto TFLite builtins through a
:class:`TfliteWriter` (and :mod:`.tflite_int8_maps` the int8 element-wise maps); this module knows the
TFLite schema's object API (``ai_edge_litert.schema_py_generated``, shipped by the LiteRT wheel) and
nothing about which op becomes what.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import flatbuffers
import numpy as np

from lite_converter.reader import LiteModel

# .lite dtype -> (numpy dtype, TFLite TensorType name) of the tensors this exporter writes.
TYPES = {"FLOAT32": (np.float32, "FLOAT32"), "INT8": (np.int8, "INT8"), "INT32": (np.int32, "INT32")}


class ExportUnsupported(Exception):
    """The graph uses an op or a variant this exporter does not write."""


def _schema() -> Any:  # noqa: ANN401 - generated module
    # LiteRT is optional (the 'tflite' / 'bench' extras): imported only when a .tflite is written.
    from ai_edge_litert import schema_py_generated

    return schema_py_generated


class TfliteWriter:
    """The TFLite tensors, buffers and operators of one subgraph, and the .lite tensors they stand for."""

    def __init__(self, model: LiteModel) -> None:
        self.s = _schema()
        self.model = model
        self.tensors: list[Any] = []
        self.buffers: list[Any] = [self.s.BufferT()]  # buffer 0: the empty buffer of activations
        self.codes: dict[int, int] = {}
        self.operator_codes: list[Any] = []
        self.operators: list[Any] = []
        self.mapped: dict[int, int] = {}

    # -- tensors ----------------------------------------------------------------------------------
    def add_tensor(self, shape: Sequence[int], tensor_type: int, name: str, data: np.ndarray | None,
                    quantization: Any = None) -> int:  # noqa: ANN401 - generated option classes
        buffer = 0
        if data is not None:
            entry = self.s.BufferT()
            entry.data = np.frombuffer(np.ascontiguousarray(data).tobytes(), dtype=np.uint8)
            self.buffers.append(entry)
            buffer = len(self.buffers) - 1
        tensor = self.s.TensorT()
        tensor.shape = [int(d) for d in shape]
        tensor.type = tensor_type
        tensor.buffer = buffer
        tensor.name = name
        tensor.quantization = quantization
        self.tensors.append(tensor)
        return len(self.tensors) - 1

    def quantization(self, quant: dict[str, Any] | None, axis: int | None = None) -> Any:  # noqa: ANN401
        """TFLite quantization parameters from a .lite tensor's (``axis`` overrides the channel axis)."""
        if not quant:
            return None
        params = self.s.QuantizationParametersT()
        params.scale = [float(v) for v in quant["scale"]]
        zero_point = quant.get("zero_point") or [0] * len(params.scale)
        params.zeroPoint = [int(v) for v in zero_point]
        stored_axis = quant.get("axis", -1)
        params.quantizedDimension = axis if axis is not None else max(int(stored_axis), 0)
        return params

    def tensor(self, index: int) -> int:
        """The TFLite tensor of .lite tensor ``index`` (float32, or int8 / int32 with quantization)."""
        if index in self.mapped:
            return self.mapped[index]
        info = self.model.tensors[index]
        if info.dtype not in TYPES:
            raise ExportUnsupported(f"tensor {info.name!r} of dtype {info.dtype}")
        if info.shape is None or any(d < 0 for d in info.shape):
            raise ExportUnsupported(f"tensor {info.name!r} has a dynamic shape: fix the input shapes")
        dtype, type_name = TYPES[info.dtype]
        data = np.asarray(info.data, dtype=dtype) if info.data is not None else None
        tensor_type = getattr(self.s.TensorType, type_name)
        self.mapped[index] = self.add_tensor(info.shape, tensor_type, info.name, data,
                                              self.quantization(info.quantization))
        return self.mapped[index]

    def is_int8(self, index: int) -> bool:
        return self.model.tensors[index].dtype == "INT8"

    def constant(self, array: np.ndarray, name: str, quantization: Any = None) -> int:  # noqa: ANN401
        types = {np.dtype(np.float32): self.s.TensorType.FLOAT32, np.dtype(np.int32): self.s.TensorType.INT32,
                 np.dtype(np.int8): self.s.TensorType.INT8}
        return self.add_tensor(array.shape, types[array.dtype], name, array, quantization)

    def activation(self, shape: Sequence[int], name: str, like: int | None = None) -> int:
        """A new activation; with ``like`` (a .lite tensor index) of that tensor's type and quantization."""
        if like is None or not self.is_int8(like):
            return self.add_tensor(shape, self.s.TensorType.FLOAT32, name, None)
        quant = self.quantization(self.model.tensors[like].quantization)
        return self.add_tensor(shape, self.s.TensorType.INT8, name, None, quant)

    def shape_of(self, index: int) -> list[int]:
        shape = self.model.tensors[index].shape
        assert shape is not None
        return list(shape)

    # -- operators --------------------------------------------------------------------------------
    def emit(self, builtin: int, inputs: list[int], outputs: list[int], options_type: int = 0,
             options: Any = None) -> None:  # noqa: ANN401 - generated option classes
        if builtin not in self.codes:
            code = self.s.OperatorCodeT()
            code.builtinCode = builtin
            code.deprecatedBuiltinCode = min(builtin, 127)
            code.version = 1
            self.operator_codes.append(code)
            self.codes[builtin] = len(self.operator_codes) - 1
        op = self.s.OperatorT()
        op.opcodeIndex = self.codes[builtin]
        op.inputs = inputs
        op.outputs = outputs
        op.builtinOptionsType = options_type
        op.builtinOptions = options
        self.operators.append(op)

    def finish(self) -> bytes:
        graph = self.s.SubGraphT()
        graph.inputs = [self.tensor(i) for i in self.model.inputs]
        graph.outputs = [self.tensor(i) for i in self.model.outputs]
        graph.tensors = self.tensors
        graph.operators = self.operators
        graph.name = "main"
        model = self.s.ModelT()
        model.version = 3
        model.description = "written by lite_converter.app.peers.tflite_export"
        model.operatorCodes = self.operator_codes
        model.subgraphs = [graph]
        model.buffers = self.buffers
        builder = flatbuffers.Builder(1 << 20)
        builder.Finish(model.Pack(builder), file_identifier=b"TFL3")
        return bytes(builder.Output())


def emit_binary(w: TfliteWriter, opcode: str, inputs: list[int], output: int, fused: int) -> None:
    """One ADD / SUB / MUL / DIV with fused activation ``fused``."""
    s = w.s
    builtin, options_type, options = {
        "ADD": (s.BuiltinOperator.ADD, s.BuiltinOptions.AddOptions, s.AddOptionsT()),
        "SUB": (s.BuiltinOperator.SUB, s.BuiltinOptions.SubOptions, s.SubOptionsT()),
        "MUL": (s.BuiltinOperator.MUL, s.BuiltinOptions.MulOptions, s.MulOptionsT()),
        "DIV": (s.BuiltinOperator.DIV, s.BuiltinOptions.DivOptions, s.DivOptionsT()),
    }[opcode]
    options.fusedActivationFunction = fused
    w.emit(builtin, inputs, [output], options_type, options)


def scalar(w: TfliteWriter, value: float, name: str) -> int:
    """A one-element float32 constant."""
    return w.constant(np.array([value], np.float32), name)
