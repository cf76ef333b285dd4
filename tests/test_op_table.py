"""The schema (runtime_arm/schema/lite.fbs), the op table (lite_converter/lite_ops.py) and what is
generated from them (flatc's code, runtime_arm/src/op_options_table.cc) agree, and the compiled
runtime's options check is the table's (docs/ADDING_AN_OP.md).
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from onnx import TensorProto, helper

from lite_converter.convert import convert_onnx
from lite_converter.lite_fb.Model import Model
from lite_converter.lite_fb.OpCode import OpCode
from lite_converter.lite_fb.OpOptions import OpOptions
from lite_converter.lite_ops import OPS, all_opcode_names
from lite_converter.op_table_codegen import (
    OUTPUT,
    SCHEMA,
    consistency_problems,
    render_options_table,
    schema_opcodes,
    schema_options_tables,
)
from runtime_arm import Interpreter, LiteError

ROOT = Path(__file__).resolve().parents[1]


def _names(enum_class: type) -> dict[str, int]:
    return {k: v for k, v in vars(enum_class).items() if not k.startswith("_") and isinstance(v, int)}


def test_schema_and_op_table_agree():
    assert consistency_problems(SCHEMA.read_text()) == []
    assert set(all_opcode_names()) == set(OPS)


def test_generated_python_matches_the_schema_text():
    text = SCHEMA.read_text()
    assert _names(OpCode) == schema_opcodes(text)
    union = schema_options_tables(text)
    assert _names(OpOptions) == {"NONE": 0, **{name: i + 1 for i, name in enumerate(union)}}


def test_generated_options_table_is_current():
    assert OUTPUT.read_text() == render_options_table(SCHEMA.read_text()), (
        f"{OUTPUT.relative_to(ROOT)} is stale: run make schema")


def test_every_options_table_is_read_by_some_op():
    used = {info.options for info in OPS.values()}
    assert set(schema_options_tables(SCHEMA.read_text())) <= used


def test_consistency_check_names_each_kind_of_disagreement():
    """The checks above can fail: a schema with an op code lite_ops lacks, one whose union lost a
    table an op names, and one with a duplicate value are each reported, and nothing is rendered."""
    text = SCHEMA.read_text()

    def edit(old: str, new: str) -> str:
        assert old in text, f"{old!r} is no longer in the schema: update this test"
        return text.replace(old, new)

    added = edit("TRILU, NON_ZERO,", "TRILU, NON_ZERO, NEW_OP,")
    assert consistency_problems(added) == ["OpCode NEW_OP of lite.fbs has no row in lite_ops.OPS"]
    dropped = edit("ScatterOptions, TriluOptions,", "ScatterOptions,")
    assert consistency_problems(dropped) == [
        "lite_ops.OPS row TRILU names options table TriluOptions, not a member of union OpOptions"]
    clash = edit("QUANTIZE = 200", "QUANTIZE = 186")  # NON_ZERO is 186
    assert "OpCode QUANTIZE has the value 186 of NON_ZERO" in consistency_problems(clash)
    removed = edit("TRILU, NON_ZERO,", "NON_ZERO,")
    assert consistency_problems(removed) == ["lite_ops.OPS row TRILU is not an OpCode of lite.fbs"]
    with pytest.raises(ValueError, match="NEW_OP"):
        render_options_table(added)


@pytest.mark.skipif(shutil.which("flatc") is None, reason="flatc not installed (make test installs it)")
def test_make_schema_would_change_nothing():
    """flatc's Python and C++ output and the options table, regenerated from the schema, equal the
    committed files (runtime_arm/schema/generate.sh --check)."""
    result = subprocess.run([str(ROOT / "runtime_arm" / "schema" / "generate.sh"), "--check"],
                            capture_output=True, text=True, timeout=300, check=False)
    assert result.returncode == 0, result.stdout + result.stderr


# -- the compiled runtime's options check -----------------------------------------------------------
def _one_node_lite(op: str, **attrs: object) -> bytes:
    node = helper.make_node(op, ["x"], ["y"], **attrs)
    graph = helper.make_graph([node], op, [helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 3])],
                              [helper.make_tensor_value_info("y", TensorProto.UNDEFINED, None)])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 18)], ir_version=8)
    return bytes(convert_onnx(model))


def _with_opcode(data: bytes, opcode: int) -> bytes:
    """The one-op model with its op code overwritten (the field is written: Softmax and Transpose
    are not op code 0)."""
    operator = Model.GetRootAs(data, 0).Graph().Operators(0)
    offset = operator._tab.Offset(4)
    assert offset, "the op code field is not in the file"
    patched = bytearray(data)
    patched[operator._tab.Pos + offset:operator._tab.Pos + offset + 2] = opcode.to_bytes(2, "little")
    return bytes(patched)


@pytest.fixture(scope="module")
def carriers() -> dict[str, bytes]:
    """One-op models whose op carries SoftmaxOptions / TransposeOptions."""
    softmax, transpose = _one_node_lite("Softmax", axis=1), _one_node_lite("Transpose", perm=[1, 0])
    for data, table in ((softmax, "SoftmaxOptions"), (transpose, "TransposeOptions")):
        operator = Model.GetRootAs(data, 0).Graph().Operators(0)
        assert operator.OptionsType() == getattr(OpOptions, table)
    return {"SoftmaxOptions": softmax, "TransposeOptions": transpose}


@pytest.mark.parametrize("op", sorted(OPS))
def test_runtime_refuses_options_of_another_table(op: str, carriers: dict[str, bytes]):
    """Every op code, given an options table that lite_ops.OPS does not name for it, is refused at
    load by the runtime with both tables named; an op that reads no options ignores them."""
    expected = OPS[op].options
    carried = "TransposeOptions" if expected == "SoftmaxOptions" else "SoftmaxOptions"
    data = _with_opcode(carriers[carried], getattr(OpCode, op))
    if expected is None:
        try:
            Interpreter(model_content=data)
        except LiteError as error:  # the op may refuse its input at prepare, not its options
            assert "carries" not in error.message, error.message
        return
    with pytest.raises(LiteError) as info:
        Interpreter(model_content=data)
    assert f"carries {carried}, expected {expected}" in info.value.message
