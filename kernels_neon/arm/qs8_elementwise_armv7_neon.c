/* int8 ADD / MUL / DEQUANTIZE / LOOKUP with armv7 NEON, 16 elements per step, byte-exact with the
 * references (qs8_elementwise.h). QUANTIZE runs on the VFP unit (armv7 NEON has no float division and no
 * round-half-even conversion), inline instead of the reference's nearbyintf call. DEQUANTIZE takes the
 * reference for scales below FLT_MIN (NEON flushes subnormal products to zero), NaN or infinite scales
 * (NEON returns the default NaN). */
#include <arm_neon.h>
#include <float.h>
#include <math.h>
#include <string.h>

#include "lite_kernels/qs8_elementwise.h"

#define STEP 16

static inline int32x4_t add4(int16x4_t a, int16x4_t b, const lite_qs8_add_plan* p, int32x4_t neg_shift) {
  /* round_bias + H accumulated in one register, then + (L >> 16) by one shift-right-accumulate */
  const int32x4_t h = vmlal_n_s16(vmlal_n_s16(vdupq_n_s32(p->round_bias), a, p->a_hi), b, p->b_hi);
  const int32x4_t l = vmlal_n_s16(vmlal_n_s16(vdupq_n_s32(p->low_bias), a, p->a_lo), b, p->b_lo);
  return vaddq_s32(vdupq_n_s32(p->out_bias), vshlq_s32(vsraq_n_s32(h, l, 16), neg_shift));
}

static inline int8x8_t add8(int8x8_t va, int8x8_t vb, const lite_qs8_add_plan* p, int32x4_t neg_shift) {
  const int16x8_t a = vmovl_s8(va), b = vmovl_s8(vb);
  const int16x8_t r = vcombine_s16(vqmovn_s32(add4(vget_low_s16(a), vget_low_s16(b), p, neg_shift)),
                                   vqmovn_s32(add4(vget_high_s16(a), vget_high_s16(b), p, neg_shift)));
  return vmin_s8(vmax_s8(vqmovn_s16(r), vdup_n_s8(p->act_min)), vdup_n_s8(p->act_max));
}

static inline int8x16_t add16(const int8_t* a, const int8_t* b, const lite_qs8_add_plan* p, int32x4_t neg_shift) {
  const int8x16_t va = vld1q_s8(a), vb = vld1q_s8(b);
  return vcombine_s8(add8(vget_low_s8(va), vget_low_s8(vb), p, neg_shift),
                     add8(vget_high_s8(va), vget_high_s8(vb), p, neg_shift));
}

static void add_contiguous(size_t n, const lite_qs8_add_plan* plan_in, const int8_t* a, const int8_t* b,
                           int8_t* y) {
  /* A local copy: the int8 stores through y may alias *plan_in, which would reload every field per step. */
  const lite_qs8_add_plan copy = *plan_in, *plan = &copy;
  const int32x4_t neg_shift = vdupq_n_s32(-plan->shift);
  size_t i = 0;
  for (; i + STEP <= n; i += STEP) vst1q_s8(y + i, add16(a + i, b + i, plan, neg_shift));
  if (i < n) {
    int8_t ta[STEP] = {0}, tb[STEP] = {0}, ty[STEP];
    memcpy(ta, a + i, n - i);
    memcpy(tb, b + i, n - i);
    vst1q_s8(ty, add16(ta, tb, plan, neg_shift));
    memcpy(y + i, ty, n - i);
  }
}

static inline int32x4_t mul4(int32x4_t product, const lite_qs8_mul_plan* p, int32x4_t neg_shift, int32x4_t mask) {
  const int32x4_t l = vmlaq_n_s32(vdupq_n_s32(p->low_bias), product, p->lo);
  const int32x4_t n = vaddq_s32(vmulq_n_s32(product, p->hi), vshrq_n_s32(l, 16));
  const int32x4_t frac = vaddq_s32(vandq_s32(n, mask), vdupq_n_s32(p->round_bias));
  return vaddq_s32(vaddq_s32(vdupq_n_s32(p->out_bias), vshlq_s32(n, neg_shift)), vshlq_s32(frac, neg_shift));
}

static inline int8x8_t mul8(int8x8_t va, int8x8_t vb, const lite_qs8_mul_plan* p, int32x4_t neg_shift,
                            int32x4_t mask) {
  const int16x8_t a = vsubq_s16(vmovl_s8(va), vdupq_n_s16(p->a_zero_point));
  const int16x8_t b = vsubq_s16(vmovl_s8(vb), vdupq_n_s16(p->b_zero_point));
  const int16x8_t r =
      vcombine_s16(vqmovn_s32(mul4(vmull_s16(vget_low_s16(a), vget_low_s16(b)), p, neg_shift, mask)),
                   vqmovn_s32(mul4(vmull_s16(vget_high_s16(a), vget_high_s16(b)), p, neg_shift, mask)));
  return vmin_s8(vmax_s8(vqmovn_s16(r), vdup_n_s8(p->act_min)), vdup_n_s8(p->act_max));
}

static inline int8x16_t mul16(const int8_t* a, const int8_t* b, const lite_qs8_mul_plan* p, int32x4_t neg_shift,
                              int32x4_t mask) {
  const int8x16_t va = vld1q_s8(a), vb = vld1q_s8(b);
  return vcombine_s8(mul8(vget_low_s8(va), vget_low_s8(vb), p, neg_shift, mask),
                     mul8(vget_high_s8(va), vget_high_s8(vb), p, neg_shift, mask));
}

