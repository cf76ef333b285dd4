"""Builds small .tflite models op by op with LiteRT's schema object API (no TensorFlow here), and
checks our conversion of them against LiteRT's own interpreter (the oracle of every TFLite import).

    m = TfliteModel()
    x = m.tensor("x", [1, 8, 8, 3])
    y = m.tensor("y", [1, 8, 8, 3])
    m.op("PRELU", [x, m.constant("alpha", slope)], [y])
    data = m.finish([x], [y])
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import flatbuffers
import numpy as np
from ai_edge_litert import schema_py_generated as s

_TYPES = {
    np.dtype(np.float32): s.TensorType.FLOAT32,
    np.dtype(np.int32): s.TensorType.INT32,
    np.dtype(np.int64): s.TensorType.INT64,
    np.dtype(np.int8): s.TensorType.INT8,
    np.dtype(np.bool_): s.TensorType.BOOL,
    np.dtype(np.float16): s.TensorType.FLOAT16,
}


def options(target: Any, **fields: Any) -> Any:  # noqa: ANN401 - generated object-API classes
    """``target`` with ``fields`` set (the generated T classes take no constructor arguments)."""
    for name, value in fields.items():
        setattr(target, name, value)
    return target


class TfliteModel:
    """A .tflite under construction: tensors, buffers and operators of one or more subgraphs."""

    def __init__(self) -> None:
        self.buffers: list[Any] = [s.BufferT()]
        self.codes: list[Any] = []
        self.subgraphs: list[Any] = []
        self.tensors: list[Any] = []
        self.ops: list[Any] = []

    def tensor(
        self,
        name: str,
        shape: list[int],
        dtype: Any = np.float32,  # noqa: ANN401
        data: np.ndarray | None = None,
        sparsity: Any = None,
        raw: bytes | None = None,
        quant: tuple[float, int] | None = None,
    ) -> int:  # noqa: ANN401
        """A tensor of the current subgraph; ``data`` (or ``raw`` bytes) makes it a constant; ``quant``
        (scale, zero point) makes it a per-tensor quantized one."""
        t = s.TensorT()
        t.name, t.shape, t.type, t.buffer = name.encode(), list(shape), _TYPES[np.dtype(dtype)], 0
        t.sparsity = sparsity
        if quant is not None:
            t.quantization = options(
                s.QuantizationParametersT(),
                scale=[float(quant[0])],
                zeroPoint=[int(quant[1])],
                quantizedDimension=0,
            )
        if data is not None or raw is not None:
            b = s.BufferT()
            payload = raw if raw is not None else np.ascontiguousarray(np.asarray(data, dtype)).tobytes()
            b.data = np.frombuffer(payload, np.uint8)
            self.buffers.append(b)
            t.buffer = len(self.buffers) - 1
        self.tensors.append(t)
        return len(self.tensors) - 1

    def resource(self, name: str) -> int:
        """A RESOURCE tensor of the current subgraph: the handle VAR_HANDLE writes."""
        t = s.TensorT()
        t.name, t.shape, t.type, t.buffer = name.encode(), [], s.TensorType.RESOURCE, 0
        self.tensors.append(t)
        return len(self.tensors) - 1

    def constant(self, name: str, value: Any, dtype: Any = None) -> int:  # noqa: ANN401
        array = np.asarray(value, dtype)
        return self.tensor(name, list(array.shape), array.dtype, array)

    def op(
        self,
        builtin: str | int,
        inputs: list[int],
        outputs: list[int],
        opts: Any = None,  # noqa: ANN401
        custom: str | None = None,
        version: int = 1,
        custom_options: bytes | None = None,
    ) -> None:
        """Appends an operator; ``opts`` is a generated *OptionsT object (its union type is derived);
        a custom op has its code in ``custom`` and its raw options in ``custom_options``."""
        code_value = (
            s.BuiltinOperator.CUSTOM
            if custom
            else (builtin if isinstance(builtin, int) else getattr(s.BuiltinOperator, builtin))
        )
        key = (code_value, custom)
        keys = [(c.builtinCode, c.customCode.decode() if c.customCode else None) for c in self.codes]
        if key not in keys:
            code = s.OperatorCodeT()
            code.builtinCode, code.deprecatedBuiltinCode, code.version = (
                code_value,
                min(code_value, 127),
                version,
            )
            code.customCode = custom.encode() if custom else None
            self.codes.append(code)
            keys.append(key)
        o = s.OperatorT()
        o.opcodeIndex = keys.index(key)
        o.customOptions = list(custom_options) if custom_options is not None else None
        o.inputs, o.outputs = list(inputs), list(outputs)
        if opts is not None:
            union_name = type(opts).__name__[:-1]  # Conv2DOptionsT -> Conv2DOptions
            o.builtinOptionsType = getattr(s.BuiltinOptions, union_name)
            o.builtinOptions = opts
        self.ops.append(o)

    def end_subgraph(self, inputs: list[int], outputs: list[int], name: str = "") -> None:
        """Closes the current subgraph; later tensors and ops go to a new one."""
        self.subgraphs.append(
            options(
                s.SubGraphT(),
                tensors=self.tensors,
                operators=self.ops,
                inputs=list(inputs),
                outputs=list(outputs),
                name=name.encode(),
            )
        )
        self.tensors, self.ops = [], []

    def finish(self, inputs: list[int] | None = None, outputs: list[int] | None = None) -> bytes:
        """The .tflite bytes (closing the current subgraph with ``inputs`` / ``outputs`` if given)."""
        if inputs is not None:
            self.end_subgraph(inputs, outputs or [])
        model = options(
            s.ModelT(),
            version=3,
            operatorCodes=self.codes,
            subgraphs=self.subgraphs,
            buffers=self.buffers,
            description=b"tests/tflite_builder.py",
        )
        builder = flatbuffers.Builder(1 << 16)
        builder.Finish(model.Pack(builder), file_identifier=b"TFL3")
        return bytes(builder.Output())


def run_litert(path: Path, feeds: list[np.ndarray]) -> list[np.ndarray]:
    """LiteRT's outputs, in the model's output order (its builtin kernels, XNNPACK left out)."""
    from ai_edge_litert import interpreter as litert  # optional extra, as in the frontend

    interpreter = litert.Interpreter(
        model_path=str(path),
        experimental_op_resolver_type=litert.OpResolverType.BUILTIN_WITHOUT_DEFAULT_DELEGATES,
    )
    interpreter.allocate_tensors()
    for detail, value in zip(interpreter.get_input_details(), feeds, strict=True):
        interpreter.set_tensor(detail["index"], np.ascontiguousarray(value, detail["dtype"]))
    interpreter.invoke()
    return [interpreter.get_tensor(d["index"]).copy() for d in interpreter.get_output_details()]


def run_ours(data: bytes, feeds: list[np.ndarray]) -> list[np.ndarray]:
    """Our runtime on our conversion of ``data``, in the model's output order."""
    from lite_converter.convert import convert_tflite
    from runtime_arm import Interpreter

    with Interpreter(model_content=convert_tflite(data)) as interpreter:
        return list(interpreter.run(list(feeds)).values())


