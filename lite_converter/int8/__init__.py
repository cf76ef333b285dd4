"""The int8 arithmetic of the scheme, in one place (docs/QUANTIZATION.md, "Arithmetic, exactly").

Every integer the converter writes into an int8 model and every integer slim's fake-quant simulation
computes comes from these functions; the runtime's C code (kernels_neon/include/lite_kernels/
requantize.h, ref/qs8_*.c, runtime_arm/src/ops/quant_params_int8.h, lookup_int8.cc) implements the
same lines, and tests hold every int8 tensor it produces to the simulation byte for byte.

* :mod:`.rounding`: QUANTIZE (float32, round half to even, saturating, NaN -> zero point),
  DEQUANTIZE, their round trip (fake quantization), round-half-away integer division;
* :mod:`.fixed_point`: (multiplier, shift) pairs from real multipliers, and requantization = one
  64-bit multiply + one rounding shift (round half toward +infinity), saturated, clamped;
* :mod:`.activation_clamp`: the int8 range of a fused NONE / RELU / CLIP;
* :mod:`.binary`: int8 ADD and MUL (two operands, one requantization);
* :mod:`.tables`: 256-entry tables of int8 -> int8 maps (activations), their composition;
* :mod:`.params`: scales and zero points of the scheme (activations, per-channel weights, int32 bias).

The rule: this package sits below ``lite_converter.passes``, ``lite_converter.frontends`` and
``slim``, and imports none of them (only numpy and :class:`lite_converter.ir.QuantParams`). Whoever
needs an int8 number calls these functions instead of writing ``rint``, ``clip`` or ``>>`` again.

The functions are pure and vectorized over numpy arrays, with the integer dtypes and the rounding
rule of each step stated in its docstring, so that another implementation (the torch fake-quant of
QAT) can be checked against them element for element: feed both every int8 byte (-128..127, and
all 65,536 pairs for the binary ops) and random int32 accumulators with random multipliers, and
require equal outputs (tests/test_int8_arithmetic.py does this against exact Python integers).
"""

from lite_converter.int8.activation_clamp import activation_range
from lite_converter.int8.binary import add, mul
from lite_converter.int8.fixed_point import (
    channel_multipliers,
    quantize_multiplier,
    quantize_multiplier_pair,
    quantize_multipliers,
    requantize,
    rounding_shift_right,
    saturate_int32,
)
from lite_converter.int8.rounding import (
    INT8_MAX,
    INT8_MIN,
    dequantize,
    divide_round_half_away,
    fake_quantize,
    quantize,
    quantize_steps,
)
from lite_converter.int8.tables import ALL_INT8, compose_tables, lookup, lookup_table

__all__ = [
    "ALL_INT8", "INT8_MAX", "INT8_MIN", "activation_range", "add", "channel_multipliers", "compose_tables",
    "dequantize", "divide_round_half_away", "fake_quantize", "lookup", "lookup_table", "mul", "quantize",
    "quantize_multiplier", "quantize_multiplier_pair", "quantize_multipliers", "quantize_steps", "requantize",
    "rounding_shift_right", "saturate_int32",
]
