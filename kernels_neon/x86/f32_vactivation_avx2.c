/* Vectorized activations, AVX2 + FMA (8 floats per vector); the body is portable/f32_vactivation_body.h. */
#include <immintrin.h>

#include "lite_kernels/f32_vactivation.h"

#define VA_T __m256
#define VA_W 8
#define VA_LOAD(p) _mm256_loadu_ps(p)
#define VA_STORE(p, v) _mm256_storeu_ps((p), (v))
#define VA_SET1(x) _mm256_set1_ps(x)
#define VA_ADD(a, b) _mm256_add_ps((a), (b))
#define VA_SUB(a, b) _mm256_sub_ps((a), (b))
#define VA_MUL(a, b) _mm256_mul_ps((a), (b))
#define VA_DIV(a, b) _mm256_div_ps((a), (b))
#define VA_FMA(acc, a, b) _mm256_fmadd_ps((a), (b), (acc))
#define VA_ABS(a) _mm256_andnot_ps(_mm256_set1_ps(-0.0f), (a))
#define VA_NEG(a) _mm256_xor_ps(_mm256_set1_ps(-0.0f), (a))
#define VA_SEL_GT(a, b, x, y) _mm256_blendv_ps((y), (x), _mm256_cmp_ps((a), (b), _CMP_GT_OQ))
#define VA_SEL_LT(a, b, x, y) _mm256_blendv_ps((y), (x), _mm256_cmp_ps((a), (b), _CMP_LT_OQ))
#define VA_SEL_GE(a, b, x, y) _mm256_blendv_ps((y), (x), _mm256_cmp_ps((a), (b), _CMP_GE_OQ))
#define VA_SEL_NAN(a, x, y) _mm256_blendv_ps((y), (x), _mm256_cmp_ps((a), (a), _CMP_UNORD_Q))
#define VA_ROUND(a) _mm256_round_ps((a), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC)
#define VA_POW2I(n) \
  _mm256_castsi256_ps(_mm256_slli_epi32(_mm256_add_epi32(_mm256_cvtps_epi32(n), _mm256_set1_epi32(127)), 23))
#define VA_FN lite_f32_vactivation_avx2
#define VA_EXP_SUM_FN lite_f32_vexp_sum_avx2
#define VA_SOFTMAX_ROW_FN lite_f32_vsoftmax_row_avx2

#include "../portable/f32_vactivation_body.h"
