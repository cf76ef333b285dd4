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
_F6_POINTS = [Fraction(x) for x in ("0", "1", "-1", "2", "-2", "1/2", "-1/2")]
# (m, r) -> the finite interpolation points (alpha - 1 of them, alpha = m + r - 1). F(7, 2) is the
# 2x2-kernel transform of a stride-2 3x3 convolution split into its four input phases
# (f32_winograd_nhwc_body.h): alpha 8 and the points of F(6, 3), so it shares F(6, 3)'s B^T.
POINTS: dict[tuple[int, int], list[Fraction]] = {
    (2, 3): [Fraction(0), Fraction(1), Fraction(-1)],
    (4, 3): [Fraction(0), Fraction(1), Fraction(-1), Fraction(2), Fraction(-2)],
    (6, 3): _F6_POINTS,
    (7, 2): _F6_POINTS,
}
HEADER = Path(__file__).resolve().parents[1] / "portable" / "f32_winograd_transforms.h"


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


def transforms(m: int, r: int = R) -> tuple[Matrix, Matrix, Matrix]:
    """(A^T [m x alpha], G [alpha x r], B^T [alpha x alpha]) for F(m, r)."""
    pts = POINTS[(m, r)]
    alpha = m + r - 1
    assert len(pts) == alpha - 1
    at = [[p**j for p in pts] + [Fraction(1 if j == m - 1 else 0)] for j in range(m)]
    g: Matrix = []
    bt: Matrix = []
    for i, p in enumerate(pts):
        others = pts[:i] + pts[i + 1 :]
        norm = Fraction(1)
        for q in others:
            norm *= p - q
        g.append([p**k / norm for k in range(r)])
        bt.append(poly_from_roots(others, alpha))
    g.append([Fraction(0)] * (r - 1) + [Fraction(1)])
    bt.append(poly_from_roots(pts, alpha))
    return at, g, bt


def matmul(a: Matrix, b: Matrix) -> Matrix:
    cols = range(len(b[0]))
    return [[sum((row[k] * b[k][j] for k in range(len(b))), Fraction(0)) for j in cols] for row in a]


def transpose(a: Matrix) -> Matrix:
    return [list(row) for row in zip(*a, strict=True)]


def verify_exact(m: int, r: int = R, trials: int = 20) -> None:
    """The 2-D transform equals direct correlation exactly on random rational tiles, and the
    generated (paired) 1-D forms equal the matrices."""
    at, g, bt = transforms(m, r)
    alpha = m + r - 1
    rng = random.Random(m)
    for _ in range(trials):
        d = [[Fraction(rng.randint(-9, 9), rng.randint(1, 5)) for _ in range(alpha)] for _ in range(alpha)]
        w = [[Fraction(rng.randint(-9, 9), rng.randint(1, 5)) for _ in range(r)] for _ in range(r)]
        u = matmul(matmul(g, w), transpose(g))
        v = matmul(matmul(bt, d), transpose(bt))
        prod = [[u[i][j] * v[i][j] for j in range(alpha)] for i in range(alpha)]
        y = matmul(matmul(at, prod), transpose(at))
        for i in range(m):
            for j in range(m):
                direct = sum((d[i + a][j + b] * w[a][b] for a in range(r) for b in range(r)), Fraction(0))
                if y[i][j] != direct:
                    raise AssertionError(f"F({m},{r}) wrong at ({i},{j}): {y[i][j]} != {direct}")
        column = [row[0] for row in d]
        for mat, program in ((bt, bt_program(bt)), (at, at_program(at)), (g, bt_program(g))):
            values = column[: len(mat[0])]
            exact = [sum((c * x for c, x in zip(row, values, strict=True)), Fraction(0)) for row in mat]
            if run(program, values) != exact:
                raise AssertionError(f"F({m},{r}) generated 1-D transform differs from its matrix")


