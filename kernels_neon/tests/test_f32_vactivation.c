/* The vectorized activations (lite_kernels/f32_vactivation.h) against lite_activate, the reference
 * the ops used before (libm expf for SIGMOID/SILU), for every variant this CPU runs: random values
 * over the range where the functions bend and saturate, the special values (+-0, +-inf, NaN, the
 * exp clamp), every length from 1 to 3 vectors plus a long array (the tail path), and each value's
 * result is the same alone and inside an array (no dependence on position, so threads can split). */
#include <math.h>
#include <stdlib.h>

#include "kernel_test_cpu.h"
#include "lite_kernels/cpu_features.h"
#include "lite_kernels/f32_softmax.h"
#include "lite_kernels/f32_vactivation.h"

static const int k_kinds[] = {LITE_ACT_RELU,       LITE_ACT_CLIP,    LITE_ACT_HARD_SIGMOID, LITE_ACT_HARD_SWISH,
                              LITE_ACT_LEAKY_RELU, LITE_ACT_SIGMOID, LITE_ACT_SILU,         LITE_ACT_TANH};

static lite_activation make_act(int kind) {
  lite_activation act = {kind, 0.0f, 0.0f, NULL};
  if (kind == LITE_ACT_CLIP) act.alpha = -1.5f, act.beta = 6.0f;
  if (kind == LITE_ACT_HARD_SIGMOID) act.alpha = 0.2f, act.beta = 0.5f;
  if (kind == LITE_ACT_LEAKY_RELU) act.alpha = 0.1f;
  return act;
}

/* Close to the reference: NaN exactly where it is, else |a - e| <= 1e-6 + 1e-5 |e| (a few ulp of
 * the polynomial exp; the piecewise-linear kinds are exact up to a contracted multiply-add). */
static void check_variant(lite_f32_vactivation_fn fn, int kind, const float* x, size_t n) {
  const lite_activation act = make_act(kind);
  float* got = malloc(n * sizeof(float));
  float* want = malloc(n * sizeof(float));
  for (size_t i = 0; i < n; ++i) want[i] = x[i];
  fn(&act, x, got, n);
  lite_activate_rows(&act, want, 1, n);
  int bad = 0;
  for (size_t i = 0; i < n && !bad; ++i) {
    if (isnan(want[i]) || isnan(got[i])) {
      bad = isnan(want[i]) != isnan(got[i]);
    } else if (isinf(want[i])) {
      bad = got[i] != want[i];
    } else {
      bad = !(fabsf(got[i] - want[i]) <= 1e-6f + 1e-5f * fabsf(want[i]));
    }
    if (bad) fprintf(stderr, "%s kind %d n %zu: x[%zu] = %.9g: got %.9g, want %.9g\n", lite_f32_vactivation_name(fn),
                     kind, n, i, x[i], got[i], want[i]);
  }
  KT_CHECK(!bad);
  /* Position independence: each value alone gives the same bits as inside the array. */
  int moved = 0;
  for (size_t i = 0; i < n; ++i) {
    float one = x[i];
    fn(&act, &one, &one, 1); /* in place */
    if (memcmp(&one, &got[i], sizeof(float)) != 0 && !(isnan(one) && isnan(got[i]))) moved = 1;
  }
  KT_CHECK(!moved);
  free(got);
  free(want);
}

