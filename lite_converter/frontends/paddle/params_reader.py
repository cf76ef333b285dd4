"""Reads a combined Paddle parameter file (``inference.pdiparams``) without Paddle.

The file is the tensors of the program's parameters back to back, in an order the program
determines (legacy: persistable variable names sorted; PIR: see pir_reader). Each tensor is

    uint32 version (0) | uint64 LoD level count, then per level: uint64 byte size + that many bytes
    | uint32 tensor version (0) | int32 TensorDesc size + a TensorDesc protobuf (data type, dims)
    | the raw little-endian data, numel * element size bytes

Nothing in the file says how many tensors there are or what they are called, so every size is
checked against what is left of the file before it is used: a truncated, padded or corrupted file
is refused with the tensor (and the byte offset) where it stopped making sense, and no read
allocates more than the file holds.
"""

from __future__ import annotations

import struct

import numpy as np

from lite_converter.frontends.paddle.dtypes import BF16_CODE, numpy_dtype
from lite_converter.frontends.paddle.framework_schema import TensorDesc
from lite_converter.ir import ConversionError

_MAX_LOD_LEVELS = 8
_MAX_RANK = 16
_MAX_DESC_BYTES = 4096


class _Cursor:
    """A position in the file's bytes that never reads past the end."""

    def __init__(self, data: bytes | memoryview, path: str) -> None:
        self.data = memoryview(data)
        self.offset = 0
        self.path = path

    def take(self, size: int, what: str) -> memoryview:
        if size < 0 or size > len(self.data) - self.offset:
            raise ConversionError(
                f"{self.path}: truncated or corrupt at byte {self.offset}: {what} needs "
                f"{size} bytes, {len(self.data) - self.offset} left"
            )
        chunk = self.data[self.offset : self.offset + size]
        self.offset += size
        return chunk

    def unpack(self, fmt: str, what: str) -> int:
        return int(struct.unpack(fmt, self.take(struct.calcsize(fmt), what))[0])


def _read_tensor(cursor: _Cursor, name: str) -> np.ndarray:
    where = f"parameter '{name}'"
    version = cursor.unpack("<I", f"{where}: version")
    if version != 0:
        raise ConversionError(
            f"{cursor.path}: {where} has tensor format version {version} at byte "
            f"{cursor.offset - 4}; only version 0 is known (is this a combined "
            f".pdiparams file?)"
        )
    levels = cursor.unpack("<Q", f"{where}: LoD level count")
    if levels > _MAX_LOD_LEVELS:
        raise ConversionError(f"{cursor.path}: {where} claims {levels} LoD levels; the file is corrupt")
    for _ in range(levels):
        size = cursor.unpack("<Q", f"{where}: LoD level size")
        cursor.take(size, f"{where}: LoD level data")
    tensor_version = cursor.unpack("<I", f"{where}: tensor version")
    if tensor_version != 0:
        raise ConversionError(f"{cursor.path}: {where} has tensor version {tensor_version}; only 0 is known")
    desc_size = cursor.unpack("<i", f"{where}: descriptor size")
    if not 0 <= desc_size <= _MAX_DESC_BYTES:
        raise ConversionError(
            f"{cursor.path}: {where} has a descriptor of {desc_size} bytes; the file is corrupt"
        )
    desc = TensorDesc()
    try:
        desc.ParseFromString(bytes(cursor.take(desc_size, f"{where}: descriptor")))
    except Exception as err:  # noqa: BLE001 - protobuf's DecodeError and friends: one message
        raise ConversionError(f"{cursor.path}: {where}: unreadable tensor descriptor ({err})") from err
    dtype = numpy_dtype(desc.data_type, f"{cursor.path}: {where}")
    dims = [int(d) for d in desc.dims]
    if len(dims) > _MAX_RANK or any(d < 0 for d in dims):
        raise ConversionError(f"{cursor.path}: {where} has dims {dims}; the file is corrupt")
    numel = 1
    for d in dims:
        numel *= d
    bfloat16 = desc.data_type == BF16_CODE
    storage = np.dtype(np.uint16) if bfloat16 else dtype
    raw = cursor.take(numel * storage.itemsize, f"{where}: data of shape {dims}")
    values = np.frombuffer(raw, dtype=storage.newbyteorder("<")).reshape(dims)
    if bfloat16:  # the high half of a float32
        return (values.astype(np.uint32) << 16).view(np.float32)
    return values.astype(storage, copy=True)


def read_params(data: bytes | memoryview, names: list[str], path: str = "params") -> dict[str, np.ndarray]:
    """The tensors of a combined parameter file, named in file order by ``names``.

    Raises ConversionError when the file holds fewer or more bytes than those tensors need.
    """
    cursor = _Cursor(data, path)
    params: dict[str, np.ndarray] = {}
    for name in names:
        params[name] = _read_tensor(cursor, name)
    left = len(cursor.data) - cursor.offset
    if left:
        raise ConversionError(
            f"{path}: {left} bytes left after the {len(names)} parameters the program "
            "names; the parameter file does not belong to this program or is corrupt"
        )
    return params
