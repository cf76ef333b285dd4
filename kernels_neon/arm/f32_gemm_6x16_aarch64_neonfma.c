/* Packed fp32 GEMM microkernel, 6 rows x 16 columns, aarch64 NEON with FMA.
 * 4 k per loop iteration: one 128-bit load brings 4 consecutive k of an A row, and fmla by element
 * multiplies a B vector by one lane of it, so there are no broadcasts: per 4 k, 6 A loads + 8 ldp
 * of B feed 96 FMAs (~6.9 FLOPs per instruction; the previous one-k-per-step C version was ~3,
 * because GCC spilled the accumulators). That needs all 32 vector registers (24 accumulators
 * v8..v31, A in v0..v5, B pairs in v6/v7), which no compiler we have allocates without spilling
 * from intrinsics, hence inline assembly. k % 4 leftovers run one k at a time (ld1r). The sum per
 * output element is bias, then k = 0, 1, ... in order, as in the reference.
 * Full tiles are clamped and stored by the assembly; edge tiles (mr < 6 or nc < 16) go through a
 * stack tile and are copied. HardSwish runs on the stored rows. */
#include <arm_neon.h>
#include <math.h>
#include <string.h>

#include "lite_kernels/gemm_f32_packed.h"

enum { MR = 6, NR = 16 };

/* y = y * clamp(y / 6 + 0.5, 0, 1) on n floats, with the division of the reference. */
static void hard_swish_row(float* y, size_t n) {
  const float32x4_t six = vdupq_n_f32(6.0f), half = vdupq_n_f32(0.5f), zero = vdupq_n_f32(0.0f),
                    one = vdupq_n_f32(1.0f);
  size_t j = 0;
  for (; j + 4 <= n; j += 4) {
    const float32x4_t v = vld1q_f32(y + j);
    const float32x4_t g = vminq_f32(vmaxq_f32(vaddq_f32(vdivq_f32(v, six), half), zero), one);
    vst1q_f32(y + j, vmulq_f32(v, g));
  }
  for (; j < n; ++j) {
    float g = y[j] / 6.0f + 0.5f;
    g = g < 0.0f ? 0.0f : g;
    y[j] = y[j] * (g > 1.0f ? 1.0f : g);
  }
}

