/* Packed fp32 GEMM microkernel, 6 rows x 16 columns, aarch64 NEON with FMA.
 * Why 6x16: 24 q-register accumulators + 4 for the B row + 1 broadcast of A = 29 of the 32
 * vector registers, 24 independent FMA chains per k step (enough for 2 FMA pipes x 4 cycles on
 * Cortex-A76-class cores, and the loads of 4 B vectors + 6 broadcasts fit beside them); a 16-wide
 * panel also wastes less than 12-wide tiles on the common 16/32/64-channel layers, and is the
 * same packing as the x86 AVX2 kernel. */
#include <arm_neon.h>
#include <string.h>

#include "lite_kernels/gemm_f32_packed.h"

enum { MR = 6, NR = 16 };

void lite_f32_gemm_ukernel_6x16_aarch64_neonfma(size_t mr, size_t nc, size_t k, const float* a, size_t a_stride,
                                                const float* w, float* c, size_t c_stride,
                                                const lite_f32_minmax_params* params) {
  const float* rows[MR];
  for (size_t i = 0; i < MR; ++i) rows[i] = a + (i < mr ? i : mr - 1) * a_stride;
  float32x4_t acc[MR][4];
  const float32x4_t b0 = vld1q_f32(w), b1 = vld1q_f32(w + 4), b2 = vld1q_f32(w + 8), b3 = vld1q_f32(w + 12);
  for (size_t i = 0; i < MR; ++i) {
    acc[i][0] = b0;
    acc[i][1] = b1;
    acc[i][2] = b2;
    acc[i][3] = b3;
  }
  w += NR;
  for (size_t p = 0; p < k; ++p) {
    const float32x4_t v0 = vld1q_f32(w), v1 = vld1q_f32(w + 4), v2 = vld1q_f32(w + 8), v3 = vld1q_f32(w + 12);
    w += NR;
    for (size_t i = 0; i < MR; ++i) {
      const float32x4_t x = vld1q_dup_f32(rows[i] + p);
      acc[i][0] = vfmaq_f32(acc[i][0], x, v0);
      acc[i][1] = vfmaq_f32(acc[i][1], x, v1);
      acc[i][2] = vfmaq_f32(acc[i][2], x, v2);
      acc[i][3] = vfmaq_f32(acc[i][3], x, v3);
    }
  }
  const float32x4_t lo = vdupq_n_f32(params->min), hi = vdupq_n_f32(params->max);
  for (size_t i = 0; i < mr; ++i) {
    float tmp[NR];
    float* out = nc == NR ? c + i * c_stride : tmp;
    for (size_t q = 0; q < 4; ++q) {
      float32x4_t v = vminq_f32(vmaxq_f32(acc[i][q], lo), hi);
      if (params->hard_swish) { /* x * clamp(x / 6 + 0.5, 0, 1), with the division of the reference */
        const float32x4_t g = vaddq_f32(vdivq_f32(v, vdupq_n_f32(6.0f)), vdupq_n_f32(0.5f));
        v = vmulq_f32(v, vminq_f32(vmaxq_f32(g, vdupq_n_f32(0.0f)), vdupq_n_f32(1.0f)));
      }
      vst1q_f32(out + 4 * q, v);
    }
    if (nc != NR) memcpy(c + i * c_stride, tmp, nc * sizeof(float));
  }
}
