/* Winograd F(m, 3) (and stride-2 F(7, 2)) convolution, aarch64 NEON with FMA: 4 channels per vector
 * (the shared body), and its own register-blocked microkernels for the alpha^2 per-position products.
 *
 * Why its own product kernel: the general GEMM microkernel broadcasts one A value per row and k
 * step (a load each); here 4 rows x 16 columns take A as whole vectors of 4 consecutive k values and
 * multiply by lane (fmla v.4s, v.4s, v.s[lane]): per 8 k steps 4 A load pairs (ldp: 8 k of a row)
 * + 8 B loads of 4 vectors (ld1 {4 registers}) + 128 FMAs + 2 loop instructions (142 per 512
 * multiply-adds), 16 accumulators + 8 A + 8 B registers, nothing spilled; the k loop is assembly
 * (see wg_a64_gemm_4x16; 6-row tiles: wg_a64_gemm_6x16_full). It reads the packed-GEMM B layout
 * (panels of 16 columns, bias row first, see f32_gemm_packed.h) and is used only when the selected
 * GEMM packs 16-wide panels. Each output value sums k in order 0..k-1 from zero, whatever the tile split
 * (bit-identical threads). */
#include <arm_neon.h>

#include "f32_vector_aarch64_neonfma.h"
#include "lite_kernels/f32_gemm_packed.h"

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

#define WG_A64_ROW1(q)                                                                                      \
  do {                                                                                                       \
    c0 = vfmaq_laneq_f32(c0, vld1q_f32(w), a0, q), c1 = vfmaq_laneq_f32(c1, vld1q_f32(w + 4), a0, q);        \
    c2 = vfmaq_laneq_f32(c2, vld1q_f32(w + 8), a0, q), c3 = vfmaq_laneq_f32(c3, vld1q_f32(w + 12), a0, q);   \
    w += WG_A64_NR;                                                                                          \
  } while (0)

/* One row: a block's last tile when the others fill whole 6- and 4-row tiles (ResNet-18's 28x28
 * F(6,3) layers: 25 tiles = 4 x 6 + 1), which the 4-row kernel would compute four times over. The
 * same arithmetic per output as the 4-row kernel (from zero, k = 0, 1, ..., one FMA each). */
static void wg_a64_gemm_1x16(size_t nv, size_t k, const float* a, const float* w, float* c) {
  float32x4_t c0 = vdupq_n_f32(0.0f), c1 = c0, c2 = c0, c3 = c0;
  size_t p = 0;
  for (; p + 4 <= k; p += 4, a += 4) {
    const float32x4_t a0 = vld1q_f32(a);
    WG_A64_ROW1(0);
    WG_A64_ROW1(1);
    WG_A64_ROW1(2);
    WG_A64_ROW1(3);
  }
  for (; p < k; ++p, ++a) {
    const float32x4_t a0 = vld1q_dup_f32(a);
    WG_A64_ROW1(0);
  }
  vst1q_f32(c, c0);
  if (nv > 1) vst1q_f32(c + 4, c1);
  if (nv > 2) vst1q_f32(c + 8, c2);
  if (nv > 3) vst1q_f32(c + 12, c3);
}

