/* The vector int8 elementwise kernels (lite_kernels/qs8_elementwise.h) against their references, byte
 * for byte, for every kernel set this CPU runs: ADD and MUL over random scale ratios (log-uniform from
 * 2^-20 to 2^16, so some fall outside the vector plan and must take the reference), all zero points,
 * fused clamps, multipliers at the split limits, same-shape / scalar / short and long periodic b,
 * lengths with tails; QUANTIZE with halves (round half to even), saturation, NaN, +-inf, -0, subnormals,
 * tiny and huge scales; DEQUANTIZE with every int8 value; LOOKUP with every index. The test also
 * requires realistic parameters to take the vector path (a plan that always fell back would pass
 * without testing anything). */
#include <math.h>
#include <stdlib.h>

#include "kernel_test.h"
#include "lite_kernels/cpu_features.h"
#include "lite_kernels/qs8_binary.h"
#include "lite_kernels/qs8_elementwise.h"
#include "lite_kernels/qs8_lookup.h"
#include "lite_kernels/requantize.h"

#define MAX_N 1100

static int8_t a_buf[MAX_N], b_buf[MAX_N], want[MAX_N], got[MAX_N];
static float f_in[MAX_N], f_want[MAX_N], f_got[MAX_N];

static const size_t lengths[] = {0, 1, 5, 15, 16, 17, 31, 32, 33, 63, 64, 65, 100, 257, 1027, 1090};
#define N_LENGTHS (sizeof(lengths) / sizeof(lengths[0]))

static double log_uniform(kt_rng* r, double lo_exp, double hi_exp) {
  return pow(2.0, (double)kt_rand_uniform(r, (float)lo_exp, (float)hi_exp));
}

static void random_act(kt_rng* r, int32_t* act_min, int32_t* act_max) {
  *act_min = -128;
  *act_max = 127;
  if (kt_rand_int(r, 0, 2) == 0) {
    *act_min = kt_rand_int(r, -128, 127);
    *act_max = kt_rand_int(r, *act_min, 127);
  }
}

static size_t random_period(kt_rng* r, size_t n) {
  static const size_t periods[] = {1, 2, 3, 8, 24, 37, 120, 511, 513, 600};
  const int k = kt_rand_int(r, 0, 11);
  if (k >= 10 || n == 0) return n == 0 ? 1 : n;
  return periods[k];
}

static void check_add_case(const lite_qs8_elementwise_kernels* ks, const lite_qs8_add_params* p, size_t n,
                           size_t period, kt_rng* r) {
  kt_fill_int8(r, a_buf, n, -128, 127);
  kt_fill_int8(r, b_buf, period, -128, 127);
  lite_qs8_add_plan plan;
  lite_qs8_add_plan_init(p, &plan);
  lite_qs8_add_periodic_ref(n, p, a_buf, b_buf, period, want);
  memset(got, 0x55, n);
  ks->add(n, &plan, a_buf, b_buf, period, got);
  char name[160];
  snprintf(name, sizeof(name), "%s add n=%zu period=%zu ma=%d mb=%d shift=%d exact=%d", ks->name, n, period,
           p->a_multiplier, p->b_multiplier, p->shift, plan.exact);
  KT_CHECK_EQUAL_BYTES(name, got, want, n);
}

