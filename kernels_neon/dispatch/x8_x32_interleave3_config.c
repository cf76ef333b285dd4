/* Selection of the plane-interleaving kernel from CPU features (the one place that maps them). */
#include "lite_kernels/cpu_features.h"
#include "lite_kernels/interleave3.h"
#include "lite_kernels/qs8_vlookup_avx512vbmi.h"

lite_interleave3_u32_fn lite_interleave3_u32_select(uint32_t features) {
#if defined(__x86_64__)
  if (features & LITE_CPU_X86_AVX512) return lite_interleave3_u32_avx512;
#endif
  (void)features;
  return lite_interleave3_u32_portable;
}

lite_interleave3_u8_fn lite_interleave3_u8_select(uint32_t features) {
#if defined(__x86_64__)
  if ((features & LITE_CPU_X86_AVX512) && lite_qs8_cpu_has_avx512vbmi()) return lite_interleave3_u8_avx512vbmi;
#endif
  (void)features;
  return lite_interleave3_u8_portable;
}
