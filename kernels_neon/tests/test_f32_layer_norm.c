/* The vectorized layer normalization rows (lite_kernels/f32_layer_norm.h) against the reference
 * (lite_f32_layer_norm_ref, sums in double), for every variant this CPU runs: row lengths 1..70
 * (every vector tail), the lengths of real models (120, 384) and long rows crossing the 1024-value
 * summation blocks (1025, 4096, 65536); with and without scale and bias; rows whose mean is 0 or
 * 1e3 times their spread (float lanes summing raw values would lose the deviations); a constant row
 * (variance 0: epsilon alone); NaN and infinity propagate as in the reference.
 * Bounds: y within 4e-6 * (1 + |y|), mean within 1e-6 of max(1, |mean|), inv_std_dev relative 1e-5
 * (the reference's own double sums against float lanes; observed worst is printed). */
#include <stdlib.h>

#include "kernel_test_cpu.h"
#include "lite_kernels/cpu_features.h"
#include "lite_kernels/f32_layer_norm.h"
#include "lite_kernels/f32_normalization.h"

static uint64_t g_state = 0x9E3779B97F4A7C15ull;
static float next_gauss(void) {
  float s = 0.0f;
  for (int k = 0; k < 4; ++k) {
    g_state = g_state * 6364136223846793005ull + 1442695040888963407ull;
    s += (float)((g_state >> 40) & 0xFFFFFF) / 16777216.0f;
  }
  return (s - 2.0f) * 1.7320508f;  /* sum of 4 uniforms: mean 0, variance 1 */
}

static double g_worst_y = 0.0;

static void check_case(lite_f32_layer_norm_fn fn, const char* name, size_t outer, size_t inner, float offset,
                       int with_scale, int with_bias, int special) {
  const size_t n = outer * inner;
  float* x = malloc((n + 1) * sizeof(float));
  float* scale = malloc((inner + 1) * sizeof(float));
  float* bias = malloc((inner + 1) * sizeof(float));
  float* got = malloc((n + 1) * sizeof(float));
  float* want = malloc((n + 1) * sizeof(float));
  float got_mean[4], want_mean[4], got_inv[4], want_inv[4];
  for (size_t i = 0; i < n; ++i) x[i] = offset + next_gauss();
  for (size_t i = 0; i < inner; ++i) {
    scale[i] = 1.0f + 0.5f * next_gauss();
    bias[i] = next_gauss();
  }
  if (special == 1)
    for (size_t i = 0; i < inner; ++i) x[i] = offset;  /* constant first row */
  if (special == 2 && inner > 2) x[inner / 2] = NAN;
  if (special == 3 && inner > 2) x[inner - 1] = INFINITY;
  const float* s = with_scale ? scale : NULL;
  const float* b = with_bias ? bias : NULL;
  fn(outer, inner, x, s, b, 1e-5f, got, got_mean, got_inv);
  lite_f32_layer_norm_ref(outer, inner, x, s, b, 1e-5f, want, want_mean, want_inv);
  int ok = 1;
  for (size_t i = 0; i < n; ++i) {
    if (isnan(want[i]) || isnan(got[i]) || isinf(want[i]) || isinf(got[i])) {
      ok &= kt_close(got[i], want[i], 0.0f, 0.0f);
      continue;
    }
    const double e = fabs((double)got[i] - (double)want[i]) / (1.0 + fabs((double)want[i]));
    if (e > g_worst_y) g_worst_y = e;
    ok &= e <= 4e-6;
  }
  for (size_t o = 0; o < outer; ++o) {
    ok &= kt_close(got_mean[o], want_mean[o], 1e-6f * fmaxf(1.0f, fabsf(want_mean[o])), 0.0f);
    ok &= kt_close(got_inv[o], want_inv[o], 0.0f, 1e-5f);
  }
  char what[160];
  snprintf(what, sizeof(what), "%s outer %zu inner %zu offset %g scale %d bias %d special %d", name, outer, inner,
           (double)offset, with_scale, with_bias, special);
  kt_record(ok, __FILE__, __LINE__, what);
  free(x), free(scale), free(bias), free(got), free(want);
}

static void run_variant(lite_f32_layer_norm_fn fn, const char* name) {
  static const size_t longs[] = {120, 384, 1000, 1023, 1024, 1025, 4096, 65536};
  for (size_t inner = 1; inner <= 70; ++inner)
    check_case(fn, name, 1 + inner % 3, inner, inner % 2 ? 0.0f : 1000.0f, inner % 3 != 0, inner % 4 != 0, 0);
  for (size_t i = 0; i < sizeof(longs) / sizeof(longs[0]); ++i)
    for (int offset = 0; offset < 2; ++offset) check_case(fn, name, 2, longs[i], offset ? 1000.0f : 0.0f, 1, 1, 0);
  for (int special = 1; special <= 3; ++special)
    for (size_t inner = 5; inner <= 40; inner += 7) check_case(fn, name, 3, inner, 3.0f, 1, special != 2, special);
}

int main(void) {
  const uint32_t f = lite_cpu_features();
  struct {
    const char* name;
    lite_f32_layer_norm_fn fn;
    uint32_t needs; /* LITE_CPU_* features the variant runs on */
  } variants[] = {
    {"portable", lite_f32_layer_norm_portable, 0},
#if defined(__x86_64__)
    {"avx2", lite_f32_layer_norm_avx2, LITE_CPU_X86_AVX2},
    {"avx512", lite_f32_layer_norm_avx512, LITE_CPU_X86_AVX512},
#elif defined(__aarch64__)
    {"aarch64_neonfma", lite_f32_layer_norm_aarch64_neonfma, LITE_CPU_ARM_NEON},
#elif defined(__arm__) && defined(__ARM_NEON)
    {"armv7_neonfma", lite_f32_layer_norm_armv7_neonfma, LITE_CPU_ARM_NEON},
#endif
  };
  for (size_t i = 0; i < sizeof(variants) / sizeof(variants[0]); ++i) {
    char variant_name[64];
    snprintf(variant_name, sizeof(variant_name), "f32_layer_norm_%s", variants[i].name);
    if (!kt_cpu_has_among(f, variants[i].needs, variant_name)) continue;
    run_variant(variants[i].fn, variants[i].name);
  }
  printf("selected: %s; worst |y - ref| / (1 + |ref|) = %.2e (bound 4e-6)\n",
         lite_f32_layer_norm_name(lite_f32_layer_norm_select(f)), g_worst_y);
  return kt_finish();
}
