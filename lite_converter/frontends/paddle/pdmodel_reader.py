"""Reads a legacy Paddle inference program (``inference.pdmodel``, a ProgramDesc protobuf).

Only block 0 is the inference program; other blocks belong to control-flow ops (while,
conditional_block), which the converter reports as unsupported ops. The inputs are the outputs of
the ``feed`` ops and the outputs the inputs of the ``fetch`` ops, each ordered by its ``col``
attribute. The parameter file holds every persistable variable of block 0 (feed / fetch holders
excepted) in sorted name order, which is the order Paddle's own loader uses.
"""

from __future__ import annotations

from typing import Any

from lite_converter.frontends.paddle.dtypes import numpy_dtype
from lite_converter.frontends.paddle.framework_schema import ATTR_FIELDS, REPEATED_ATTR_TYPES, ProgramDesc
from lite_converter.frontends.paddle.program import PaddleOp, PaddleProgram, PaddleVar, op_label
from lite_converter.ir import ConversionError

_DENSE_TENSOR = 7
_FEED_FETCH_TYPES = {9, 10}  # FEED_MINIBATCH, FETCH_LIST
# Attributes every op carries for training and debugging; never read, so never decoded.
_IGNORED_ATTRS = {"op_callstack", "op_namescope", "op_role", "op_role_var", "op_device", "with_quant_attr"}
_MAX_RANK = 16


def _attr_value(attr: Any) -> Any:
    field = ATTR_FIELDS.get(attr.type)
    if field is None:
        return None
    value = getattr(attr, field)
    if attr.type in (16, 17):  # SCALAR(S): boolean, long, float64
        scalars = value if attr.type == 17 else [value]
        decoded = [s.b if s.type == 1 else s.i if s.type == 2 else s.r for s in scalars]
        return decoded if attr.type == 17 else decoded[0]
    return list(value) if attr.type in REPEATED_ATTR_TYPES else value


def _variable(desc: Any, where: str) -> PaddleVar:
    var = PaddleVar(desc.name)
    if desc.type.type == _DENSE_TENSOR and desc.type.HasField("dense_tensor"):
        tensor = desc.type.dense_tensor.tensor
        var.dtype = numpy_dtype(tensor.data_type, f"{where}: variable '{desc.name}'")
        dims = [int(d) for d in tensor.dims]
        if len(dims) > _MAX_RANK:
            raise ConversionError(
                f"{where}: variable '{desc.name}' has rank {len(dims)}; the file is corrupt"
            )
        var.shape = [max(d, -1) for d in dims]  # Paddle writes other negative values for unknown dims
    return var


def _slots(entries: Any) -> dict[str, list[str]]:
    return {entry.parameter: list(entry.arguments) for entry in entries}


def read_pdmodel(data: bytes, path: str = "inference.pdmodel") -> PaddleProgram:
    """The program of a ProgramDesc file's bytes; ConversionError when they are not one."""
    program = ProgramDesc()
    try:
        program.ParseFromString(data)
    except Exception as err:  # noqa: BLE001 - protobuf's DecodeError / RecursionError: one message
        raise ConversionError(f"{path}: not a Paddle ProgramDesc file ({err})") from err
    if not program.blocks:
        raise ConversionError(f"{path}: the program has no blocks (not a Paddle inference model?)")
    block = program.blocks[0]
    variables: dict[str, PaddleVar] = {}
    persistable: list[str] = []
    for desc in block.vars:
        if not desc.name:
            raise ConversionError(f"{path}: a variable of block 0 has no name; the file is corrupt")
        variables[desc.name] = _variable(desc, path)
        if desc.persistable and desc.type.type not in _FEED_FETCH_TYPES:
            persistable.append(desc.name)
    feeds: dict[int, str] = {}
    fetches: dict[int, str] = {}
    ops: list[PaddleOp] = []
    for desc in block.ops:
        inputs, outputs = _slots(desc.inputs), _slots(desc.outputs)
        attrs = {attr.name: _attr_value(attr) for attr in desc.attrs if attr.name not in _IGNORED_ATTRS}
        if desc.type in ("feed", "fetch"):
            slot = outputs if desc.type == "feed" else inputs
            names = slot.get("Out" if desc.type == "feed" else "X") or []
            column = attrs.get("col", 0)
            target = feeds if desc.type == "feed" else fetches
            if len(names) != 1 or not isinstance(column, int) or column in target:
                raise ConversionError(
                    f"{path}: a {desc.type} op is malformed (variables {names}, col {column})"
                )
            target[column] = names[0]
            continue
        ops.append(PaddleOp(desc.type, inputs, outputs, attrs, op_label(desc.type, outputs)))
    if not feeds or not fetches:
        raise ConversionError(
            f"{path}: the program has no feed or no fetch ops; save it as an inference "
            "model (paddle.jit.save or paddle.static.save_inference_model)"
        )
    version = str(program.version.version) if program.HasField("version") else ""
    return PaddleProgram(
        "ProgramDesc",
        variables,
        ops,
        [feeds[c] for c in sorted(feeds)],
        [fetches[c] for c in sorted(fetches)],
        sorted(persistable),
        version=version,
    )
