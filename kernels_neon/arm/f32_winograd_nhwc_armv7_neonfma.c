/* Winograd F(m, 3) convolution transforms, armv7 NEON-VFPv4 (vfma): 4 channels per vector (the shared body). Built
 * with -mfpu=neon-vfpv4 (the armv7 toolchain file); the dispatcher requires NEON + VFPv4. */
#include <arm_neon.h>

#define LV_T float32x4_t
#define LV_W 4
#define LV_LOAD(p) vld1q_f32(p)
#define LV_STORE(p, v) vst1q_f32((p), (v))
#define LV_SET1(x) vdupq_n_f32(x)
#define LV_ADD(a, b) vaddq_f32((a), (b))
#define LV_SUB(a, b) vsubq_f32((a), (b))
#define LV_MUL(a, b) vmulq_f32((a), (b))
#if defined(__ARM_FEATURE_FMA)
#define LV_FMA(acc, a, b) vfmaq_f32((acc), (a), (b))
#else
#define LV_FMA(acc, a, b) vmlaq_f32((acc), (a), (b))
#endif
#define LV_MAX(a, b) vmaxq_f32((a), (b))
#define LV_MIN(a, b) vminq_f32((a), (b))
#define LITE_WINOGRAD_ENTRY lite_f32_winograd_nhwc_armv7_neonfma
#include "../ref/f32_winograd_nhwc_body.h"
