"""Paddle's data type codes (ProgramDesc ``VarType.Type``, PIR type names) as numpy dtypes."""

from __future__ import annotations

import numpy as np

from lite_converter.ir import ConversionError

BF16_CODE = 22
# VarType.Type numbers of the plain-old-data types; bfloat16 is read into float32.
_CODES = {
    0: np.bool_,
    1: np.int16,
    2: np.int32,
    3: np.int64,
    4: np.float16,
    5: np.float32,
    6: np.float64,
    20: np.uint8,
    21: np.int8,
    BF16_CODE: np.float32,
}
_CODE_NAMES = {
    19: "size_t",
    23: "complex64",
    24: "complex128",
    32: "float8_e4m3fn",
    33: "float8_e5m2",
    36: "uint16",
    37: "uint32",
    38: "uint64",
}
# PIR builtin type names ("t_f32") and dtype attribute values ("float32").
_PIR_TYPES = {
    "t_bool": np.bool_,
    "t_i8": np.int8,
    "t_ui8": np.uint8,
    "t_i16": np.int16,
    "t_i32": np.int32,
    "t_i64": np.int64,
    "t_f16": np.float16,
    "t_bf16": np.float32,
    "t_f32": np.float32,
    "t_f64": np.float64,
}
_DTYPE_NAMES = {
    "bool": np.bool_,
    "int8": np.int8,
    "uint8": np.uint8,
    "int16": np.int16,
    "int32": np.int32,
    "int64": np.int64,
    "float16": np.float16,
    "bfloat16": np.float32,
    "float32": np.float32,
    "float64": np.float64,
}


def numpy_dtype(code: int, where: str) -> np.dtype:
    """The numpy dtype of a ProgramDesc data type number (bfloat16 -> float32)."""
    if code not in _CODES:
        name = _CODE_NAMES.get(code, f"number {code}")
        raise ConversionError(f"{where}: data type {name} is not supported")
    return np.dtype(_CODES[code])


def pir_type_dtype(name: str, where: str) -> np.dtype:
    """The numpy dtype of a PIR element type such as "t_f32" (dialect prefix removed)."""
    if name not in _PIR_TYPES:
        raise ConversionError(f"{where}: element type '{name}' is not supported")
    return np.dtype(_PIR_TYPES[name])


def dtype_from_name(name: str, where: str) -> np.dtype:
    """The numpy dtype of a Paddle dtype name such as "float32"."""
    key = name.removeprefix("paddle.")
    if key not in _DTYPE_NAMES:
        raise ConversionError(f"{where}: dtype '{name}' is not supported")
    return np.dtype(_DTYPE_NAMES[key])
