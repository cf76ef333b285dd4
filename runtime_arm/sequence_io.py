"""Sequence and optional graph inputs / outputs (ONNX) through the C API's sequence calls.

``Interpreter.run`` takes a list of arrays for a sequence input (``None`` for an empty optional) and
returns a list for a sequence output, an array for an optional tensor, ``None`` for an empty optional,
as onnxruntime's Python API does. The buffer behind such a value is the runtime's own; these helpers
only ever go through ``lite_interpreter_set_input_sequence`` / ``..._output_sequence_element``.
"""

from __future__ import annotations

import ctypes
from typing import Any

import numpy as np

from runtime_arm._library import MAX_RANK, SequenceElementStruct
from runtime_arm.dtypes import numpy_dtype
from runtime_arm.errors import LiteError, Status

TENSOR, SEQUENCE, OPTIONAL_TENSOR, OPTIONAL_SEQUENCE = 0, 1, 2, 3


def set_input(interpreter: Any, index: int, kind: int, value: object, resize_only: bool = False) -> None:
    """Sets sequence / optional input ``index`` to ``value`` (a list of arrays, an array, or None);
    ``resize_only``: only resizes it (before other inputs are set: see lite_runtime.h)."""
    name = interpreter._input_names[index]
    dtype = interpreter._input_dtype(index)
    if value is None:
        arrays, count = [], -1
    elif kind == OPTIONAL_TENSOR:
        arrays = [np.asarray(value, order="C")]
        count = 1
    elif isinstance(value, list | tuple):
        arrays = [np.asarray(v, order="C") for v in value]
        count = len(arrays)
    else:
        raise LiteError(Status.INVALID_ARGUMENT, f"input {name!r} is a sequence: pass a list of arrays")
    elements = (SequenceElementStruct * max(count, 1))()
    for i, array in enumerate(arrays):
        if array.dtype != dtype or array.ndim > MAX_RANK:
            raise LiteError(Status.INVALID_ARGUMENT,
                            f"input {name!r}: element {i} is {array.dtype} of rank {array.ndim}, "
                            f"the sequence holds {dtype} (rank <= {MAX_RANK})")
        element = elements[i]
        element.dtype = interpreter._lib.lite_interpreter_input_dtype(interpreter._live(), index)
        element.rank = array.ndim
        for d, size in enumerate(array.shape):
            element.dims[d] = size
        element.data = array.ctypes.data
        element.bytes = array.nbytes
    call = (interpreter._lib.lite_interpreter_resize_input_sequence if resize_only
            else interpreter._lib.lite_interpreter_set_input_sequence)
    interpreter._check(call(interpreter._live(), index, elements, count))


def read_output(interpreter: Any, index: int, kind: int) -> list[np.ndarray] | np.ndarray | None:
    """Output ``index`` as a list of arrays (a sequence), an array (an optional tensor) or None."""
    lib, it = interpreter._lib, interpreter._live()
    has = lib.lite_interpreter_output_has_element(it, index)
    if has < 0:
        interpreter._check(Status.INVALID_ARGUMENT)
    if has == 0:
        return None
    values = []
    element = SequenceElementStruct()
    for i in range(lib.lite_interpreter_output_sequence_length(it, index)):
        interpreter._check(lib.lite_interpreter_output_sequence_element(it, index, i, ctypes.byref(element)))
        array = np.empty(tuple(element.dims[:element.rank]), dtype=numpy_dtype(element.dtype))
        if array.nbytes:
            ctypes.memmove(array.ctypes.data, element.data, array.nbytes)
        values.append(array)
    return values[0] if kind == OPTIONAL_TENSOR else values