/* c[i][0 .. 4 nv) = sum_p a[i][p] * w[p][..] for rows i < mr (rows past mr recompute the last). */
static void wg_a64_gemm_4x16(size_t mr, size_t nv, size_t k, const float* a, size_t lda, const float* w, float* c,
                             size_t ldc) {
  if (mr == 1) {
    wg_a64_gemm_1x16(nv, k, a, w, c);
    return;
  }
  const float* r0 = a;
  const float* r1 = mr > 1 ? a + lda : r0;
  const float* r2 = mr > 2 ? a + 2 * lda : r1;
  const float* r3 = mr > 3 ? a + 3 * lda : r2;
  /* Groups of 4 k steps in assembly (an odd one first, then two per iteration), accumulators in
   * v16-v31: GCC kept the 4-k loop in registers but added 6 register moves per group (objdump). A full tile
   * (4 rows, 16 columns, k a multiple of 4) is stored by the assembly straight into c; otherwise the
   * sums go out through `acc` to the k tail and the partial stores below. */
  float acc[64] __attribute__((aligned(16)));
  const int direct = mr == 4 && nv == 4 && k % 4 == 0;
  float* o0 = direct ? c : acc;
  float* o1 = direct ? c + ldc : acc + 16;
  float* o2 = direct ? c + 2 * ldc : acc + 32;
  float* o3 = direct ? c + 3 * ldc : acc + 48;
  size_t groups = k / 4;
  __asm__ volatile(
      "movi v16.16b, #0\n movi v17.16b, #0\n movi v18.16b, #0\n movi v19.16b, #0\n"
      "movi v20.16b, #0\n movi v21.16b, #0\n movi v22.16b, #0\n movi v23.16b, #0\n"
      "movi v24.16b, #0\n movi v25.16b, #0\n movi v26.16b, #0\n movi v27.16b, #0\n"
      "movi v28.16b, #0\n movi v29.16b, #0\n movi v30.16b, #0\n movi v31.16b, #0\n"
      "tbz %[n], #0, 1f\n"  /* an odd count of 4-k groups: one first, A by ldr */
      "ldr q0, [%[a0]], #16\n ldr q1, [%[a1]], #16\n ldr q2, [%[a2]], #16\n ldr q3, [%[a3]], #16\n"
      "ld1 {v4.4s, v5.4s, v6.4s, v7.4s}, [%[w]], #64\n"
      "fmla v16.4s, v4.4s, v0.s[0]\n fmla v17.4s, v5.4s, v0.s[0]\n fmla v18.4s, v6.4s, v0.s[0]\n fmla v19.4s, v7.4s, v0.s[0]\n"
      "fmla v20.4s, v4.4s, v1.s[0]\n fmla v21.4s, v5.4s, v1.s[0]\n fmla v22.4s, v6.4s, v1.s[0]\n fmla v23.4s, v7.4s, v1.s[0]\n"
      "fmla v24.4s, v4.4s, v2.s[0]\n fmla v25.4s, v5.4s, v2.s[0]\n fmla v26.4s, v6.4s, v2.s[0]\n fmla v27.4s, v7.4s, v2.s[0]\n"
      "fmla v28.4s, v4.4s, v3.s[0]\n fmla v29.4s, v5.4s, v3.s[0]\n fmla v30.4s, v6.4s, v3.s[0]\n fmla v31.4s, v7.4s, v3.s[0]\n"
      "ld1 {v8.4s, v9.4s, v10.4s, v11.4s}, [%[w]], #64\n"
      "fmla v16.4s, v8.4s, v0.s[1]\n fmla v17.4s, v9.4s, v0.s[1]\n fmla v18.4s, v10.4s, v0.s[1]\n fmla v19.4s, v11.4s, v0.s[1]\n"
      "fmla v20.4s, v8.4s, v1.s[1]\n fmla v21.4s, v9.4s, v1.s[1]\n fmla v22.4s, v10.4s, v1.s[1]\n fmla v23.4s, v11.4s, v1.s[1]\n"
      "fmla v24.4s, v8.4s, v2.s[1]\n fmla v25.4s, v9.4s, v2.s[1]\n fmla v26.4s, v10.4s, v2.s[1]\n fmla v27.4s, v11.4s, v2.s[1]\n"
      "fmla v28.4s, v8.4s, v3.s[1]\n fmla v29.4s, v9.4s, v3.s[1]\n fmla v30.4s, v10.4s, v3.s[1]\n fmla v31.4s, v11.4s, v3.s[1]\n"
      "ld1 {v4.4s, v5.4s, v6.4s, v7.4s}, [%[w]], #64\n"
      "fmla v16.4s, v4.4s, v0.s[2]\n fmla v17.4s, v5.4s, v0.s[2]\n fmla v18.4s, v6.4s, v0.s[2]\n fmla v19.4s, v7.4s, v0.s[2]\n"
      "fmla v20.4s, v4.4s, v1.s[2]\n fmla v21.4s, v5.4s, v1.s[2]\n fmla v22.4s, v6.4s, v1.s[2]\n fmla v23.4s, v7.4s, v1.s[2]\n"
      "fmla v24.4s, v4.4s, v2.s[2]\n fmla v25.4s, v5.4s, v2.s[2]\n fmla v26.4s, v6.4s, v2.s[2]\n fmla v27.4s, v7.4s, v2.s[2]\n"
      "fmla v28.4s, v4.4s, v3.s[2]\n fmla v29.4s, v5.4s, v3.s[2]\n fmla v30.4s, v6.4s, v3.s[2]\n fmla v31.4s, v7.4s, v3.s[2]\n"
      "ld1 {v8.4s, v9.4s, v10.4s, v11.4s}, [%[w]], #64\n"
      "fmla v16.4s, v8.4s, v0.s[3]\n fmla v17.4s, v9.4s, v0.s[3]\n fmla v18.4s, v10.4s, v0.s[3]\n fmla v19.4s, v11.4s, v0.s[3]\n"
      "fmla v20.4s, v8.4s, v1.s[3]\n fmla v21.4s, v9.4s, v1.s[3]\n fmla v22.4s, v10.4s, v1.s[3]\n fmla v23.4s, v11.4s, v1.s[3]\n"
      "fmla v24.4s, v8.4s, v2.s[3]\n fmla v25.4s, v9.4s, v2.s[3]\n fmla v26.4s, v10.4s, v2.s[3]\n fmla v27.4s, v11.4s, v2.s[3]\n"
      "fmla v28.4s, v8.4s, v3.s[3]\n fmla v29.4s, v9.4s, v3.s[3]\n fmla v30.4s, v10.4s, v3.s[3]\n fmla v31.4s, v11.4s, v3.s[3]\n"
      "1:\n lsr %[n], %[n], #1\n cbz %[n], 3f\n"
      "2:\n ldp q0, q12, [%[a0]], #32\n ldp q1, q13, [%[a1]], #32\n ldp q2, q14, [%[a2]], #32\n ldp q3, q15, [%[a3]], #32\n"  /* 8 k per iteration: A k 0-3 in v0-v3, k 4-7 in v12-v15 */
      "ld1 {v4.4s, v5.4s, v6.4s, v7.4s}, [%[w]], #64\n"
      "fmla v16.4s, v4.4s, v0.s[0]\n fmla v17.4s, v5.4s, v0.s[0]\n fmla v18.4s, v6.4s, v0.s[0]\n fmla v19.4s, v7.4s, v0.s[0]\n"
      "fmla v20.4s, v4.4s, v1.s[0]\n fmla v21.4s, v5.4s, v1.s[0]\n fmla v22.4s, v6.4s, v1.s[0]\n fmla v23.4s, v7.4s, v1.s[0]\n"
      "fmla v24.4s, v4.4s, v2.s[0]\n fmla v25.4s, v5.4s, v2.s[0]\n fmla v26.4s, v6.4s, v2.s[0]\n fmla v27.4s, v7.4s, v2.s[0]\n"
      "fmla v28.4s, v4.4s, v3.s[0]\n fmla v29.4s, v5.4s, v3.s[0]\n fmla v30.4s, v6.4s, v3.s[0]\n fmla v31.4s, v7.4s, v3.s[0]\n"
      "ld1 {v8.4s, v9.4s, v10.4s, v11.4s}, [%[w]], #64\n"
      "fmla v16.4s, v8.4s, v0.s[1]\n fmla v17.4s, v9.4s, v0.s[1]\n fmla v18.4s, v10.4s, v0.s[1]\n fmla v19.4s, v11.4s, v0.s[1]\n"
      "fmla v20.4s, v8.4s, v1.s[1]\n fmla v21.4s, v9.4s, v1.s[1]\n fmla v22.4s, v10.4s, v1.s[1]\n fmla v23.4s, v11.4s, v1.s[1]\n"
      "fmla v24.4s, v8.4s, v2.s[1]\n fmla v25.4s, v9.4s, v2.s[1]\n fmla v26.4s, v10.4s, v2.s[1]\n fmla v27.4s, v11.4s, v2.s[1]\n"
      "fmla v28.4s, v8.4s, v3.s[1]\n fmla v29.4s, v9.4s, v3.s[1]\n fmla v30.4s, v10.4s, v3.s[1]\n fmla v31.4s, v11.4s, v3.s[1]\n"
      "ld1 {v4.4s, v5.4s, v6.4s, v7.4s}, [%[w]], #64\n"
      "fmla v16.4s, v4.4s, v0.s[2]\n fmla v17.4s, v5.4s, v0.s[2]\n fmla v18.4s, v6.4s, v0.s[2]\n fmla v19.4s, v7.4s, v0.s[2]\n"
      "fmla v20.4s, v4.4s, v1.s[2]\n fmla v21.4s, v5.4s, v1.s[2]\n fmla v22.4s, v6.4s, v1.s[2]\n fmla v23.4s, v7.4s, v1.s[2]\n"
      "fmla v24.4s, v4.4s, v2.s[2]\n fmla v25.4s, v5.4s, v2.s[2]\n fmla v26.4s, v6.4s, v2.s[2]\n fmla v27.4s, v7.4s, v2.s[2]\n"
      "fmla v28.4s, v4.4s, v3.s[2]\n fmla v29.4s, v5.4s, v3.s[2]\n fmla v30.4s, v6.4s, v3.s[2]\n fmla v31.4s, v7.4s, v3.s[2]\n"
      "ld1 {v8.4s, v9.4s, v10.4s, v11.4s}, [%[w]], #64\n"
      "fmla v16.4s, v8.4s, v0.s[3]\n fmla v17.4s, v9.4s, v0.s[3]\n fmla v18.4s, v10.4s, v0.s[3]\n fmla v19.4s, v11.4s, v0.s[3]\n"
      "fmla v20.4s, v8.4s, v1.s[3]\n fmla v21.4s, v9.4s, v1.s[3]\n fmla v22.4s, v10.4s, v1.s[3]\n fmla v23.4s, v11.4s, v1.s[3]\n"
      "fmla v24.4s, v8.4s, v2.s[3]\n fmla v25.4s, v9.4s, v2.s[3]\n fmla v26.4s, v10.4s, v2.s[3]\n fmla v27.4s, v11.4s, v2.s[3]\n"
      "fmla v28.4s, v8.4s, v3.s[3]\n fmla v29.4s, v9.4s, v3.s[3]\n fmla v30.4s, v10.4s, v3.s[3]\n fmla v31.4s, v11.4s, v3.s[3]\n"
      "ld1 {v4.4s, v5.4s, v6.4s, v7.4s}, [%[w]], #64\n"
      "fmla v16.4s, v4.4s, v12.s[0]\n fmla v17.4s, v5.4s, v12.s[0]\n fmla v18.4s, v6.4s, v12.s[0]\n fmla v19.4s, v7.4s, v12.s[0]\n"
      "fmla v20.4s, v4.4s, v13.s[0]\n fmla v21.4s, v5.4s, v13.s[0]\n fmla v22.4s, v6.4s, v13.s[0]\n fmla v23.4s, v7.4s, v13.s[0]\n"
      "fmla v24.4s, v4.4s, v14.s[0]\n fmla v25.4s, v5.4s, v14.s[0]\n fmla v26.4s, v6.4s, v14.s[0]\n fmla v27.4s, v7.4s, v14.s[0]\n"
      "fmla v28.4s, v4.4s, v15.s[0]\n fmla v29.4s, v5.4s, v15.s[0]\n fmla v30.4s, v6.4s, v15.s[0]\n fmla v31.4s, v7.4s, v15.s[0]\n"
      "ld1 {v8.4s, v9.4s, v10.4s, v11.4s}, [%[w]], #64\n"
      "fmla v16.4s, v8.4s, v12.s[1]\n fmla v17.4s, v9.4s, v12.s[1]\n fmla v18.4s, v10.4s, v12.s[1]\n fmla v19.4s, v11.4s, v12.s[1]\n"
      "fmla v20.4s, v8.4s, v13.s[1]\n fmla v21.4s, v9.4s, v13.s[1]\n fmla v22.4s, v10.4s, v13.s[1]\n fmla v23.4s, v11.4s, v13.s[1]\n"
      "fmla v24.4s, v8.4s, v14.s[1]\n fmla v25.4s, v9.4s, v14.s[1]\n fmla v26.4s, v10.4s, v14.s[1]\n fmla v27.4s, v11.4s, v14.s[1]\n"
      "fmla v28.4s, v8.4s, v15.s[1]\n fmla v29.4s, v9.4s, v15.s[1]\n fmla v30.4s, v10.4s, v15.s[1]\n fmla v31.4s, v11.4s, v15.s[1]\n"
      "ld1 {v4.4s, v5.4s, v6.4s, v7.4s}, [%[w]], #64\n"
      "fmla v16.4s, v4.4s, v12.s[2]\n fmla v17.4s, v5.4s, v12.s[2]\n fmla v18.4s, v6.4s, v12.s[2]\n fmla v19.4s, v7.4s, v12.s[2]\n"
      "fmla v20.4s, v4.4s, v13.s[2]\n fmla v21.4s, v5.4s, v13.s[2]\n fmla v22.4s, v6.4s, v13.s[2]\n fmla v23.4s, v7.4s, v13.s[2]\n"
      "fmla v24.4s, v4.4s, v14.s[2]\n fmla v25.4s, v5.4s, v14.s[2]\n fmla v26.4s, v6.4s, v14.s[2]\n fmla v27.4s, v7.4s, v14.s[2]\n"
      "fmla v28.4s, v4.4s, v15.s[2]\n fmla v29.4s, v5.4s, v15.s[2]\n fmla v30.4s, v6.4s, v15.s[2]\n fmla v31.4s, v7.4s, v15.s[2]\n"
      "ld1 {v8.4s, v9.4s, v10.4s, v11.4s}, [%[w]], #64\n"
      "fmla v16.4s, v8.4s, v12.s[3]\n fmla v17.4s, v9.4s, v12.s[3]\n fmla v18.4s, v10.4s, v12.s[3]\n fmla v19.4s, v11.4s, v12.s[3]\n"
      "fmla v20.4s, v8.4s, v13.s[3]\n fmla v21.4s, v9.4s, v13.s[3]\n fmla v22.4s, v10.4s, v13.s[3]\n fmla v23.4s, v11.4s, v13.s[3]\n"
      "fmla v24.4s, v8.4s, v14.s[3]\n fmla v25.4s, v9.4s, v14.s[3]\n fmla v26.4s, v10.4s, v14.s[3]\n fmla v27.4s, v11.4s, v14.s[3]\n"
      "fmla v28.4s, v8.4s, v15.s[3]\n fmla v29.4s, v9.4s, v15.s[3]\n fmla v30.4s, v10.4s, v15.s[3]\n fmla v31.4s, v11.4s, v15.s[3]\n"
      "subs %[n], %[n], #1\n b.ne 2b\n"
      "3:\n st1 {v16.4s, v17.4s, v18.4s, v19.4s}, [%[o0]]\n"
      "st1 {v20.4s, v21.4s, v22.4s, v23.4s}, [%[o1]]\n"
      "st1 {v24.4s, v25.4s, v26.4s, v27.4s}, [%[o2]]\n"
      "st1 {v28.4s, v29.4s, v30.4s, v31.4s}, [%[o3]]\n"
      : [a0] "+r"(r0), [a1] "+r"(r1), [a2] "+r"(r2), [a3] "+r"(r3), [w] "+r"(w), [n] "+r"(groups)
      : [o0] "r"(o0), [o1] "r"(o1), [o2] "r"(o2), [o3] "r"(o3)
      : "v0", "v1", "v2", "v3", "v4", "v5", "v6", "v7", "v8", "v9", "v10", "v11", "v12", "v13", "v14", "v15",
        "v16", "v17", "v18", "v19", "v20", "v21", "v22", "v23", "v24", "v25", "v26", "v27", "v28", "v29", "v30",
        "v31", "cc", "memory");
  if (direct) return;
  float32x4_t c00 = vld1q_f32(acc), c01 = vld1q_f32(acc + 4), c02 = vld1q_f32(acc + 8), c03 = vld1q_f32(acc + 12);
  float32x4_t c10 = vld1q_f32(acc + 16), c11 = vld1q_f32(acc + 20), c12 = vld1q_f32(acc + 24),
              c13 = vld1q_f32(acc + 28);
  float32x4_t c20 = vld1q_f32(acc + 32), c21 = vld1q_f32(acc + 36), c22 = vld1q_f32(acc + 40),
              c23 = vld1q_f32(acc + 44);
  float32x4_t c30 = vld1q_f32(acc + 48), c31 = vld1q_f32(acc + 52), c32 = vld1q_f32(acc + 56),
              c33 = vld1q_f32(acc + 60);
  for (size_t p = k / 4 * 4; p < k; ++p, ++r0, ++r1, ++r2, ++r3) {
    const float32x4_t a0 = vld1q_dup_f32(r0), a1 = vld1q_dup_f32(r1), a2 = vld1q_dup_f32(r2), a3 = vld1q_dup_f32(r3);
    WG_A64_LANE4(0);
  }
  WG_A64_STORE_ROW(0, c0);
  if (mr > 1) WG_A64_STORE_ROW(1, c1);
  if (mr > 2) WG_A64_STORE_ROW(2, c2);
  if (mr > 3) WG_A64_STORE_ROW(3, c3);
}

