/* kernel_test.h: the tiny harness of the kernel test executables (kernels_neon/tests/test_*.c).
 *
 * Each test_<kernel>.c compares an optimized kernel with its ref/ twin (the oracle) and ends with
 *
 *     int main(void) { ...checks...; return kt_finish(); }
 *
 * kt_finish prints the closing line exactly as "N passed, M failed" and returns nonzero when a
 * check failed: tests/test_cross_arm.py runs every executable on the host and under qemu and
 * parses that line. A part that cannot run on this CPU is declared with kt_skip("why") (or, for a
 * kernel variant, kt_cpu_has() in kernel_test_cpu.h), which prints "skipped: why" on stdout: an
 * executable that runs no check is a pytest skip with those reasons, and one that runs no check
 * and declares no skip fails, so a test can never pass by checking nothing. The variant skips are
 * also how the runner proves that every variant ran on some (emulated) CPU.
 *
 * Why tolerances and ULPs: an optimized kernel reassociates sums and uses FMA, so it differs from
 * the reference by rounding, not by a fixed amount. Compare with a bound that scales with the
 * magnitude (KT_CHECK_CLOSE: |a - e| <= atol + rtol * |e|) or with a distance in units in the last
 * place (KT_CHECK_ULP) for elementwise math. Random data is deterministic (a seeded generator, no
 * time or rand()) so a failure under qemu reproduces on the host.
 *
 * Header only, C11, warning-free under -Wall -Wextra -Werror (everything is static inline).
 */
#ifndef LITE_KERNEL_TEST_H
#define LITE_KERNEL_TEST_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* Counters of one test executable (one translation unit includes this header). */
typedef struct {
  int passed;
  int failed;
  int reported; /* failures printed so far; later ones are only counted */
  int skipped;  /* parts declared skipped (kt_skip) */
} kt_state;

static inline kt_state* kt_global(void) {
  static kt_state state;
  return &state;
}

/* At most this many failure messages are printed; the count is always exact. */
#define KT_MAX_REPORTS 20

/* Records one check outcome; prints the failure with its location. Returns `ok`. */
static inline int kt_record(int ok, const char* file, int line, const char* what) {
  kt_state* s = kt_global();
  if (ok) {
    s->passed++;
  } else {
    s->failed++;
    if (s->reported++ < KT_MAX_REPORTS) fprintf(stderr, "%s:%d: FAILED: %s\n", file, line, what);
  }
  return ok;
}

/* Prints the closing line and returns the process exit code (0 when every check passed). */
static inline int kt_finish(void) {
  kt_state* s = kt_global();
  printf("%d passed, %d failed\n", s->passed, s->failed);
  fflush(stdout);
  return s->failed != 0;
}

/* Declares that (part of) a test did not run and why: "skipped: <reason>" on stdout, which the
 * runner reads (not a failure; a run whose every part is skipped is reported as a skip). */
static inline void kt_skip(const char* reason) {
  kt_global()->skipped++;
  printf("skipped: %s\n", reason);
}

/* ---- comparisons ------------------------------------------------------------------------- */

/* Maps a float onto a monotonically ordered integer line, so that adjacent floats are 1 apart
 * and -0.0 == +0.0. */
static inline int64_t kt_float_ordinal(float x) {
  uint32_t bits;
  memcpy(&bits, &x, sizeof(bits));
  return (bits & 0x80000000u) ? -(int64_t)(bits & 0x7FFFFFFFu) : (int64_t)bits;
}

/* Distance in units in the last place; 0 for equal values (and for two NaNs), INT64_MAX when
 * exactly one side is NaN. */
static inline int64_t kt_ulp_distance(float a, float b) {
  if (isnan(a) || isnan(b)) return (isnan(a) && isnan(b)) ? 0 : INT64_MAX;
  int64_t d = kt_float_ordinal(a) - kt_float_ordinal(b);
  return d < 0 ? -d : d;
}

/* |actual - expected| <= atol + rtol * |expected|; NaN matches NaN, infinities must be equal. */
static inline int kt_close(float actual, float expected, float atol, float rtol) {
  if (isnan(actual) || isnan(expected)) return isnan(actual) && isnan(expected);
  if (isinf(actual) || isinf(expected)) return actual == expected;
  return fabsf(actual - expected) <= atol + rtol * fabsf(expected);
}

/* Compares n floats; one check for the whole array, which prints the first mismatches (index,
 * values, ulp distance) and their count. Returns 1 when all match. */
static inline int kt_check_close_array(const char* file, int line, const char* name, const float* actual,
                                       const float* expected, size_t n, float atol, float rtol) {
  size_t bad = 0, first_bad = 0;
  for (size_t i = 0; i < n; ++i) {
    if (!kt_close(actual[i], expected[i], atol, rtol)) {
      if (bad == 0) first_bad = i;
      if (bad < 5 && kt_global()->reported < KT_MAX_REPORTS)
        fprintf(stderr, "%s:%d: %s[%zu] = %.9g, expected %.9g (%lld ulp)\n", file, line, name, i,
                (double)actual[i], (double)expected[i], (long long)kt_ulp_distance(actual[i], expected[i]));
      bad++;
    }
  }
  char what[256];
  snprintf(what, sizeof(what), "%s: %zu of %zu values differ (first at %zu; atol %g, rtol %g)", name, bad, n,
           first_bad, (double)atol, (double)rtol);
  return kt_record(bad == 0, file, line, what);
}

