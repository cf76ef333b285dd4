"""lite_converter.int8, the one home of the int8 arithmetic, element for element against two oracles:

* the C reference functions the runtime runs (kernels_neon/ref: requantize, multiplier derivation,
  QUANTIZE / DEQUANTIZE, ADD, MUL, the average pool's division), compiled here with
  tests/int8_arithmetic_shim.c into a small library and called through ctypes;
* exact rational arithmetic (fractions.Fraction, Python integers) spelling each rounding rule the
  docstrings state: round half toward +infinity for requantization, half to even for QUANTIZE,
  half away from zero for the average.

Inputs are exhaustive where they can be (every int8 byte, all 65,536 pairs of ADD / MUL operands) and
random where they cannot (int32 accumulators with saturation beyond them, multipliers, scales).
This is the check a torch re-implementation (QAT) must pass too: same inputs, equal outputs.
"""

from __future__ import annotations

import ast
import ctypes
import math
import shutil
import subprocess
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from lite_converter import int8
from lite_converter.int8.params import activation_params, bias_int32, weight_per_channel

ROOT = Path(__file__).resolve().parents[1]
REF = ROOT / "kernels_neon" / "ref"
C_SOURCES = [ROOT / "tests" / "int8_arithmetic_shim.c", REF / "qs8_requantize_ref.c",
             REF / "qs8_quantize_ref.c", REF / "qs8_add_ref.c", REF / "qs8_mul_ref.c",
             REF / "qs8_pool2d_nhwc_ref.c"]
rng = np.random.default_rng(2026)


def _ptr(array: np.ndarray) -> ctypes.c_void_p:
    return ctypes.c_void_p(array.ctypes.data)


@pytest.fixture(scope="module")
def c_ref(tmp_path_factory: pytest.TempPathFactory) -> ctypes.CDLL:
    compiler = shutil.which("cc") or shutil.which("gcc")
    assert compiler is not None, "a C compiler is needed (make test installs build-essential)"
    library = tmp_path_factory.mktemp("int8_c") / "libint8_ref.so"
    subprocess.run([compiler, "-O1", "-shared", "-fPIC", "-Wall", "-Wextra", "-Werror",
                    f"-I{ROOT / 'kernels_neon' / 'include'}", f"-I{REF}", *map(str, C_SOURCES), "-lm",
                    "-o", str(library)], check=True)
    lib = ctypes.CDLL(str(library))
    lib.shim_add.restype = lib.shim_mul.restype = ctypes.c_int
    for name in ("shim_add", "shim_mul"):
        getattr(lib, name).argtypes = [ctypes.c_size_t, ctypes.c_void_p, ctypes.c_void_p,
                                       ctypes.c_float, ctypes.c_int32, ctypes.c_float, ctypes.c_int32,
                                       ctypes.c_float, ctypes.c_int32, ctypes.c_int32, ctypes.c_int32,
                                       ctypes.c_void_p]
    lib.lite_qs8_quantize_f32_ref.argtypes = [ctypes.c_size_t, ctypes.c_float, ctypes.c_int32,
                                              ctypes.c_void_p, ctypes.c_void_p]
    lib.lite_qs8_dequantize_f32_ref.argtypes = lib.lite_qs8_quantize_f32_ref.argtypes
    lib.lite_qs8_global_average_pool_nhwc_ref.argtypes = [ctypes.c_size_t, ctypes.c_size_t, ctypes.c_size_t,
                                                          ctypes.c_int32, ctypes.c_void_p, ctypes.c_void_p]
    return lib


def random_reals(count: int) -> np.ndarray:
    """Real multipliers log-uniform over [2^-40, 2^30), plus the edges: 0, below 2^-32, values whose
    31-bit multiplier rounds up to 2^31 (the carry), exact powers of two, halfway cases."""
    logs = rng.uniform(-40.0, 29.999, count)
    edges = [0.0, 2.0 ** -33, 2.0 ** -32, 2.0 ** -31.5, 1.0, 0.5, 2.0 ** 29, (2 ** 31 - 0.25) / 2 ** 31,
             (2 ** 31 - 0.5) / 2 ** 32, (2 ** 30 + 0.5) / 2 ** 31, 2.0 ** 29.5]
    return np.concatenate([np.exp2(logs), edges])


