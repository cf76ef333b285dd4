"""numpy dtype <-> .lite DType, shared by the writer, the reader and the CLI."""

from __future__ import annotations

import numpy as np

from lite_converter.lite_fb.DType import DType

_TO_LITE: dict[np.dtype, int] = {
    np.dtype(np.float32): DType.FLOAT32,
    np.dtype(np.float16): DType.FLOAT16,
    np.dtype(np.float64): DType.FLOAT64,
    np.dtype(np.int8): DType.INT8,
    np.dtype(np.uint8): DType.UINT8,
    np.dtype(np.int16): DType.INT16,
    np.dtype(np.int32): DType.INT32,
    np.dtype(np.int64): DType.INT64,
    np.dtype(np.bool_): DType.BOOL,
    np.dtype(np.uint16): DType.UINT16,
    np.dtype(np.uint32): DType.UINT32,
    np.dtype(np.uint64): DType.UINT64,
}
_FROM_LITE: dict[int, np.dtype] = {v: k for k, v in _TO_LITE.items()}
_NAMES: dict[int, str] = {v: k for k, v in vars(DType).items() if not k.startswith("_")}


def lite_dtype(dtype: np.dtype) -> int | None:
    """The DType value of a numpy dtype (byte order ignored), None when .lite has no such type."""
    return _TO_LITE.get(np.dtype(dtype).newbyteorder("="))


def numpy_dtype(value: int) -> np.dtype:
    """The numpy dtype of a DType value; KeyError for a value this converter does not know."""
    return _FROM_LITE[value]


def dtype_name(value: int) -> str:
    """ "FLOAT32" etc.; "DTYPE_<n>" for a value this converter does not know."""
    return _NAMES.get(value, f"DTYPE_{value}")
