"""Derives the Winograd minimal-filtering transforms F(m x m, 3 x 3) and writes them as C.

Why a script: the kernels hard-code the transform matrices; deriving them here from the
interpolation points (Lavin & Gray 2015, "Fast Algorithms for Convolutional Neural Networks",
Toom-Cook with the point at infinity) and checking them in exact rational arithmetic is what
makes those constants trustworthy, and it measures each tile size's fp32 error against float64.

Construction (1-D correlation y_j = sum_k d_(j+k) g_k, j < m, r = 3 taps, alpha = m + r - 1):
the correlation is the transpose of the polynomial product c = a * g (deg a = m - 1), computed by
evaluating a and g at alpha - 1 finite points p_i and at infinity, multiplying, and interpolating.
Transposing with respect to a gives y = A^T [(G g) . (B^T d)] with
    A^T[j][i] = p_i^j (infinity column: 1 in the last row),
    G[i][k]   = p_i^k / N_i, N_i = prod_(j != i) (p_i - p_j) (infinity row: [0, 0, 1]),
    B^T row i = coefficients of prod_(j != i) (x - p_j) (infinity row: of prod_j (x - p_j)).
2-D: Y = A^T [(G g G^T) . (B^T d B)] A.

Usage:
    python kernels_neon/tools/winograd_transforms.py            # verify + print error table
    python kernels_neon/tools/winograd_transforms.py --write    # also rewrite the C header
    python kernels_neon/tools/winograd_transforms.py --check    # fail if the header is stale
"""

from __future__ import annotations

import argparse
import random
import sys
from fractions import Fraction
from pathlib import Path

import numpy as np

Matrix = list[list[Fraction]]

R = 3
POINTS: dict[int, list[Fraction]] = {
    2: [Fraction(0), Fraction(1), Fraction(-1)],
    4: [Fraction(0), Fraction(1), Fraction(-1), Fraction(2), Fraction(-2)],
    6: [Fraction(0), Fraction(1), Fraction(-1), Fraction(2), Fraction(-2), Fraction(1, 2), Fraction(-1, 2)],
}
HEADER = Path(__file__).resolve().parents[1] / "ref" / "f32_winograd_transforms.h"


def poly_from_roots(roots: list[Fraction], size: int) -> list[Fraction]:
    """Ascending coefficients of prod (x - root), padded to `size`."""
    coeffs = [Fraction(1)]
    for root in roots:
        nxt = [Fraction(0)] * (len(coeffs) + 1)
        for i, c in enumerate(coeffs):
            nxt[i + 1] += c
            nxt[i] -= root * c
        coeffs = nxt
    return coeffs + [Fraction(0)] * (size - len(coeffs))


def transforms(m: int) -> tuple[Matrix, Matrix, Matrix]:
    """(A^T [m x alpha], G [alpha x r], B^T [alpha x alpha]) for F(m, 3)."""
    pts = POINTS[m]
    alpha = m + R - 1
    assert len(pts) == alpha - 1
    at = [[p**j for p in pts] + [Fraction(1 if j == m - 1 else 0)] for j in range(m)]
    g: Matrix = []
    bt: Matrix = []
    for i, p in enumerate(pts):
        others = pts[:i] + pts[i + 1 :]
        norm = Fraction(1)
        for q in others:
            norm *= p - q
        g.append([p**k / norm for k in range(R)])
        bt.append(poly_from_roots(others, alpha))
    g.append([Fraction(0)] * (R - 1) + [Fraction(1)])
    bt.append(poly_from_roots(pts, alpha))
    return at, g, bt


def matmul(a: Matrix, b: Matrix) -> Matrix:
    cols = range(len(b[0]))
    return [[sum((row[k] * b[k][j] for k in range(len(b))), Fraction(0)) for j in cols] for row in a]


def transpose(a: Matrix) -> Matrix:
    return [list(row) for row in zip(*a, strict=True)]


def verify_exact(m: int, trials: int = 20) -> None:
    """The 2-D transform equals direct correlation exactly on random rational tiles."""
    at, g, bt = transforms(m)
    alpha = m + R - 1
    rng = random.Random(m)
    for _ in range(trials):
        d = [[Fraction(rng.randint(-9, 9), rng.randint(1, 5)) for _ in range(alpha)] for _ in range(alpha)]
        w = [[Fraction(rng.randint(-9, 9), rng.randint(1, 5)) for _ in range(R)] for _ in range(R)]
        u = matmul(matmul(g, w), transpose(g))
        v = matmul(matmul(bt, d), transpose(bt))
        prod = [[u[i][j] * v[i][j] for j in range(alpha)] for i in range(alpha)]
        y = matmul(matmul(at, prod), transpose(at))
        for i in range(m):
            for j in range(m):
                direct = sum((d[i + a][j + b] * w[a][b] for a in range(R) for b in range(R)), Fraction(0))
                if y[i][j] != direct:
                    raise AssertionError(f"F({m},3) wrong at ({i},{j}): {y[i][j]} != {direct}")


