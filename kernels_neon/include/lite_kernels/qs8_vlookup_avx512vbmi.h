/* The int8 256-entry LOOKUP with AVX-512 VBMI (vpermi2b), x86-64 only. lite_cpu_features() has no
 * VBMI bit, so qs8_elementwise_config.c asks cpuid for it (lite_qs8_cpu_has_avx512vbmi) on top of
 * the AVX-512 feature bit, which already covers the OS's zmm state. Same bytes as lite_qs8_lookup_ref. */
#ifndef LITE_KERNELS_QS8_ELEMENTWISE_LOOKUP_VBMI_H
#define LITE_KERNELS_QS8_ELEMENTWISE_LOOKUP_VBMI_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__x86_64__)
void lite_qs8_vlookup_avx512vbmi(size_t count, const int8_t table[256], const int8_t* input, int8_t* output);
int lite_qs8_cpu_has_avx512vbmi(void); /* 1 when cpuid reports AVX-512 VBMI */
#endif

#ifdef __cplusplus
}
#endif

#endif