def assert_matches_litert(
    data: bytes, feeds: list[np.ndarray], tmp_path: Path, rtol: float = 1e-5, int_steps: int = 0
) -> None:
    """Our outputs equal LiteRT's: fp32 within ``rtol`` relative to max(1, max|ref|), integer ones within
    ``int_steps`` (int8: quantization steps), bools exactly."""
    path = tmp_path / "model.tflite"
    path.write_bytes(data)
    theirs = run_litert(path, feeds)
    ours = run_ours(data, feeds)
    assert len(ours) == len(theirs)
    for index, (mine, ref) in enumerate(zip(ours, theirs, strict=True)):
        assert mine.shape == ref.shape, f"output {index}: shape {mine.shape} vs LiteRT {ref.shape}"
        if ref.dtype.kind == "f":
            bound = rtol * max(1.0, float(np.abs(ref).max(initial=0.0)))
            error = float(np.abs(mine.astype(np.float64) - ref).max(initial=0.0))
            assert error <= bound, f"output {index}: max error {error:.3g} > {bound:.3g}"
        elif ref.dtype.kind in "iu" and int_steps:
            steps = int(np.abs(mine.astype(np.int64) - ref.astype(np.int64)).max(initial=0))
            assert steps <= int_steps, f"output {index}: {steps} steps from LiteRT (bound {int_steps})"
        else:
            np.testing.assert_array_equal(mine, ref.astype(mine.dtype), err_msg=f"output {index}")
