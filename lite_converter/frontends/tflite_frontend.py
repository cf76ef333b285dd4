"""TFLite frontend: a .tflite flatbuffer (fp32 or full-integer int8) -> lowered, channels-last IR.

A .tflite graph is already what our back half produces: channels-last activations, OHWI conv
weights, fused activations and, for an int8 model, TFLite's int8 scheme, which is ours (per-channel
symmetric int8 weights, asymmetric per-tensor int8 activations, int32 bias). So the frontend maps
ops one to one onto .lite op codes with the file's own scales and zero points and skips the ONNX
passes. The file is read with the TFLite schema module the LiteRT wheel ships
(``ai_edge_litert.schema_py_generated``; no schema of ours, no TensorFlow).

Ops of the model that our runtime has no int8 kernel for run in fp32 between a DEQUANTIZE and a
QUANTIZE with the model's output scale (lite_converter/frontends/tflite_ops.py). Every op or
variant that cannot be imported is listed at once, by name, in one ConversionError.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import numpy as np

from lite_converter.frontends.tflite_op_table import CONVERTERS
from lite_converter.frontends.tflite_ops import enum_names
from lite_converter.frontends.tflite_refusals import (
    group_node_problems,
    opcode_name,
    subgraph_problems,
    unknown_op_lines,
)
from lite_converter.frontends.tflite_resize import resize_inputs
from lite_converter.frontends.tflite_sparsity import SparsityError, densify
from lite_converter.frontends.tflite_variables import VariableImport
from lite_converter.ir import ConversionError, Graph, Node, QuantParams

TFLITE_IDENTIFIER = b"TFL3"
# TFLite TensorType name -> numpy dtype of the tensors imported as they are.
_DTYPES = {"FLOAT32": np.float32, "INT8": np.int8, "INT32": np.int32, "INT64": np.int64,
           "FLOAT16": np.float16, "BOOL": np.bool_,
           "UINT8_OUTPUT": np.uint8}  # only a QUANTIZE's int8 -> uint8 output (tflite_ops.py::_quantize)


def schema() -> Any:  # noqa: ANN401 - generated module
    try:
        from ai_edge_litert import schema_py_generated
    except ModuleNotFoundError as error:
        raise ModuleNotFoundError(
            "reading .tflite files needs LiteRT's schema module: pip install 'ai-edge-litert==2.3.0' "
            "(the 'tflite' extra of this package)") from error
    return schema_py_generated


class TfliteGraphBuilder:
    """Turns one TFLite subgraph into IR: tensors first, then ops through tflite_ops' converters."""

    def __init__(self, model: Any, file_bytes: bytes = b"", index: int = 0,  # noqa: ANN401 - generated ModelT
                 bodies: dict[int, Graph | None] | None = None,
                 bound: dict[int, np.ndarray] | None = None) -> None:
        self.s = schema()
        self.model = model
        self.file_bytes = file_bytes  # buffers stored after the flatbuffer (offset / size) are read here
        self.index = index
        self.subgraph = model.subgraphs[index]
        # subgraphs imported for IF / WHILE, shared by every builder of the file (None: being built)
        self.bodies: dict[int, Graph | None] = bodies if bodies is not None else {}
        # body inputs (by position) that every caller binds to the same constant: imported as
        # constants of the body, so that its FULLY_CONNECTED / CONV weights are packed at load
        self.bound: dict[int, np.ndarray] = bound or {}
        self.graph = Graph(source_format="tflite")
        self.names: list[str] = []
        self.type_names = enum_names(self.s.TensorType)
        self.op_names = enum_names(self.s.BuiltinOperator)
        self.problems: list[str] = []
        self.readers: dict[str, list[Any]] = {}  # tensor name -> the TFLite operators reading it
        self.folded_pads: dict[str, tuple[str, list[int]]] = {}  # PAD output -> (its input, pads)
        self.variables = VariableImport(self)  # resource variables (tflite_variables.py)
        # uint8 tensors that a QUANTIZE writes (a model's uint8 output); other uint8 tensors are refused
        self.uint8_outputs = {int(o.outputs[0]) for o in self.subgraph.operators or []
                              if o.outputs is not None and len(o.outputs) == 1
                              and self.opcode_name(o) == "QUANTIZE"}
        # fp32 constants dequantized from int8 weights: their tags are the source's parameters, which
        # keep_weights_narrow uses to store them back as int8 (every other fp32 tag is dropped)
        self.weight_tags: set[str] = set()

    # -- tensors ----------------------------------------------------------------------------------
    def read_tensors(self) -> None:
        for index, tensor in enumerate(self.subgraph.tensors or []):
            raw_name = tensor.name.decode(errors="replace") if isinstance(tensor.name, bytes) \
                else str(tensor.name or "")
            name = self.graph.unique_name(raw_name or f"tensor_{index}")
            self.names.append(name)
            type_name = self.type_names.get(tensor.type, str(tensor.type))
            if type_name == "RESOURCE":  # a variable handle: VAR_HANDLE's output (tflite_variables.py)
                self.graph.tensors[name] = self.graph.tensor(name)
                continue
            if type_name == "UINT8" and index in self.uint8_outputs:
                type_name = "UINT8_OUTPUT"
            if type_name not in _DTYPES:
                self.problems.append(f"tensor '{name}': type {type_name} is not imported (int8 / float only)")
                self.graph.tensors[name] = self.graph.tensor(name)
                continue
            dtype = np.dtype(_DTYPES[type_name])
            shape = [int(d) for d in (tensor.shape if tensor.shape is not None else [])]
            data = self._buffer(tensor, name, dtype, shape)
            if data is not None and dtype == np.float16:
                data, dtype = data.astype(np.float32), np.dtype(np.float32)
            self.graph.tensors[name] = self.graph.tensor(name)
            ir_tensor = self.graph.tensors[name]
            ir_tensor.dtype, ir_tensor.shape, ir_tensor.data = dtype, shape, data
            ir_tensor.quant = self._quant(tensor.quantization, name)
        if self.index > 0:
            self._dynamic_body_shapes()
        inputs = _ints(self.subgraph.inputs)
        for position, value in self.bound.items():
            tensor = self.graph.tensors[self.names[inputs[position]]]
            tensor.dtype, tensor.shape, tensor.data = value.dtype, list(value.shape), value

    def _dynamic_body_shapes(self) -> None:
        """A body's activations keep the dims their shape_signature leaves dynamic (-1) dynamic: a WHILE
        whose carried value grows runs its body at other sizes than the stored one at every iteration
        (the runtime prepares them from the sizes fed in)."""
        for index in range(len(self.names)):
            self._keep_dynamic_dims_of(index)

    def keep_dynamic_dims(self, name: str) -> None:
        """Gives activation ``name`` its shape_signature's dynamic (-1) dims instead of the stored sizes."""
        self._keep_dynamic_dims_of(self.names.index(name))

    def _keep_dynamic_dims_of(self, index: int) -> None:
        tensor = self.graph.tensors[self.names[index]]
        signature = _ints(self.subgraph.tensors[index].shapeSignature)
        if tensor.data is None and tensor.shape is not None and len(signature) == len(tensor.shape) \
                and min(signature, default=0) < 0:
            tensor.shape = [None if s < 0 else d for s, d in zip(signature, tensor.shape, strict=True)]

    def _buffer(self, tensor: Any, name: str, dtype: np.dtype, shape: list[int]) -> np.ndarray | None:  # noqa: ANN401
        """The constant data of a tensor (a sparse one densified); None for an activation, or after
        noting in ``problems`` why the data cannot be read."""
        index, buffers = int(tensor.buffer), self.model.buffers or []
        if not 0 < index < len(buffers):
            return None
        buffer = buffers[index]
        if int(buffer.offset or 0) > 1:  # the data follows the flatbuffer in the file (large models)
            start, size = int(buffer.offset), int(buffer.size or 0)
            if start + size > len(self.file_bytes):
                self.problems.append(f"tensor '{name}': its data ({size} bytes at offset {start}) lies past "
                                     f"the end of the {len(self.file_bytes)}-byte file")
                return None
            raw = self.file_bytes[start:start + size]
        elif buffer.data is None or len(buffer.data) == 0:
            return None
        else:
            raw = np.asarray(buffer.data, np.uint8).tobytes()
        if len(raw) % dtype.itemsize:
            self.problems.append(f"tensor '{name}': {len(raw)} data bytes are not whole {dtype} values")
            return None
        values = np.frombuffer(raw, dtype=dtype)
        if tensor.sparsity is not None:
            try:
                return densify(values, shape, tensor.sparsity)
            except SparsityError as error:
                self.problems.append(f"tensor '{name}': its sparse format cannot be read: {error}")
                return None
        if values.size != int(np.prod(shape, dtype=np.int64)):
            self.problems.append(f"tensor '{name}': {values.size} values stored for shape {shape}")
            return None
        return values.reshape(shape).copy()

    def constant_value(self, tensor: Any) -> np.ndarray | None:  # noqa: ANN401 - a TensorT of any subgraph
        """The constant data of a tensor of any subgraph (float16 widened), None if it has none."""
        type_name = self.type_names.get(tensor.type, "")
        if type_name not in _DTYPES:
            return None
        shape = [int(d) for d in (tensor.shape if tensor.shape is not None else [])]
        raw = tensor.name
        name = raw.decode(errors="replace") if isinstance(raw, bytes) else str(raw or "")
        data = self._buffer(tensor, name, np.dtype(_DTYPES[type_name]), shape)
        return data.astype(np.float32) if data is not None and data.dtype == np.float16 else data

    def _quant(self, params: Any, name: str) -> QuantParams | None:  # noqa: ANN401
        if params is None or params.scale is None or len(params.scale) == 0:
            return None
        scale = np.asarray(params.scale, np.float32)
        zero_points = params.zeroPoint if params.zeroPoint is not None else [0] * scale.size
        zero_point = np.asarray(zero_points, np.int64)
        axis = int(params.quantizedDimension) if scale.size > 1 else None
        return QuantParams(scale, zero_point, axis)

    # -- helpers for the op converters -----------------------------------------------------------
    def name(self, index: int) -> str:
        return "" if index < 0 else self.names[index]

    def is_int8(self, name: str) -> bool:
        tensor = self.graph.tensors[name]
        return tensor.dtype == np.int8 and tensor.quant is not None

    def add_node(self, op_type: str, name: str, inputs: list[str], outputs: list[str], **attrs: Any) -> None:  # noqa: ANN401
        self.graph.nodes.append(Node(op_type, self.graph.unique_name(name), inputs, outputs, dict(attrs)))

    def dequantized(self, name: str) -> str:
        """An fp32 view of ``name``: itself if fp32, a numpy-dequantized constant, else a DEQUANTIZE."""
        tensor = self.graph.tensors[name]
        if not name or tensor.dtype == np.float32 or tensor.quant is None:
            return name
        if tensor.data is not None:
            quant = tensor.quant
            shape = [1] * tensor.data.ndim
            if quant.axis is not None:
                shape[quant.axis] = -1
            value = (quant.scale.reshape(shape) * (tensor.data.astype(np.float32)
                                                   - quant.zero_point.reshape(shape))).astype(np.float32)
            return self.graph.add_constant(f"{name}_fp32", value)
        fp32 = self.graph.add_tensor(f"{name}_fp32", np.float32, tensor.shape)
        self.add_node("DEQUANTIZE", f"{name}_dequantize", [name], [fp32])
        return fp32

    def fp32_output(self, name: str) -> tuple[str, Any]:  # noqa: ANN401
        """(tensor an fp32 op writes, finish()) for op output ``name``: a QUANTIZE follows if it is int8."""
        tensor = self.graph.tensors[name]
        if tensor.dtype != np.int8:
            return name, lambda: None
        fp32 = self.graph.add_tensor(f"{name}_fp32", np.float32, tensor.shape)
        return fp32, lambda: self.add_node("QUANTIZE", f"{name}_quantize", [fp32], [name])

    def opcode_name(self, operator: Any) -> str:  # noqa: ANN401
        return opcode_name(self.model, operator, self.op_names)

    def body(self, index: int, bound: dict[int, np.ndarray] | None = None) -> Graph:
        """Subgraph ``index`` imported as a control-flow body (once per file, shared by its callers);
        with ``bound`` (from :meth:`bindable`), a copy of its own whose inputs at those positions are
        those constants (and are no inputs of it)."""
        count = len(self.model.subgraphs)
        if not 0 < index < count:
            raise ConversionError(f"subgraph {self.index} runs subgraph {index}, which does not exist "
                                  f"({count} subgraphs; 0 is the main graph)")
        if index in self.bodies and self.bodies[index] is None:
            raise ConversionError(f"subgraph {index} runs itself through control flow: recursion is "
                                  "not supported")
        if index in self.bodies and not bound:
            return self.bodies[index]  # type: ignore[return-value]
        shared = self.bodies.get(index)  # the import every unbound caller shares, if made already
        self.bodies[index] = None  # being built: a call back into it is recursion
        body = TfliteGraphBuilder(self.model, self.file_bytes, index, self.bodies, bound).build()
        shared = shared if bound else body
        if shared is None:
            del self.bodies[index]
        else:
            self.bodies[index] = shared
        return body

    def bindable(self, indices: list[int], args: list[str],
                 passed_through: bool = False) -> dict[int, np.ndarray]:
        """The positions of ``args`` (a call's arguments to subgraphs ``indices``) that are constants
        of this graph (fp32 or integer, not quantized) and that every one of those subgraphs takes as
        an input, with their values. An input the subgraph also returns as an output stays an input
        unless ``passed_through`` (a WHILE body returning a carried value unchanged)."""
        bound = {}
        subgraphs = [self.model.subgraphs[i] for i in indices if 0 < i < len(self.model.subgraphs)]
        for position, name in enumerate(args):
            value = self.graph.constant(name)
            tensor = self.graph.tensors.get(name)
            if value is None or tensor is None or tensor.quant is not None or value.dtype == np.int8 \
                    or len(subgraphs) != len(indices):
                continue
            if all(self._takes_constant(graph, position, value, passed_through) for graph in subgraphs):
                bound[position] = value
        return bound

    def _takes_constant(self, subgraph: Any, position: int, value: np.ndarray,  # noqa: ANN401
                        passed_through: bool) -> bool:
        """Whether input ``position`` of ``subgraph`` can be ``value`` as a constant: declared with its
        dtype and shape, read once, and no output of it (unless ``passed_through``)."""
        inputs, outputs = _ints(subgraph.inputs), _ints(subgraph.outputs)
        if position >= len(inputs) or inputs.count(inputs[position]) > 1 \
                or not 0 <= inputs[position] < len(subgraph.tensors or []) \
                or (inputs[position] in outputs and not passed_through):
            return False
        tensor = subgraph.tensors[inputs[position]]
        declared = _DTYPES.get(self.type_names.get(tensor.type, ""))
        return declared is not None and np.dtype(declared) == value.dtype \
            and _ints(tensor.shape) == list(value.shape)

    def _dynamic_input_problems(self) -> list[str]:
        """Inputs whose shape_signature leaves a non-batch dim dynamic (-1): every shape of the file
        was computed for the placeholder size stored in ``shape`` (often 1), so importing it would
        give a model that only runs at that size. A dynamic batch dim is imported at its stored size."""
        problems = []
        for index in _ints(self.subgraph.inputs):
            tensor = self.subgraph.tensors[index]
            signature = _ints(tensor.shapeSignature)
            if any(d < 0 for d in signature[1:]):
                problems.append(f"input '{self.name(index)}' has dynamic dims (shape_signature {signature}, "
                                f"stored shape {_ints(tensor.shape)}): give its shape (input_shapes, "
                                f"lite convert --input-shape '{self.name(index)}=D0,D1,...')")
        return problems

    def _raise_problems(self) -> None:
        if self.problems:
            listed = "\n  - ".join(group_node_problems(self.problems))
            raise ConversionError(f"the .tflite model cannot be imported:\n  - {listed}")

    # -- the whole graph --------------------------------------------------------------------------
    def build(self) -> Graph:
        self.problems += unknown_op_lines(self.model, self.index, self.op_names)
        if self.index == 0:
            self.problems += subgraph_problems(self.model, self.op_names)
        self.read_tensors()
        operators = list(self.subgraph.operators or [])
        count = len(self.names)
        for position, operator in enumerate(operators):
            indices = [*_ints(operator.inputs), *_ints(operator.outputs)]
            if any(not -1 <= i < count for i in indices):
                self.problems.append(f"operator {position} ({self.opcode_name(operator)}) names tensors "
                                     f"{indices} of {count}")
                continue
            for index in _ints(operator.inputs):
                if index >= 0:
                    self.readers.setdefault(self.name(index), []).append(operator)
        for index in [*_ints(self.subgraph.inputs), *_ints(self.subgraph.outputs)]:
            if not 0 <= index < count:
                self.problems.append(f"the graph's inputs / outputs name tensor {index} of {count}")
        self._raise_problems()
        self.problems += self.variables.prepare()
        if self.index == 0:  # a body's inputs take the shapes its caller passes
            self.problems += self._dynamic_input_problems()
        self._raise_problems()
        for position, operator in enumerate(operators):
            opcode = self.opcode_name(operator)
            try:
                inputs = [self.name(i) for i in _ints(operator.inputs)]
                outputs = [self.name(i) for i in _ints(operator.outputs)]
                CONVERTERS[opcode](self, operator, inputs, outputs)
            except (AttributeError, IndexError, KeyError, TypeError, ValueError, ZeroDivisionError) as error:
                # a file whose operator contradicts its tensors or options (missing options, an index
                # past the tensor list, shapes that do not fit): say which, never an internal error
                self.problems.append(f"operator {position} ({opcode}) does not fit its tensors or options: "
                                     f"{type(error).__name__}: {error}")
        self._raise_problems()
        graph = self.graph
        inputs = _ints(self.subgraph.inputs)
        bound_names = {self.name(inputs[p]) for p in self.bound}
        graph.inputs = [self.name(i) for i in inputs if self.name(i) not in bound_names]
        outputs = [self.name(i) for i in _ints(self.subgraph.outputs)]
        graph.outputs = [n for n in outputs if n not in bound_names]  # a WHILE body's pass-through
        graph.input_layouts = {n: _layout(graph, n) for n in graph.inputs}
        graph.output_layouts = {n: _layout(graph, n) for n in graph.outputs}
        for name in graph.inputs:
            graph.tensors[name].data = None  # a graph input is never a constant, even with a buffer
        graph.toposort()
        graph.remove_unused_tensors()
        for tensor in graph.tensors.values():
            dtype = tensor.data.dtype if tensor.data is not None else tensor.dtype
            if tensor.quant is not None and dtype not in (np.int8, np.int32) \
                    and tensor.name not in self.weight_tags:
                tensor.quant = None  # fp32 tensors of a TFLite model may carry stale min/max-only params
        return graph