void lite_f32_gemm_ukernel_6x16_aarch64_neonfma(size_t mr, size_t nc, size_t k, const float* a, size_t a_stride,
                                                const float* w, float* c, size_t c_stride,
                                                const lite_f32_minmax_params* params) {
  /* Rows past mr repeat the previous row (valid memory; their sums land in the stack tile). */
  const float* a0 = a;
  const float* a1 = mr > 1 ? a0 + a_stride : a0;
  const float* a2 = mr > 2 ? a1 + a_stride : a1;
  const float* a3 = mr > 3 ? a2 + a_stride : a2;
  const float* a4 = mr > 4 ? a3 + a_stride : a3;
  const float* a5 = mr > 5 ? a4 + a_stride : a4;
  float tile[MR * NR];
  const int full = mr == MR && nc == NR;
  float* c0 = full ? c : tile;
  float* c1 = full ? c0 + c_stride : tile + NR;
  float* c2 = full ? c1 + c_stride : tile + 2 * NR;
  float* c3 = full ? c2 + c_stride : tile + 3 * NR;
  float* c4 = full ? c3 + c_stride : tile + 4 * NR;
  float* c5 = full ? c4 + c_stride : tile + 5 * NR;
  size_t k4 = k / 4, kr = k % 4;
  const size_t clamp = params->min != -INFINITY || params->max != INFINITY;
  const float* minmax = &params->min; /* min and max are adjacent */
  __asm__ volatile(
      "ldp q8, q9, [%[w]], #32\nldp q10, q11, [%[w]], #32\n"  /* row 0 = bias */
      "mov v12.16b, v8.16b\nmov v13.16b, v9.16b\nmov v14.16b, v10.16b\nmov v15.16b, v11.16b\n"  /* rows 1..5 = bias */
      "mov v16.16b, v8.16b\nmov v17.16b, v9.16b\nmov v18.16b, v10.16b\nmov v19.16b, v11.16b\n"
      "mov v20.16b, v8.16b\nmov v21.16b, v9.16b\nmov v22.16b, v10.16b\nmov v23.16b, v11.16b\n"
      "mov v24.16b, v8.16b\nmov v25.16b, v9.16b\nmov v26.16b, v10.16b\nmov v27.16b, v11.16b\n"
      "mov v28.16b, v8.16b\nmov v29.16b, v9.16b\nmov v30.16b, v10.16b\nmov v31.16b, v11.16b\n"
      "cbz %[k4], 2f\n"
      "1:\n"  /* 4 k per iteration: v0..v5 = 4 k of rows 0..5, v6/v7 = 2 B vectors */
      "ldr q0, [%[a0]], #16\nldr q1, [%[a1]], #16\nldr q2, [%[a2]], #16\n"
      "ldr q3, [%[a3]], #16\nldr q4, [%[a4]], #16\nldr q5, [%[a5]], #16\n"
      "ldp q6, q7, [%[w]], #32\n"  /* k + 0, columns 0..7 */
      "fmla v8.4s, v6.4s, v0.s[0]\nfmla v9.4s, v7.4s, v0.s[0]\nfmla v12.4s, v6.4s, v1.s[0]\n"
      "fmla v13.4s, v7.4s, v1.s[0]\nfmla v16.4s, v6.4s, v2.s[0]\nfmla v17.4s, v7.4s, v2.s[0]\n"
      "fmla v20.4s, v6.4s, v3.s[0]\nfmla v21.4s, v7.4s, v3.s[0]\nfmla v24.4s, v6.4s, v4.s[0]\n"
      "fmla v25.4s, v7.4s, v4.s[0]\nfmla v28.4s, v6.4s, v5.s[0]\nfmla v29.4s, v7.4s, v5.s[0]\n"
      "ldp q6, q7, [%[w]], #32\n"  /* k + 0, columns 8..15 */
      "fmla v10.4s, v6.4s, v0.s[0]\nfmla v11.4s, v7.4s, v0.s[0]\nfmla v14.4s, v6.4s, v1.s[0]\n"
      "fmla v15.4s, v7.4s, v1.s[0]\nfmla v18.4s, v6.4s, v2.s[0]\nfmla v19.4s, v7.4s, v2.s[0]\n"
      "fmla v22.4s, v6.4s, v3.s[0]\nfmla v23.4s, v7.4s, v3.s[0]\nfmla v26.4s, v6.4s, v4.s[0]\n"
      "fmla v27.4s, v7.4s, v4.s[0]\nfmla v30.4s, v6.4s, v5.s[0]\nfmla v31.4s, v7.4s, v5.s[0]\n"
      "ldp q6, q7, [%[w]], #32\n"  /* k + 1, columns 0..7 */
      "fmla v8.4s, v6.4s, v0.s[1]\nfmla v9.4s, v7.4s, v0.s[1]\nfmla v12.4s, v6.4s, v1.s[1]\n"
      "fmla v13.4s, v7.4s, v1.s[1]\nfmla v16.4s, v6.4s, v2.s[1]\nfmla v17.4s, v7.4s, v2.s[1]\n"
      "fmla v20.4s, v6.4s, v3.s[1]\nfmla v21.4s, v7.4s, v3.s[1]\nfmla v24.4s, v6.4s, v4.s[1]\n"
      "fmla v25.4s, v7.4s, v4.s[1]\nfmla v28.4s, v6.4s, v5.s[1]\nfmla v29.4s, v7.4s, v5.s[1]\n"
      "ldp q6, q7, [%[w]], #32\n"  /* k + 1, columns 8..15 */
      "fmla v10.4s, v6.4s, v0.s[1]\nfmla v11.4s, v7.4s, v0.s[1]\nfmla v14.4s, v6.4s, v1.s[1]\n"
      "fmla v15.4s, v7.4s, v1.s[1]\nfmla v18.4s, v6.4s, v2.s[1]\nfmla v19.4s, v7.4s, v2.s[1]\n"
      "fmla v22.4s, v6.4s, v3.s[1]\nfmla v23.4s, v7.4s, v3.s[1]\nfmla v26.4s, v6.4s, v4.s[1]\n"
      "fmla v27.4s, v7.4s, v4.s[1]\nfmla v30.4s, v6.4s, v5.s[1]\nfmla v31.4s, v7.4s, v5.s[1]\n"
      "ldp q6, q7, [%[w]], #32\n"  /* k + 2, columns 0..7 */
      "fmla v8.4s, v6.4s, v0.s[2]\nfmla v9.4s, v7.4s, v0.s[2]\nfmla v12.4s, v6.4s, v1.s[2]\n"
      "fmla v13.4s, v7.4s, v1.s[2]\nfmla v16.4s, v6.4s, v2.s[2]\nfmla v17.4s, v7.4s, v2.s[2]\n"
      "fmla v20.4s, v6.4s, v3.s[2]\nfmla v21.4s, v7.4s, v3.s[2]\nfmla v24.4s, v6.4s, v4.s[2]\n"
      "fmla v25.4s, v7.4s, v4.s[2]\nfmla v28.4s, v6.4s, v5.s[2]\nfmla v29.4s, v7.4s, v5.s[2]\n"
      "ldp q6, q7, [%[w]], #32\n"  /* k + 2, columns 8..15 */
      "fmla v10.4s, v6.4s, v0.s[2]\nfmla v11.4s, v7.4s, v0.s[2]\nfmla v14.4s, v6.4s, v1.s[2]\n"
      "fmla v15.4s, v7.4s, v1.s[2]\nfmla v18.4s, v6.4s, v2.s[2]\nfmla v19.4s, v7.4s, v2.s[2]\n"
      "fmla v22.4s, v6.4s, v3.s[2]\nfmla v23.4s, v7.4s, v3.s[2]\nfmla v26.4s, v6.4s, v4.s[2]\n"
      "fmla v27.4s, v7.4s, v4.s[2]\nfmla v30.4s, v6.4s, v5.s[2]\nfmla v31.4s, v7.4s, v5.s[2]\n"
      "ldp q6, q7, [%[w]], #32\n"  /* k + 3, columns 0..7 */
      "fmla v8.4s, v6.4s, v0.s[3]\nfmla v9.4s, v7.4s, v0.s[3]\nfmla v12.4s, v6.4s, v1.s[3]\n"
      "fmla v13.4s, v7.4s, v1.s[3]\nfmla v16.4s, v6.4s, v2.s[3]\nfmla v17.4s, v7.4s, v2.s[3]\n"
      "fmla v20.4s, v6.4s, v3.s[3]\nfmla v21.4s, v7.4s, v3.s[3]\nfmla v24.4s, v6.4s, v4.s[3]\n"
      "fmla v25.4s, v7.4s, v4.s[3]\nfmla v28.4s, v6.4s, v5.s[3]\nfmla v29.4s, v7.4s, v5.s[3]\n"
      "ldp q6, q7, [%[w]], #32\n"  /* k + 3, columns 8..15 */
      "fmla v10.4s, v6.4s, v0.s[3]\nfmla v11.4s, v7.4s, v0.s[3]\nfmla v14.4s, v6.4s, v1.s[3]\n"
      "fmla v15.4s, v7.4s, v1.s[3]\nfmla v18.4s, v6.4s, v2.s[3]\nfmla v19.4s, v7.4s, v2.s[3]\n"
      "fmla v22.4s, v6.4s, v3.s[3]\nfmla v23.4s, v7.4s, v3.s[3]\nfmla v26.4s, v6.4s, v4.s[3]\n"
      "fmla v27.4s, v7.4s, v4.s[3]\nfmla v30.4s, v6.4s, v5.s[3]\nfmla v31.4s, v7.4s, v5.s[3]\n"
      "subs %[k4], %[k4], #1\nb.ne 1b\n"
      "2:\ncbz %[kr], 4f\n"
      "3:\n"  /* k % 4 leftovers, one k each */
      "ld1r {v0.4s}, [%[a0]], #4\nld1r {v1.4s}, [%[a1]], #4\nld1r {v2.4s}, [%[a2]], #4\n"
      "ld1r {v3.4s}, [%[a3]], #4\nld1r {v4.4s}, [%[a4]], #4\nld1r {v5.4s}, [%[a5]], #4\n"
      "ldp q6, q7, [%[w]], #32\n"
      "fmla v8.4s, v6.4s, v0.s[0]\nfmla v9.4s, v7.4s, v0.s[0]\nfmla v12.4s, v6.4s, v1.s[0]\n"
      "fmla v13.4s, v7.4s, v1.s[0]\nfmla v16.4s, v6.4s, v2.s[0]\nfmla v17.4s, v7.4s, v2.s[0]\n"
      "fmla v20.4s, v6.4s, v3.s[0]\nfmla v21.4s, v7.4s, v3.s[0]\nfmla v24.4s, v6.4s, v4.s[0]\n"
      "fmla v25.4s, v7.4s, v4.s[0]\nfmla v28.4s, v6.4s, v5.s[0]\nfmla v29.4s, v7.4s, v5.s[0]\n"
      "ldp q6, q7, [%[w]], #32\n"
      "fmla v10.4s, v6.4s, v0.s[0]\nfmla v11.4s, v7.4s, v0.s[0]\nfmla v14.4s, v6.4s, v1.s[0]\n"
      "fmla v15.4s, v7.4s, v1.s[0]\nfmla v18.4s, v6.4s, v2.s[0]\nfmla v19.4s, v7.4s, v2.s[0]\n"
      "fmla v22.4s, v6.4s, v3.s[0]\nfmla v23.4s, v7.4s, v3.s[0]\nfmla v26.4s, v6.4s, v4.s[0]\n"
      "fmla v27.4s, v7.4s, v4.s[0]\nfmla v30.4s, v6.4s, v5.s[0]\nfmla v31.4s, v7.4s, v5.s[0]\n"
      "subs %[kr], %[kr], #1\nb.ne 3b\n"
      "4:\ncbz %[clamp], 5f\n"
      "ldp s0, s1, [%[minmax]]\ndup v0.4s, v0.s[0]\ndup v1.4s, v1.s[0]\n"  /* min, max */
      "fmax v8.4s, v8.4s, v0.4s\nfmax v9.4s, v9.4s, v0.4s\nfmax v10.4s, v10.4s, v0.4s\n"
      "fmax v11.4s, v11.4s, v0.4s\nfmax v12.4s, v12.4s, v0.4s\nfmax v13.4s, v13.4s, v0.4s\n"
      "fmax v14.4s, v14.4s, v0.4s\nfmax v15.4s, v15.4s, v0.4s\nfmax v16.4s, v16.4s, v0.4s\n"
      "fmax v17.4s, v17.4s, v0.4s\nfmax v18.4s, v18.4s, v0.4s\nfmax v19.4s, v19.4s, v0.4s\n"
      "fmax v20.4s, v20.4s, v0.4s\nfmax v21.4s, v21.4s, v0.4s\nfmax v22.4s, v22.4s, v0.4s\n"
      "fmax v23.4s, v23.4s, v0.4s\nfmax v24.4s, v24.4s, v0.4s\nfmax v25.4s, v25.4s, v0.4s\n"
      "fmax v26.4s, v26.4s, v0.4s\nfmax v27.4s, v27.4s, v0.4s\nfmax v28.4s, v28.4s, v0.4s\n"
      "fmax v29.4s, v29.4s, v0.4s\nfmax v30.4s, v30.4s, v0.4s\nfmax v31.4s, v31.4s, v0.4s\n"
      "fmin v8.4s, v8.4s, v1.4s\nfmin v9.4s, v9.4s, v1.4s\nfmin v10.4s, v10.4s, v1.4s\n"
      "fmin v11.4s, v11.4s, v1.4s\nfmin v12.4s, v12.4s, v1.4s\nfmin v13.4s, v13.4s, v1.4s\n"
      "fmin v14.4s, v14.4s, v1.4s\nfmin v15.4s, v15.4s, v1.4s\nfmin v16.4s, v16.4s, v1.4s\n"
      "fmin v17.4s, v17.4s, v1.4s\nfmin v18.4s, v18.4s, v1.4s\nfmin v19.4s, v19.4s, v1.4s\n"
      "fmin v20.4s, v20.4s, v1.4s\nfmin v21.4s, v21.4s, v1.4s\nfmin v22.4s, v22.4s, v1.4s\n"
      "fmin v23.4s, v23.4s, v1.4s\nfmin v24.4s, v24.4s, v1.4s\nfmin v25.4s, v25.4s, v1.4s\n"
      "fmin v26.4s, v26.4s, v1.4s\nfmin v27.4s, v27.4s, v1.4s\nfmin v28.4s, v28.4s, v1.4s\n"
      "fmin v29.4s, v29.4s, v1.4s\nfmin v30.4s, v30.4s, v1.4s\nfmin v31.4s, v31.4s, v1.4s\n"
      "5:\n"
      "stp q8, q9, [%[c0]]\nstp q10, q11, [%[c0], #32]\n"
      "stp q12, q13, [%[c1]]\nstp q14, q15, [%[c1], #32]\n"
      "stp q16, q17, [%[c2]]\nstp q18, q19, [%[c2], #32]\n"
      "stp q20, q21, [%[c3]]\nstp q22, q23, [%[c3], #32]\n"
      "stp q24, q25, [%[c4]]\nstp q26, q27, [%[c4], #32]\n"
      "stp q28, q29, [%[c5]]\nstp q30, q31, [%[c5], #32]\n"
      : [a0] "+r"(a0), [a1] "+r"(a1), [a2] "+r"(a2), [a3] "+r"(a3), [a4] "+r"(a4), [a5] "+r"(a5), [w] "+r"(w),
        [k4] "+r"(k4), [kr] "+r"(kr)
      : [c0] "r"(c0), [c1] "r"(c1), [c2] "r"(c2), [c3] "r"(c3), [c4] "r"(c4), [c5] "r"(c5), [clamp] "r"(clamp),
        [minmax] "r"(minmax)
      : "cc", "memory", "v0", "v1", "v2", "v3", "v4", "v5", "v6", "v7", "v8", "v9", "v10", "v11", "v12", "v13",
        "v14", "v15", "v16", "v17", "v18", "v19", "v20", "v21", "v22", "v23", "v24", "v25", "v26", "v27", "v28",
        "v29", "v30", "v31");
  if (!full) {
    for (size_t i = 0; i < mr; ++i) memcpy(c + i * c_stride, tile + i * NR, nc * sizeof(float));
  }
  if (params->hard_swish) {
    for (size_t i = 0; i < mr; ++i) hard_swish_row(c + i * c_stride, nc);
  }
}
