/* int8 ADD / MUL / QUANTIZE / DEQUANTIZE / LOOKUP with AVX2, 32 elements per step, byte-exact with
 * the references (qs8_elementwise.h). Tails run one step on zero-padded copies. */
#include <immintrin.h>
#include <string.h>

#include "lite_kernels/qs8_elementwise.h"

#define STEP 32

typedef struct {
  __m256i hi_pair, lo_pair, low_bias, round_bias, out_bias, act_min, act_max;
  __m128i shift;
} add_consts;

static add_consts add_consts_of(const lite_qs8_add_plan* p) {
  add_consts c;
  c.hi_pair = _mm256_set1_epi32((int32_t)((uint32_t)(uint16_t)p->a_hi | ((uint32_t)(uint16_t)p->b_hi << 16)));
  c.lo_pair = _mm256_set1_epi32((int32_t)((uint32_t)(uint16_t)p->a_lo | ((uint32_t)(uint16_t)p->b_lo << 16)));
  c.low_bias = _mm256_set1_epi32(p->low_bias);
  c.round_bias = _mm256_set1_epi32(p->round_bias);
  c.out_bias = _mm256_set1_epi32(p->out_bias);
  c.act_min = _mm256_set1_epi8(p->act_min);
  c.act_max = _mm256_set1_epi8(p->act_max);
  c.shift = _mm_cvtsi32_si128(p->shift);
  return c;
}

/* 8 (a, b) int16 pairs -> 8 int32 outputs before saturation */
static inline __m256i add_pairs(__m256i pairs, const add_consts* c) {
  const __m256i h = _mm256_madd_epi16(pairs, c->hi_pair);
  const __m256i l = _mm256_madd_epi16(pairs, c->lo_pair);
  const __m256i n = _mm256_add_epi32(h, _mm256_srai_epi32(_mm256_add_epi32(l, c->low_bias), 16));
  return _mm256_add_epi32(c->out_bias, _mm256_sra_epi32(_mm256_add_epi32(n, c->round_bias), c->shift));
}

static inline __m256i add16(const int8_t* a, const int8_t* b, const add_consts* c) {
  const __m256i a16 = _mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i*)a));
  const __m256i b16 = _mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i*)b));
  return _mm256_packs_epi32(add_pairs(_mm256_unpacklo_epi16(a16, b16), c),
                            add_pairs(_mm256_unpackhi_epi16(a16, b16), c));
}

/* two in-lane packed int16 halves -> 32 int8 in order, clamped to the activation range */
static inline __m256i narrow_clamp(__m256i r0, __m256i r1, __m256i act_min, __m256i act_max) {
  const __m256i packed = _mm256_permute4x64_epi64(_mm256_packs_epi16(r0, r1), 0xD8);
  return _mm256_min_epi8(_mm256_max_epi8(packed, act_min), act_max);
}

static void add_contiguous(size_t n, const lite_qs8_add_plan* plan, const int8_t* a, const int8_t* b, int8_t* y) {
  const add_consts c = add_consts_of(plan);
  size_t i = 0;
  for (; i + STEP <= n; i += STEP) {
    const __m256i r = narrow_clamp(add16(a + i, b + i, &c), add16(a + i + 16, b + i + 16, &c), c.act_min, c.act_max);
    _mm256_storeu_si256((__m256i*)(y + i), r);
  }
  if (i < n) {
    int8_t ta[STEP] = {0}, tb[STEP] = {0}, ty[STEP];
    memcpy(ta, a + i, n - i);
    memcpy(tb, b + i, n - i);
    _mm256_storeu_si256((__m256i*)ty, narrow_clamp(add16(ta, tb, &c), add16(ta + 16, tb + 16, &c), c.act_min,
                                                    c.act_max));
    memcpy(y + i, ty, n - i);
  }
}

typedef struct {
  __m256i hi, lo, low_bias, round_bias, out_bias, mask, act_min, act_max;
  __m256i a_zero_point, b_zero_point;
  __m128i shift;
} mul_consts;

