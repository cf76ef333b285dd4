/* Selection of the int8 pooling kernels from CPU features (the one place that maps them). */
#include "lite_kernels/cpu_features.h"
#include "lite_kernels/qs8_pool2d.h"

lite_qs8_max_pool2d_fn lite_qs8_max_pool2d_select(uint32_t features) {
#if defined(__x86_64__)
  if (features & LITE_CPU_X86_AVX2) return lite_qs8_max_pool2d_nhwc_avx2;
#endif
  (void)features;
  return lite_qs8_max_pool2d_nhwc_portable;
}

lite_qs8_global_average_pool_fn lite_qs8_global_average_pool_select(uint32_t features) {
#if defined(__x86_64__)
  if (features & LITE_CPU_X86_AVX2) return lite_qs8_global_average_pool_nhwc_avx2;
#elif defined(__aarch64__)
  if (LITE_CPU_HAS_NEON(features)) return lite_qs8_global_average_pool_nhwc_aarch64_neon;
#elif defined(__arm__)
  if (features & LITE_CPU_ARM_NEON) return lite_qs8_global_average_pool_nhwc_armv7_neon;
#endif
  (void)features;
  return lite_qs8_global_average_pool_nhwc_portable;
}
