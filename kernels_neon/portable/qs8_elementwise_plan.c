/* Integer constants that let the vector int8 ADD / MUL reproduce the reference's 64-bit
 * rescale-and-round in int32 lanes (qs8_elementwise.h has the formulas).
 *
 * Derivation (X = the reference's sum + 2^(shift-1), exact integer arithmetic):
 *   m = hi * 2^16 + lo  =>  X = (H + Kh) * 2^16 + (L + Kl)  with K = constant terms = Kh * 2^16 + Kl,
 *   floor(X / 2^shift) = floor(floor(X / 2^16) / 2^(shift-16)) = floor((N + Kh) / 2^t),  t = shift - 16,
 *   Kh = Q * 2^t + R  =>  = Q + floor((N + R) / 2^t).
 * The bounds in the comments below keep every lane value inside int32. */
#include "lite_kernels/qs8_elementwise.h"

#define LITE_QS8_SPLIT_LIMIT ((int64_t)2147483648 - 32768) /* m < 2^31 - 2^15 keeps hi <= 32767 */
#define LITE_QS8_BIAS_LIMIT ((int64_t)1 << 25)               /* beyond, the int8 output saturates anyway */

static int64_t floor_div_pow2(int64_t x, int k) {
  const int64_t d = (int64_t)1 << k;
  int64_t q = x / d;
  if (x % d != 0 && x < 0) q -= 1;
  return q;
}

static int64_t clamp64(int64_t v, int64_t lo, int64_t hi) { return v < lo ? lo : (v > hi ? hi : v); }

static void split_multiplier(int64_t m, int32_t* hi, int32_t* lo) {
  *hi = (int32_t)((m + 32768) >> 16); /* m >= 0 here */
  *lo = (int32_t)(m - (int64_t)*hi * 65536);
}

/* low_bias, round_bias, out_bias of constant K (everything but the a / b products), shift s. */
static void split_constant(int64_t k, int s, int32_t output_zero_point, int32_t* low_bias, int32_t* round_bias,
                           int32_t* out_bias) {
  const int t = s - 16;
  const int64_t kh = floor_div_pow2(k, 16);
  const int64_t q = floor_div_pow2(kh, t);
  *low_bias = (int32_t)(k - kh * 65536);
  *round_bias = (int32_t)(kh - q * ((int64_t)1 << t));
  *out_bias = (int32_t)clamp64(q + output_zero_point, -LITE_QS8_BIAS_LIMIT, LITE_QS8_BIAS_LIMIT);
}

static int multiplier_splits(int64_t m) { return m >= 0 && m < LITE_QS8_SPLIT_LIMIT; }

static void init_add(const lite_qs8_add_params* p, int use_b, int64_t b_constant, lite_qs8_add_plan* plan) {
  plan->params = *p;
  plan->exact = multiplier_splits(p->a_multiplier) && multiplier_splits(p->b_multiplier) && p->shift >= 16 &&
                p->shift <= 46 && p->act_min >= -128 && p->act_max <= 127 && p->act_min <= p->act_max;
  if (!plan->exact) return;
  int32_t hi, lo;
  split_multiplier(p->a_multiplier, &hi, &lo);
  plan->a_hi = (int16_t)hi;
  plan->a_lo = (int16_t)lo;
  split_multiplier(use_b ? p->b_multiplier : 0, &hi, &lo);
  plan->b_hi = (int16_t)hi;
  plan->b_lo = (int16_t)lo;
  /* |H| < 2^23, |L| <= 2^24, |N| < 2^24: N + round_bias < 2^31 for t <= 30 */
  const int64_t k = -(int64_t)p->a_zero_point * p->a_multiplier - (int64_t)p->b_zero_point * p->b_multiplier +
                    b_constant * p->b_multiplier + ((int64_t)1 << (p->shift - 1));
  split_constant(k, p->shift, p->output_zero_point, &plan->low_bias, &plan->round_bias, &plan->out_bias);
  plan->shift = p->shift - 16;
  plan->act_min = (int8_t)p->act_min;
  plan->act_max = (int8_t)p->act_max;
}

void lite_qs8_add_plan_init(const lite_qs8_add_params* params, lite_qs8_add_plan* plan) {
  init_add(params, 1, 0, plan);
}

void lite_qs8_add_plan_fold_b(const lite_qs8_add_plan* plan, int8_t b_value, lite_qs8_add_plan* folded) {
  init_add(&plan->params, 0, b_value, folded);
}

void lite_qs8_mul_plan_init(const lite_qs8_mul_params* p, lite_qs8_mul_plan* plan) {
  plan->params = *p;
  /* |P| <= 255^2: P * hi and P * lo + low_bias stay below 2^31 (65025 * 32768 + 65535);
   * shift >= 24 keeps |N >> t| <= 2^23 beside out_bias. */
  plan->exact = multiplier_splits(p->multiplier) && p->shift >= 24 && p->shift <= 46 && p->act_min >= -128 &&
                p->act_max <= 127 && p->act_min <= p->act_max && p->a_zero_point >= -128 &&
                p->a_zero_point <= 127 && p->b_zero_point >= -128 && p->b_zero_point <= 127;
  if (!plan->exact) return;
  split_multiplier(p->multiplier, &plan->hi, &plan->lo);
  split_constant((int64_t)1 << (p->shift - 1), p->shift, p->output_zero_point, &plan->low_bias, &plan->round_bias,
                 &plan->out_bias);
  plan->shift = p->shift - 16;
  plan->a_zero_point = (int16_t)p->a_zero_point;
  plan->b_zero_point = (int16_t)p->b_zero_point;
  plan->act_min = (int8_t)p->act_min;
  plan->act_max = (int8_t)p->act_max;
}