def fp32_error(m: int, cin: int = 64, trials: int = 200) -> tuple[float, float]:
    """Max |winograd_fp32 - direct_fp64| / max|direct| over tiles of unit-scale data summed over
    cin channels, next to the same for a direct fp32 sum (the baseline the kernels are held to)."""
    at, g, bt = (np.array(x, dtype=np.float64) for x in transforms(m))
    alpha = m + R - 1
    rng = np.random.default_rng(m)
    wino_err = direct_err = 0.0
    for _ in range(trials):
        d = rng.uniform(-1, 1, (cin, alpha, alpha))
        w = rng.uniform(-1, 1, (cin, R, R))
        exact = np.zeros((m, m))
        direct32 = np.zeros((m, m), np.float32)
        for a in range(R):
            for b in range(R):
                exact += np.einsum("cij,c->ij", d[:, a : a + m, b : b + m], w[:, a, b])
                direct32 += np.einsum(
                    "cij,c->ij", d[:, a : a + m, b : b + m].astype(np.float32), w[:, a, b].astype(np.float32)
                ).astype(np.float32)
        u = np.einsum("ik,ckl,jl->cij", g, w, g).astype(np.float32)  # weight transform in fp64, rounded
        d32, bt32, at32 = d.astype(np.float32), bt.astype(np.float32), at.astype(np.float32)
        v = np.einsum("ik,ckl,jl->cij", bt32, d32, bt32).astype(np.float32)
        mm = np.einsum("cij,cij->ij", u, v).astype(np.float32)
        y = (at32 @ mm @ at32.T).astype(np.float32)
        scale = np.abs(exact).max()
        wino_err = max(wino_err, float(np.abs(y - exact).max() / scale))
        direct_err = max(direct_err, float(np.abs(direct32 - exact).max() / scale))
    return wino_err, direct_err


def c_float(x: Fraction) -> str:
    return f"{float(x):.9g}f" if float(x) != int(x) else f"{int(x)}.0f"


def c_row(coeffs: list[Fraction], src: str) -> str:
    """One output of a 1-D transform as nested P##_ADD/SUB/MUL/FMA macros (zeros skipped)."""
    terms = [(k, c) for k, c in enumerate(coeffs) if c != 0]
    terms.sort(key=lambda t: (t[1] != 1, t[0]))  # start from a +1 term when there is one
    k0, c0 = terms[0]
    expr = f"{src}[{k0}]" if c0 == 1 else f"P##_MUL({src}[{k0}], P##_SET1({c_float(c0)}))"
    for k, c in terms[1:]:
        if c == 1:
            expr = f"P##_ADD({expr}, {src}[{k}])"
        elif c == -1:
            expr = f"P##_SUB({expr}, {src}[{k}])"
        else:
            expr = f"P##_FMA({expr}, {src}[{k}], P##_SET1({c_float(c)}))"
    return expr


def c_transform(name: str, mat: Matrix) -> str:
    lines = [f"#define {name}(P, in, out) \\", "  do { \\"]
    for i, row in enumerate(mat):
        lines.append(f"    (out)[{i}] = {c_row(row, '(in)')}; \\")
    lines.append("  } while (0)")
    return "\n".join(lines)


def c_header() -> str:
    out = [
        "/* Winograd F(m x m, 3 x 3) transforms, GENERATED by kernels_neon/tools/winograd_transforms.py",
        " * (derived from the interpolation points and verified exactly there; do not edit by hand).",
        " *",
        " * 1-D transforms as macros over an operation prefix P (P##_ADD, P##_SUB, P##_MUL,",
        " * P##_FMA(acc, a, b) = acc + a * b, P##_SET1): one definition serves each vector ISA and scalar C:",
        " *   LITE_WINO_F<m>_BT: alpha inputs -> alpha outputs (input transform, on columns then rows)",
        " *   LITE_WINO_F<m>_AT: alpha inputs -> m outputs (output transform, columns then rows)",
        " * and G (alpha x 3) as exact double tables for the weight transform done once at prepare. */",
        "#ifndef LITE_F32_WINOGRAD_TRANSFORMS_H",
        "#define LITE_F32_WINOGRAD_TRANSFORMS_H",
        "",
    ]
    for m in sorted(POINTS):
        at, g, bt = transforms(m)
        alpha = m + R - 1
        pts = ", ".join(str(p) for p in POINTS[m])
        out.append(f"/* F({m},3): alpha = {alpha}, points {pts}, infinity */")
        out.append(c_transform(f"LITE_WINO_F{m}_BT", bt))
        out.append(c_transform(f"LITE_WINO_F{m}_AT", at))
        rows = ", ".join("{" + ", ".join(repr(float(x)) for x in row) + "}" for row in g)
        out.append(f"static const double lite_wino_f{m}_g[{alpha}][3] = {{{rows}}};")
        out.append("")
    out.append("#endif")
    return "\n".join(out) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", action="store_true", help="rewrite the generated C header")
    parser.add_argument("--check", action="store_true", help="exit 1 if the C header is stale")
    args = parser.parse_args()
    for m in sorted(POINTS):
        verify_exact(m)
        wino, direct = fp32_error(m)
        print(f"F({m},3): exact; fp32 max rel err over 64 channels {wino:.2e} (direct fp32 sum {direct:.2e})")
    text = c_header()
    if args.write:
        HEADER.write_text(text)
        print(f"wrote {HEADER}")
    if args.check and (not HEADER.exists() or HEADER.read_text() != text):
        print(f"{HEADER} is stale: run with --write", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
