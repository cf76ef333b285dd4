/* int8 ADD / MUL / QUANTIZE / DEQUANTIZE / LOOKUP with aarch64 NEON, 16 elements per step, byte-exact
 * with the references (qs8_elementwise.h). Tails run one step on zero-padded copies. */
#include <arm_neon.h>
#include <string.h>

#include "lite_kernels/qs8_elementwise.h"

#define STEP 16

/* 4 int32 outputs before saturation from the biased sums round_bias + H and low_bias + L */
static inline int32x4_t add4_finish(int32x4_t h, int32x4_t l, const lite_qs8_add_plan* p, int32x4_t neg_shift) {
  /* + (L >> 16) by one shift-right-accumulate */
  return vaddq_s32(vdupq_n_s32(p->out_bias), vshlq_s32(vsraq_n_s32(h, l, 16), neg_shift));
}

/* 8 int16 a, b -> 8 int16 outputs (saturated); smlal2 by element takes the high halves in place */
static inline int16x8_t add8(int16x8_t a, int16x8_t b, const lite_qs8_add_plan* p, int32x4_t neg_shift) {
  const int32x4_t rb = vdupq_n_s32(p->round_bias), lb = vdupq_n_s32(p->low_bias);
  const int32x4_t h0 = vmlal_n_s16(vmlal_n_s16(rb, vget_low_s16(a), p->a_hi), vget_low_s16(b), p->b_hi);
  const int32x4_t l0 = vmlal_n_s16(vmlal_n_s16(lb, vget_low_s16(a), p->a_lo), vget_low_s16(b), p->b_lo);
  const int32x4_t h1 = vmlal_high_n_s16(vmlal_high_n_s16(rb, a, p->a_hi), b, p->b_hi);
  const int32x4_t l1 = vmlal_high_n_s16(vmlal_high_n_s16(lb, a, p->a_lo), b, p->b_lo);
  return vqmovn_high_s32(vqmovn_s32(add4_finish(h0, l0, p, neg_shift)), add4_finish(h1, l1, p, neg_shift));
}

