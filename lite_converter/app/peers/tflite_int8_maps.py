"""Our int8 element-wise maps of one tensor (tables) written as TFLite int8 builtins.

Our runtime runs an int8 activation (HARD_SIGMOID, SIGMOID, TANH, HARD_SWISH) and a REQUANTIZE as a
256-entry table (runtime_arm/src/ops/lookup_int8.cc); TFLite has no table op, so each becomes the
int8 builtins that compute the same map:

* REQUANTIZE(x, table): ``y = table[x + 128]``, where the converter composed a chain of int8 maps
  into one table (lite_converter/passes/compose_tables_int8.py; in PP-LCNet: HARD_SWISH, then MUL and
  ADD by scalars, its "learnable affine block"). The chain's steps are gone from the file, so the
  table is matched against ``y = a * f(x) + b`` for each TFLite int8 op ``f`` whose output
  quantization is free (QUANTIZE = identity, RELU, HARD_SWISH): a least-squares fit of (a, b) on the
  table's unsaturated entries in real units. It is written as TFLite writes such a block: f (on the
  range of f over x's int8 range, cut to where y is not saturated, so that h's step times a is no
  coarser than y's), MUL by a (an exact copy of the integers onto scale ``a * s_h``), ADD of b (one
  rounding onto y's quantization). The fit is accepted only when these ops, in exact
  arithmetic, reproduce every table entry within :data:`TABLE_LSB`; any other table raises
  :class:`ExportUnsupported`. An int8 TFLite op writes the real function of its inputs on its
  output's quantization, so the affine map needs ops of its own: LiteRT makes three passes where
  our table makes one, as it would on this block from TFLite's own converter.
* HARD_SIGMOID: ``clamp(alpha * x + beta, 0, 1) = relu6(6 alpha * x + 6 beta) / 6`` as int8 MUL, ADD
  (fused RELU6), MUL. The intermediates are quantized so that both MULs are exact copies of the
  integers (``6 alpha * x`` on scale ``6 alpha * s_x``, zero point ``z_x``; the RELU6 output on
  ``6 * s_y``, ``z_y``): the ADD is the only rounding step, as the table rounds once.
* SIGMOID / TANH: TFLite's int8 LOGISTIC and TANH write only one output quantization each (1/256,
  -128 and 1/128, 0), so the map is computed in float32 between DEQUANTIZE and QUANTIZE, as our table
  evaluates the real function and quantizes once, at our output scale. It costs LiteRT no more than
  the int8 form (LOGISTIC to 1/256, then QUANTIZE to our scale): on PP-OCRv4 det's 640x640 map the
  two exports are 132 instructions apart per inference under qemu (benchmarks/RESULTS.md).
* HARD_SWISH: TFLite's int8 HARD_SWISH (free output quantization).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from lite_converter.app.peers.tflite_writer import ExportUnsupported, TfliteWriter, emit_binary
from lite_converter.reader import OperatorInfo

TABLE_LSB = 1  # the most the TFLite ops of a REQUANTIZE may differ from its table, exact arithmetic
# TFLite int8 ops with a free output quantization, and their real functions
_AFFINE_BASES: dict[str, Callable[[np.ndarray], np.ndarray]] = {
    "QUANTIZE": lambda x: x,
    "RELU": lambda x: np.maximum(x, 0.0),
    "HARD_SWISH": lambda x: x * np.clip(x / 6.0 + 0.5, 0.0, 1.0),
}
_FLOAT_BUILTINS = {"SIGMOID": "LOGISTIC", "TANH": "TANH"}  # run in float32 between (DE)QUANTIZE


@dataclass(frozen=True)
class AffineMap:
    """A table as ``y = a * f(x) + b``: TFLite op ``base`` (f) writes h on (``h_scale``, ``h_zero``),
    then int8 MUL by ``a`` and ADD of ``b``; ``lsb`` is the most this differs from the table."""

    base: str
    a: float
    b: float
    h_scale: float
    h_zero: int
    lsb: int


def _per_tensor(quant: dict | None, what: str) -> tuple[float, int]:
    if not quant or len(quant["scale"]) != 1:
        raise ExportUnsupported(f"{what} without per-tensor int8 quantization")
    zero_point = quant.get("zero_point") or [0]
    return float(np.float32(quant["scale"][0])), int(zero_point[0])


def _range_quantization(values: np.ndarray) -> tuple[float, int]:
    """(scale, zero point) of an int8 tensor holding ``values`` (its range widened to hold 0)."""
    low, high = min(float(values.min()), 0.0), max(float(values.max()), 0.0)
    scale = float(np.float32((high - low) / 255.0)) if high > low else 1.0
    return scale, int(np.clip(np.rint(-128 - low / scale), -128, 127))


def table_as_affine_map(table: np.ndarray, qx: tuple[float, int], qy: tuple[float, int]) -> AffineMap | None:
    """The :class:`AffineMap` that writes ``table``'s map from input quantization ``qx`` to ``qy``
    within :data:`TABLE_LSB` (the closest of the bases), or None."""
    t = np.asarray(table, np.int64).reshape(-1)
    q = np.arange(-128, 128)
    x = qx[0] * (q - qx[1]).astype(np.float64)
    inside = (t > -128) & (t < 127)
    best: AffineMap | None = None
    for name, function in _AFFINE_BASES.items():
        h = function(x)
        if inside.sum() < 2 or np.ptp(h[inside]) == 0.0:  # constant where unsaturated: no slope to fit
            continue
        design = np.stack([h[inside], np.ones(int(inside.sum()))], axis=1)
        (a, b), *_ = np.linalg.lstsq(design, qy[0] * (t[inside] - qy[1]), rcond=None)
        if not a > 0.0:
            continue
        a, b = float(np.float32(a)), float(np.float32(b))
        # h only where y is not saturated: then h's step, times a, is no coarser than y's
        y_low, y_high = qy[0] * (-128 - qy[1]), qy[0] * (127 - qy[1])
        h_scale, h_zero = qx if name == "QUANTIZE" else \
            _range_quantization(np.clip(h, (y_low - b) / a, (y_high - b) / a))
        h_q = q if name == "QUANTIZE" else np.clip(np.rint(h / h_scale) + h_zero, -128, 127)
        # MUL copies h's integers onto scale a * h_scale; ADD rounds once onto y's quantization
        written = np.clip(np.rint((a * h_scale * (h_q - h_zero) + b) / qy[0]) + qy[1], -128, 127)
        lsb = int(np.abs(written - t).max())
        if lsb <= TABLE_LSB and (best is None or lsb < best.lsb):
            best = AffineMap(name, a, b, h_scale, h_zero, lsb)
    return best


def _quantization(w: TfliteWriter, scale: float, zero_point: int) -> object:
    return w.quantization({"scale": [scale], "zero_point": [zero_point]})


def _int8_activation(w: TfliteWriter, shape: list[int], name: str, scale: float, zero_point: int) -> int:
    return w.add_tensor(shape, w.s.TensorType.INT8, name, None, _quantization(w, scale, zero_point))


def _int8_scalar(w: TfliteWriter, value: float, name: str) -> int:
    """``value`` as a one-element int8 constant: 127 * sign on scale |value| / 127 (exact to float32)."""
    if value == 0.0:
        return w.constant(np.array([0], np.int8), name, _quantization(w, 1.0, 0))
    return w.constant(np.array([127 if value > 0 else -127], np.int8), name,
                      _quantization(w, abs(value) / 127.0, 0))


def requantize(w: TfliteWriter, op: OperatorInfo) -> None:
    """REQUANTIZE(x, table) as the TFLite ops f, MUL, ADD whose map is the table's (module docstring)."""
    if len(op.inputs) < 2 or w.model.tensors[op.inputs[1]].data is None:
        raise ExportUnsupported(f"REQUANTIZE {op.name!r} without a constant table")
    x, y = w.model.tensors[op.inputs[0]], w.model.tensors[op.outputs[0]]
    qx, qy = _per_tensor(x.quantization, op.name), _per_tensor(y.quantization, op.name)
    fit = table_as_affine_map(np.asarray(w.model.tensors[op.inputs[1]].data, np.int8), qx, qy)
    if fit is None:
        raise ExportUnsupported(f"REQUANTIZE {op.name!r}: its table is no a * f(x) + b with f one of "
                                f"{' / '.join(_AFFINE_BASES)} within {TABLE_LSB} LSB")
    shape = w.shape_of(op.outputs[0])
    h = w.tensor(op.inputs[0])
    if fit.base != "QUANTIZE":
        h_in = h
        h = _int8_activation(w, shape, f"{op.name}_{fit.base.lower()}", fit.h_scale, fit.h_zero)
        w.emit(getattr(w.s.BuiltinOperator, fit.base), [h_in], [h])
    scaled = _int8_activation(w, shape, f"{op.name}_scaled", fit.a * fit.h_scale, fit.h_zero)
    none = w.s.ActivationFunctionType.NONE
    emit_binary(w, "MUL", [h, _int8_scalar(w, fit.a, f"{op.name}_a")], scaled, none)
    emit_binary(w, "ADD", [scaled, _int8_scalar(w, fit.b, f"{op.name}_b")], w.tensor(op.outputs[0]), none)


