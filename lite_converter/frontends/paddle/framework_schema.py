"""The protobuf schema of a legacy Paddle inference program (``inference.pdmodel``).

Written from the message layout Paddle documents for ``framework.proto`` (package
``paddle.framework.proto``): ProgramDesc -> BlockDesc -> VarDesc / OpDesc. Only the field numbers
and wire types matter for reading, so the schema is declared here as a small table and turned into
message classes at import time, in a private descriptor pool: no generated code to keep in step
with the installed protobuf, no protoc at build time, and no clash with Paddle's own classes when
both are imported in one process.

Two deliberate differences from Paddle's file: every field is ``optional`` (a file missing a
"required" field still parses, and the reader says what is missing in its own words), and enums
are plain ``int32`` (an unknown data type number reaches the reader as a number it can name in an
error instead of being dropped into unknown fields).
"""

from __future__ import annotations

from typing import Any

from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

_PACKAGE = "lite_converter.paddle_framework"

# (field name, number, repeated?, type); a type that is not a scalar names a message of this table.
_SCALARS = {
    "bool": descriptor_pb2.FieldDescriptorProto.TYPE_BOOL,
    "int32": descriptor_pb2.FieldDescriptorProto.TYPE_INT32,
    "int64": descriptor_pb2.FieldDescriptorProto.TYPE_INT64,
    "float": descriptor_pb2.FieldDescriptorProto.TYPE_FLOAT,
    "double": descriptor_pb2.FieldDescriptorProto.TYPE_DOUBLE,
    "string": descriptor_pb2.FieldDescriptorProto.TYPE_STRING,
}
_MESSAGES: dict[str, list[tuple[str, int, bool, str]]] = {
    "Version": [("version", 1, False, "int64")],
    "Complex": [("r", 1, False, "double"), ("i", 2, False, "double")],
    # type: 1 boolean, 2 long, 3 float64, 4 complex128
    "Scalar": [
        ("type", 1, False, "int32"),
        ("b", 2, False, "bool"),
        ("i", 3, False, "int64"),
        ("r", 4, False, "double"),
        ("c", 5, False, "Complex"),
    ],
    "OpAttr": [
        ("name", 1, False, "string"),
        ("type", 2, False, "int32"),
        ("i", 3, False, "int32"),
        ("f", 4, False, "float"),
        ("s", 5, False, "string"),
        ("ints", 6, True, "int32"),
        ("floats", 7, True, "float"),
        ("strings", 8, True, "string"),
        ("b", 10, False, "bool"),
        ("bools", 11, True, "bool"),
        ("block_idx", 12, False, "int32"),
        ("l", 13, False, "int64"),
        ("blocks_idx", 14, True, "int32"),
        ("longs", 15, True, "int64"),
        ("float64s", 16, True, "double"),
        ("var_name", 17, False, "string"),
        ("vars_name", 18, True, "string"),
        ("float64", 19, False, "double"),
        ("scalar", 20, False, "Scalar"),
        ("scalars", 21, True, "Scalar"),
    ],
    "OpVar": [("parameter", 1, False, "string"), ("arguments", 2, True, "string")],
    "OpDesc": [
        ("inputs", 1, True, "OpVar"),
        ("outputs", 2, True, "OpVar"),
        ("type", 3, False, "string"),
        ("attrs", 4, True, "OpAttr"),
        ("is_target", 5, False, "bool"),
    ],
    "TensorDesc": [("data_type", 1, False, "int32"), ("dims", 2, True, "int64")],
    "DenseTensorDesc": [("tensor", 1, False, "TensorDesc"), ("lod_level", 2, False, "int32")],
    "VarType": [
        ("type", 1, False, "int32"),
        ("selected_rows", 2, False, "TensorDesc"),
        ("dense_tensor", 3, False, "DenseTensorDesc"),
        ("tensor_array", 4, False, "DenseTensorDesc"),
    ],
    "VarDesc": [
        ("name", 1, False, "string"),
        ("type", 2, False, "VarType"),
        ("persistable", 3, False, "bool"),
        ("need_check_feed", 4, False, "bool"),
        ("is_parameter", 5, False, "bool"),
        ("stop_gradient", 6, False, "bool"),
    ],
    "BlockDesc": [
        ("idx", 1, False, "int32"),
        ("parent_idx", 2, False, "int32"),
        ("vars", 3, True, "VarDesc"),
        ("ops", 4, True, "OpDesc"),
        ("forward_block_idx", 5, False, "int32"),
    ],
    "ProgramDesc": [("blocks", 1, True, "BlockDesc"), ("version", 4, False, "Version")],
}

# OpDesc.Attr.type: which field holds the value.
ATTR_FIELDS = {
    0: "i",
    1: "f",
    2: "s",
    3: "ints",
    4: "floats",
    5: "strings",
    6: "b",
    7: "bools",
    8: "block_idx",
    9: "l",
    10: "blocks_idx",
    11: "longs",
    12: "float64s",
    13: "var_name",
    14: "vars_name",
    15: "float64",
    16: "scalar",
    17: "scalars",
}
REPEATED_ATTR_TYPES = {3, 4, 5, 7, 10, 11, 12, 14, 17}


def _file_descriptor() -> descriptor_pb2.FileDescriptorProto:
    proto = descriptor_pb2.FileDescriptorProto(
        name="lite_paddle_framework.proto", package=_PACKAGE, syntax="proto2"
    )
    for message_name, fields in _MESSAGES.items():
        message = proto.message_type.add(name=message_name)
        for field_name, number, repeated, kind in fields:
            field = message.field.add(name=field_name, number=number)
            field.label = (
                descriptor_pb2.FieldDescriptorProto.LABEL_REPEATED
                if repeated
                else descriptor_pb2.FieldDescriptorProto.LABEL_OPTIONAL
            )
            if kind in _SCALARS:
                field.type = _SCALARS[kind]
            else:
                field.type = descriptor_pb2.FieldDescriptorProto.TYPE_MESSAGE
                field.type_name = f".{_PACKAGE}.{kind}"
    return proto


def _message_classes() -> dict[str, Any]:
    pool = descriptor_pool.DescriptorPool()
    pool.Add(_file_descriptor())
    classes = {}
    for name in _MESSAGES:
        descriptor = pool.FindMessageTypeByName(f"{_PACKAGE}.{name}")
        if hasattr(message_factory, "GetMessageClass"):
            classes[name] = message_factory.GetMessageClass(descriptor)
        else:  # protobuf < 4.21
            classes[name] = message_factory.MessageFactory(pool).GetPrototype(descriptor)
    return classes


_CLASSES = _message_classes()
ProgramDesc = _CLASSES["ProgramDesc"]
TensorDesc = _CLASSES["TensorDesc"]
