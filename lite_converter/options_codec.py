"""Encodes a lowered node's attrs into its options table, and decodes a table back into a dict.

Generic on purpose: the field list, slot types and vector element sizes are read from the
flatc-generated builders in lite_fb/ (by calling them on a recording stand-in for the builder), so
appending a field to lite.fbs and regenerating needs no change here. Only what the generated
Python does not say is written down: which enum an enum-typed field uses.
"""

from __future__ import annotations

import dataclasses
import functools
import importlib
import inspect
import re
from typing import Any

import flatbuffers
import numpy as np

from lite_converter.ir import ConversionError
from lite_converter.lite_fb.Activation import CreateActivation
from lite_converter.lite_fb.ActivationKind import ActivationKind
from lite_converter.lite_fb.CoordinateMode import CoordinateMode
from lite_converter.lite_fb.DType import DType
from lite_converter.lite_fb.NearestMode import NearestMode
from lite_converter.lite_fb.Padding import Padding
from lite_converter.lite_fb.PadMode import PadMode
from lite_converter.lite_fb.ResizeMode import ResizeMode


class ScatterReduction:
    """ScatterOptions.reduction is a plain byte in lite.fbs; these are its documented values."""

    NONE = 0
    ADD = 1
    MUL = 2
    MAX = 3
    MIN = 4


# Enum-typed fields: flatc's Python output only says "int8", not which enum.
_ENUM_BY_FIELD: dict[str, type] = {
    "padding": Padding,
    "coordinate_mode": CoordinateMode,
    "nearest_mode": NearestMode,
    "to": DType,
}
_ENUM_BY_TABLE_FIELD: dict[tuple[str, str], type] = {
    ("ResizeOptions", "mode"): ResizeMode,
    ("PadOptions", "mode"): PadMode,
    ("ScatterOptions", "reduction"): ScatterReduction,
}

_VECTOR_DTYPES = {1: np.dtype("<u1"), 4: np.dtype("<i4"), 8: np.dtype("<i8")}


@dataclasses.dataclass(frozen=True)
class FieldSpec:
    """One field of an options table, as the generated builder writes it."""

    name: str  # snake_case, as in lite.fbs and in node attrs
    camel: str  # as in the generated accessors
    prepend: str  # builder method of the slot, e.g. "PrependInt32Slot"
    vector_dtype: np.dtype | None  # element type when the field is a vector
    enum: type | None

    @property
    def is_struct(self) -> bool:
        return self.prepend == "PrependStructSlot"


class _Recorder:
    """Stands in for a flatbuffers.Builder and remembers the builder calls made on it."""

    def __init__(self) -> None:
        self.calls: list[tuple[str, tuple[Any, ...]]] = []

    def __getattr__(self, method: str) -> Any:
        def record(*args: Any) -> int:
            self.calls.append((method, args))
            return 0

        return record


def _snake(camel: str) -> str:
    return re.sub(r"(?<!^)(?=[A-Z])", "_", camel).lower()


def _enum_members(enum: type) -> dict[str, int]:
    return {k: v for k, v in vars(enum).items() if not k.startswith("_") and isinstance(v, int)}


@functools.cache
def table_module(table: str) -> Any:
    return importlib.import_module(f"lite_converter.lite_fb.{table}")


@functools.cache
def table_fields(table: str) -> dict[str, FieldSpec]:
    """The fields of options table ``table`` by snake_case name, in slot order."""
    module = table_module(table)
    prefix = f"{table}Add"
    found: list[tuple[int, FieldSpec]] = []
    for attr in dir(module):
        if not attr.startswith(prefix):
            continue
        camel = attr[len(prefix) :]
        recorder = _Recorder()
        getattr(module, attr)(recorder, 0)
        method, args = recorder.calls[0]
        vector_dtype = None
        if method == "PrependUOffsetTRelativeSlot":
            start = _Recorder()
            getattr(module, f"{table}Start{camel}Vector")(start, 0)
            vector_dtype = _VECTOR_DTYPES[start.calls[0][1][0]]
            accessor = getattr(getattr(module, table), camel)
            if "Float32Flags" in inspect.getsource(accessor):  # a [float] vector, not [int]
                vector_dtype = np.dtype("<f4")
        name = _snake(camel)
        enum = _ENUM_BY_TABLE_FIELD.get((table, name), _ENUM_BY_FIELD.get(name))
        found.append((args[0], FieldSpec(name, camel, method, vector_dtype, enum)))
    return {spec.name: spec for _, spec in sorted(found, key=lambda item: item[0])}


def _enum_value(enum: type, value: Any, where: str) -> int:
    if isinstance(value, str):
        members = _enum_members(enum)
        if value.upper() not in members:
            raise ConversionError(f"{where}: '{value}' is not one of {', '.join(members)}")
        return members[value.upper()]
    return int(value)