/* `tiles` full 6x16 tiles (6 rows each, 16 columns, k a positive multiple of 4) stored straight into
 * c, in one asm loop: the 4x16 loop with 6 rows, 24 accumulators in v8-v31, A in v0-v5 and one B
 * pair (v6/v7) at a time, as the GEMM's 6-row kernel: per 4 k steps 6 A loads + 8 ldp + 96 FMAs
 * (112 per 384 multiply-adds, 74.7 per 256 instead of 78), two 4-k groups per loop iteration. Same
 * order per output: from zero, k = 0, 1, ... */
static void wg_a64_gemm_6x16_full(size_t tiles, size_t k, const float* a, size_t lda, const float* w, float* c,
                                  size_t ldc) {
  const float *r0 = a, *r1 = a + lda, *r2 = a + 2 * lda, *r3 = a + 3 * lda, *r4 = a + 4 * lda, *r5 = a + 5 * lda;
  const float* wp;
  size_t n;
  /* after a tile each row pointer has moved k floats; the next tile starts 6 rows down */
  const size_t a_next = (6 * lda - k) * sizeof(float), c_step = ldc * sizeof(float);
  __asm__ volatile(
      "0:\n mov %[w], %[w0]\n mov %[n], %[n0]\n"  /* per tile: B from the panel start, k from 0 */
      "movi v8.16b, #0\nmovi v9.16b, #0\nmovi v10.16b, #0\nmovi v11.16b, #0\nmovi v12.16b, #0\nmovi v13.16b, #0\nmovi v14.16b, #0\nmovi v15.16b, #0\n"
      "movi v16.16b, #0\nmovi v17.16b, #0\nmovi v18.16b, #0\nmovi v19.16b, #0\nmovi v20.16b, #0\nmovi v21.16b, #0\nmovi v22.16b, #0\nmovi v23.16b, #0\n"
      "movi v24.16b, #0\nmovi v25.16b, #0\nmovi v26.16b, #0\nmovi v27.16b, #0\nmovi v28.16b, #0\nmovi v29.16b, #0\nmovi v30.16b, #0\nmovi v31.16b, #0\n"
      "tbz %[n], #0, 1f\n"  /* an odd count of 4-k groups: one first */
      "ldr q0, [%[a0]], #16\n ldr q1, [%[a1]], #16\n ldr q2, [%[a2]], #16\n ldr q3, [%[a3]], #16\n ldr q4, [%[a4]], #16\n ldr q5, [%[a5]], #16\n"
      "ldp q6, q7, [%[w]], #32\n"  /* k + 0, columns 0..7 */
      "fmla v8.4s, v6.4s, v0.s[0]\n fmla v9.4s, v7.4s, v0.s[0]\n fmla v12.4s, v6.4s, v1.s[0]\n fmla v13.4s, v7.4s, v1.s[0]\n"
      "fmla v16.4s, v6.4s, v2.s[0]\n fmla v17.4s, v7.4s, v2.s[0]\n fmla v20.4s, v6.4s, v3.s[0]\n fmla v21.4s, v7.4s, v3.s[0]\n"
      "fmla v24.4s, v6.4s, v4.s[0]\n fmla v25.4s, v7.4s, v4.s[0]\n fmla v28.4s, v6.4s, v5.s[0]\n fmla v29.4s, v7.4s, v5.s[0]\n"
      "ldp q6, q7, [%[w]], #32\n"  /* k + 0, columns 8..15 */
      "fmla v10.4s, v6.4s, v0.s[0]\n fmla v11.4s, v7.4s, v0.s[0]\n fmla v14.4s, v6.4s, v1.s[0]\n fmla v15.4s, v7.4s, v1.s[0]\n"
      "fmla v18.4s, v6.4s, v2.s[0]\n fmla v19.4s, v7.4s, v2.s[0]\n fmla v22.4s, v6.4s, v3.s[0]\n fmla v23.4s, v7.4s, v3.s[0]\n"
      "fmla v26.4s, v6.4s, v4.s[0]\n fmla v27.4s, v7.4s, v4.s[0]\n fmla v30.4s, v6.4s, v5.s[0]\n fmla v31.4s, v7.4s, v5.s[0]\n"
      "ldp q6, q7, [%[w]], #32\n"  /* k + 1, columns 0..7 */
      "fmla v8.4s, v6.4s, v0.s[1]\n fmla v9.4s, v7.4s, v0.s[1]\n fmla v12.4s, v6.4s, v1.s[1]\n fmla v13.4s, v7.4s, v1.s[1]\n"
      "fmla v16.4s, v6.4s, v2.s[1]\n fmla v17.4s, v7.4s, v2.s[1]\n fmla v20.4s, v6.4s, v3.s[1]\n fmla v21.4s, v7.4s, v3.s[1]\n"
      "fmla v24.4s, v6.4s, v4.s[1]\n fmla v25.4s, v7.4s, v4.s[1]\n fmla v28.4s, v6.4s, v5.s[1]\n fmla v29.4s, v7.4s, v5.s[1]\n"
      "ldp q6, q7, [%[w]], #32\n"  /* k + 1, columns 8..15 */
      "fmla v10.4s, v6.4s, v0.s[1]\n fmla v11.4s, v7.4s, v0.s[1]\n fmla v14.4s, v6.4s, v1.s[1]\n fmla v15.4s, v7.4s, v1.s[1]\n"
      "fmla v18.4s, v6.4s, v2.s[1]\n fmla v19.4s, v7.4s, v2.s[1]\n fmla v22.4s, v6.4s, v3.s[1]\n fmla v23.4s, v7.4s, v3.s[1]\n"
      "fmla v26.4s, v6.4s, v4.s[1]\n fmla v27.4s, v7.4s, v4.s[1]\n fmla v30.4s, v6.4s, v5.s[1]\n fmla v31.4s, v7.4s, v5.s[1]\n"
      "ldp q6, q7, [%[w]], #32\n"  /* k + 2, columns 0..7 */
      "fmla v8.4s, v6.4s, v0.s[2]\n fmla v9.4s, v7.4s, v0.s[2]\n fmla v12.4s, v6.4s, v1.s[2]\n fmla v13.4s, v7.4s, v1.s[2]\n"
      "fmla v16.4s, v6.4s, v2.s[2]\n fmla v17.4s, v7.4s, v2.s[2]\n fmla v20.4s, v6.4s, v3.s[2]\n fmla v21.4s, v7.4s, v3.s[2]\n"
      "fmla v24.4s, v6.4s, v4.s[2]\n fmla v25.4s, v7.4s, v4.s[2]\n fmla v28.4s, v6.4s, v5.s[2]\n fmla v29.4s, v7.4s, v5.s[2]\n"
      "ldp q6, q7, [%[w]], #32\n"  /* k + 2, columns 8..15 */
      "fmla v10.4s, v6.4s, v0.s[2]\n fmla v11.4s, v7.4s, v0.s[2]\n fmla v14.4s, v6.4s, v1.s[2]\n fmla v15.4s, v7.4s, v1.s[2]\n"
      "fmla v18.4s, v6.4s, v2.s[2]\n fmla v19.4s, v7.4s, v2.s[2]\n fmla v22.4s, v6.4s, v3.s[2]\n fmla v23.4s, v7.4s, v3.s[2]\n"
      "fmla v26.4s, v6.4s, v4.s[2]\n fmla v27.4s, v7.4s, v4.s[2]\n fmla v30.4s, v6.4s, v5.s[2]\n fmla v31.4s, v7.4s, v5.s[2]\n"
      "ldp q6, q7, [%[w]], #32\n"  /* k + 3, columns 0..7 */
      "fmla v8.4s, v6.4s, v0.s[3]\n fmla v9.4s, v7.4s, v0.s[3]\n fmla v12.4s, v6.4s, v1.s[3]\n fmla v13.4s, v7.4s, v1.s[3]\n"
      "fmla v16.4s, v6.4s, v2.s[3]\n fmla v17.4s, v7.4s, v2.s[3]\n fmla v20.4s, v6.4s, v3.s[3]\n fmla v21.4s, v7.4s, v3.s[3]\n"
      "fmla v24.4s, v6.4s, v4.s[3]\n fmla v25.4s, v7.4s, v4.s[3]\n fmla v28.4s, v6.4s, v5.s[3]\n fmla v29.4s, v7.4s, v5.s[3]\n"
      "ldp q6, q7, [%[w]], #32\n"  /* k + 3, columns 8..15 */
      "fmla v10.4s, v6.4s, v0.s[3]\n fmla v11.4s, v7.4s, v0.s[3]\n fmla v14.4s, v6.4s, v1.s[3]\n fmla v15.4s, v7.4s, v1.s[3]\n"
      "fmla v18.4s, v6.4s, v2.s[3]\n fmla v19.4s, v7.4s, v2.s[3]\n fmla v22.4s, v6.4s, v3.s[3]\n fmla v23.4s, v7.4s, v3.s[3]\n"
      "fmla v26.4s, v6.4s, v4.s[3]\n fmla v27.4s, v7.4s, v4.s[3]\n fmla v30.4s, v6.4s, v5.s[3]\n fmla v31.4s, v7.4s, v5.s[3]\n"
      "subs %[n], %[n], #1\n b.eq 2f\n"
      "1:\n"  /* 8 k per iteration */
      "ldr q0, [%[a0]], #16\n ldr q1, [%[a1]], #16\n ldr q2, [%[a2]], #16\n ldr q3, [%[a3]], #16\n ldr q4, [%[a4]], #16\n ldr q5, [%[a5]], #16\n"
      "ldp q6, q7, [%[w]], #32\n"  /* k + 0, columns 0..7 */
      "fmla v8.4s, v6.4s, v0.s[0]\n fmla v9.4s, v7.4s, v0.s[0]\n fmla v12.4s, v6.4s, v1.s[0]\n fmla v13.4s, v7.4s, v1.s[0]\n"
      "fmla v16.4s, v6.4s, v2.s[0]\n fmla v17.4s, v7.4s, v2.s[0]\n fmla v20.4s, v6.4s, v3.s[0]\n fmla v21.4s, v7.4s, v3.s[0]\n"
      "fmla v24.4s, v6.4s, v4.s[0]\n fmla v25.4s, v7.4s, v4.s[0]\n fmla v28.4s, v6.4s, v5.s[0]\n fmla v29.4s, v7.4s, v5.s[0]\n"
      "ldp q6, q7, [%[w]], #32\n"  /* k + 0, columns 8..15 */
      "fmla v10.4s, v6.4s, v0.s[0]\n fmla v11.4s, v7.4s, v0.s[0]\n fmla v14.4s, v6.4s, v1.s[0]\n fmla v15.4s, v7.4s, v1.s[0]\n"
      "fmla v18.4s, v6.4s, v2.s[0]\n fmla v19.4s, v7.4s, v2.s[0]\n fmla v22.4s, v6.4s, v3.s[0]\n fmla v23.4s, v7.4s, v3.s[0]\n"
      "fmla v26.4s, v6.4s, v4.s[0]\n fmla v27.4s, v7.4s, v4.s[0]\n fmla v30.4s, v6.4s, v5.s[0]\n fmla v31.4s, v7.4s, v5.s[0]\n"
      "ldp q6, q7, [%[w]], #32\n"  /* k + 1, columns 0..7 */
      "fmla v8.4s, v6.4s, v0.s[1]\n fmla v9.4s, v7.4s, v0.s[1]\n fmla v12.4s, v6.4s, v1.s[1]\n fmla v13.4s, v7.4s, v1.s[1]\n"
      "fmla v16.4s, v6.4s, v2.s[1]\n fmla v17.4s, v7.4s, v2.s[1]\n fmla v20.4s, v6.4s, v3.s[1]\n fmla v21.4s, v7.4s, v3.s[1]\n"
      "fmla v24.4s, v6.4s, v4.s[1]\n fmla v25.4s, v7.4s, v4.s[1]\n fmla v28.4s, v6.4s, v5.s[1]\n fmla v29.4s, v7.4s, v5.s[1]\n"
      "ldp q6, q7, [%[w]], #32\n"  /* k + 1, columns 8..15 */
      "fmla v10.4s, v6.4s, v0.s[1]\n fmla v11.4s, v7.4s, v0.s[1]\n fmla v14.4s, v6.4s, v1.s[1]\n fmla v15.4s, v7.4s, v1.s[1]\n"
      "fmla v18.4s, v6.4s, v2.s[1]\n fmla v19.4s, v7.4s, v2.s[1]\n fmla v22.4s, v6.4s, v3.s[1]\n fmla v23.4s, v7.4s, v3.s[1]\n"
      "fmla v26.4s, v6.4s, v4.s[1]\n fmla v27.4s, v7.4s, v4.s[1]\n fmla v30.4s, v6.4s, v5.s[1]\n fmla v31.4s, v7.4s, v5.s[1]\n"
      "ldp q6, q7, [%[w]], #32\n"  /* k + 2, columns 0..7 */
      "fmla v8.4s, v6.4s, v0.s[2]\n fmla v9.4s, v7.4s, v0.s[2]\n fmla v12.4s, v6.4s, v1.s[2]\n fmla v13.4s, v7.4s, v1.s[2]\n"
      "fmla v16.4s, v6.4s, v2.s[2]\n fmla v17.4s, v7.4s, v2.s[2]\n fmla v20.4s, v6.4s, v3.s[2]\n fmla v21.4s, v7.4s, v3.s[2]\n"
      "fmla v24.4s, v6.4s, v4.s[2]\n fmla v25.4s, v7.4s, v4.s[2]\n fmla v28.4s, v6.4s, v5.s[2]\n fmla v29.4s, v7.4s, v5.s[2]\n"
      "ldp q6, q7, [%[w]], #32\n"  /* k + 2, columns 8..15 */
      "fmla v10.4s, v6.4s, v0.s[2]\n fmla v11.4s, v7.4s, v0.s[2]\n fmla v14.4s, v6.4s, v1.s[2]\n fmla v15.4s, v7.4s, v1.s[2]\n"
      "fmla v18.4s, v6.4s, v2.s[2]\n fmla v19.4s, v7.4s, v2.s[2]\n fmla v22.4s, v6.4s, v3.s[2]\n fmla v23.4s, v7.4s, v3.s[2]\n"
      "fmla v26.4s, v6.4s, v4.s[2]\n fmla v27.4s, v7.4s, v4.s[2]\n fmla v30.4s, v6.4s, v5.s[2]\n fmla v31.4s, v7.4s, v5.s[2]\n"
      "ldp q6, q7, [%[w]], #32\n"  /* k + 3, columns 0..7 */
      "fmla v8.4s, v6.4s, v0.s[3]\n fmla v9.4s, v7.4s, v0.s[3]\n fmla v12.4s, v6.4s, v1.s[3]\n fmla v13.4s, v7.4s, v1.s[3]\n"
      "fmla v16.4s, v6.4s, v2.s[3]\n fmla v17.4s, v7.4s, v2.s[3]\n fmla v20.4s, v6.4s, v3.s[3]\n fmla v21.4s, v7.4s, v3.s[3]\n"
      "fmla v24.4s, v6.4s, v4.s[3]\n fmla v25.4s, v7.4s, v4.s[3]\n fmla v28.4s, v6.4s, v5.s[3]\n fmla v29.4s, v7.4s, v5.s[3]\n"
      "ldp q6, q7, [%[w]], #32\n"  /* k + 3, columns 8..15 */
      "fmla v10.4s, v6.4s, v0.s[3]\n fmla v11.4s, v7.4s, v0.s[3]\n fmla v14.4s, v6.4s, v1.s[3]\n fmla v15.4s, v7.4s, v1.s[3]\n"
      "fmla v18.4s, v6.4s, v2.s[3]\n fmla v19.4s, v7.4s, v2.s[3]\n fmla v22.4s, v6.4s, v3.s[3]\n fmla v23.4s, v7.4s, v3.s[3]\n"
      "fmla v26.4s, v6.4s, v4.s[3]\n fmla v27.4s, v7.4s, v4.s[3]\n fmla v30.4s, v6.4s, v5.s[3]\n fmla v31.4s, v7.4s, v5.s[3]\n"
      "ldr q0, [%[a0]], #16\n ldr q1, [%[a1]], #16\n ldr q2, [%[a2]], #16\n ldr q3, [%[a3]], #16\n ldr q4, [%[a4]], #16\n ldr q5, [%[a5]], #16\n"
      "ldp q6, q7, [%[w]], #32\n"  /* k + 0, columns 0..7 */
      "fmla v8.4s, v6.4s, v0.s[0]\n fmla v9.4s, v7.4s, v0.s[0]\n fmla v12.4s, v6.4s, v1.s[0]\n fmla v13.4s, v7.4s, v1.s[0]\n"
      "fmla v16.4s, v6.4s, v2.s[0]\n fmla v17.4s, v7.4s, v2.s[0]\n fmla v20.4s, v6.4s, v3.s[0]\n fmla v21.4s, v7.4s, v3.s[0]\n"
      "fmla v24.4s, v6.4s, v4.s[0]\n fmla v25.4s, v7.4s, v4.s[0]\n fmla v28.4s, v6.4s, v5.s[0]\n fmla v29.4s, v7.4s, v5.s[0]\n"
      "ldp q6, q7, [%[w]], #32\n"  /* k + 0, columns 8..15 */
      "fmla v10.4s, v6.4s, v0.s[0]\n fmla v11.4s, v7.4s, v0.s[0]\n fmla v14.4s, v6.4s, v1.s[0]\n fmla v15.4s, v7.4s, v1.s[0]\n"
      "fmla v18.4s, v6.4s, v2.s[0]\n fmla v19.4s, v7.4s, v2.s[0]\n fmla v22.4s, v6.4s, v3.s[0]\n fmla v23.4s, v7.4s, v3.s[0]\n"
      "fmla v26.4s, v6.4s, v4.s[0]\n fmla v27.4s, v7.4s, v4.s[0]\n fmla v30.4s, v6.4s, v5.s[0]\n fmla v31.4s, v7.4s, v5.s[0]\n"
      "ldp q6, q7, [%[w]], #32\n"  /* k + 1, columns 0..7 */
      "fmla v8.4s, v6.4s, v0.s[1]\n fmla v9.4s, v7.4s, v0.s[1]\n fmla v12.4s, v6.4s, v1.s[1]\n fmla v13.4s, v7.4s, v1.s[1]\n"
      "fmla v16.4s, v6.4s, v2.s[1]\n fmla v17.4s, v7.4s, v2.s[1]\n fmla v20.4s, v6.4s, v3.s[1]\n fmla v21.4s, v7.4s, v3.s[1]\n"
      "fmla v24.4s, v6.4s, v4.s[1]\n fmla v25.4s, v7.4s, v4.s[1]\n fmla v28.4s, v6.4s, v5.s[1]\n fmla v29.4s, v7.4s, v5.s[1]\n"
      "ldp q6, q7, [%[w]], #32\n"  /* k + 1, columns 8..15 */
      "fmla v10.4s, v6.4s, v0.s[1]\n fmla v11.4s, v7.4s, v0.s[1]\n fmla v14.4s, v6.4s, v1.s[1]\n fmla v15.4s, v7.4s, v1.s[1]\n"
      "fmla v18.4s, v6.4s, v2.s[1]\n fmla v19.4s, v7.4s, v2.s[1]\n fmla v22.4s, v6.4s, v3.s[1]\n fmla v23.4s, v7.4s, v3.s[1]\n"
      "fmla v26.4s, v6.4s, v4.s[1]\n fmla v27.4s, v7.4s, v4.s[1]\n fmla v30.4s, v6.4s, v5.s[1]\n fmla v31.4s, v7.4s, v5.s[1]\n"
      "ldp q6, q7, [%[w]], #32\n"  /* k + 2, columns 0..7 */
      "fmla v8.4s, v6.4s, v0.s[2]\n fmla v9.4s, v7.4s, v0.s[2]\n fmla v12.4s, v6.4s, v1.s[2]\n fmla v13.4s, v7.4s, v1.s[2]\n"
      "fmla v16.4s, v6.4s, v2.s[2]\n fmla v17.4s, v7.4s, v2.s[2]\n fmla v20.4s, v6.4s, v3.s[2]\n fmla v21.4s, v7.4s, v3.s[2]\n"
      "fmla v24.4s, v6.4s, v4.s[2]\n fmla v25.4s, v7.4s, v4.s[2]\n fmla v28.4s, v6.4s, v5.s[2]\n fmla v29.4s, v7.4s, v5.s[2]\n"
      "ldp q6, q7, [%[w]], #32\n"  /* k + 2, columns 8..15 */
      "fmla v10.4s, v6.4s, v0.s[2]\n fmla v11.4s, v7.4s, v0.s[2]\n fmla v14.4s, v6.4s, v1.s[2]\n fmla v15.4s, v7.4s, v1.s[2]\n"
      "fmla v18.4s, v6.4s, v2.s[2]\n fmla v19.4s, v7.4s, v2.s[2]\n fmla v22.4s, v6.4s, v3.s[2]\n fmla v23.4s, v7.4s, v3.s[2]\n"
      "fmla v26.4s, v6.4s, v4.s[2]\n fmla v27.4s, v7.4s, v4.s[2]\n fmla v30.4s, v6.4s, v5.s[2]\n fmla v31.4s, v7.4s, v5.s[2]\n"
      "ldp q6, q7, [%[w]], #32\n"  /* k + 3, columns 0..7 */
      "fmla v8.4s, v6.4s, v0.s[3]\n fmla v9.4s, v7.4s, v0.s[3]\n fmla v12.4s, v6.4s, v1.s[3]\n fmla v13.4s, v7.4s, v1.s[3]\n"
      "fmla v16.4s, v6.4s, v2.s[3]\n fmla v17.4s, v7.4s, v2.s[3]\n fmla v20.4s, v6.4s, v3.s[3]\n fmla v21.4s, v7.4s, v3.s[3]\n"
      "fmla v24.4s, v6.4s, v4.s[3]\n fmla v25.4s, v7.4s, v4.s[3]\n fmla v28.4s, v6.4s, v5.s[3]\n fmla v29.4s, v7.4s, v5.s[3]\n"
      "ldp q6, q7, [%[w]], #32\n"  /* k + 3, columns 8..15 */
      "fmla v10.4s, v6.4s, v0.s[3]\n fmla v11.4s, v7.4s, v0.s[3]\n fmla v14.4s, v6.4s, v1.s[3]\n fmla v15.4s, v7.4s, v1.s[3]\n"
      "fmla v18.4s, v6.4s, v2.s[3]\n fmla v19.4s, v7.4s, v2.s[3]\n fmla v22.4s, v6.4s, v3.s[3]\n fmla v23.4s, v7.4s, v3.s[3]\n"
      "fmla v26.4s, v6.4s, v4.s[3]\n fmla v27.4s, v7.4s, v4.s[3]\n fmla v30.4s, v6.4s, v5.s[3]\n fmla v31.4s, v7.4s, v5.s[3]\n"
      "subs %[n], %[n], #2\n b.ne 1b\n"
      "2:\n"  /* one st1 per row, each moving c a row down */
      "st1 {v8.4s, v9.4s, v10.4s, v11.4s}, [%[c]], %[c_step]\n"
      "st1 {v12.4s, v13.4s, v14.4s, v15.4s}, [%[c]], %[c_step]\n"
      "st1 {v16.4s, v17.4s, v18.4s, v19.4s}, [%[c]], %[c_step]\n"
      "st1 {v20.4s, v21.4s, v22.4s, v23.4s}, [%[c]], %[c_step]\n"
      "st1 {v24.4s, v25.4s, v26.4s, v27.4s}, [%[c]], %[c_step]\n"
      "st1 {v28.4s, v29.4s, v30.4s, v31.4s}, [%[c]], %[c_step]\n"
      "add %[a0], %[a0], %[a_next]\n add %[a1], %[a1], %[a_next]\n add %[a2], %[a2], %[a_next]\n add %[a3], %[a3], %[a_next]\n add %[a4], %[a4], %[a_next]\n add %[a5], %[a5], %[a_next]\n"  /* next tile: 6 rows down */
      "subs %[tiles], %[tiles], #1\n b.ne 0b\n"
      : [a0] "+r"(r0), [a1] "+r"(r1), [a2] "+r"(r2), [a3] "+r"(r3), [a4] "+r"(r4), [a5] "+r"(r5), [w] "=&r"(wp),
        [n] "=&r"(n), [c] "+r"(c), [tiles] "+r"(tiles)
      : [w0] "r"(w), [n0] "r"(k / 4), [a_next] "r"(a_next), [c_step] "r"(c_step)
      : "v0", "v1", "v2", "v3", "v4", "v5", "v6", "v7", "v8", "v9", "v10", "v11", "v12", "v13", "v14", "v15",
        "v16", "v17", "v18", "v19", "v20", "v21", "v22", "v23", "v24", "v25", "v26", "v27", "v28", "v29", "v30",
        "v31", "cc", "memory");
}