/* Exact comparison of n bytes (integer kernels, copies). */
static inline int kt_check_equal_bytes(const char* file, int line, const char* name, const void* actual,
                                       const void* expected, size_t bytes) {
  const unsigned char* a = (const unsigned char*)actual;
  const unsigned char* e = (const unsigned char*)expected;
  size_t i = 0;
  while (i < bytes && a[i] == e[i]) ++i;
  char what[256];
  snprintf(what, sizeof(what), "%s: first difference at byte %zu of %zu", name, i, bytes);
  return kt_record(i == bytes, file, line, what);
}

/* A boolean condition. */
#define KT_CHECK(cond) kt_record(!!(cond), __FILE__, __LINE__, #cond)

/* Two integers (any integer type, compared as long long). */
#define KT_CHECK_EQ_INT(actual, expected)                                                              \
  do {                                                                                                 \
    long long kt_a_ = (long long)(actual), kt_e_ = (long long)(expected);                              \
    char kt_what_[256];                                                                                \
    snprintf(kt_what_, sizeof(kt_what_), "%s == %s (%lld vs %lld)", #actual, #expected, kt_a_, kt_e_); \
    kt_record(kt_a_ == kt_e_, __FILE__, __LINE__, kt_what_);                                           \
  } while (0)

/* One float within atol + rtol * |expected|. */
#define KT_CHECK_CLOSE(actual, expected, atol, rtol)                                                    \
  do {                                                                                                  \
    float kt_a_ = (float)(actual), kt_e_ = (float)(expected);                                           \
    char kt_what_[256];                                                                                 \
    snprintf(kt_what_, sizeof(kt_what_), "%s = %.9g, expected %s = %.9g", #actual, (double)kt_a_,       \
             #expected, (double)kt_e_);                                                                 \
    kt_record(kt_close(kt_a_, kt_e_, (float)(atol), (float)(rtol)), __FILE__, __LINE__, kt_what_);      \
  } while (0)

/* One float within max_ulp units in the last place. */
#define KT_CHECK_ULP(actual, expected, max_ulp)                                                          \
  do {                                                                                                   \
    float kt_a_ = (float)(actual), kt_e_ = (float)(expected);                                            \
    char kt_what_[256];                                                                                  \
    snprintf(kt_what_, sizeof(kt_what_), "%s = %.9g, expected %.9g (%lld ulp > %lld)", #actual,          \
             (double)kt_a_, (double)kt_e_, (long long)kt_ulp_distance(kt_a_, kt_e_), (long long)(max_ulp)); \
    kt_record(kt_ulp_distance(kt_a_, kt_e_) <= (int64_t)(max_ulp), __FILE__, __LINE__, kt_what_);        \
  } while (0)

/* Arrays of n floats / n bytes; name is a label for the message. */
#define KT_CHECK_CLOSE_ARRAY(name, actual, expected, n, atol, rtol) \
  kt_check_close_array(__FILE__, __LINE__, name, actual, expected, n, atol, rtol)
#define KT_CHECK_EQUAL_BYTES(name, actual, expected, bytes) \
  kt_check_equal_bytes(__FILE__, __LINE__, name, actual, expected, bytes)

/* ---- deterministic data ------------------------------------------------------------------ */

/* A small seeded generator (splitmix64 step): the same numbers on every host and target. */
typedef struct {
  uint64_t state;
} kt_rng;

static inline kt_rng kt_rng_make(uint64_t seed) {
  kt_rng r = {seed};
  return r;
}

static inline uint64_t kt_rand_u64(kt_rng* r) {
  uint64_t z = (r->state += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

/* Uniform in [lo, hi): 24 random mantissa bits, exact in float. */
static inline float kt_rand_uniform(kt_rng* r, float lo, float hi) {
  float unit = (float)(kt_rand_u64(r) >> 40) * (1.0f / 16777216.0f);
  return lo + (hi - lo) * unit;
}

/* Uniform integer in [lo, hi]. */
static inline int32_t kt_rand_int(kt_rng* r, int32_t lo, int32_t hi) {
  uint64_t span = (uint64_t)((int64_t)hi - (int64_t)lo) + 1u;
  return (int32_t)((int64_t)lo + (int64_t)(kt_rand_u64(r) % span));
}

/* Fills n floats uniformly in [lo, hi). */
static inline void kt_fill_uniform(kt_rng* r, float* data, size_t n, float lo, float hi) {
  for (size_t i = 0; i < n; ++i) data[i] = kt_rand_uniform(r, lo, hi);
}

/* Fills n int8 values uniformly in [lo, hi]. */
static inline void kt_fill_int8(kt_rng* r, int8_t* data, size_t n, int lo, int hi) {
  for (size_t i = 0; i < n; ++i) data[i] = (int8_t)kt_rand_int(r, lo, hi);
}

/* Fills n uint8 values uniformly in [lo, hi]. */
static inline void kt_fill_uint8(kt_rng* r, uint8_t* data, size_t n, int lo, int hi) {
  for (size_t i = 0; i < n; ++i) data[i] = (uint8_t)kt_rand_int(r, lo, hi);
}

#endif /* LITE_KERNEL_TEST_H */