static void test_add(const lite_qs8_elementwise_kernels* ks, kt_rng* r) {
  int exact = 0, cases = 0;
  for (int trial = 0; trial < 300; ++trial) {
    lite_qs8_add_params p;
    const double ra = log_uniform(r, -20.0, 16.0), rb = log_uniform(r, -20.0, 16.0);
    if (lite_quantize_multiplier_pair(ra, rb, &p.a_multiplier, &p.b_multiplier, &p.shift) != 0) continue;
    p.a_zero_point = kt_rand_int(r, -128, 127);
    p.b_zero_point = kt_rand_int(r, -128, 127);
    p.output_zero_point = kt_rand_int(r, -128, 127);
    random_act(r, &p.act_min, &p.act_max);
    const size_t n = lengths[trial % N_LENGTHS];
    lite_qs8_add_plan plan;
    lite_qs8_add_plan_init(&p, &plan);
    ++cases;
    /* scale ratios between 2^-12 and 2^12 are what real models have: those must be vectorized */
    if (ra > 0x1p-12 && ra < 0x1p12 && rb > 0x1p-12 && rb < 0x1p12) KT_CHECK(plan.exact);
    exact += plan.exact;
    check_add_case(ks, &p, n, random_period(r, n), r);
  }
  KT_CHECK(exact > cases / 2);
  /* the split limits: hi = 32767 with the largest lo, one past it (reference), shift 16 / 46 / 47 */
  const int32_t multipliers[] = {2147483647 - 32768, 2147483647 - 32767, 1 << 30, 0, 65535, 32768};
  const int shifts[] = {16, 17, 31, 46, 47, 15};
  for (size_t m = 0; m < 6; ++m) {
    for (size_t s = 0; s < 6; ++s) {
      lite_qs8_add_params p = {kt_rand_int(r, -128, 127), kt_rand_int(r, -128, 127), kt_rand_int(r, -128, 127),
                               multipliers[m], multipliers[(m + s) % 6], shifts[s], -128, 127};
      check_add_case(ks, &p, 77, 77, r);
      check_add_case(ks, &p, 77, 1, r);
    }
  }
}

static void check_mul_case(const lite_qs8_elementwise_kernels* ks, const lite_qs8_mul_params* p, size_t n,
                           size_t period, kt_rng* r) {
  kt_fill_int8(r, a_buf, n, -128, 127);
  kt_fill_int8(r, b_buf, period, -128, 127);
  lite_qs8_mul_plan plan;
  lite_qs8_mul_plan_init(p, &plan);
  lite_qs8_mul_ref(n, p, a_buf, b_buf, period, want);
  memset(got, 0x55, n);
  ks->mul(n, &plan, a_buf, b_buf, period, got);
  char name[160];
  snprintf(name, sizeof(name), "%s mul n=%zu period=%zu m=%d shift=%d zp=%d,%d exact=%d", ks->name, n, period,
           p->multiplier, p->shift, p->a_zero_point, p->b_zero_point, plan.exact);
  KT_CHECK_EQUAL_BYTES(name, got, want, n);
}

static void test_mul(const lite_qs8_elementwise_kernels* ks, kt_rng* r) {
  int exact = 0, cases = 0;
  for (int trial = 0; trial < 300; ++trial) {
    lite_qs8_mul_params p;
    const double real = log_uniform(r, -20.0, 10.0);
    if (lite_quantize_multiplier(real, &p.multiplier, &p.shift) != 0) continue;
    p.a_zero_point = kt_rand_int(r, -128, 127);
    p.b_zero_point = kt_rand_int(r, -128, 127);
    p.output_zero_point = kt_rand_int(r, -128, 127);
    random_act(r, &p.act_min, &p.act_max);
    const size_t n = lengths[trial % N_LENGTHS];
    lite_qs8_mul_plan plan;
    lite_qs8_mul_plan_init(&p, &plan);
    ++cases;
    if (real > 0x1p-14 && real < 0x1p6) KT_CHECK(plan.exact);
    exact += plan.exact;
    check_mul_case(ks, &p, n, random_period(r, n), r);
  }
  KT_CHECK(exact > cases / 2);
  const int32_t multipliers[] = {2147483647 - 32768, 2147483647 - 32767, 1 << 30, 0};
  const int shifts[] = {24, 31, 46, 47, 23};
  for (size_t m = 0; m < 4; ++m) {
    for (size_t s = 0; s < 5; ++s) {
      /* extreme zero points make the largest products (-128 - 127)^2 */
      lite_qs8_mul_params p = {127, -128, kt_rand_int(r, -128, 127), multipliers[m], shifts[s], -128, 127};
      check_mul_case(ks, &p, 77, 77, r);
      p.a_zero_point = -128;
      check_mul_case(ks, &p, 40, 1, r);
    }
  }
}

static float special_float(kt_rng* r, float scale) {
  switch (kt_rand_int(r, 0, 9)) {
    case 0: return NAN;
    case 1: return kt_rand_int(r, 0, 1) ? INFINITY : -INFINITY;
    case 2: return -0.0f;
    case 3: return 1e-40f * (float)kt_rand_int(r, -100, 100); /* subnormal */
    case 4: return ((float)kt_rand_int(r, -300, 300) + 0.5f) * scale; /* a half after the division, mostly */
    case 5: return kt_rand_uniform(r, -1e30f, 1e30f);
    default: return kt_rand_uniform(r, -200.0f, 200.0f) * scale;
  }
}