def fp32_error(m: int, r: int = R, cin: int = 64, trials: int = 200) -> tuple[float, float]:
    """Max |winograd_fp32 - direct_fp64| / max|direct| over tiles of unit-scale data summed over
    cin channels, next to the same for a direct fp32 sum (the baseline the kernels are held to)."""
    at, g, bt = (np.array(x, dtype=np.float64) for x in transforms(m, r))
    alpha = m + r - 1
    rng = np.random.default_rng(m)
    wino_err = direct_err = 0.0
    for _ in range(trials):
        d = rng.uniform(-1, 1, (cin, alpha, alpha))
        w = rng.uniform(-1, 1, (cin, r, r))
        exact = np.zeros((m, m))
        direct32 = np.zeros((m, m), np.float32)
        for a in range(r):
            for b in range(r):
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


Terms = list[tuple[str, Fraction]]


def c_sum(terms: Terms) -> str:
    """sum(c * x) as nested P##_ADD/SUB/MUL/FMA macros (zero coefficients skipped), starting from
    a +1 term when there is one so that no multiply is spent on it."""
    terms = [(x, c) for x, c in terms if c != 0]
    terms.sort(key=lambda t: t[1] != 1)  # stable: the first +1 term leads, the rest keep their order
    x0, c0 = terms[0]
    expr = x0 if c0 == 1 else f"P##_MUL({x0}, P##_SET1({c_float(c0)}))"
    for x, c in terms[1:]:
        if c == 1:
            expr = f"P##_ADD({expr}, {x})"
        elif c == -1:
            expr = f"P##_SUB({expr}, {x})"
        else:
            expr = f"P##_FMA({expr}, {x}, P##_SET1({c_float(c)}))"
    return expr


def mirror_sign(a: list[Fraction], b: list[Fraction]) -> int:
    """s when b[k] = s * (-1)^k * a[k] for every k (the vectors of a point pair p, -p), else 0."""
    for s in (1, -1):
        mirrored = all(bk == s * (-1) ** k * ak for k, (ak, bk) in enumerate(zip(a, b, strict=True)))
        if mirrored and any(c != 0 for c in a):
            return s
    return 0


def mirror_pairs(vectors: list[list[Fraction]]) -> list[tuple[int, int, int]]:
    """(i, j, s) for the vectors j that mirror an earlier vector i (see mirror_sign)."""
    pairs, used = [], set()
    for i, a in enumerate(vectors):
        for j in range(i + 1, len(vectors)):
            s = mirror_sign(a, vectors[j]) if i not in used and j not in used else 0
            if s:
                pairs.append((i, j, s))
                used |= {i, j}
    return pairs


# A 1-D transform as straight-line code: (target, terms) statements, target a temporary's name or
# an output index; terms name "(in)[k]" or an earlier temporary. Emitted as C by c_program, run
# exactly by run (the check that the factorized form computes its matrix).
Program = list[tuple[str | int, Terms]]


def bt_program(mat: Matrix) -> Program:
    """out = B^T in. Rows of a point pair p, -p share their even and odd halves: out_p = e + o,
    out_-p = +-(e - o), which saves about a third of the operations."""
    prog: Program = []
    paired: dict[int, Terms] = {}
    for n, (i, j, s) in enumerate(mirror_pairs(mat)):
        even = [(f"(in)[{k}]", c) for k, c in enumerate(mat[i]) if k % 2 == 0 and c != 0]
        odd = [(f"(in)[{k}]", c) for k, c in enumerate(mat[i]) if k % 2 == 1 and c != 0]
        if not even or not odd:
            continue
        e, o = f"wino_e{n}_", f"wino_o{n}_"
        prog += [(e, even), (o, odd)]
        paired[i] = [(e, Fraction(1)), (o, Fraction(1))]
        paired[j] = [(e, Fraction(s)), (o, Fraction(-s))]
    for i, row in enumerate(mat):
        prog.append((i, paired.get(i) or [(f"(in)[{k}]", c) for k, c in enumerate(row)]))
    return prog