static void mul_contiguous(size_t n, const lite_qs8_mul_plan* plan_in, const int8_t* a, const int8_t* b,
                           int8_t* y) {
  /* A local copy: the int8 stores through y may alias *plan_in, which would reload every field per step. */
  const lite_qs8_mul_plan copy = *plan_in, *plan = &copy;
  const int32x4_t neg_shift = vdupq_n_s32(-plan->shift);
  const int32x4_t mask = vdupq_n_s32((int32_t)((1u << plan->shift) - 1u));
  size_t i = 0;
  for (; i + STEP <= n; i += STEP) vst1q_s8(y + i, mul16(a + i, b + i, plan, neg_shift, mask));
  if (i < n) {
    int8_t ta[STEP] = {0}, tb[STEP] = {0}, ty[STEP];
    memcpy(ta, a + i, n - i);
    memcpy(tb, b + i, n - i);
    vst1q_s8(ty, mul16(ta, tb, plan, neg_shift, mask));
    memcpy(y + i, ty, n - i);
  }
}

#define LITE_QS8_ROWS_SUFFIX armv7_neon
#include "../portable/qs8_elementwise_rows.h"

static inline void dequantize8(const int8_t* x, float32x4_t scale, int16x8_t zero_point, float* y) {
  const int16x8_t d = vsubq_s16(vmovl_s8(vld1_s8(x)), zero_point);
  vst1q_f32(y, vmulq_f32(scale, vcvtq_f32_s32(vmovl_s16(vget_low_s16(d)))));
  vst1q_f32(y + 4, vmulq_f32(scale, vcvtq_f32_s32(vmovl_s16(vget_high_s16(d)))));
}

void lite_qs8_vdequantize_armv7_neon(size_t count, float scale, int32_t zero_point, const int8_t* input,
                                     float* output) {
  if (zero_point < -128 || zero_point > 127 || !isfinite(scale) || fabsf(scale) < FLT_MIN) {
    lite_qs8_dequantize_f32_ref(count, scale, zero_point, input, output);
    return;
  }
  const float32x4_t vs = vdupq_n_f32(scale);
  const int16x8_t vz = vdupq_n_s16((int16_t)zero_point);
  size_t i = 0;
  for (; i + 8 <= count; i += 8) dequantize8(input + i, vs, vz, output + i);
  if (i < count) {
    int8_t tx[8] = {0};
    float ty[8];
    memcpy(tx, input + i, count - i);
    dequantize8(tx, vs, vz, ty);
    memcpy(output + i, ty, (count - i) * sizeof(float));
  }
}

/* table[x + 128]: vtbl over the first 32 entries, vtbx (out of range keeps the lane) over the other 7 */
static inline int8x8_t lookup8(int8x8_t x, const int8x8x4_t t[8]) {
  const int8x8_t u = veor_s8(x, vdup_n_s8((int8_t)0x80));
  int8x8_t r = vtbl4_s8(t[0], u);
  for (int k = 1; k < 8; ++k) r = vtbx4_s8(r, t[k], vsub_s8(u, vdup_n_s8((int8_t)(32 * k))));
  return r;
}

void lite_qs8_vlookup_armv7_neon(size_t count, const int8_t table[256], const int8_t* input, int8_t* output) {
  int8x8x4_t t[8];
  for (int k = 0; k < 8; ++k) {
    for (int j = 0; j < 4; ++j) t[k].val[j] = vld1_s8(table + 32 * k + 8 * j);
  }
  size_t i = 0;
  for (; i + 8 <= count; i += 8) vst1_s8(output + i, lookup8(vld1_s8(input + i), t));
  if (i < count) {
    int8_t tx[8] = {0}, ty[8];
    memcpy(tx, input + i, count - i);
    vst1_s8(ty, lookup8(vld1_s8(tx), t));
    memcpy(output + i, ty, count - i);
  }
}

/* x / scale rounded to an integer in the FPSCR's rounding mode (as nearbyintf: nearest, ties to even, by
 * default), saturated to int32, NaN -> 0: VFP's IEEE vdiv.f32 and vcvtr.s32.f32. */
static inline int32_t quantize_one(float x, float scale) {
  float rounded;
  __asm__("vcvtr.s32.f32 %0, %1" : "=t"(rounded) : "t"(x / scale));
  int32_t bits;
  memcpy(&bits, &rounded, sizeof(bits));
  return bits;
}

/* The reference's result: its float add of the zero point is exact below 2^24 and larger values clamp
 * alike; NaN gives 0 + zp, as the reference's NaN test does; saturation keeps infinities clamped. */
void lite_qs8_vquantize_armv7_neon(size_t count, float scale, int32_t zero_point, const float* input,
                                   int8_t* output) {
  const int32x4_t vz = vdupq_n_s32(zero_point);
  size_t i = 0;
  for (; i + 8 <= count; i += 8) {
    int32_t q[8];
    for (int j = 0; j < 8; ++j) q[j] = quantize_one(input[i + j], scale);
    const int16x8_t h = vcombine_s16(vqmovn_s32(vqaddq_s32(vld1q_s32(q), vz)),
                                     vqmovn_s32(vqaddq_s32(vld1q_s32(q + 4), vz)));
    vst1_s8(output + i, vqmovn_s16(h));
  }
  for (; i < count; ++i) {
    const int64_t r = (int64_t)quantize_one(input[i], scale) + zero_point;
    output[i] = (int8_t)(r < -128 ? -128 : r > 127 ? 127 : r);
  }
}