static void test_quantize(const lite_qs8_elementwise_kernels* ks, kt_rng* r) {
  const float scales[] = {1.0f, 0.5f, 0.0078125f, 0.0123f, 3.7f, 1e-30f, 1e30f, 0.1f};
  for (int trial = 0; trial < 120; ++trial) {
    const float scale = trial < 8 ? scales[trial] : (float)log_uniform(r, -12.0, 4.0);
    const int32_t zp = kt_rand_int(r, -128, 127);
    const size_t n = lengths[trial % N_LENGTHS];
    for (size_t i = 0; i < n; ++i) f_in[i] = special_float(r, scale);
    lite_qs8_quantize_f32_ref(n, scale, zp, f_in, want);
    memset(got, 0x55, n);
    ks->quantize(n, scale, zp, f_in, got);
    char name[128];
    snprintf(name, sizeof(name), "%s quantize n=%zu scale=%g zp=%d", ks->name, n, (double)scale, zp);
    KT_CHECK_EQUAL_BYTES(name, got, want, n);
  }
}

static void test_dequantize(const lite_qs8_elementwise_kernels* ks, kt_rng* r) {
  for (int trial = 0; trial < 60; ++trial) {
    const float scale = trial == 0 ? 1e-40f : (float)log_uniform(r, -20.0, 8.0);
    const int32_t zp = kt_rand_int(r, -128, 127);
    const size_t n = trial == 1 ? 256 : lengths[trial % N_LENGTHS];
    for (size_t i = 0; i < n; ++i) a_buf[i] = trial == 1 ? (int8_t)(i - 128) : (int8_t)kt_rand_int(r, -128, 127);
    lite_qs8_dequantize_f32_ref(n, scale, zp, a_buf, f_want);
    memset(f_got, 0x55, n * sizeof(float));
    ks->dequantize(n, scale, zp, a_buf, f_got);
    char name[128];
    snprintf(name, sizeof(name), "%s dequantize n=%zu scale=%g zp=%d", ks->name, n, (double)scale, zp);
    KT_CHECK_EQUAL_BYTES(name, f_got, f_want, n * sizeof(float));
  }
}

static void test_lookup(const lite_qs8_elementwise_kernels* ks, kt_rng* r) {
  int8_t table[256];
  for (int trial = 0; trial < 40; ++trial) {
    kt_fill_int8(r, table, 256, -128, 127);
    const size_t n = trial == 0 ? 256 : lengths[trial % N_LENGTHS];
    for (size_t i = 0; i < n; ++i) a_buf[i] = trial == 0 ? (int8_t)(i - 128) : (int8_t)kt_rand_int(r, -128, 127);
    lite_qs8_lookup_ref(n, table, a_buf, want);
    memset(got, 0x55, n);
    ks->lookup(n, table, a_buf, got);
    char name[96];
    snprintf(name, sizeof(name), "%s lookup n=%zu", ks->name, n);
    KT_CHECK_EQUAL_BYTES(name, got, want, n);
  }
}

int main(void) {
  /* every kernel set this CPU can run: all detected features, then fewer */
  const uint32_t detected = lite_cpu_features_detected();
  const uint32_t masks[] = {0xffffffffu, ~(uint32_t)(LITE_CPU_X86_AVX512 | LITE_CPU_X86_AVX512VNNI), 0u};
  const lite_qs8_elementwise_kernels* seen[3] = {NULL, NULL, NULL};
  for (int m = 0; m < 3; ++m) {
    const lite_qs8_elementwise_kernels* ks = lite_qs8_elementwise_select(detected & masks[m]);
    if (ks == seen[0] || ks == seen[1]) continue;
    seen[m] = ks;
    printf("kernel set %s\n", ks->name);
    kt_rng r = kt_rng_make(0x9e3779b97f4a7c15ull + (uint64_t)m);
    test_add(ks, &r);
    test_mul(ks, &r);
    test_quantize(ks, &r);
    test_dequantize(ks, &r);
    test_lookup(ks, &r);
  }
  return kt_finish();
}