static inline int8x16_t add16(const int8_t* a, const int8_t* b, const lite_qs8_add_plan* p, int32x4_t neg_shift) {
  const int8x16_t va = vld1q_s8(a), vb = vld1q_s8(b);
  const int16x8_t r0 = add8(vmovl_s8(vget_low_s8(va)), vmovl_s8(vget_low_s8(vb)), p, neg_shift);
  const int16x8_t r1 = add8(vmovl_high_s8(va), vmovl_high_s8(vb), p, neg_shift);
  const int8x16_t r = vqmovn_high_s16(vqmovn_s16(r0), r1);
  return vminq_s8(vmaxq_s8(r, vdupq_n_s8(p->act_min)), vdupq_n_s8(p->act_max));
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

/* 4 int32 products (a - za)(b - zb) -> 4 int32 outputs before saturation */
static inline int32x4_t mul4(int32x4_t product, const lite_qs8_mul_plan* p, int32x4_t neg_shift, int32x4_t mask) {
  const int32x4_t l = vmlaq_n_s32(vdupq_n_s32(p->low_bias), product, p->lo);
  const int32x4_t n = vaddq_s32(vmulq_n_s32(product, p->hi), vshrq_n_s32(l, 16));
  const int32x4_t frac = vaddq_s32(vandq_s32(n, mask), vdupq_n_s32(p->round_bias));
  return vaddq_s32(vaddq_s32(vdupq_n_s32(p->out_bias), vshlq_s32(n, neg_shift)), vshlq_s32(frac, neg_shift));
}

static inline int8x16_t mul16(const int8_t* a, const int8_t* b, const lite_qs8_mul_plan* p, int32x4_t neg_shift,
                              int32x4_t mask) {
  const int8x16_t va = vld1q_s8(a), vb = vld1q_s8(b);
  const int16x8_t za = vdupq_n_s16(p->a_zero_point), zb = vdupq_n_s16(p->b_zero_point);
  const int16x8_t a0 = vsubq_s16(vmovl_s8(vget_low_s8(va)), za), a1 = vsubq_s16(vmovl_high_s8(va), za);
  const int16x8_t b0 = vsubq_s16(vmovl_s8(vget_low_s8(vb)), zb), b1 = vsubq_s16(vmovl_high_s8(vb), zb);
  const int32x4_t p00 = mul4(vmull_s16(vget_low_s16(a0), vget_low_s16(b0)), p, neg_shift, mask);
  const int32x4_t p10 = mul4(vmull_s16(vget_low_s16(a1), vget_low_s16(b1)), p, neg_shift, mask);
  const int16x8_t r0 = vqmovn_high_s32(vqmovn_s32(p00), mul4(vmull_high_s16(a0, b0), p, neg_shift, mask));
  const int16x8_t r1 = vqmovn_high_s32(vqmovn_s32(p10), mul4(vmull_high_s16(a1, b1), p, neg_shift, mask));
  const int8x16_t r = vqmovn_high_s16(vqmovn_s16(r0), r1);
  return vminq_s8(vmaxq_s8(r, vdupq_n_s8(p->act_min)), vdupq_n_s8(p->act_max));
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

#define LITE_QS8_ROWS_SUFFIX aarch64_neon
#include "../portable/qs8_elementwise_rows.h"

/* 4 floats -> 4 int32: rint(x / scale) + zp before the int8 saturation. fcvtns rounds half to even
 * (the reference's nearbyintf in the default mode), turns NaN into 0 (so the output is zp, as the
 * reference) and saturates out-of-range values and infinities, which the saturating add and narrowing
 * keep saturated; below 2^24 the reference's float add of zp is exact, above it both saturate. */
static inline int32x4_t quantize4(const float* x, float32x4_t scale, int32x4_t zero_point) {
  return vqaddq_s32(vcvtnq_s32_f32(vdivq_f32(vld1q_f32(x), scale)), zero_point);
}

static inline int8x16_t quantize16(const float* x, float32x4_t scale, int32x4_t zero_point) {
  const int16x8_t q0 =
      vqmovn_high_s32(vqmovn_s32(quantize4(x, scale, zero_point)), quantize4(x + 4, scale, zero_point));
  const int16x8_t q1 =
      vqmovn_high_s32(vqmovn_s32(quantize4(x + 8, scale, zero_point)), quantize4(x + 12, scale, zero_point));
  return vqmovn_high_s16(vqmovn_s16(q0), q1);
}

void lite_qs8_vquantize_aarch64_neon(size_t count, float scale, int32_t zero_point, const float* input,
                                     int8_t* output) {
  const float32x4_t vs = vdupq_n_f32(scale);
  const int32x4_t vz = vdupq_n_s32(zero_point);
  size_t i = 0;
  for (; i + STEP <= count; i += STEP) vst1q_s8(output + i, quantize16(input + i, vs, vz));
  if (i < count) {
    float tx[STEP] = {0};
    int8_t ty[STEP];
    memcpy(tx, input + i, (count - i) * sizeof(float));
    vst1q_s8(ty, quantize16(tx, vs, vz));
    memcpy(output + i, ty, count - i);
  }
}

static inline void dequantize16(const int8_t* x, float32x4_t scale, int8x16_t zero_point, float* y) {
  const int8x16_t q = vld1q_s8(x);
  const int16x8_t d0 = vsubl_s8(vget_low_s8(q), vget_low_s8(zero_point));
  const int16x8_t d1 = vsubl_high_s8(q, zero_point);
  vst1q_f32(y, vmulq_f32(scale, vcvtq_f32_s32(vmovl_s16(vget_low_s16(d0)))));
  vst1q_f32(y + 4, vmulq_f32(scale, vcvtq_f32_s32(vmovl_high_s16(d0))));
  vst1q_f32(y + 8, vmulq_f32(scale, vcvtq_f32_s32(vmovl_s16(vget_low_s16(d1)))));
  vst1q_f32(y + 12, vmulq_f32(scale, vcvtq_f32_s32(vmovl_high_s16(d1))));
}

void lite_qs8_vdequantize_aarch64_neon(size_t count, float scale, int32_t zero_point, const int8_t* input,
                                       float* output) {
  if (zero_point < -128 || zero_point > 127) { /* the widening subtract takes zp as an int8 */
    lite_qs8_dequantize_f32_ref(count, scale, zero_point, input, output);
    return;
  }
  const float32x4_t vs = vdupq_n_f32(scale);
  const int8x16_t vz = vdupq_n_s8((int8_t)zero_point);
  size_t i = 0;
  for (; i + STEP <= count; i += STEP) dequantize16(input + i, vs, vz, output + i);
  if (i < count) {
    int8_t tx[STEP] = {0};
    float ty[STEP];
    memcpy(tx, input + i, count - i);
    dequantize16(tx, vs, vz, ty);
    memcpy(output + i, ty, (count - i) * sizeof(float));
  }
}

/* table[x + 128]: tbl over the first 64 entries, tbx (out of range keeps the lane) over the other three */
static inline int8x16_t lookup16(int8x16_t x, const int8x16x4_t t[4]) {
  const uint8x16_t u = vreinterpretq_u8_s8(veorq_s8(x, vdupq_n_s8((int8_t)0x80)));
  const uint8x16_t step = vdupq_n_u8(64);
  int8x16_t r = vqtbl4q_s8(t[0], u);
  r = vqtbx4q_s8(r, t[1], vsubq_u8(u, step));
  r = vqtbx4q_s8(r, t[2], vsubq_u8(u, vaddq_u8(step, step)));
  return vqtbx4q_s8(r, t[3], vsubq_u8(u, vdupq_n_u8(192)));
}

void lite_qs8_vlookup_aarch64_neon(size_t count, const int8_t table[256], const int8_t* input, int8_t* output) {
  int8x16x4_t t[4];
  for (int k = 0; k < 4; ++k) t[k] = vld1q_s8_x4(table + 64 * k);
  size_t i = 0;
  for (; i + STEP <= count; i += STEP) vst1q_s8(output + i, lookup16(vld1q_s8(input + i), t));
  if (i < count) {
    int8_t tx[STEP] = {0}, ty[STEP];
    memcpy(tx, input + i, count - i);
    vst1q_s8(ty, lookup16(vld1q_s8(tx), t));
    memcpy(output + i, ty, count - i);
  }
}
