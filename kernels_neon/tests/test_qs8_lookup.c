/* The int8 LOOKUP kernels against lite_qs8_lookup_ref, byte for byte: every index, random tables and
 * lengths with tails (stores must not touch the 64 bytes past the end). The selected set's kernel
 * everywhere (NEON on ARM); on x86-64 also each AVX-512 variant the CPU can run (vpshufb sub-tables,
 * vpermi2b with VBMI), whichever is selected. */
#include <string.h>

#include "kernel_test_cpu.h"
#include "lite_kernels/cpu_features.h"
#include "lite_kernels/qs8_elementwise.h"
#include "lite_kernels/qs8_lookup.h"
#include "lite_kernels/qs8_vlookup_avx512vbmi.h"

#define MAX_N 1200

typedef void (*lookup_fn)(size_t, const int8_t[256], const int8_t*, int8_t*);

static void check_variant(const char* name, lookup_fn lookup, kt_rng* r) {
  static int8_t input[MAX_N], want[MAX_N + 64], got[MAX_N + 64];
  static const size_t lengths[] = {0, 1, 63, 64, 65, 127, 128, 129, 256, 1000, 1090, MAX_N};
  int8_t table[256];
  for (size_t t = 0; t < sizeof(lengths) / sizeof(lengths[0]); ++t) {
    const size_t n = lengths[t];
    for (int i = 0; i < 256; ++i) table[i] = (int8_t)kt_rand_int(r, -128, 127);
    for (size_t i = 0; i < n; ++i) input[i] = n == 256 ? (int8_t)((int)i - 128) : (int8_t)kt_rand_int(r, -128, 127);
    memset(want, 0x5a, sizeof want);
    memset(got, 0x5a, sizeof got);
    lite_qs8_lookup_ref(n, table, input, want);
    lookup(n, table, input, got);
    char label[128];
    snprintf(label, sizeof label, "%s n=%zu (and 64 bytes past it)", name, n);
    KT_CHECK_EQUAL_BYTES(label, got, want, n + 64);
  }
}

int main(void) {
  kt_rng r = kt_rng_make(0x1234abcdull);
  const uint32_t features = lite_cpu_features_detected();
  const lite_qs8_elementwise_kernels* chosen = lite_qs8_elementwise_select(features);
  char label[48];
  snprintf(label, sizeof label, "selected %s", chosen->name);
  check_variant(label, chosen->lookup, &r);
#if defined(__x86_64__)
  if (!kt_cpu_has(LITE_CPU_X86_AVX512, "qs8_vlookup_avx512")) return kt_finish();
  check_variant("avx512 vpshufb", lite_qs8_vlookup_avx512, &r);
  if (lite_qs8_cpu_has_avx512vbmi())
    check_variant("avx512 vbmi vpermi2b", lite_qs8_vlookup_avx512vbmi, &r);
  else
    kt_skip("qs8_vlookup_avx512vbmi: the CPU lacks avx512vbmi"); /* no LITE_CPU bit: kt_cpu_has's format */
  KT_CHECK(strcmp(chosen->name, lite_qs8_cpu_has_avx512vbmi() ? "avx512vbmi" : "avx512") == 0);
#endif
  return kt_finish();
}