/* `tiles` full 4x16 tiles (4 rows each, 16 columns, k a positive multiple of 4) stored straight into
 * c, in one asm loop: the k loop of wg_a64_gemm_4x16 without its per-call setup and the store through
 * a buffer. Same order per output: from zero, k = 0, 1, ... */
static void wg_a64_gemm_4x16_full(size_t tiles, size_t k, const float* a, size_t lda, const float* w, float* c,
                                  size_t ldc) {
  const float *r0 = a, *r1 = a + lda, *r2 = a + 2 * lda, *r3 = a + 3 * lda;
  const float* wp;
  size_t n;
  /* after a tile each row pointer has moved k floats; the next tile starts 4 rows down */
  const size_t a_next = (4 * lda - k) * sizeof(float), c_step = ldc * sizeof(float);
  __asm__ volatile(
      "0:\n mov %[w], %[w0]\n mov %[n], %[n0]\n"  /* per tile: B from the panel start, k from 0 */
      "movi v16.16b, #0\n movi v17.16b, #0\n movi v18.16b, #0\n movi v19.16b, #0\n"
      "movi v20.16b, #0\n movi v21.16b, #0\n movi v22.16b, #0\n movi v23.16b, #0\n"
      "movi v24.16b, #0\n movi v25.16b, #0\n movi v26.16b, #0\n movi v27.16b, #0\n"
      "movi v28.16b, #0\n movi v29.16b, #0\n movi v30.16b, #0\n movi v31.16b, #0\n"
      "tbz %[n], #0, 1f\n"  /* an odd count of 4-k groups: one first */
      "ldr q0, [%[a0]], #16\n ldr q1, [%[a1]], #16\n ldr q2, [%[a2]], #16\n ldr q3, [%[a3]], #16\n"
      "ld1 {v4.4s, v5.4s, v6.4s, v7.4s}, [%[w]], #64\n"
      "fmla v16.4s, v4.4s, v0.s[0]\n fmla v17.4s, v5.4s, v0.s[0]\n fmla v18.4s, v6.4s, v0.s[0]\n fmla v19.4s, v7.4s, v0.s[0]\n"
      "fmla v20.4s, v4.4s, v1.s[0]\n fmla v21.4s, v5.4s, v1.s[0]\n fmla v22.4s, v6.4s, v1.s[0]\n fmla v23.4s, v7.4s, v1.s[0]\n"
      "fmla v24.4s, v4.4s, v2.s[0]\n fmla v25.4s, v5.4s, v2.s[0]\n fmla v26.4s, v6.4s, v2.s[0]\n fmla v27.4s, v7.4s, v2.s[0]\n"
      "fmla v28.4s, v4.4s, v3.s[0]\n fmla v29.4s, v5.4s, v3.s[0]\n fmla v30.4s, v6.4s, v3.s[0]\n fmla v31.4s, v7.4s, v3.s[0]\n"
      "ld1 {v8.4s, v9.4s, v10.4s, v11.4s}, [%[w]], #64\n"
      "fmla v16.4s, v8.4s, v0.s[1]\n fmla v17.4s, v9.4s, v0.s[1]\n fmla v18.4s, v10.4s, v0.s[1]\n fmla v19.4s, v11.4s, v0.s[1]\n"
      "fmla v20.4s, v8.4s, v1.s[1]\n fmla v21.4s, v9.4s, v1.s[1]\n fmla v22.4s, v10.4s, v1.s[1]\n fmla v23.4s, v11.4s, v1.s[1]\n"
      "fmla v24.4s, v8.4s, v2.s[1]\n fmla v25.4s, v9.4s, v2.s[1]\n fmla v26.4s, v10.4s, v2.s[1]\n fmla v27.4s, v11.4s, v2.s[1]\n"
      "fmla v28.4s, v8.4s, v3.s[1]\n fmla v29.4s, v9.4s, v3.s[1]\n fmla v30.4s, v10.4s, v3.s[1]\n fmla v31.4s, v11.4s, v3.s[1]\n"
      "ld1 {v4.4s, v5.4s, v6.4s, v7.4s}, [%[w]], #64\n"
      "fmla v16.4s, v4.4s, v0.s[2]\n fmla v17.4s, v5.4s, v0.s[2]\n fmla v18.4s, v6.4s, v0.s[2]\n fmla v19.4s, v7.4s, v0.s[2]\n"
      "fmla v20.4s, v4.4s, v1.s[2]\n fmla v21.4s, v5.4s, v1.s[2]\n fmla v22.4s, v6.4s, v1.s[2]\n fmla v23.4s, v7.4s, v1.s[2]\n"
      "fmla v24.4s, v4.4s, v2.s[2]\n fmla v25.4s, v5.4s, v2.s[2]\n fmla v26.4s, v6.4s, v2.s[2]\n fmla v27.4s, v7.4s, v2.s[2]\n"
      "fmla v28.4s, v4.4s, v3.s[2]\n fmla v29.4s, v5.4s, v3.s[2]\n fmla v30.4s, v6.4s, v3.s[2]\n fmla v31.4s, v7.4s, v3.s[2]\n"
      "ld1 {v8.4s, v9.4s, v10.4s, v11.4s}, [%[w]], #64\n"
      "fmla v16.4s, v8.4s, v0.s[3]\n fmla v17.4s, v9.4s, v0.s[3]\n fmla v18.4s, v10.4s, v0.s[3]\n fmla v19.4s, v11.4s, v0.s[3]\n"
      "fmla v20.4s, v8.4s, v1.s[3]\n fmla v21.4s, v9.4s, v1.s[3]\n fmla v22.4s, v10.4s, v1.s[3]\n fmla v23.4s, v11.4s, v1.s[3]\n"
      "fmla v24.4s, v8.4s, v2.s[3]\n fmla v25.4s, v9.4s, v2.s[3]\n fmla v26.4s, v10.4s, v2.s[3]\n fmla v27.4s, v11.4s, v2.s[3]\n"
      "fmla v28.4s, v8.4s, v3.s[3]\n fmla v29.4s, v9.4s, v3.s[3]\n fmla v30.4s, v10.4s, v3.s[3]\n fmla v31.4s, v11.4s, v3.s[3]\n"
      "1:\n lsr %[n], %[n], #1\n cbz %[n], 3f\n"
      "2:\n ldp q0, q12, [%[a0]], #32\n ldp q1, q13, [%[a1]], #32\n ldp q2, q14, [%[a2]], #32\n ldp q3, q15, [%[a3]], #32\n"
      "ld1 {v4.4s, v5.4s, v6.4s, v7.4s}, [%[w]], #64\n"
      "fmla v16.4s, v4.4s, v0.s[0]\n fmla v17.4s, v5.4s, v0.s[0]\n fmla v18.4s, v6.4s, v0.s[0]\n fmla v19.4s, v7.4s, v0.s[0]\n"
      "fmla v20.4s, v4.4s, v1.s[0]\n fmla v21.4s, v5.4s, v1.s[0]\n fmla v22.4s, v6.4s, v1.s[0]\n fmla v23.4s, v7.4s, v1.s[0]\n"
      "fmla v24.4s, v4.4s, v2.s[0]\n fmla v25.4s, v5.4s, v2.s[0]\n fmla v26.4s, v6.4s, v2.s[0]\n fmla v27.4s, v7.4s, v2.s[0]\n"
      "fmla v28.4s, v4.4s, v3.s[0]\n fmla v29.4s, v5.4s, v3.s[0]\n fmla v30.4s, v6.4s, v3.s[0]\n fmla v31.4s, v7.4s, v3.s[0]\n"
      "ld1 {v8.4s, v9.4s, v10.4s, v11.4s}, [%[w]], #64\n"
      "fmla v16.4s, v8.4s, v0.s[1]\n fmla v17.4s, v9.4s, v0.s[1]\n fmla v18.4s, v10.4s, v0.s[1]\n fmla v19.4s, v11.4s, v0.s[1]\n"
      "fmla v20.4s, v8.4s, v1.s[1]\n fmla v21.4s, v9.4s, v1.s[1]\n fmla v22.4s, v10.4s, v1.s[1]\n fmla v23.4s, v11.4s, v1.s[1]\n"
      "fmla v24.4s, v8.4s, v2.s[1]\n fmla v25.4s, v9.4s, v2.s[1]\n fmla v26.4s, v10.4s, v2.s[1]\n fmla v27.4s, v11.4s, v2.s[1]\n"
      "fmla v28.4s, v8.4s, v3.s[1]\n fmla v29.4s, v9.4s, v3.s[1]\n fmla v30.4s, v10.4s, v3.s[1]\n fmla v31.4s, v11.4s, v3.s[1]\n"
      "ld1 {v4.4s, v5.4s, v6.4s, v7.4s}, [%[w]], #64\n"
      "fmla v16.4s, v4.4s, v0.s[2]\n fmla v17.4s, v5.4s, v0.s[2]\n fmla v18.4s, v6.4s, v0.s[2]\n fmla v19.4s, v7.4s, v0.s[2]\n"
      "fmla v20.4s, v4.4s, v1.s[2]\n fmla v21.4s, v5.4s, v1.s[2]\n fmla v22.4s, v6.4s, v1.s[2]\n fmla v23.4s, v7.4s, v1.s[2]\n"
      "fmla v24.4s, v4.4s, v2.s[2]\n fmla v25.4s, v5.4s, v2.s[2]\n fmla v26.4s, v6.4s, v2.s[2]\n fmla v27.4s, v7.4s, v2.s[2]\n"
      "fmla v28.4s, v4.4s, v3.s[2]\n fmla v29.4s, v5.4s, v3.s[2]\n fmla v30.4s, v6.4s, v3.s[2]\n fmla v31.4s, v7.4s, v3.s[2]\n"
      "ld1 {v8.4s, v9.4s, v10.4s, v11.4s}, [%[w]], #64\n"
      "fmla v16.4s, v8.4s, v0.s[3]\n fmla v17.4s, v9.4s, v0.s[3]\n fmla v18.4s, v10.4s, v0.s[3]\n fmla v19.4s, v11.4s, v0.s[3]\n"
      "fmla v20.4s, v8.4s, v1.s[3]\n fmla v21.4s, v9.4s, v1.s[3]\n fmla v22.4s, v10.4s, v1.s[3]\n fmla v23.4s, v11.4s, v1.s[3]\n"
      "fmla v24.4s, v8.4s, v2.s[3]\n fmla v25.4s, v9.4s, v2.s[3]\n fmla v26.4s, v10.4s, v2.s[3]\n fmla v27.4s, v11.4s, v2.s[3]\n"
      "fmla v28.4s, v8.4s, v3.s[3]\n fmla v29.4s, v9.4s, v3.s[3]\n fmla v30.4s, v10.4s, v3.s[3]\n fmla v31.4s, v11.4s, v3.s[3]\n"
      "ld1 {v4.4s, v5.4s, v6.4s, v7.4s}, [%[w]], #64\n"
      "fmla v16.4s, v4.4s, v12.s[0]\n fmla v17.4s, v5.4s, v12.s[0]\n fmla v18.4s, v6.4s, v12.s[0]\n fmla v19.4s, v7.4s, v12.s[0]\n"
      "fmla v20.4s, v4.4s, v13.s[0]\n fmla v21.4s, v5.4s, v13.s[0]\n fmla v22.4s, v6.4s, v13.s[0]\n fmla v23.4s, v7.4s, v13.s[0]\n"
      "fmla v24.4s, v4.4s, v14.s[0]\n fmla v25.4s, v5.4s, v14.s[0]\n fmla v26.4s, v6.4s, v14.s[0]\n fmla v27.4s, v7.4s, v14.s[0]\n"
      "fmla v28.4s, v4.4s, v15.s[0]\n fmla v29.4s, v5.4s, v15.s[0]\n fmla v30.4s, v6.4s, v15.s[0]\n fmla v31.4s, v7.4s, v15.s[0]\n"
      "ld1 {v8.4s, v9.4s, v10.4s, v11.4s}, [%[w]], #64\n"
      "fmla v16.4s, v8.4s, v12.s[1]\n fmla v17.4s, v9.4s, v12.s[1]\n fmla v18.4s, v10.4s, v12.s[1]\n fmla v19.4s, v11.4s, v12.s[1]\n"
      "fmla v20.4s, v8.4s, v13.s[1]\n fmla v21.4s, v9.4s, v13.s[1]\n fmla v22.4s, v10.4s, v13.s[1]\n fmla v23.4s, v11.4s, v13.s[1]\n"
      "fmla v24.4s, v8.4s, v14.s[1]\n fmla v25.4s, v9.4s, v14.s[1]\n fmla v26.4s, v10.4s, v14.s[1]\n fmla v27.4s, v11.4s, v14.s[1]\n"
      "fmla v28.4s, v8.4s, v15.s[1]\n fmla v29.4s, v9.4s, v15.s[1]\n fmla v30.4s, v10.4s, v15.s[1]\n fmla v31.4s, v11.4s, v15.s[1]\n"
      "ld1 {v4.4s, v5.4s, v6.4s, v7.4s}, [%[w]], #64\n"
      "fmla v16.4s, v4.4s, v12.s[2]\n fmla v17.4s, v5.4s, v12.s[2]\n fmla v18.4s, v6.4s, v12.s[2]\n fmla v19.4s, v7.4s, v12.s[2]\n"
      "fmla v20.4s, v4.4s, v13.s[2]\n fmla v21.4s, v5.4s, v13.s[2]\n fmla v22.4s, v6.4s, v13.s[2]\n fmla v23.4s, v7.4s, v13.s[2]\n"
      "fmla v24.4s, v4.4s, v14.s[2]\n fmla v25.4s, v5.4s, v14.s[2]\n fmla v26.4s, v6.4s, v14.s[2]\n fmla v27.4s, v7.4s, v14.s[2]\n"
      "fmla v28.4s, v4.4s, v15.s[2]\n fmla v29.4s, v5.4s, v15.s[2]\n fmla v30.4s, v6.4s, v15.s[2]\n fmla v31.4s, v7.4s, v15.s[2]\n"
      "ld1 {v8.4s, v9.4s, v10.4s, v11.4s}, [%[w]], #64\n"
      "fmla v16.4s, v8.4s, v12.s[3]\n fmla v17.4s, v9.4s, v12.s[3]\n fmla v18.4s, v10.4s, v12.s[3]\n fmla v19.4s, v11.4s, v12.s[3]\n"
      "fmla v20.4s, v8.4s, v13.s[3]\n fmla v21.4s, v9.4s, v13.s[3]\n fmla v22.4s, v10.4s, v13.s[3]\n fmla v23.4s, v11.4s, v13.s[3]\n"
      "fmla v24.4s, v8.4s, v14.s[3]\n fmla v25.4s, v9.4s, v14.s[3]\n fmla v26.4s, v10.4s, v14.s[3]\n fmla v27.4s, v11.4s, v14.s[3]\n"
      "fmla v28.4s, v8.4s, v15.s[3]\n fmla v29.4s, v9.4s, v15.s[3]\n fmla v30.4s, v10.4s, v15.s[3]\n fmla v31.4s, v11.4s, v15.s[3]\n"
      "subs %[n], %[n], #1\n b.ne 2b\n"
      "3:\n"  /* one st1 per row, each moving c a row down */
      "st1 {v16.4s, v17.4s, v18.4s, v19.4s}, [%[c]], %[c_step]\n"
      "st1 {v20.4s, v21.4s, v22.4s, v23.4s}, [%[c]], %[c_step]\n"
      "st1 {v24.4s, v25.4s, v26.4s, v27.4s}, [%[c]], %[c_step]\n"
      "st1 {v28.4s, v29.4s, v30.4s, v31.4s}, [%[c]], %[c_step]\n"
      "add %[a0], %[a0], %[a_next]\n add %[a1], %[a1], %[a_next]\n add %[a2], %[a2], %[a_next]\n add %[a3], %[a3], %[a_next]\n"  /* next tile: 4 rows down */
      "subs %[tiles], %[tiles], #1\n b.ne 0b\n"
      : [a0] "+r"(r0), [a1] "+r"(r1), [a2] "+r"(r2), [a3] "+r"(r3), [w] "=&r"(wp), [n] "=&r"(n), [c] "+r"(c),
        [tiles] "+r"(tiles)
      : [w0] "r"(w), [n0] "r"(k / 4), [a_next] "r"(a_next), [c_step] "r"(c_step)
      : "v0", "v1", "v2", "v3", "v4", "v5", "v6", "v7", "v8", "v9", "v10", "v11", "v12", "v13", "v14", "v15",
        "v16", "v17", "v18", "v19", "v20", "v21", "v22", "v23", "v24", "v25", "v26", "v27", "v28", "v29", "v30",
        "v31", "cc", "memory");
}

