/* fp32 ADD/SUB/MUL/DIV/PRELU rows, AVX2 (8 floats per vector); the body is portable/f32_vbinary_body.h. */
#include <immintrin.h>

#include "lite_kernels/elementwise_binary.h"
#include "lite_kernels/f32_vbinary.h"

#define VB_T __m256
#define VB_W 8
#define VB_LOAD(p) _mm256_loadu_ps(p)
#define VB_STORE(p, v) _mm256_storeu_ps((p), (v))
#define VB_SET1(x) _mm256_set1_ps(x)
#define VB_ADD(a, b) _mm256_add_ps((a), (b))
#define VB_SUB(a, b) _mm256_sub_ps((a), (b))
#define VB_MUL(a, b) _mm256_mul_ps((a), (b))
#define VB_DIV(a, b) _mm256_div_ps((a), (b))
#define VB_PRELU(a, b) \
  _mm256_blendv_ps((a), _mm256_mul_ps((a), (b)), _mm256_cmp_ps((a), _mm256_setzero_ps(), _CMP_LT_OQ))
#define VB_FN lite_f32_vbinary_avx2

#include "../portable/f32_vbinary_body.h"
