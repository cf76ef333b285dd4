/* The LV_* vector interface (AVX2 + FMA: 8 floats per vector) that the shared depthwise and Winograd
 * bodies (portable/f32_dwconv_nhwc_body.h, portable/f32_winograd_nhwc_body.h) are written against. */
#ifndef LITE_KERNELS_F32_VECTOR_AVX2
#define LITE_KERNELS_F32_VECTOR_AVX2

#include <immintrin.h>

#define LV_T __m256
#define LV_W 8
#define LV_LOAD(p) _mm256_loadu_ps(p)
#define LV_STORE(p, v) _mm256_storeu_ps((p), (v))
#define LV_SET1(x) _mm256_set1_ps(x)
#define LV_ADD(a, b) _mm256_add_ps((a), (b))
#define LV_SUB(a, b) _mm256_sub_ps((a), (b))
#define LV_MUL(a, b) _mm256_mul_ps((a), (b))
#define LV_FMA(acc, a, b) _mm256_fmadd_ps((a), (b), (acc))
/* x86 max/min return their second operand when either is NaN: NaN in `a` (the data; callers put it
 * first) propagates, as on NEON. */
#define LV_MAX(a, b) _mm256_max_ps((b), (a))
#define LV_MIN(a, b) _mm256_min_ps((b), (a))

#endif
