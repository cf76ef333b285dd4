"""The schema's DType values (``lite_dtype`` in the C API) and their numpy equivalents."""

from __future__ import annotations

import numpy as np

# Index = lite_dtype value (runtime_arm/schema/lite.fbs, enum DType).
NUMPY_BY_LITE: tuple[np.dtype, ...] = tuple(
    np.dtype(t)
    for t in (
        np.float32,
        np.float16,
        np.float64,
        np.int8,
        np.uint8,
        np.int16,
        np.int32,
        np.int64,
        np.bool_,
        np.uint16,
        np.uint32,
        np.uint64,
    )
)


def numpy_dtype(lite_dtype: int) -> np.dtype:
    """The numpy dtype for a lite_dtype value; ValueError for a value this binding does not know."""
    if not 0 <= lite_dtype < len(NUMPY_BY_LITE):
        raise ValueError(f"unknown lite dtype {lite_dtype}")
    return NUMPY_BY_LITE[lite_dtype]