static mul_consts mul_consts_of(const lite_qs8_mul_plan* p) {
  mul_consts c;
  c.hi = _mm256_set1_epi32(p->hi);
  c.lo = _mm256_set1_epi32(p->lo);
  c.low_bias = _mm256_set1_epi32(p->low_bias);
  c.round_bias = _mm256_set1_epi32(p->round_bias);
  c.out_bias = _mm256_set1_epi32(p->out_bias);
  c.mask = _mm256_set1_epi32((int32_t)((1u << p->shift) - 1u));
  c.act_min = _mm256_set1_epi8(p->act_min);
  c.act_max = _mm256_set1_epi8(p->act_max);
  c.a_zero_point = _mm256_set1_epi16(p->a_zero_point);
  c.b_zero_point = _mm256_set1_epi16(p->b_zero_point);
  c.shift = _mm_cvtsi32_si128(p->shift);
  return c;
}

/* 8 int32 products (a - za)(b - zb) -> 8 int32 outputs before saturation */
static inline __m256i mul_products(__m256i p, const mul_consts* c) {
  const __m256i l = _mm256_add_epi32(_mm256_mullo_epi32(p, c->lo), c->low_bias);
  const __m256i n = _mm256_add_epi32(_mm256_mullo_epi32(p, c->hi), _mm256_srai_epi32(l, 16));
  const __m256i frac = _mm256_add_epi32(_mm256_and_si256(n, c->mask), c->round_bias);
  return _mm256_add_epi32(_mm256_add_epi32(c->out_bias, _mm256_sra_epi32(n, c->shift)),
                          _mm256_sra_epi32(frac, c->shift));
}

static inline __m256i mul16(const int8_t* a, const int8_t* b, const mul_consts* c) {
  const __m256i da = _mm256_sub_epi16(_mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i*)a)), c->a_zero_point);
  const __m256i db = _mm256_sub_epi16(_mm256_cvtepi8_epi16(_mm_loadu_si128((const __m128i*)b)), c->b_zero_point);
  const __m256i lo = _mm256_mullo_epi16(da, db);
  const __m256i hi = _mm256_mulhi_epi16(da, db);
  return _mm256_packs_epi32(mul_products(_mm256_unpacklo_epi16(lo, hi), c),
                            mul_products(_mm256_unpackhi_epi16(lo, hi), c));
}

static void mul_contiguous(size_t n, const lite_qs8_mul_plan* plan, const int8_t* a, const int8_t* b, int8_t* y) {
  const mul_consts c = mul_consts_of(plan);
  size_t i = 0;
  for (; i + STEP <= n; i += STEP) {
    const __m256i r = narrow_clamp(mul16(a + i, b + i, &c), mul16(a + i + 16, b + i + 16, &c), c.act_min, c.act_max);
    _mm256_storeu_si256((__m256i*)(y + i), r);
  }
  if (i < n) {
    int8_t ta[STEP] = {0}, tb[STEP] = {0}, ty[STEP];
    memcpy(ta, a + i, n - i);
    memcpy(tb, b + i, n - i);
    _mm256_storeu_si256((__m256i*)ty, narrow_clamp(mul16(ta, tb, &c), mul16(ta + 16, tb + 16, &c), c.act_min,
                                                    c.act_max));
    memcpy(y + i, ty, n - i);
  }
}

#define LITE_QS8_ROWS_SUFFIX avx2
#include "../portable/qs8_elementwise_rows.h"

/* 8 floats -> 8 int32 in [-128, 127]: rint(x / scale) + zp, NaN -> zp (the reference's order of steps) */
static inline __m256i quantize8(const float* x, __m256 scale, __m256 zero_point) {
  __m256 r = _mm256_round_ps(_mm256_div_ps(_mm256_loadu_ps(x), scale), _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  r = _mm256_add_ps(r, zero_point);
  r = _mm256_blendv_ps(zero_point, r, _mm256_cmp_ps(r, r, _CMP_ORD_Q));
  r = _mm256_min_ps(_mm256_max_ps(r, _mm256_set1_ps(-128.0f)), _mm256_set1_ps(127.0f));
  return _mm256_cvtps_epi32(r);
}

static inline __m256i quantize32(const float* x, __m256 scale, __m256 zero_point) {
  const __m256i p01 = _mm256_packs_epi32(quantize8(x, scale, zero_point), quantize8(x + 8, scale, zero_point));
  const __m256i p23 = _mm256_packs_epi32(quantize8(x + 16, scale, zero_point), quantize8(x + 24, scale, zero_point));
  /* 4-byte groups come out as 0 2 4 6 1 3 5 7 */
  return _mm256_permutevar8x32_epi32(_mm256_packs_epi16(p01, p23), _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7));
}

