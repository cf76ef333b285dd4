/* The LV_* vector interface (AVX-512F: 16 floats per vector) that the shared depthwise and Winograd
 * bodies (portable/f32_dwconv_nhwc_body.h, portable/f32_winograd_nhwc_body.h) are written against. */
#ifndef LITE_KERNELS_F32_VECTOR_AVX512
#define LITE_KERNELS_F32_VECTOR_AVX512

#include <immintrin.h>

#define LV_T __m512
#define LV_W 16
#define LV_LOAD(p) _mm512_loadu_ps(p)
#define LV_STORE(p, v) _mm512_storeu_ps((p), (v))
#define LV_SET1(x) _mm512_set1_ps(x)
#define LV_ADD(a, b) _mm512_add_ps((a), (b))
#define LV_SUB(a, b) _mm512_sub_ps((a), (b))
#define LV_MUL(a, b) _mm512_mul_ps((a), (b))
#define LV_FMA(acc, a, b) _mm512_fmadd_ps((a), (b), (acc))
/* x86 max/min return their second operand when either is NaN: NaN in `a` (the data; callers put it
 * first) propagates, as on NEON. */
#define LV_MAX(a, b) _mm512_max_ps((b), (a))
#define LV_MIN(a, b) _mm512_min_ps((b), (a))

#endif
