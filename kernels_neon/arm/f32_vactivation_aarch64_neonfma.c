/* Vectorized activations, aarch64 NEON (4 floats per vector); the body is portable/f32_vactivation_body.h. */
#include <arm_neon.h>

#include "lite_kernels/f32_vactivation.h"

#define VA_T float32x4_t
#define VA_W 4
#define VA_LOAD(p) vld1q_f32(p)
#define VA_STORE(p, v) vst1q_f32((p), (v))
#define VA_SET1(x) vdupq_n_f32(x)
#define VA_ADD(a, b) vaddq_f32((a), (b))
#define VA_SUB(a, b) vsubq_f32((a), (b))
#define VA_MUL(a, b) vmulq_f32((a), (b))
#define VA_DIV(a, b) vdivq_f32((a), (b))
#define VA_FMA(acc, a, b) vfmaq_f32((acc), (a), (b))
#define VA_ABS(a) vabsq_f32(a)
#define VA_NEG(a) vnegq_f32(a)
#define VA_SEL_GT(a, b, x, y) vbslq_f32(vcgtq_f32((a), (b)), (x), (y))
#define VA_SEL_LT(a, b, x, y) vbslq_f32(vcltq_f32((a), (b)), (x), (y))
#define VA_SEL_GE(a, b, x, y) vbslq_f32(vcgeq_f32((a), (b)), (x), (y))
#define VA_SEL_NAN(a, x, y) vbslq_f32(vceqq_f32((a), (a)), (y), (x))
#define VA_ROUND(a) vrndnq_f32(a)
#define VA_POW2I(n) vreinterpretq_f32_s32(vshlq_n_s32(vaddq_s32(vcvtq_s32_f32(n), vdupq_n_s32(127)), 23))
#define VA_FN lite_f32_vactivation_aarch64_neonfma
#define VA_EXP_SUM_FN lite_f32_vexp_sum_aarch64_neonfma
#define VA_SOFTMAX_ROW_FN lite_f32_vsoftmax_row_aarch64_neonfma

#include "../portable/f32_vactivation_body.h"
