"""One in-memory form for both Paddle program formats, in the legacy op vocabulary.

A legacy ProgramDesc op has named input / output slots ("X", "Filter", "Out") each holding a list
of variable names, and attributes; a PIR op has positional operands and results. The PIR reader
rewrites each PIR op into the legacy op it replaced (``pd_op.add`` -> ``elementwise_add`` with
slots X, Y), so the op mapping is written once. Values a PIR program computes from attributes
alone (``full``, ``full_int_array``, ``assign_value``) arrive as constants.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np


@dataclasses.dataclass
class PaddleVar:
    """A variable's declared dtype and shape (-1 for a dim known only at run time)."""

    name: str
    dtype: np.dtype | None = None
    shape: list[int] | None = None


@dataclasses.dataclass
class PaddleOp:
    """One op in legacy form; ``label`` names it in messages (type and first output)."""

    type: str
    inputs: dict[str, list[str]]
    outputs: dict[str, list[str]]
    attrs: dict[str, Any]
    label: str = ""

    def input(self, slot: str) -> str | None:
        """The first variable of input slot ``slot``, or None when the slot is absent or empty."""
        names = self.inputs.get(slot) or []
        return names[0] if names and names[0] else None

    def output(self, slot: str) -> str | None:
        names = self.outputs.get(slot) or []
        return names[0] if names and names[0] else None

    def attr(self, name: str, default: Any = None) -> Any:
        return self.attrs.get(name, default)


@dataclasses.dataclass
class PaddleProgram:
    """A whole inference program: ops (feed / fetch removed) in execution order and its boundary."""

    source: str  # "ProgramDesc" or "PIR"
    vars: dict[str, PaddleVar]
    ops: list[PaddleOp]
    feeds: list[str]
    fetches: list[str]
    # Parameter names in the order their tensors follow each other in the .pdiparams file.
    parameter_names: list[str]
    constants: dict[str, np.ndarray] = dataclasses.field(default_factory=dict)
    # Graph output name -> the variable it reads (PIR names outputs apart from their values).
    output_names: dict[str, str] = dataclasses.field(default_factory=dict)
    version: str = ""
    # Legacy op types whose PIR ops were read as constants (fill_constant for pd_op.full).
    constant_op_types: set[str] = dataclasses.field(default_factory=set)


def op_label(op_type: str, outputs: dict[str, list[str]]) -> str:
    """ "conv2d -> conv2d_0.tmp_0": the op type and its first output, as users see them."""
    for names in outputs.values():
        for name in names:
            if name:
                return f"{op_type} -> {name}"
    return op_type