void lite_qs8_vquantize_avx2(size_t count, float scale, int32_t zero_point, const float* input, int8_t* output) {
  const __m256 vs = _mm256_set1_ps(scale);
  const __m256 vz = _mm256_set1_ps((float)zero_point);
  size_t i = 0;
  for (; i + STEP <= count; i += STEP) _mm256_storeu_si256((__m256i*)(output + i), quantize32(input + i, vs, vz));
  if (i < count) {
    float tx[STEP] = {0};
    int8_t ty[STEP];
    memcpy(tx, input + i, (count - i) * sizeof(float));
    _mm256_storeu_si256((__m256i*)ty, quantize32(tx, vs, vz));
    memcpy(output + i, ty, count - i);
  }
}

static inline void dequantize32(const int8_t* x, __m256 scale, __m256i zero_point, float* y) {
  for (int k = 0; k < 4; ++k) {
    const __m256i q = _mm256_cvtepi8_epi32(_mm_loadl_epi64((const __m128i*)(x + 8 * k)));
    _mm256_storeu_ps(y + 8 * k, _mm256_mul_ps(scale, _mm256_cvtepi32_ps(_mm256_sub_epi32(q, zero_point))));
  }
}

void lite_qs8_vdequantize_avx2(size_t count, float scale, int32_t zero_point, const int8_t* input, float* output) {
  const __m256 vs = _mm256_set1_ps(scale);
  const __m256i vz = _mm256_set1_epi32(zero_point);
  size_t i = 0;
  for (; i + STEP <= count; i += STEP) dequantize32(input + i, vs, vz, output + i);
  if (i < count) {
    int8_t tx[STEP] = {0};
    float ty[STEP];
    memcpy(tx, input + i, count - i);
    dequantize32(tx, vs, vz, ty);
    memcpy(output + i, ty, (count - i) * sizeof(float));
  }
}

/* table[x + 128] as 16 vpshufb lookups into 16-entry sub-tables. With u = x + 128, sub-table k sees
 * index (u ^ 16k) +sat 0x70: bit 7 (vpshufb's "write zero") is clear exactly when u's high nibble is k,
 * and the low nibble is kept, so exactly one sub-table contributes each byte. */
static inline __m256i lookup32(__m256i x, const __m256i tables[16]) {
  const __m256i u = _mm256_xor_si256(x, _mm256_set1_epi8((char)0x80));
  const __m256i offset = _mm256_set1_epi8(0x70);
  __m256i r = _mm256_setzero_si256();
  for (int k = 0; k < 16; ++k) {
    const __m256i index = _mm256_adds_epu8(_mm256_xor_si256(u, _mm256_set1_epi8((char)(k << 4))), offset);
    r = _mm256_or_si256(r, _mm256_shuffle_epi8(tables[k], index));
  }
  return r;
}

void lite_qs8_vlookup_avx2(size_t count, const int8_t table[256], const int8_t* input, int8_t* output) {
  __m256i tables[16];
  for (int k = 0; k < 16; ++k)
    tables[k] = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i*)(table + 16 * k)));
  size_t i = 0;
  for (; i + STEP <= count; i += STEP)
    _mm256_storeu_si256((__m256i*)(output + i), lookup32(_mm256_loadu_si256((const __m256i*)(input + i)), tables));
  if (i < count) {
    int8_t tx[STEP] = {0}, ty[STEP];
    memcpy(tx, input + i, count - i);
    _mm256_storeu_si256((__m256i*)ty, lookup32(_mm256_loadu_si256((const __m256i*)tx), tables));
    memcpy(output + i, ty, count - i);
  }
}
