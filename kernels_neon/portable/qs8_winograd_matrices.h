/* The integer transform matrices of the int8 Winograd F(2,3) and F(4,3) (qs8_winograd.h, which says
 * how they were scaled) and how the exact sum is recovered from A'^T M A' = f * y (mod 2^32):
 * y = (int32_t)(S * odd_inverse) >> shift, f = odd * 2^shift. */
#ifndef LITE_KERNELS_PORTABLE_QS8_WINOGRAD_MATRICES_H
#define LITE_KERNELS_PORTABLE_QS8_WINOGRAD_MATRICES_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
  size_t m, n;          /* outputs and inputs per tile side */
  int8_t g[6][3];       /* G' (n x 3) */
  int8_t bt[6][6];      /* B^T (n x n) */
  int8_t at[4][6];      /* A'^T (m x n) */
  uint32_t odd_inverse; /* of f's odd part, modulo 2^32 */
  int shift;            /* log2 of f's power of two */
  int bound_log2;       /* |y| < 2^bound_log2: 31 - shift */
} qs8_winograd_matrices;

static const qs8_winograd_matrices qs8_winograd_f23_matrices = {
    2,
    4,
    {{2, 0, 0}, {1, 1, 1}, {1, -1, 1}, {0, 0, 2}},
    {{1, 0, -1, 0}, {0, 1, 1, 0}, {0, -1, 1, 0}, {0, 1, 0, -1}},
    {{1, 1, 1, 0}, {0, 1, -1, -1}},
    1u,
    2,
    29};

static const qs8_winograd_matrices qs8_winograd_f43_matrices = {
    4,
    6,
    {{1, 0, 0}, {-1, -1, -1}, {-1, 1, -1}, {1, 2, 4}, {1, -2, 4}, {0, 0, 1}},
    {{4, 0, -5, 0, 1, 0},
     {0, -4, -4, 1, 1, 0},
     {0, 4, -4, -1, 1, 0},
     {0, -2, -1, 2, 1, 0},
     {0, 2, -1, -2, 1, 0},
     {0, 4, 0, -5, 0, 1}},
    {{6, 4, 4, 1, 1, 0}, {0, 4, -4, 2, -2, 0}, {0, 4, 4, 4, 4, 0}, {0, 4, -4, 8, -8, 24}},
    0x38E38E39u, /* 9^-1 */
    6,
    25};

static inline const qs8_winograd_matrices* qs8_winograd_matrices_for(size_t tile) {
  return tile == 4 ? &qs8_winograd_f43_matrices : &qs8_winograd_f23_matrices;
}

#endif
