/* Packed fp32 GEMM microkernel, 4 rows x 8 columns, armv7 NEON (VFPv4 FMA).
 * armv7 has 16 q registers: 8 accumulators + 2 for the B row + 1 broadcast of A leaves room for
 * the compiler; a 6x8 tile (12 accumulators) would spill. */
#include <arm_neon.h>
#include <string.h>

#include "lite_kernels/gemm_f32_packed.h"

enum { MR = 4, NR = 8 };

#if defined(__ARM_FEATURE_FMA)
#define LITE_FMA(acc, x, b) vfmaq_f32(acc, x, b)
#else
#define LITE_FMA(acc, x, b) vmlaq_f32(acc, x, b)
#endif

void lite_f32_gemm_ukernel_4x8_armv7_neon(size_t mr, size_t nc, size_t k, const float* a, size_t a_stride,
                                          const float* w, float* c, size_t c_stride,
                                          const lite_f32_minmax_params* params) {
  const float* a0 = a;
  const float* a1 = mr > 1 ? a0 + a_stride : a0;
  const float* a2 = mr > 2 ? a1 + a_stride : a1;
  const float* a3 = mr > 3 ? a2 + a_stride : a2;
  float32x4_t c0l = vld1q_f32(w), c0h = vld1q_f32(w + 4);
  float32x4_t c1l = c0l, c1h = c0h, c2l = c0l, c2h = c0h, c3l = c0l, c3h = c0h;
  w += NR;
  for (size_t p = 0; p < k; ++p) {
    const float32x4_t bl = vld1q_f32(w), bh = vld1q_f32(w + 4);
    w += NR;
    float32x4_t x = vld1q_dup_f32(a0 + p);
    c0l = LITE_FMA(c0l, x, bl);
    c0h = LITE_FMA(c0h, x, bh);
    x = vld1q_dup_f32(a1 + p);
    c1l = LITE_FMA(c1l, x, bl);
    c1h = LITE_FMA(c1h, x, bh);
    x = vld1q_dup_f32(a2 + p);
    c2l = LITE_FMA(c2l, x, bl);
    c2h = LITE_FMA(c2h, x, bh);
    x = vld1q_dup_f32(a3 + p);
    c3l = LITE_FMA(c3l, x, bl);
    c3h = LITE_FMA(c3h, x, bh);
  }
  const float32x4_t lo = vdupq_n_f32(params->min), hi = vdupq_n_f32(params->max);
  const float32x4_t acc[MR][2] = {{c0l, c0h}, {c1l, c1h}, {c2l, c2h}, {c3l, c3h}};
  for (size_t i = 0; i < mr; ++i) {
    float tmp[NR];
    float* out = nc == NR ? c + i * c_stride : tmp;
    vst1q_f32(out, vminq_f32(vmaxq_f32(acc[i][0], lo), hi));
    vst1q_f32(out + 4, vminq_f32(vmaxq_f32(acc[i][1], lo), hi));
    if (params->hard_swish) { /* armv7 NEON has no vector division: the reference's x / 6 per lane */
      for (size_t j = 0; j < NR; ++j) {
        float g = out[j] / 6.0f + 0.5f;
        g = g < 0.0f ? 0.0f : g;
        out[j] = out[j] * (g > 1.0f ? 1.0f : g);
      }
    }
    if (nc != NR) memcpy(c + i * c_stride, tmp, nc * sizeof(float));
  }
}