int main(void) {
  const uint32_t features = lite_cpu_features_detected();
  lite_f32_vactivation_fn variants[4];
  int count = 0;
  variants[count++] = lite_f32_vactivation_portable;
  const lite_f32_vactivation_fn best = lite_f32_vactivation_select(features);
  if (best != lite_f32_vactivation_portable) variants[count++] = best;
#if defined(__x86_64__)
  /* the best variant is already in the list: AVX-512 where the CPU has it (then AVX2 is added), else AVX2 */
  if (kt_cpu_has(LITE_CPU_X86_AVX512, "f32_vactivation_avx512")) variants[count++] = lite_f32_vactivation_avx2;
  kt_cpu_has(LITE_CPU_X86_AVX2, "f32_vactivation_avx2");
#endif
  enum { kLong = 1031 };
  float x[kLong];
  kt_rng rng = kt_rng_make(7);
  kt_fill_uniform(&rng, x, kLong, -20.0f, 20.0f);
  for (size_t i = 0; i < 200; ++i) x[i] = kt_rand_uniform(&rng, -4.0f, 4.0f); /* where they bend */
  const float specials[] = {0.0f, -0.0f, INFINITY, -INFINITY, NAN, -87.5f, -87.0f, 88.0f, 1e-8f, -1e-8f,
                            3.0f, -3.0f, 6.0f, -2.5f, 2.5f, 100.0f, -100.0f, 1e30f, -1e30f};
  for (size_t i = 0; i < sizeof(specials) / sizeof(specials[0]); ++i) x[300 + 3 * i] = specials[i];
  for (int v = 0; v < count; ++v) {
    for (size_t k = 0; k < sizeof(k_kinds) / sizeof(k_kinds[0]); ++k) {
      KT_CHECK(lite_f32_vactivation_supports(k_kinds[k]));
      for (size_t n = 1; n <= 48; ++n) check_variant(variants[v], k_kinds[k], x + 290 + n, n);
      check_variant(variants[v], k_kinds[k], x, kLong);
    }
  }
  /* Softmax's exp and sum: each value and the sum against expf, every length, and a row whose
   * shift is its maximum (the values the op passes). */
  const lite_f32_vexp_sum_fn exp_variants[2] = {lite_f32_vexp_sum_portable, lite_f32_vexp_sum_select(features)};
  for (int v = 0; v < 2; ++v) {
    for (size_t n = 1; n <= 70; n += (n < 40 ? 1 : 29)) {
      const float* row = x + 7 * n;
      float shift = -INFINITY;
      for (size_t i = 0; i < n; ++i) shift = row[i] > shift && !isnan(row[i]) ? row[i] : shift;
      float y[128];
      const float sum = exp_variants[v](row, shift, y, n);
      double want_sum = 0.0;
      int bad = 0;
      for (size_t i = 0; i < n; ++i) {
        const float want = expf(row[i] - shift);
        want_sum += want;
        if (isnan(want) != isnan(y[i]) || (!isnan(want) && !(fabsf(y[i] - want) <= 1e-37f + 1e-6f * want))) bad = 1;
      }
      KT_CHECK(!bad);
      KT_CHECK(isnan(sum) == isnan(want_sum) && (isnan(sum) || fabs(sum - want_sum) <= 1e-6 * want_sum + 1e-37));
    }
  }
  /* The row softmax against the reference softmax: every length to 70 and a long row, rows with
   * the specials (NaN, +-inf: the reference's NaN rows) and a row of equal values. */
  const lite_f32_vsoftmax_row_fn softmax_variants[2] = {lite_f32_vsoftmax_row_portable,
                                                        lite_f32_vsoftmax_row_select(features)};
  for (int v = 0; v < 2; ++v) {
    float y[kLong], want[kLong], flat[64];
    for (size_t n = 1; n <= kLong; n += (n < 70 ? 1 : kLong - 70)) {
      const float* row = n < kLong ? x + 5 * n : x;
      softmax_variants[v](row, y, n);
      lite_f32_softmax_ref(1, n, 1, row, want);
      KT_CHECK_CLOSE_ARRAY("softmax row", y, want, n, 1e-37f, 2e-6f);
    }
    for (size_t i = 0; i < 64; ++i) flat[i] = 2.5f;
    softmax_variants[v](flat, y, 64);
    lite_f32_softmax_ref(1, 64, 1, flat, want);
    KT_CHECK_CLOSE_ARRAY("softmax equal row", y, want, 64, 0.0f, 1e-6f);
  }
  /* The op entry point: rows x channels, and kinds without a vector variant fall back exactly. */
  float a[kLong], b[kLong];
  memcpy(a, x, sizeof(a));
  memcpy(b, x, sizeof(b));
  static float slopes[kLong];
  for (size_t i = 0; i < kLong; ++i) slopes[i] = 0.01f * (float)(i % 37) - 0.2f;
  const lite_activation prelu_act = {LITE_ACT_PRELU, 0.0f, 0.0f, slopes};
  lite_f32_activate(&prelu_act, a, 1, kLong);
  lite_activate_rows(&prelu_act, b, 1, kLong);
  KT_CHECK_EQUAL_BYTES("prelu fallback", a, b, sizeof(a));
  KT_CHECK(!lite_f32_vactivation_supports(LITE_ACT_PRELU));
  printf("variants tested: %d (best: %s)\n", count, lite_f32_vactivation_name(best));
  return kt_finish();
}