def _scalar(spec: FieldSpec, value: Any, where: str) -> bool | int | float:
    if spec.enum is not None:
        return _enum_value(spec.enum, value, where)
    if isinstance(value, np.ndarray | list | tuple | dict | str | bytes):
        raise ConversionError(f"{where}: expected a scalar, got {type(value).__name__}")
    if spec.prepend == "PrependBoolSlot":
        return bool(value)
    if "Float" in spec.prepend:
        return float(value)
    if float(value) != int(value):
        raise ConversionError(f"{where}: expected an integer, got {value!r}")
    return int(value)


def _vector_bytes(spec: FieldSpec, value: Any, where: str) -> np.ndarray:
    assert spec.vector_dtype is not None
    if isinstance(value, bytes | bytearray):
        data = np.frombuffer(bytes(value), np.uint8)
    elif isinstance(value, np.ndarray | np.generic) and spec.vector_dtype.itemsize == 1:
        data = np.frombuffer(np.asarray(value).astype(value.dtype.newbyteorder("<")).tobytes(), np.uint8)
    elif spec.vector_dtype.kind == "f":
        return np.ascontiguousarray(np.asarray(value, np.float64).reshape(-1).astype(spec.vector_dtype))
    else:
        data = np.asarray(value).reshape(-1)
        if data.size and data.dtype.kind not in "iub":
            raise ConversionError(f"{where}: expected a list of integers, got {value!r}")
    info = np.iinfo(spec.vector_dtype)
    if data.size and (data.min() < info.min or data.max() > info.max):
        raise ConversionError(f"{where}: {value!r} does not fit {spec.vector_dtype.name}")
    return np.ascontiguousarray(data.astype(spec.vector_dtype))


def encode_options(builder: flatbuffers.Builder, table: str, attrs: dict[str, Any], where: str) -> int:
    """Writes ``attrs`` as options table ``table`` and returns its offset.

    ``where`` names the node in errors. Unknown attrs are an error, not silently dropped: a
    misspelled attr would otherwise run with the field's default.
    """
    fields = table_fields(table)
    unknown = sorted(set(attrs) - set(fields))
    if unknown:
        raise ConversionError(
            f"{where}: attribute(s) {', '.join(unknown)} are not fields of {table} "
            f"(fields: {', '.join(fields) or 'none'})"
        )
    module = table_module(table)
    vectors = {
        name: builder.CreateNumpyVector(_vector_bytes(spec, attrs[name], f"{where}.{name}"))
        for name, spec in fields.items()
        if spec.vector_dtype is not None and attrs.get(name) is not None
    }
    getattr(module, f"{table}Start")(builder)
    for name, spec in fields.items():
        value = attrs.get(name)
        if value is None:
            continue
        add = getattr(module, f"{table}Add{spec.camel}")
        if spec.vector_dtype is not None:
            add(builder, vectors[name])
        elif spec.is_struct:
            add(builder, _activation(builder, value, f"{where}.{name}"))
        else:
            try:
                add(builder, _scalar(spec, value, f"{where}.{name}"))
            except TypeError as error:  # flatbuffers' range check
                raise ConversionError(f"{where}.{name}: {value!r} is out of range ({error})") from None
    return getattr(module, f"{table}End")(builder)


def _activation(builder: flatbuffers.Builder, value: Any, where: str) -> int:
    if not isinstance(value, dict) or not set(value) <= {"kind", "alpha", "beta"}:
        raise ConversionError(f"{where}: expected {{'kind', 'alpha', 'beta'}}, got {value!r}")
    kind = _enum_value(ActivationKind, value.get("kind", "NONE"), where)
    return CreateActivation(builder, kind, float(value.get("alpha", 0.0)), float(value.get("beta", 0.0)))


def decode_options(table: str, union_table: flatbuffers.table.Table) -> dict[str, Any]:
    """Reads an options union member back into the attrs dict the writer was given
    (enum names as str, vectors as lists, the Activation struct as a dict)."""
    module = table_module(table)
    obj = getattr(module, table)()
    obj.Init(union_table.Bytes, union_table.Pos)
    result: dict[str, Any] = {}
    for name, spec in table_fields(table).items():
        if spec.vector_dtype is not None:
            length = getattr(obj, f"{spec.camel}Length")()
            getter = getattr(obj, spec.camel)
            convert = float if spec.vector_dtype.kind == "f" else int
            result[name] = [convert(getter(j)) for j in range(length)]
        elif spec.is_struct:
            struct = getattr(obj, spec.camel)()
            result[name] = None if struct is None else _activation_dict(struct)
        else:
            value = getattr(obj, spec.camel)()
            result[name] = _enum_name(spec.enum, value) if spec.enum is not None else value
    return result


def _activation_dict(struct: Any) -> dict[str, Any]:
    return {"kind": _enum_name(ActivationKind, struct.Kind()), "alpha": struct.Alpha(), "beta": struct.Beta()}


def _enum_name(enum: type, value: int) -> str | int:
    names = {v: k for k, v in _enum_members(enum).items()}
    return names.get(value, value)
