/* Vectorized activations, armv7 NEON-VFPv4 (4 floats per vector); the body is
 * portable/f32_vactivation_body.h. armv7 NEON has no vector divide and no round-to-integer: division is
 * a reciprocal estimate refined by two Newton steps (~1 ulp), and rounding adds +-0.5 and truncates. */
#include <arm_neon.h>

#include "lite_kernels/f32_vactivation.h"

static inline float32x4_t va_div_armv7(float32x4_t a, float32x4_t b) {
  float32x4_t r = vrecpeq_f32(b);
  r = vmulq_f32(r, vrecpsq_f32(b, r));
  r = vmulq_f32(r, vrecpsq_f32(b, r));
  return vmulq_f32(a, r);
}

static inline float32x4_t va_round_armv7(float32x4_t a) {
  const uint32x4_t sign = vandq_u32(vreinterpretq_u32_f32(a), vdupq_n_u32(0x80000000u));
  const float32x4_t half = vreinterpretq_f32_u32(vorrq_u32(vreinterpretq_u32_f32(vdupq_n_f32(0.5f)), sign));
  return vcvtq_f32_s32(vcvtq_s32_f32(vaddq_f32(a, half)));
}

#define VA_T float32x4_t
#define VA_W 4
#define VA_LOAD(p) vld1q_f32(p)
#define VA_STORE(p, v) vst1q_f32((p), (v))
#define VA_SET1(x) vdupq_n_f32(x)
#define VA_ADD(a, b) vaddq_f32((a), (b))
#define VA_SUB(a, b) vsubq_f32((a), (b))
#define VA_MUL(a, b) vmulq_f32((a), (b))
#define VA_DIV(a, b) va_div_armv7((a), (b))
#if defined(__ARM_FEATURE_FMA)
#define VA_FMA(acc, a, b) vfmaq_f32((acc), (a), (b))
#else
#define VA_FMA(acc, a, b) vmlaq_f32((acc), (a), (b))
#endif
#define VA_ABS(a) vabsq_f32(a)
#define VA_NEG(a) vnegq_f32(a)
#define VA_SEL_GT(a, b, x, y) vbslq_f32(vcgtq_f32((a), (b)), (x), (y))
#define VA_SEL_LT(a, b, x, y) vbslq_f32(vcltq_f32((a), (b)), (x), (y))
#define VA_SEL_GE(a, b, x, y) vbslq_f32(vcgeq_f32((a), (b)), (x), (y))
#define VA_SEL_NAN(a, x, y) vbslq_f32(vceqq_f32((a), (a)), (y), (x))
#define VA_ROUND(a) va_round_armv7(a)
#define VA_POW2I(n) vreinterpretq_f32_s32(vshlq_n_s32(vaddq_s32(vcvtq_s32_f32(n), vdupq_n_s32(127)), 23))
#define VA_FN lite_f32_vactivation_armv7_neonfma
#define VA_EXP_SUM_FN lite_f32_vexp_sum_armv7_neonfma
#define VA_SOFTMAX_ROW_FN lite_f32_vsoftmax_row_armv7_neonfma

#include "../portable/f32_vactivation_body.h"