/* How many 6-row tiles to take from `rows`: the 4-row kernel costs fewer instructions per
 * multiply-add (142 per 512 against 222 per 768), so 4-row tiles, with one 6-row tile when rows % 4
 * is 2 or 3 (4 q + 2 = 6 + 4 (q - 1)) so that at most one row is left (the 1-row kernel). */
static size_t six_row_part(size_t rows) { return rows >= 6 && rows % 4 >= 2 ? 1 : 0; }

/* The products of one transform position: m_out[rows, 0 .. co_pad) = v[rows, 0 .. k) x packed B. */
static int wg_a64_tile_gemm(const lite_f32_gemm_config* gemm, size_t rows, size_t out_c, size_t co_pad, size_t k,
                            const float* v, size_t ldv, const float* packed, float* m_out, size_t ldm) {
  if (gemm->nr != WG_A64_NR) return 0;
  for (size_t j0 = 0; j0 < out_c; j0 += WG_A64_NR) {
    const float* panel = packed + (j0 / WG_A64_NR) * WG_A64_NR * (k + 1) + WG_A64_NR; /* past the bias row */
    const size_t cols = co_pad - j0 < WG_A64_NR ? co_pad - j0 : WG_A64_NR;
    size_t i0 = 0;
    if (cols == WG_A64_NR && k % 4 == 0 && k > 0) {
      if ((i0 = six_row_part(rows) * 6) > 0) wg_a64_gemm_6x16_full(i0 / 6, k, v, ldv, panel, m_out + j0, ldm);
      const size_t fours = (rows - i0) / 4;
      if (fours > 0) wg_a64_gemm_4x16_full(fours, k, v + i0 * ldv, ldv, panel, m_out + i0 * ldm + j0, ldm);
      i0 += 4 * fours;
    }
    for (; i0 < rows; i0 += WG_A64_MR)
      wg_a64_gemm_4x16(rows - i0 < WG_A64_MR ? rows - i0 : WG_A64_MR, cols / 4, k, v + i0 * ldv, ldv, panel,
                       m_out + i0 * ldm + j0, ldm);
  }
  return 1;
}

#define LITE_WINOGRAD_TILE_GEMM wg_a64_tile_gemm
#define LITE_WINOGRAD_ENTRY lite_f32_winograd_nhwc_aarch64_neonfma
#include "../portable/f32_winograd_nhwc_body.h"
