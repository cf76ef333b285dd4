"""int8 -> int8 maps of one tensor as 256-entry tables: the table activations and their composition.

A table holds the int8 outputs for the inputs -128..127 in that order (``table[q + 128]``); applying
it is a gather (C: ``lite_qs8_lookup``; ``runtime_arm/src/ops/lookup_int8.cc`` builds the tables of
the activations at prepare, REQUANTIZE reads a composed one from the file).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np

from lite_converter.int8.rounding import INT8_MAX, INT8_MIN

ALL_INT8 = np.arange(INT8_MIN, INT8_MAX + 1, dtype=np.int8)  # every input of a table, in table order
STEP_LIMIT = 1e6  # |real / s_out| beyond this saturates anyway; keeps the rounding finite

# The functions in double precision with the C library's exp / tanh (Python's math module calls the
# same libm as the C++ table builder; numpy's vectorized exp may differ from it in the last bit, which
# can move a table entry that sits on a rounding boundary).
_REAL_FUNCTIONS: dict[str, Callable[[float, float, float], float]] = {
    "HARD_SWISH": lambda x, alpha, beta: x * max(0.0, min(1.0, x / 6.0 + 0.5)),
    "HARD_SIGMOID": lambda x, alpha, beta: max(0.0, min(1.0, alpha * x + beta)),
    "SIGMOID": lambda x, alpha, beta: 1.0 / (1.0 + math.exp(-x)),
    "TANH": lambda x, alpha, beta: math.tanh(x),
    "SILU": lambda x, alpha, beta: x / (1.0 + math.exp(-x)),
}


def lookup_table(op: str, attrs: dict[str, Any], qx: tuple[float, int], qy: tuple[float, int]) -> np.ndarray:
    """The int8 table of activation ``op`` (HARD_SWISH, HARD_SIGMOID, SIGMOID, TANH, SILU) from input
    parameters ``qx`` to output parameters ``qy`` (scale, zero point).

    Entry q: ``real = f(double(s_x) * (q - z_x))`` in double (alpha / beta read as the float32 the file
    stores), then ``clamp(rint(real / double(s_y)) + z_y, -128, 127)`` with rint half to even (C's
    ``nearbyint``) and NaN -> -128. Returns int8 [256]. C: ``ops/lookup_int8.cc::prepare``.
    """
    function = _REAL_FUNCTIONS.get(op)
    if function is None:
        raise ValueError(f"{op} has no int8 lookup table")
    alpha = float(np.float32(attrs.get("alpha", 0.0)))
    beta = float(np.float32(attrs.get("beta", 0.0)))
    s_in, s_out = float(np.float32(qx[0])), float(np.float32(qy[0]))
    real = np.array([function(s_in * (q - qx[1]), alpha, beta) for q in range(INT8_MIN, INT8_MAX + 1)],
                    np.float64)
    steps = np.rint(np.clip(real / s_out, -STEP_LIMIT, STEP_LIMIT)) + qy[1]
    return np.clip(np.nan_to_num(steps, nan=INT8_MIN), INT8_MIN, INT8_MAX).astype(np.int8)


def lookup(x: np.ndarray, table: np.ndarray) -> np.ndarray:
    """``table[x + 128]`` for int8 ``x`` (index arithmetic in int16). Returns int8 of ``x``'s shape."""
    return np.asarray(table, np.int8).reshape(-1)[np.asarray(x, np.int16) + 128]


def compose_tables(first: np.ndarray, then: np.ndarray) -> np.ndarray:
    """The table of ``then`` applied after ``first``: ``then[first[q] + 128]`` for every q. Exact: a
    chain of int8 maps and its composed table give the same bytes."""
    return lookup(first, then)