# -- multiplier derivation -------------------------------------------------------------------------
def test_multipliers_equal_the_c_derivation_and_the_exact_rule(c_ref: ctypes.CDLL) -> None:
    real = random_reals(20000)
    c_m, c_s, status = (np.zeros(real.size, np.int32) for _ in range(3))
    c_ref.shim_quantize_multiplier(ctypes.c_size_t(real.size), _ptr(real), _ptr(c_m), _ptr(c_s), _ptr(status))
    assert not status.any()
    m, s = int8.quantize_multipliers(real)
    np.testing.assert_array_equal(m, c_m)
    np.testing.assert_array_equal(s, c_s)
    assert [int8.quantize_multiplier(r) for r in real[:500]] == list(zip(m[:500].tolist(), s[:500].tolist(),
                                                                          strict=True))
    for r, mi, si in zip(real.tolist(), m.tolist(), s.tolist(), strict=True):
        if mi == 0:  # 0, or so small that even a 62-bit shift keeps nothing: the product is 0
            assert si == 1 and r < 2.0 ** -32, r
            continue
        assert 1 << 30 <= mi < 1 << 31 and 1 <= si <= 62, r
        assert mi == math.floor(Fraction(r) * 2 ** si + Fraction(1, 2)), r  # round half up of r * 2^shift


@pytest.mark.parametrize("bad", [-1e-9, float("nan"), float("inf"), 2.0 ** 30,
                                 math.nextafter(2.0 ** 30, 0.0), 1e12])
def test_unusable_multipliers_are_refused_like_c(c_ref: ctypes.CDLL, bad: float) -> None:
    real = np.array([bad])
    m, s, status = (np.zeros(1, np.int32) for _ in range(3))
    c_ref.shim_quantize_multiplier(ctypes.c_size_t(1), _ptr(real), _ptr(m), _ptr(s), _ptr(status))
    assert status[0] == -1
    with pytest.raises(ValueError, match="multiplier"):
        int8.quantize_multiplier(bad)


def test_multiplier_pairs_equal_the_c_derivation(c_ref: ctypes.CDLL) -> None:
    a, b = random_reals(5000), random_reals(5000)
    b[:100] = a[:100]  # equal multipliers
    b[100:200] = 0.0
    c_a, c_b, c_s, status = (np.zeros(a.size, np.int32) for _ in range(4))
    c_ref.shim_quantize_multiplier_pair(ctypes.c_size_t(a.size), _ptr(a), _ptr(b), _ptr(c_a), _ptr(c_b),
                                        _ptr(c_s), _ptr(status))
    assert not status.any()
    pairs = zip(a.tolist(), b.tolist(), strict=True)
    ours = np.array([int8.quantize_multiplier_pair(x, y) for x, y in pairs])
    np.testing.assert_array_equal(ours, np.stack([c_a, c_b, c_s], axis=1))


