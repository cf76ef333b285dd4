/* Vectorized activations, AVX-512F (16 floats per vector); the body is portable/f32_vactivation_body.h. */
#include <immintrin.h>

#include "lite_kernels/f32_vactivation.h"

#define VA_T __m512
#define VA_W 16
#define VA_LOAD(p) _mm512_loadu_ps(p)
#define VA_STORE(p, v) _mm512_storeu_ps((p), (v))
#define VA_SET1(x) _mm512_set1_ps(x)
#define VA_ADD(a, b) _mm512_add_ps((a), (b))
#define VA_SUB(a, b) _mm512_sub_ps((a), (b))
#define VA_MUL(a, b) _mm512_mul_ps((a), (b))
#define VA_DIV(a, b) _mm512_div_ps((a), (b))
#define VA_FMA(acc, a, b) _mm512_fmadd_ps((a), (b), (acc))
#define VA_ABS(a) _mm512_castsi512_ps(_mm512_and_si512(_mm512_castps_si512(a), _mm512_set1_epi32(0x7FFFFFFF)))
#define VA_NEG(a) _mm512_castsi512_ps(_mm512_xor_si512(_mm512_castps_si512(a), _mm512_set1_epi32((int)0x80000000u)))
#define VA_SEL_GT(a, b, x, y) _mm512_mask_blend_ps(_mm512_cmp_ps_mask((a), (b), _CMP_GT_OQ), (y), (x))
#define VA_SEL_LT(a, b, x, y) _mm512_mask_blend_ps(_mm512_cmp_ps_mask((a), (b), _CMP_LT_OQ), (y), (x))
#define VA_SEL_GE(a, b, x, y) _mm512_mask_blend_ps(_mm512_cmp_ps_mask((a), (b), _CMP_GE_OQ), (y), (x))
#define VA_SEL_NAN(a, x, y) _mm512_mask_blend_ps(_mm512_cmp_ps_mask((a), (a), _CMP_UNORD_Q), (y), (x))
#define VA_ROUND(a) _mm512_roundscale_ps((a), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC)
#define VA_POW2I(n) \
  _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_add_epi32(_mm512_cvtps_epi32(n), _mm512_set1_epi32(127)), 23))
#define VA_FN lite_f32_vactivation_avx512
#define VA_EXP_SUM_FN lite_f32_vexp_sum_avx512
#define VA_SOFTMAX_ROW_FN lite_f32_vsoftmax_row_avx512

#include "../portable/f32_vactivation_body.h"