def _ints(values: Any) -> list[int]:  # noqa: ANN401 - a list or numpy array of the object API, or None
    return [] if values is None else [int(v) for v in values]


def _layout(graph: Graph, name: str) -> str:
    """TFLite images are NHWC, and the user feeds them as the model says."""
    return "NHWC" if len(graph.tensors[name].shape or []) == 4 else ""


def read_tflite(source: str | os.PathLike | bytes) -> tuple[Any, bytes]:  # noqa: ANN401 - generated ModelT
    """(the TFLite ModelT, the file's bytes) of a file or its bytes; ConversionError when it is not a
    .tflite."""
    if isinstance(source, bytes | bytearray):
        data = bytes(source)
    else:
        path = Path(source)
        if not path.is_file():
            raise ConversionError(f"TFLite model file not found: {path}")
        data = path.read_bytes()
    if len(data) < 8 or data[4:8] != TFLITE_IDENTIFIER:
        raise ConversionError("not a .tflite file (no TFL3 identifier)")
    try:
        model = schema().ModelT.InitFromPackedBuf(data, 0)
    except Exception as error:  # noqa: BLE001 - a corrupt flatbuffer raises anything
        raise ConversionError(f"cannot read the .tflite flatbuffer: {error}") from None
    if not model.subgraphs:
        raise ConversionError("the .tflite model has no subgraph")
    return model, data


def load_tflite(source: str | os.PathLike | bytes, input_shapes: dict[str, list[int]] | None = None) -> Graph:
    """The lowered, channels-last IR of a .tflite model's main graph (subgraph 0; ready for
    plan_memory and serialize); ``input_shapes`` sets inputs with dynamic dims (tflite_resize.py)."""
    model, data = read_tflite(source)
    problem = ""
    if input_shapes:
        try:
            resize_inputs(model, data, input_shapes)
        except ConversionError as error:  # listed with the model's other problems (unsupported ops...)
            problem = str(error)
    builder = TfliteGraphBuilder(model, data)
    if problem:
        builder.problems.append(problem)
    return builder.build()