# -- requantization --------------------------------------------------------------------------------
def test_requantize_random_int32_accumulators(c_ref: ctypes.CDLL) -> None:
    """Accumulators over the int32 range and beyond (saturated first), per-element multipliers and
    shifts from real multipliers, a zero point and a clamp: C, numpy and exact fractions agree."""
    n = 200000
    edges = [2 ** 31 - 1, -2 ** 31, 2 ** 35, -2 ** 35]
    acc = np.concatenate([rng.integers(-2 ** 31, 2 ** 31, n // 2), rng.integers(-3000, 3000, n // 4),
                          rng.integers(-2 ** 40, 2 ** 40, n // 4), edges])
    multiplier, shift = int8.quantize_multipliers(np.exp2(rng.uniform(-30.0, 0.0, acc.size)))
    multiplier, shift = multiplier.astype(np.int32), shift.astype(np.int32)
    for zero_point, low, high in ((0, -128, 127), (-17, -17, 127), (5, -60, 90)):
        c_out = np.zeros(acc.size, np.int8)
        c_ref.shim_requantize(ctypes.c_size_t(acc.size), _ptr(acc), _ptr(multiplier), _ptr(shift),
                              ctypes.c_int32(zero_point), ctypes.c_int32(low), ctypes.c_int32(high),
                              _ptr(c_out))
        ours = int8.requantize(acc, multiplier, shift, zero_point, low, high)
        assert ours.dtype == np.int8
        np.testing.assert_array_equal(ours, c_out)
        for i in rng.choice(acc.size, 1000, replace=False).tolist() + list(range(acc.size - 4, acc.size)):
            a = min(max(int(acc[i]), -2 ** 31), 2 ** 31 - 1)  # saturated, then rounded half up:
            exact = math.floor(Fraction(a * int(multiplier[i]), 2 ** int(shift[i])) + Fraction(1, 2))
            assert int(ours[i]) == min(max(exact + zero_point, low), high), i


def test_rounding_shift_right_rounds_half_up() -> None:
    np.testing.assert_array_equal(int8.rounding_shift_right(np.array([3, -3, 5, -5, 4, -4, 6, -6]), 1),
                                  [2, -1, 3, -2, 2, -2, 3, -3])
    values = rng.integers(-2 ** 61, 2 ** 61, 5000)
    shifts = rng.integers(1, 63, 5000)
    ours = int8.rounding_shift_right(values, shifts)
    expected = [math.floor(Fraction(int(v), 2 ** int(s)) + Fraction(1, 2))  # round half up
                for v, s in zip(values, shifts, strict=True)]
    assert ours.tolist() == expected


def test_channel_multipliers_use_the_float32_scales_in_double() -> None:
    weights = np.exp2(rng.uniform(-12, -2, 64)).astype(np.float32)
    m, s = int8.channel_multipliers(0.0123, weights, 0.0456)
    real = [float(np.float32(0.0123)) * float(w) / float(np.float32(0.0456)) for w in weights]
    assert list(zip(m.tolist(), s.tolist(), strict=True)) == [int8.quantize_multiplier(r) for r in real]


# -- QUANTIZE / DEQUANTIZE -------------------------------------------------------------------------
SCALES = [(1.0, 0), (0.5, -3), (2.0 ** -7, 17), (0.0123, -128), (3.7e-5, 127), (41.5, 0)]


@pytest.mark.parametrize(("scale", "zero_point"), SCALES)
def test_quantize_equals_the_c_reference(c_ref: ctypes.CDLL, scale: float, zero_point: int) -> None:
    """Values around every grid point and halfway point, far outside the range, signed zeros, NaN and
    infinities, plus random values."""
    grid = np.arange(-300, 300, 0.5, dtype=np.float64) * scale
    x = np.concatenate([grid, np.nextafter(grid.astype(np.float32), np.float32(np.inf)),
                        np.nextafter(grid.astype(np.float32), np.float32(-np.inf)),
                        rng.normal(0, 200 * scale, 20000), [0.0, -0.0, np.nan, np.inf, -np.inf, 1e30, -1e30]])
    x = x.astype(np.float32)
    c_out = np.zeros(x.size, np.int8)
    c_ref.lite_qs8_quantize_f32_ref(x.size, scale, zero_point, _ptr(x), _ptr(c_out))
    ours = int8.quantize(x, scale, zero_point)
    assert ours.dtype == np.int8
    np.testing.assert_array_equal(ours, c_out)


def test_quantize_rounds_half_to_even_on_exact_ties() -> None:
    """With a power-of-two scale the quotient is exact, so the rule alone decides: half to even."""
    steps = np.arange(-140, 140) + 0.5
    ours = int8.quantize((steps * 0.25).astype(np.float32), 0.25, 3)
    expected = [min(max(round(Fraction(v)) + 3, -128), 127) for v in steps.tolist()]  # round(): half even
    assert ours.tolist() == expected



def test_activation_zero_points_round_half_to_even_on_exact_ties() -> None:
    """Ranges whose zero point -128 - low / scale is exactly k + 1/2 (a power-of-two scale, spans of 255
    steps): the documented rule, half to even, decides (Python's round() on exact fractions)."""
    for exponent in (-9, -4, 0, 3):
        step = 2.0 ** exponent
        for k in range(0, 255):
            low = -(k + 0.5) * step
            params = activation_params(low, low + 255 * step)
            assert float(params.scale[0]) == step
            expected = min(max(round(Fraction(-128) + Fraction(k) + Fraction(1, 2)), -128), 127)
            assert int(params.zero_point[0]) == expected, (exponent, k)


def test_int32_bias_rounds_half_to_even_on_exact_ties() -> None:
    scale = np.float32(2.0 ** -10)
    halves = np.arange(-2000, 2000) + 0.5
    q = bias_int32((halves * float(scale)).astype(np.float32), np.float32(1.0), np.full(halves.size, scale))
    assert q.tolist() == [round(Fraction(v)) for v in halves.tolist()]

@pytest.mark.parametrize(("scale", "zero_point"), SCALES)
def test_dequantize_every_byte(c_ref: ctypes.CDLL, scale: float, zero_point: int) -> None:
    q = int8.ALL_INT8.copy()
    c_out = np.zeros(256, np.float32)
    c_ref.lite_qs8_dequantize_f32_ref(256, scale, zero_point, _ptr(q), _ptr(c_out))
    ours = int8.dequantize(q, scale, zero_point)
    assert ours.dtype == np.float32
    np.testing.assert_array_equal(ours, c_out)
    # one rounding of the exact product
    step = Fraction(float(np.float32(scale)))
    exact = [np.float32(float(step * (v - zero_point))) for v in range(-128, 128)]
    np.testing.assert_array_equal(ours, np.array(exact, np.float32))
    round_trip = int8.fake_quantize(ours, scale, zero_point)
    np.testing.assert_array_equal(int8.quantize(round_trip, scale, zero_point), q)


def test_per_axis_quantize_is_per_tensor_quantize_per_channel() -> None:
    x = rng.normal(0, 1, (3, 5, 4)).astype(np.float32)
    scales = np.array([0.01, 0.02, 0.05, 0.1], np.float32)
    zero_points = np.array([0, -5, 7, 127])
    ours = int8.quantize(x, scales, zero_points, axis=2)
    for c in range(4):
        np.testing.assert_array_equal(ours[..., c], int8.quantize(x[..., c], scales[c], zero_points[c]))
    back = int8.dequantize(ours, scales, zero_points, axis=-1)
    for c in range(4):
        np.testing.assert_array_equal(back[..., c], int8.dequantize(ours[..., c], scales[c], zero_points[c]))


def test_weights_are_quantize_with_zero_point_0_kept_off_minus_128() -> None:
    w = rng.normal(0, 1, (6, 3, 3, 2)).astype(np.float32)
    w[2] = 0.0
    q, params = weight_per_channel(w)
    assert q.dtype == np.int8 and q.min() >= -127 and params.scale[2] == 1.0
    for c in range(6):
        assert np.abs(q[c]).max() == (127 if c != 2 else 0)
        np.testing.assert_array_equal(q[c], int8.quantize(w[c], params.scale[c], 0))


# -- ADD / MUL over every pair of bytes ------------------------------------------------------------
OPERANDS = [((0.02, -3), (0.05, 10), (0.06, -1)), ((0.5, 127), (0.001, -128), (0.3, 0)),
            ((1e-3, 0), (1e-3, 0), (4e-3, 5)), ((0.07, 40), (0.11, -90), (0.01, 0))]


@pytest.mark.parametrize(("qa", "qb", "qy"), OPERANDS)
@pytest.mark.parametrize("clamp", [(-128, 127), (-20, 100)])
def test_add_and_mul_every_pair_of_bytes(c_ref: ctypes.CDLL, qa: tuple[float, int], qb: tuple[float, int],
                                         qy: tuple[float, int], clamp: tuple[int, int]) -> None:
    a = np.repeat(int8.ALL_INT8, 256)
    b = np.tile(int8.ALL_INT8, 256)
    for name, ours_fn in (("shim_add", int8.add), ("shim_mul", int8.mul)):
        c_out = np.zeros(a.size, np.int8)
        status = getattr(c_ref, name)(a.size, _ptr(a), _ptr(b), qa[0], qa[1], qb[0], qb[1], qy[0], qy[1],
                                      clamp[0], clamp[1], _ptr(c_out))
        assert status == 0
        ours = ours_fn(a, qa, b, qb, qy, *clamp)
        assert ours.dtype == np.int8
        np.testing.assert_array_equal(ours, c_out, err_msg=name)
        # what it approximates: the real result, within half a step plus the multipliers' 2^-30 error
        real_a = float(np.float32(qa[0])) * (a.astype(np.float64) - qa[1])
        real_b = float(np.float32(qb[0])) * (b.astype(np.float64) - qb[1])
        real = real_a + real_b if name == "shim_add" else real_a * real_b
        ideal = real / float(np.float32(qy[0])) + qy[1]
        inside = (ideal > clamp[0]) & (ideal < clamp[1])
        assert np.abs(ours[inside] - ideal[inside]).max() <= 0.5 + 1e-4


# -- average pool, fused clamps, tables ------------------------------------------------------------
def test_divide_round_half_away_equals_the_c_average(c_ref: ctypes.CDLL) -> None:
    for spatial in (1, 2, 3, 4, 7, 49, 64):
        x = rng.integers(-128, 128, (5, spatial, 64)).astype(np.int8)
        for zero_point in (0, -128, 37):
            c_out = np.zeros((5, 64), np.int8)
            c_ref.lite_qs8_global_average_pool_nhwc_ref(5, spatial, 64, zero_point, _ptr(x), _ptr(c_out))
            total = x.astype(np.int64).sum(axis=1) - zero_point * spatial
            means = int8.divide_round_half_away(total, spatial)
            np.testing.assert_array_equal(np.clip(means + zero_point, -128, 127).astype(np.int8), c_out)
            for t, mean in zip(total.reshape(-1).tolist(), means.reshape(-1).tolist(), strict=True):
                exact = Fraction(t, spatial)
                assert mean == math.floor(abs(exact) + Fraction(1, 2)) * (1 if exact >= 0 else -1)


def test_fused_activation_clamps() -> None:
    assert int8.activation_range(None, 0.1, 3) == (-128, 127)
    assert int8.activation_range({"kind": "RELU"}, 0.1, -20) == (-20, 127)
    assert int8.activation_range({"kind": "CLIP", "alpha": 0.0, "beta": 6.0}, 6 / 255, -128) == (-128, 127)
    assert int8.activation_range({"kind": "CLIP", "alpha": -1.0, "beta": 1.0}, 0.01, 0) == (-100, 100)
    with pytest.raises(ValueError, match="no int8 form"):
        int8.activation_range({"kind": "HARD_SWISH"}, 0.1, 0)


def test_tables_compose_exactly() -> None:
    hswish = int8.lookup_table("HARD_SWISH", {}, (0.05, -10), (0.04, -30))
    scale = int8.mul(int8.ALL_INT8, (0.04, -30), np.array([77], np.int8), (0.01, 0), (0.03, 5), -128, 127)
    shift = int8.add(int8.ALL_INT8, (0.03, 5), np.array([-40], np.int8), (0.02, 0), (0.035, -2), -128, 127)
    composed = int8.compose_tables(int8.compose_tables(hswish, scale), shift)
    chained = [int(shift[int(scale[int(hswish[q + 128]) + 128]) + 128]) for q in range(-128, 128)]
    assert composed.tolist() == chained
    np.testing.assert_array_equal(int8.lookup(int8.ALL_INT8, composed), composed)


# -- the package sits below everything that uses it ------------------------------------------------
def test_int8_package_imports_nothing_above_it() -> None:
    allowed = {"__future__", "collections", "math", "typing", "numpy", "lite_converter.int8",
               "lite_converter.ir"}
    package = ROOT / "lite_converter" / "int8"
    for path in package.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            names = ([a.name for a in node.names] if isinstance(node, ast.Import)
                     else [node.module or ""] if isinstance(node, ast.ImportFrom) else [])
            for name in names:
                below = any(name == ok or name.startswith(ok + ".") for ok in allowed)
                assert below, f"{path.name} imports {name}"
