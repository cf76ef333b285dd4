/* Selection of the int8 elementwise kernel set (qs8_elementwise.h) from CPU features: the one place
 * that maps ISA levels to these kernels (each compiled only where its ISA is, kernels_neon/CMakeLists.txt).
 * armv7's QUANTIZE divides and rounds on the VFP unit (its NEON has no float division or round-half-even
 * conversion). */
#include "lite_kernels/cpu_features.h"
#include "lite_kernels/qs8_elementwise.h"
#include "lite_kernels/qs8_lookup.h"
#include "lite_kernels/qs8_vlookup_avx512vbmi.h"

static const lite_qs8_elementwise_kernels portable = {lite_qs8_vadd_portable, lite_qs8_vmul_portable,
                                                      lite_qs8_quantize_f32_ref, lite_qs8_dequantize_f32_ref,
                                                      lite_qs8_lookup_ref, "portable"};

#if defined(__x86_64__)
static const lite_qs8_elementwise_kernels avx2 = {lite_qs8_vadd_avx2, lite_qs8_vmul_avx2, lite_qs8_vquantize_avx2,
                                                  lite_qs8_vdequantize_avx2, lite_qs8_vlookup_avx2, "avx2"};
static const lite_qs8_elementwise_kernels avx512 = {lite_qs8_vadd_avx2, lite_qs8_vmul_avx2,
                                                    lite_qs8_vquantize_avx2, lite_qs8_vdequantize_avx2,
                                                    lite_qs8_vlookup_avx512, "avx512"};
static const lite_qs8_elementwise_kernels avx512vbmi = {lite_qs8_vadd_avx2, lite_qs8_vmul_avx2,
                                                        lite_qs8_vquantize_avx2, lite_qs8_vdequantize_avx2,
                                                        lite_qs8_vlookup_avx512vbmi, "avx512vbmi"};

int lite_qs8_cpu_has_avx512vbmi(void) {
  __builtin_cpu_init(); /* idempotent; the CPU model may not be set yet in a library constructor */
  return __builtin_cpu_supports("avx512vbmi") != 0;
}
#elif defined(__aarch64__)
static const lite_qs8_elementwise_kernels aarch64_neon = {
    lite_qs8_vadd_aarch64_neon, lite_qs8_vmul_aarch64_neon, lite_qs8_vquantize_aarch64_neon,
    lite_qs8_vdequantize_aarch64_neon, lite_qs8_vlookup_aarch64_neon, "aarch64_neon"};
#elif defined(__arm__) && defined(__ARM_NEON)
static const lite_qs8_elementwise_kernels armv7_neon = {lite_qs8_vadd_armv7_neon, lite_qs8_vmul_armv7_neon,
                                                        lite_qs8_vquantize_armv7_neon, lite_qs8_vdequantize_armv7_neon,
                                                        lite_qs8_vlookup_armv7_neon, "armv7_neon"};
#endif

const lite_qs8_elementwise_kernels* lite_qs8_elementwise_select(uint32_t features) {
#if defined(__x86_64__)
  if ((features & LITE_CPU_X86_AVX512) && (features & LITE_CPU_X86_AVX2))
    return lite_qs8_cpu_has_avx512vbmi() ? &avx512vbmi : &avx512;
  if (features & LITE_CPU_X86_AVX2) return &avx2;
#elif defined(__aarch64__)
  if (LITE_CPU_HAS_NEON(features)) return &aarch64_neon;
#elif defined(__arm__) && defined(__ARM_NEON)
  if (features & LITE_CPU_ARM_NEON) return &armv7_neon;
#endif
  (void)features;
  return &portable;
}
