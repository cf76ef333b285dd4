/* kernel_test_cpu.h: the variant gate of the kernel tests (kernel_test.h + the CPU features).
 *
 *     if (kt_cpu_has(LITE_CPU_X86_AVX512, "f32_dwconv_nhwc_avx512")) run_the_avx512_checks();
 *
 * A variant that runs is named as "ran variant: <variant>"; one whose features the CPU lacks is
 * declared skipped as "skipped: <variant>: the CPU lacks <feature names>" (names as
 * lite_cpu_features_describe writes them). tests/test_cross_arm.py collects these lines from the host and every emulated CPU and fails
 * when a variant skipped on one CPU runs on none, unless its missing features are ones no machine
 * here has or emulates (AVX-512, VNNI, AMX on an AVX2 host: printed as not covered). */
#ifndef LITE_KERNEL_TEST_CPU_H
#define LITE_KERNEL_TEST_CPU_H

#include "kernel_test.h"
#include "lite_kernels/cpu_features.h"

/* 1 when `available` (a test's own feature set, e.g. lite_cpu_features() after the env mask) holds
 * every feature in `features`; else declares `variant` skipped with the missing features, returns 0. */
static inline int kt_cpu_has_among(uint32_t available, uint32_t features, const char* variant) {
  const uint32_t missing = features & ~available;
  if (missing == 0) {
    printf("ran variant: %s\n", variant);
    return 1;
  }
  char names[96], reason[512];
  lite_cpu_features_describe(missing, names, sizeof(names));
  snprintf(reason, sizeof(reason), "%s: the CPU lacks %s", variant, names);
  kt_skip(reason);
  return 0;
}

/* The same against the CPU's features as detected (before any mask). */
static inline int kt_cpu_has(uint32_t features, const char* variant) {
  return kt_cpu_has_among(lite_cpu_features_detected(), features, variant);
}

#endif /* LITE_KERNEL_TEST_CPU_H */