def at_program(mat: Matrix) -> Program:
    """out = A^T in. Columns of a point pair p, -p enter every output as c * (in_p + in_-p) or
    c * (in_p - in_-p) (by the output's parity): both formed once."""
    prog: Program = []
    virtual: dict[int, tuple[str, str, int]] = {}  # column i -> (sum name, difference name, s)
    partners: set[int] = set()
    for n, (i, j, s) in enumerate(mirror_pairs(transpose(mat))):
        plus, minus = f"wino_s{n}_", f"wino_d{n}_"
        prog += [(plus, [(f"(in)[{i}]", Fraction(1)), (f"(in)[{j}]", Fraction(1))])]
        prog += [(minus, [(f"(in)[{i}]", Fraction(1)), (f"(in)[{j}]", Fraction(-1))])]
        virtual[i] = (plus, minus, s)
        partners.add(j)
    for r, row in enumerate(mat):
        terms: Terms = []
        for i, c in enumerate(row):
            if i in virtual:
                plus, minus, s = virtual[i]
                terms.append((plus if s * (-1) ** r == 1 else minus, c))
            elif i not in partners:
                terms.append((f"(in)[{i}]", c))
        prog.append((r, terms))
    return prog


def run(prog: Program, values: list[Fraction]) -> list[Fraction]:
    env: dict[str, Fraction] = {f"(in)[{k}]": v for k, v in enumerate(values)}
    out: dict[int, Fraction] = {}
    for target, terms in prog:
        value = sum((c * env[x] for x, c in terms), Fraction(0))
        if isinstance(target, int):
            out[target] = value
        else:
            env[target] = value
    return [out[i] for i in range(len(out))]


def c_program(name: str, prog: Program) -> str:
    lines = [f"#define {name}(P, in, out) \\", "  do { \\"]
    for target, terms in prog:
        lhs = f"(out)[{target}]" if isinstance(target, int) else f"const P##_T {target}"
        lines.append(f"    {lhs} = {c_sum(terms)}; \\")
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
        " *   LITE_WINO_F<m>_G:  r inputs -> alpha outputs (weight transform G g G^T, columns then rows)",
        " * and G (alpha x r) as exact double tables (the stride-2 weight transform uses them).",
        " * Rows (B^T) and columns (A^T) of a point pair p, -p share their even / odd partial sums",
        " * (temporaries of type P##_T): about a third fewer operations than one sum per output. */",
        "#ifndef LITE_F32_WINOGRAD_TRANSFORMS_H",
        "#define LITE_F32_WINOGRAD_TRANSFORMS_H",
        "",
    ]
    for m, r in sorted(POINTS, key=lambda mr: (mr[1] != R, mr)):
        at, g, bt = transforms(m, r)
        alpha = m + r - 1
        pts = ", ".join(str(p) for p in POINTS[(m, r)])
        name = f"F{m}" if r == R else f"F{m}R{r}"
        out.append(f"/* F({m},{r}): alpha = {alpha}, points {pts}, infinity */")
        if r == R:
            out.append(c_program(f"LITE_WINO_{name}_BT", bt_program(bt)))
        else:
            out.append(f"#define LITE_WINO_{name}_BT LITE_WINO_F{alpha - R + 1}_BT /* the same points */")
        out.append(c_program(f"LITE_WINO_{name}_AT", at_program(at)))
        if r == R:
            out.append(c_program(f"LITE_WINO_{name}_G", bt_program(g)))
        rows = ", ".join("{" + ", ".join(repr(float(x)) for x in row) + "}" for row in g)
        out.append(f"static const double lite_wino_{name.lower()}_g[{alpha}][{r}] = {{{rows}}};")
        out.append("")
    out.append("#endif")
    return "\n".join(out) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--write", action="store_true", help="rewrite the generated C header")
    parser.add_argument("--check", action="store_true", help="exit 1 if the C header is stale")
    args = parser.parse_args()
    for m, r in sorted(POINTS):
        verify_exact(m, r)
        wino, direct = fp32_error(m, r)
        print(f"F({m},{r}): exact; fp32 max rel err over 64 channels {wino:.2e} (direct fp32 {direct:.2e})")
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