def hard_sigmoid(w: TfliteWriter, op: OperatorInfo) -> None:
    """int8 HARD_SIGMOID as MUL, ADD + RELU6, MUL with exact intermediates (module docstring)."""
    s = w.s
    alpha = float(np.float32(op.options.get("alpha", 0.2)))
    beta = float(np.float32(op.options.get("beta", 0.5)))
    if not alpha > 0.0:
        raise ExportUnsupported(f"HARD_SIGMOID {op.name!r} with alpha {alpha} <= 0")
    sx, zx = _per_tensor(w.model.tensors[op.inputs[0]].quantization, op.name)
    sy, zy = _per_tensor(w.model.tensors[op.outputs[0]].quantization, op.name)
    shape = w.shape_of(op.outputs[0])
    scaled = _int8_activation(w, shape, f"{op.name}_6ax", 6 * alpha * sx, zx)
    six_times = _int8_activation(w, shape, f"{op.name}_relu6", 6 * sy, zy)
    none, relu6 = s.ActivationFunctionType.NONE, s.ActivationFunctionType.RELU6
    emit_binary(w, "MUL", [w.tensor(op.inputs[0]), _int8_scalar(w, 6 * alpha, f"{op.name}_6a")], scaled, none)
    emit_binary(w, "ADD", [scaled, _int8_scalar(w, 6 * beta, f"{op.name}_6b")], six_times, relu6)
    emit_binary(w, "MUL", [six_times, _int8_scalar(w, 1 / 6, f"{op.name}_sixth")], w.tensor(op.outputs[0]),
                none)


def activation(w: TfliteWriter, op: OperatorInfo) -> None:
    """int8 SIGMOID / TANH / HARD_SWISH (module docstring)."""
    s = w.s
    x, y = w.tensor(op.inputs[0]), w.tensor(op.outputs[0])
    if op.opcode == "HARD_SWISH":
        w.emit(s.BuiltinOperator.HARD_SWISH, [x], [y])
        return
    if op.opcode not in _FLOAT_BUILTINS:
        raise ExportUnsupported(f"int8 {op.opcode} {op.name!r}")
    shape = w.shape_of(op.outputs[0])
    real = w.add_tensor(shape, s.TensorType.FLOAT32, f"{op.name}_real", None)
    mapped = w.add_tensor(shape, s.TensorType.FLOAT32, f"{op.name}_real_out", None)
    w.emit(s.BuiltinOperator.DEQUANTIZE, [x], [real])
    w.emit(getattr(s.BuiltinOperator, _FLOAT_BUILTINS[op.opcode]), [real], [mapped])
    w.emit(s.BuiltinOperator.QUANTIZE, [mapped], [y])
