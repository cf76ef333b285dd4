/* fp32 ADD/SUB/MUL/DIV/PRELU rows, aarch64 NEON (4 floats per vector); the body is portable/f32_vbinary_body.h. */
#include <arm_neon.h>

#include "lite_kernels/elementwise_binary.h"
#include "lite_kernels/f32_vbinary.h"

#define VB_T float32x4_t
#define VB_W 4
#define VB_LOAD(p) vld1q_f32(p)
#define VB_STORE(p, v) vst1q_f32((p), (v))
#define VB_SET1(x) vdupq_n_f32(x)
#define VB_ADD(a, b) vaddq_f32((a), (b))
#define VB_SUB(a, b) vsubq_f32((a), (b))
#define VB_MUL(a, b) vmulq_f32((a), (b))
#define VB_DIV(a, b) vdivq_f32((a), (b))
#define VB_PRELU(a, b) vbslq_f32(vcltq_f32((a), vdupq_n_f32(0.0f)), vmulq_f32((a), (b)), (a))
#define VB_FN lite_f32_vbinary_aarch64_neon

#include "../portable/f32_vbinary_body.h"
