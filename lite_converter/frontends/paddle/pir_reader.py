"""Reads a Paddle 3 inference program in PIR form (``inference.json``).

The file is JSON: ``program.regions[0].blocks[0].ops``, each op ``{"#": name, "I": operands,
"O": results, "A": attributes}``. Op names carry a dialect number ("0" builtin, "1" pd_op);
values are numbered ("%"), 0 standing for an absent optional operand; types and attributes are
``{"#": kind, "D": data}``. Parameters are the compressed ``"p"`` op (``A`` = [.., .., .., name]).

Each op is rewritten into its legacy form through pir_ops.PIR_OPS; ops computed from attributes
alone (full, full_int_array, assign_value) become constants; builtin combine / split become the
lists of the slot they feed or come from. The parameter file holds the parameters in sorted name
order, as for legacy programs.
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np

from lite_converter.frontends.paddle.dtypes import dtype_from_name, pir_type_dtype
from lite_converter.frontends.paddle.pir_ops import CONSTANT_OPS, PIR_OPS, constant_value
from lite_converter.frontends.paddle.program import PaddleOp, PaddleProgram, PaddleVar, op_label
from lite_converter.ir import ConversionError

_DIALECTS = {"0": "builtin", "1": "pd_op", "2": "cf", "3": "custom_op", "4": "dist_op"}
_MAX_RANK = 16
_IGNORED_ATTRS = {"struct_name", "op_dist_attr", "op_role", "place", "stop_gradient"}
# Legacy attributes that hold one number where PIR passes a 1-element tensor.
_SCALAR_ATTRS = {"scale", "axis", "dropout_prob", "min", "max", "k", "depth", "value", "pad_value"}


class _Reader:
    def __init__(self, path: str) -> None:
        self.path = path
        self.vars: dict[str, PaddleVar] = {}
        self.ops: list[PaddleOp] = []
        self.constants: dict[str, np.ndarray] = {}
        self.vectors: dict[str, list[str]] = {}  # builtin.combine results
        self.vector_producers: dict[str, tuple[PaddleOp, str]] = {}
        self.feeds: list[str] = []
        self.fetches: dict[int, tuple[str, str]] = {}
        self.parameters: list[str] = []
        self.names: dict[int, str] = {}
        self.constant_op_types: set[str] = set()

    def fail(self, message: str) -> ConversionError:
        return ConversionError(f"{self.path}: {message}")

    # -- values and types -------------------------------------------------------------------------
    def value_type(self, type_json: Any, where: str) -> tuple[np.dtype | None, list[int] | None]:
        if not isinstance(type_json, dict):
            return None, None
        kind = str(type_json.get("#", ""))
        data = type_json.get("D")
        if kind.endswith("t_dtensor"):
            if not isinstance(data, list) or len(data) < 2 or not isinstance(data[0], dict):
                raise self.fail(f"{where}: malformed tensor type")
            element = str(data[0].get("#", "")).split(".", 1)[-1]
            dims = data[1]
            if (
                not isinstance(dims, list)
                or len(dims) > _MAX_RANK
                or not all(isinstance(d, int) and not isinstance(d, bool) for d in dims)
            ):
                raise self.fail(f"{where}: malformed dims {str(dims)[:80]}")
            return pir_type_dtype(element, where), [max(d, -1) for d in dims]
        return None, None

    def define(self, result: Any, hint: str, where: str) -> str:
        if not isinstance(result, dict) or not isinstance(result.get("%"), int):
            raise self.fail(f"{where}: a result has no value number")
        number = result["%"]
        if number in self.names or number <= 0:
            raise self.fail(f"{where}: value %{number} is defined twice")
        name = hint or f"v{number}"
        if name in self.vars:
            name = f"{name}__{number}"
        self.names[number] = name
        dtype, shape = self.value_type(result.get("TT"), where)
        self.vars[name] = PaddleVar(name, dtype, shape)
        return name

    def use(self, operand: Any, where: str) -> str:
        if not isinstance(operand, dict) or not isinstance(operand.get("%"), int):
            raise self.fail(f"{where}: an operand has no value number")
        number = operand["%"]
        if number == 0:
            return ""
        if number not in self.names:
            raise self.fail(f"{where}: operand %{number} is used before it is defined")
        return self.names[number]

    # -- attributes ---------------------------------------------------------------------------------
    def attr_value(self, attr: Any, where: str, depth: int = 0) -> Any:
        if not isinstance(attr, dict) or depth > 4:
            raise self.fail(f"{where}: malformed attribute")
        kind = str(attr.get("#", "")).split(".", 1)[-1]
        data = attr.get("D")
        if kind == "a_array":
            if not isinstance(data, list):
                raise self.fail(f"{where}: malformed array attribute")
            return [self.attr_value(item, where, depth + 1) for item in data]
        if kind == "a_dtype" and isinstance(data, str):
            return None if data.startswith("Undefined") else dtype_from_name(data, where)
        return data

    def attributes(self, op: dict, where: str) -> dict[str, Any]:
        attrs = {}
        for entry in op.get("A", []) or []:
            if not isinstance(entry, dict) or not isinstance(entry.get("N"), str):
                raise self.fail(f"{where}: malformed attribute list")
            if entry["N"] not in _IGNORED_ATTRS:
                attrs[entry["N"]] = self.attr_value(entry.get("AT"), f"{where}: attribute '{entry['N']}'")
        return attrs

    # -- ops ------------------------------------------------------------------------------------------
    def read_op(self, op: Any, index: int) -> None:
        if not isinstance(op, dict) or not isinstance(op.get("#"), str):
            raise self.fail(f"op #{index} is malformed")
        compressed = op["#"]
        if compressed == "p":
            self.read_parameter(op, index)
            return
        dialect, _, short = compressed.partition(".")
        name = f"{_DIALECTS.get(dialect, dialect)}.{short}"
        where = f"op #{index} ({name})"
        operands = op.get("I", [])
        results = op.get("O", [])
        if not isinstance(operands, list) or not isinstance(results, list):
            raise self.fail(f"{where}: malformed operands or results")
        attrs = self.attributes(op, where)
        if name == "pd_op.data":
            feed_name = attrs.get("name")
            if not isinstance(feed_name, str) or len(results) != 1 or feed_name in self.vars:
                raise self.fail(f"{where}: malformed data op")
            self.feeds.append(self.define(results[0], feed_name, where))
            return
        inputs = [self.use(operand, where) for operand in operands]
        if name == "pd_op.fetch":
            column = attrs.get("col", len(self.fetches))
            if len(inputs) != 1 or not inputs[0] or not isinstance(column, int) or column in self.fetches:
                raise self.fail(f"{where}: malformed fetch op")
            self.fetches[column] = (str(attrs.get("name", inputs[0])), inputs[0])
            return
        if name == "builtin.combine":
            if len(results) != 1:
                raise self.fail(f"{where}: malformed combine op")
            self.vectors[self.define(results[0], "", where)] = inputs
            return
        if name == "builtin.split":
            self.read_split(inputs, results, where)
            return
        if name in CONSTANT_OPS:
            if len(results) != 1:
                raise self.fail(f"{where}: malformed constant op")
            value_name = self.define(results[0], "", where)
            self.constants[value_name] = constant_value(name, attrs, self.vars[value_name], where)
            self.constant_op_types.add(CONSTANT_OPS[name])
            return
        self.read_mapped_op(name, inputs, results, attrs, where)

    def read_parameter(self, op: dict, index: int) -> None:
        attrs = op.get("A")
        if not isinstance(attrs, list) or not attrs or not isinstance(attrs[-1], str) or not attrs[-1]:
            raise self.fail(f"op #{index} (builtin.parameter): malformed")
        name = attrs[-1]
        if name in self.vars:
            raise self.fail(f"op #{index}: parameter '{name}' is defined twice")
        self.define(op.get("O"), name, f"parameter '{name}'")
        self.parameters.append(name)

    def read_split(self, inputs: list[str], results: list, where: str) -> None:
        if len(inputs) != 1 or inputs[0] not in self.vector_producers and inputs[0] not in self.vectors:
            raise self.fail(f"{where}: splits a value that is not a list")
        names = [self.define(result, "", where) for result in results]
        if inputs[0] in self.vectors:  # split of a combine: the same values again
            for name, source in zip(names, self.vectors[inputs[0]], strict=False):
                self.ops.append(
                    PaddleOp(
                        "assign", {"X": [source]}, {"Out": [name]}, {}, op_label("assign", {"Out": [name]})
                    )
                )
            return
        producer, slot = self.vector_producers[inputs[0]]
        producer.outputs[slot] = names
        producer.label = op_label(producer.type, producer.outputs)

    def read_mapped_op(
        self, name: str, inputs: list[str], results: list, attrs: dict[str, Any], where: str
    ) -> None:
        spec = PIR_OPS.get(name)
        legacy = spec.legacy if spec else name
        op = PaddleOp(legacy, {}, {}, dict(spec.attrs) if spec else {}, "")
        op.attrs.update({spec.renames.get(k, k) if spec else k: v for k, v in attrs.items()})
        op.attrs["__pir__"] = name
        slots = spec.operands if spec else tuple(f"Input{i}" for i in range(len(inputs)))
        for position, value in enumerate(inputs):
            slot = slots[position] if position < len(slots) else f"Input{position}"
            if not slot:
                continue
            if slot.startswith("@"):  # an operand that the legacy op held as an attribute
                if value and value in self.constants:
                    constant = self.constants[value]
                    scalar = slot[1:] in _SCALAR_ATTRS and constant.size == 1
                    op.attrs[slot[1:]] = constant.reshape(-1)[0].item() if scalar else constant.tolist()
                    continue
                slot = spec.tensor_slots.get(slot[1:], slot[1:]) if spec else slot[1:]
            op.inputs[slot] = list(self.vectors.get(value, [value] if value else []))
        result_slots = spec.results if spec else ()
        for position, result in enumerate(results):
            slot = result_slots[position] if position < len(result_slots) else f"Output{position}"
            value_name = self.define(result, "", where)
            op.outputs[slot] = [value_name]
            type_json = result.get("TT") if isinstance(result, dict) else None
            if isinstance(type_json, dict) and str(type_json.get("#", "")).endswith("t_vec"):
                self.vector_producers[value_name] = (op, slot)
        op.label = op_label(legacy, op.outputs)
        self.ops.append(op)


def read_pir_json(data: bytes, path: str = "inference.json") -> PaddleProgram:
    """The program of a PIR JSON file's bytes; ConversionError when they are not one."""
    try:
        document = json.loads(data)
    except (ValueError, RecursionError, UnicodeDecodeError) as err:
        raise ConversionError(f"{path}: not a PIR JSON program ({str(err)[:200]})") from err
    if (
        not isinstance(document, dict)
        or not isinstance(document.get("base_code"), dict)
        or document["base_code"].get("magic") != "pir"
    ):
        raise ConversionError(f"{path}: not a Paddle PIR program (no base_code.magic 'pir')")
    try:
        ops = document["program"]["regions"][0]["blocks"][0]["ops"]
    except (KeyError, IndexError, TypeError) as err:
        raise ConversionError(f"{path}: the program has no region 0 / block 0 op list") from err
    if not isinstance(ops, list):
        raise ConversionError(f"{path}: the op list of block 0 is not a list")
    reader = _Reader(path)
    for index, op in enumerate(ops):
        reader.read_op(op, index)
    if not reader.feeds or not reader.fetches:
        raise ConversionError(
            f"{path}: the program has no data or no fetch ops; save it as an inference "
            "model (paddle.jit.save)"
        )
    fetched = [reader.fetches[c] for c in sorted(reader.fetches)]
    program = PaddleProgram(
        "PIR",
        reader.vars,
        reader.ops,
        reader.feeds,
        [value for _, value in fetched],
        sorted(reader.parameters),
        reader.constants,
        version=str(document["base_code"].get("version", "")),
    )
    program.output_names = {name: value for name, value in fetched}
    program.constant_op_types = reader.constant_op_types
    return program
