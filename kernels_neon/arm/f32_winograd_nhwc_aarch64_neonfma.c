/* Winograd F(m, 3) convolution, aarch64 NEON with FMA: 4 channels per vector (the shared body), and
 * its own register-blocked microkernel for the alpha^2 per-position products.
 *
 * Why its own product kernel: the general GEMM microkernel broadcasts one A value per row and k
 * step (a load each); here 4 rows x 16 columns take A as whole vectors of 4 consecutive k values and
 * multiply by lane (fmla v.4s, v.4s, v.s[lane]): per 4 k steps 4 A loads + 8 B load pairs + 64 FMAs,
 * 16 accumulators + 4 A + 8 B registers, nothing spilled (0.30 instructions per multiply-add,
 * counted under qemu). It reads the packed-GEMM B layout (panels of 16 columns, bias row first, see
 * gemm_f32_packed.h) and is used only when the selected GEMM packs 16-wide panels. Each output
 * value sums k in order 0..k-1 from zero, whatever the tile split (bit-identical threads). */
#include <arm_neon.h>

#include "f32_vector_aarch64_neonfma.h"
#include "lite_kernels/gemm_f32_packed.h"

enum { WG_A64_MR = 4, WG_A64_NR = 16 };

#define WG_A64_LANE4(q)                                                                                      \
  do {                                                                                                        \
    const float32x4_t b0 = vld1q_f32(w), b1 = vld1q_f32(w + 4), b2 = vld1q_f32(w + 8), b3 = vld1q_f32(w + 12); \
    w += WG_A64_NR;                                                                                           \
    c00 = vfmaq_laneq_f32(c00, b0, a0, q), c01 = vfmaq_laneq_f32(c01, b1, a0, q);                             \
    c02 = vfmaq_laneq_f32(c02, b2, a0, q), c03 = vfmaq_laneq_f32(c03, b3, a0, q);                             \
    c10 = vfmaq_laneq_f32(c10, b0, a1, q), c11 = vfmaq_laneq_f32(c11, b1, a1, q);                             \
    c12 = vfmaq_laneq_f32(c12, b2, a1, q), c13 = vfmaq_laneq_f32(c13, b3, a1, q);                             \
    c20 = vfmaq_laneq_f32(c20, b0, a2, q), c21 = vfmaq_laneq_f32(c21, b1, a2, q);                             \
    c22 = vfmaq_laneq_f32(c22, b2, a2, q), c23 = vfmaq_laneq_f32(c23, b3, a2, q);                             \
    c30 = vfmaq_laneq_f32(c30, b0, a3, q), c31 = vfmaq_laneq_f32(c31, b1, a3, q);                             \
    c32 = vfmaq_laneq_f32(c32, b2, a3, q), c33 = vfmaq_laneq_f32(c33, b3, a3, q);                             \
  } while (0)

#define WG_A64_STORE_ROW(i, row)                           \
  do {                                                     \
    float* o = c + (i) * ldc;                              \
    vst1q_f32(o, row##0);                                  \
    if (nv > 1) vst1q_f32(o + 4, row##1);                  \
    if (nv > 2) vst1q_f32(o + 8, row##2);                  \
    if (nv > 3) vst1q_f32(o + 12, row##3);                 \
  } while (0)

/* c[i][0 .. 4 nv) = sum_p a[i][p] * w[p][..] for rows i < mr (rows past mr recompute the last). */
static void wg_a64_gemm_4x16(size_t mr, size_t nv, size_t k, const float* a, size_t lda, const float* w, float* c,
                             size_t ldc) {
  const float* r0 = a;
  const float* r1 = mr > 1 ? a + lda : r0;
  const float* r2 = mr > 2 ? a + 2 * lda : r1;
  const float* r3 = mr > 3 ? a + 3 * lda : r2;
  const float32x4_t z = vdupq_n_f32(0.0f);
  float32x4_t c00 = z, c01 = z, c02 = z, c03 = z, c10 = z, c11 = z, c12 = z, c13 = z;
  float32x4_t c20 = z, c21 = z, c22 = z, c23 = z, c30 = z, c31 = z, c32 = z, c33 = z;
  size_t p = 0;
  for (; p + 4 <= k; p += 4) {
    const float32x4_t a0 = vld1q_f32(r0 + p), a1 = vld1q_f32(r1 + p), a2 = vld1q_f32(r2 + p),
                      a3 = vld1q_f32(r3 + p);
    WG_A64_LANE4(0);
    WG_A64_LANE4(1);
    WG_A64_LANE4(2);
    WG_A64_LANE4(3);
  }
  for (; p < k; ++p) {
    const float32x4_t a0 = vld1q_dup_f32(r0 + p), a1 = vld1q_dup_f32(r1 + p), a2 = vld1q_dup_f32(r2 + p),
                      a3 = vld1q_dup_f32(r3 + p);
    WG_A64_LANE4(0);
  }
  WG_A64_STORE_ROW(0, c0);
  if (mr > 1) WG_A64_STORE_ROW(1, c1);
  if (mr > 2) WG_A64_STORE_ROW(2, c2);
  if (mr > 3) WG_A64_STORE_ROW(3, c3);
}

/* The products of one transform position: m_out[rows, 0 .. co_pad) = v[rows, 0 .. k) x packed B. */
static int wg_a64_tile_gemm(const lite_f32_gemm_config* gemm, size_t rows, size_t out_c, size_t co_pad, size_t k,
                            const float* v, size_t ldv, const float* packed, float* m_out, size_t ldm) {
  if (gemm->nr != WG_A64_NR) return 0;
  for (size_t j0 = 0; j0 < out_c; j0 += WG_A64_NR) {
    const float* panel = packed + (j0 / WG_A64_NR) * WG_A64_NR * (k + 1) + WG_A64_NR; /* past the bias row */
    const size_t cols = co_pad - j0 < WG_A64_NR ? co_pad - j0 : WG_A64_NR;
    for (size_t i0 = 0; i0 < rows; i0 += WG_A64_MR)
      wg_a64_gemm_4x16(rows - i0 < WG_A64_MR ? rows - i0 : WG_A64_MR, cols / 4, k, v + i0 * ldv, ldv, panel,
                       m_out + i0 * ldm + j0, ldm);
  }
  return 1;
}

#define LITE_WINOGRAD_TILE_GEMM wg_a64_tile_gemm
#define LITE_WINOGRAD_ENTRY lite_f32_winograd_nhwc_aarch64_neonfma
#include "../ref/f32_winograd_nhwc_body.h"
