/* CPU features that pick kernel variants at run time.
 *
 * Detected once per process (x86: cpuid + xgetbv, so AVX/AVX-512 count only when the OS saves the
 * ymm/zmm state; aarch64: getauxval(AT_HWCAP/AT_HWCAP2); armv7: AT_HWCAP neon + vfpv4).
 * Tests and benchmarks restrict the set to exercise every variant on one machine:
 *   - env LITE_CPU_FEATURES_MASK (read once, decimal or 0x-hex): detected & mask; 0 = portable C only;
 *   - lite_cpu_features_set_mask(): the same from code (affects later selections only). */
#ifndef LITE_KERNELS_CPU_FEATURES_H
#define LITE_KERNELS_CPU_FEATURES_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

enum {
  /* x86 */
  LITE_CPU_X86_AVX2 = 1u << 0, /* AVX2 + FMA3 + OS ymm state */
  LITE_CPU_X86_AVX512 = 1u << 1, /* AVX-512 F/BW/DQ/VL + OS zmm state */
  LITE_CPU_X86_AVX512VNNI = 1u << 2,
  LITE_CPU_X86_AMX_INT8 = 1u << 3, /* AMX tiles + int8 dot products, OS state granted (Linux arch_prctl) */
  /* aarch64 */
  LITE_CPU_ARM_NEON = 1u << 8, /* aarch64 asimd, or armv7 neon + vfpv4 (FMA) */
  LITE_CPU_ARM_DOTPROD = 1u << 9,
  LITE_CPU_ARM_I8MM = 1u << 10,
  LITE_CPU_ARM_FP16 = 1u << 11 /* fphp + asimdhp */
};

/* Whether a dispatcher may pick a NEON variant. aarch64 has NEON by definition (ASIMD is part of
 * ARMv8-A): there this is 1 whatever the mask says, so the portable twins of NEON kernels are never
 * selected and stay out of the runtime library (~24 KB of its 600 KB budget); the kernel tests still
 * check them against the reference. On armv7 NEON is optional and the mask applies. */
#if defined(__aarch64__)
#define LITE_CPU_HAS_NEON(features) 1
#else
#define LITE_CPU_HAS_NEON(features) (((features) & LITE_CPU_ARM_NEON) != 0)
#endif

/* Features of this CPU (after the mask). */
uint32_t lite_cpu_features(void);

/* Features of this CPU as detected, without any mask. */
uint32_t lite_cpu_features_detected(void);

/* Restricts later lite_cpu_features() results to detected & mask (replaces the env mask).
 * Not thread-safe against concurrent selections: call it before creating interpreters. */
void lite_cpu_features_set_mask(uint32_t mask);

/* Space-separated names of the features in `features`, e.g. "avx2 avx512" ("" for none). */
const char* lite_cpu_features_describe(uint32_t features, char* buffer, uint32_t buffer_size);

#ifdef __cplusplus
}
#endif

#endif
