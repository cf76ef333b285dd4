/* The LV_* vector interface (aarch64 NEON FMA: 4 floats per vector) that the shared depthwise and Winograd
 * bodies (portable/f32_dwconv_nhwc_body.h, portable/f32_winograd_nhwc_body.h) are written against. */
#ifndef LITE_KERNELS_F32_VECTOR_AARCH64_NEONFMA
#define LITE_KERNELS_F32_VECTOR_AARCH64_NEONFMA

#include <arm_neon.h>

#define LV_T float32x4_t
#define LV_W 4
#define LV_LOAD(p) vld1q_f32(p)
#define LV_STORE(p, v) vst1q_f32((p), (v))
#define LV_SET1(x) vdupq_n_f32(x)
#define LV_ADD(a, b) vaddq_f32((a), (b))
#define LV_SUB(a, b) vsubq_f32((a), (b))
#define LV_MUL(a, b) vmulq_f32((a), (b))
#define LV_FMA(acc, a, b) vfmaq_f32((acc), (a), (b))
#define LV_MAX(a, b) vmaxq_f32((a), (b))
#define LV_MIN(a, b) vminq_f32((a), (b))

#endif
