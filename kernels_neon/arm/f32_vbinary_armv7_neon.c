/* fp32 ADD/SUB/MUL/DIV/PRELU rows, armv7 NEON (4 floats per vector); the body is portable/f32_vbinary_body.h.
 * armv7 NEON has no vector divide: DIV divides lane by lane in VFP, exactly like the reference. */
#include <arm_neon.h>

#include "lite_kernels/elementwise_binary.h"
#include "lite_kernels/f32_vbinary.h"

static inline float32x4_t vb_div_armv7(float32x4_t a, float32x4_t b) {
  float q[4], x[4], y[4];
  vst1q_f32(x, a);
  vst1q_f32(y, b);
  for (int i = 0; i < 4; ++i) q[i] = x[i] / y[i];
  return vld1q_f32(q);
}

/* PRELU on x * 1: the multiply flushes a subnormal x (NEON compares do not), so x and the comparison
 * see the same flushed value, as the reference sees the test's flushed inputs */
static inline float32x4_t vb_prelu_armv7(float32x4_t a, float32x4_t b) {
  const float32x4_t x = vmulq_f32(a, vdupq_n_f32(1.0f));
  return vbslq_f32(vcltq_f32(x, vdupq_n_f32(0.0f)), vmulq_f32(x, b), x);
}

#define VB_T float32x4_t
#define VB_W 4
#define VB_LOAD(p) vld1q_f32(p)
#define VB_STORE(p, v) vst1q_f32((p), (v))
#define VB_SET1(x) vdupq_n_f32(x)
#define VB_ADD(a, b) vaddq_f32((a), (b))
#define VB_SUB(a, b) vsubq_f32((a), (b))
#define VB_MUL(a, b) vmulq_f32((a), (b))
#define VB_DIV(a, b) vb_div_armv7((a), (b))
#define VB_PRELU(a, b) vb_prelu_armv7((a), (b))
#define VB_FN lite_f32_vbinary_armv7_neon

#include "../portable/f32_vbinary_body.h"
