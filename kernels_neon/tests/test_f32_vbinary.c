/* The vectorized fp32 ADD/SUB/MUL/DIV/PRELU rows (lite_kernels/f32_vbinary.h) against the reference
 * elementwise kernel (lite_binary_ref over a broadcast plan), for every variant this CPU runs: all
 * four operand patterns (vector op vector, vector op scalar, scalar op vector, scalar op scalar),
 * every length up to 3 vectors and a long row, random values plus the special ones (+-0, +-inf,
 * NaN, subnormals, huge). Results must be the same floats: IEEE operations are correctly rounded in
 * every unit; armv7 NEON flushes subnormal inputs and results to zero (checked as such). */
#include <float.h>
#include <stdlib.h>

#include "kernel_test.h"
#include "lite_kernels/cpu_features.h"
#include "lite_kernels/dtype.h"
#include "lite_kernels/elementwise_binary.h"
#include "lite_kernels/f32_vbinary.h"

static int same_float(float got, float want) {
  if (isnan(want) || isnan(got)) return isnan(want) && isnan(got);
  return got == want;
}

/* armv7 NEON flushes subnormal inputs and results to zero (signed): its expected values are the
 * reference's on flushed inputs, flushed. Other units keep subnormals. */
static float flush(float x) { return fabsf(x) < FLT_MIN ? copysignf(0.0f, x) : x; }

static int flushes_subnormals(lite_f32_vbinary_fn fn) {
#if defined(__arm__) && defined(__ARM_NEON)
  return fn == lite_f32_vbinary_armv7_neon;
#else
  (void)fn;
  return 0;
#endif
}

/* want = lite_binary_ref on shapes [na] op [nb] (each n or 1) broadcast to [n]. */
static void reference(int op, const float* a, int64_t na, const float* b, int64_t nb, int64_t n, float* want) {
  const int64_t out_dims[1] = {n};
  const int ranks[2] = {1, 1};
  const int64_t* dims[2] = {&na, &nb};
  lite_bcast plan;
  lite_bcast_init(&plan, 1, out_dims, 2, ranks, dims);
  const lite_activation none = {LITE_ACT_NONE, 0.0f, 0.0f, NULL};
  lite_binary_ref(op, LITE_DT_F32, 0, &plan, a, b, want, &none, 1);
}

static void check(lite_f32_vbinary_fn fn, int op, const float* a, int a_step, const float* b, int b_step, size_t n) {
  float* got = malloc(n * sizeof(float));
  float* want = malloc(n * sizeof(float));
  fn(op, n, a, a_step, b, b_step, got);
  const int ftz = flushes_subnormals(fn) && op != LITE_BIN_DIV;
  float* fa = malloc(n * sizeof(float));
  float* fb = malloc(n * sizeof(float));
  for (size_t i = 0; i < n; ++i) {
    fa[i] = ftz && (a_step || i == 0) ? flush(a[a_step ? i : 0]) : a[a_step ? i : 0];
    fb[i] = ftz && (b_step || i == 0) ? flush(b[b_step ? i : 0]) : b[b_step ? i : 0];
  }
  reference(op, fa, a_step ? (int64_t)n : 1, fb, b_step ? (int64_t)n : 1, (int64_t)n, want);
  if (ftz)
    for (size_t i = 0; i < n; ++i) want[i] = flush(want[i]);
  free(fa);
  free(fb);
  int bad = 0;
  for (size_t i = 0; i < n && !bad; ++i) {
    bad = !same_float(got[i], want[i]);
    if (bad) fprintf(stderr, "%s op %d steps %d,%d n %zu [%zu]: got %.9g want %.9g\n", lite_f32_vbinary_name(fn), op,
                     a_step, b_step, n, i, got[i], want[i]);
  }
  KT_CHECK(!bad);
  free(got);
  free(want);
}

int main(void) {
  const uint32_t features = lite_cpu_features_detected();
  lite_f32_vbinary_fn variants[2] = {lite_f32_vbinary_portable, lite_f32_vbinary_select(features)};
  const int count = variants[1] == variants[0] ? 1 : 2;
  if (count == 1) kt_skip("no SIMD variant for this CPU: only the portable rows run");
  enum { kLong = 1029 };
  static float a[kLong], b[kLong];
  kt_rng rng = kt_rng_make(11);
  kt_fill_uniform(&rng, a, kLong, -100.0f, 100.0f);
  kt_fill_uniform(&rng, b, kLong, -3.0f, 3.0f);
  const float specials[] = {0.0f, -0.0f, INFINITY, -INFINITY, NAN, 1e-40f, -1e-40f, FLT_MIN, 3e38f, -3e38f, 1.0f};
  const size_t ns = sizeof(specials) / sizeof(specials[0]);
  for (size_t i = 0; i < ns; ++i)
    for (size_t j = 0; j < ns; ++j) a[100 + i * ns + j] = specials[i], b[100 + i * ns + j] = specials[j];
  const int ops[] = {LITE_BIN_ADD, LITE_BIN_SUB, LITE_BIN_MUL, LITE_BIN_DIV, LITE_BIN_PRELU};
  for (int v = 0; v < count; ++v) {
    for (size_t o = 0; o < sizeof(ops) / sizeof(ops[0]); ++o) {
      KT_CHECK(lite_f32_vbinary_supports(ops[o]));
      for (int pattern = 0; pattern < 4; ++pattern) {
        const int a_step = pattern & 1, b_step = (pattern >> 1) & 1;
        for (size_t n = 1; n <= 33; ++n) check(variants[v], ops[o], a + 100 + 3 * n, a_step, b + 100 + 2 * n, b_step, n);
        check(variants[v], ops[o], a, a_step, b, b_step, kLong);
        for (size_t s = 0; s < ns; ++s) check(variants[v], ops[o], a + 100 + s * ns, a_step, b + 100 + s, b_step, 19);
      }
    }
  }
  KT_CHECK(!lite_f32_vbinary_supports(LITE_BIN_POW));
  printf("variants tested: %d (best: %s)\n", count, lite_f32_vbinary_name(variants[count - 1]));
  return kt_finish();
}
