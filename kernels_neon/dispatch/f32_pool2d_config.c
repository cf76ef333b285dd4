/* Selection of the fp32 windowed pooling kernels from CPU features (the one place that maps them). */
#include "lite_kernels/cpu_features.h"
#include "lite_kernels/f32_pool2d.h"

lite_f32_pool2d_rows_fn lite_f32_max_pool2d_select(uint32_t features) {
#if defined(__x86_64__)
  if (features & LITE_CPU_X86_AVX512) return lite_f32_max_pool2d_nhwc_avx512;
  if (features & LITE_CPU_X86_AVX2) return lite_f32_max_pool2d_nhwc_avx2;
#endif
  (void)features;
  return lite_f32_max_pool2d_nhwc_portable;
}

lite_f32_pool2d_rows_fn lite_f32_average_pool2d_select(uint32_t features) {
#if defined(__x86_64__)
  if (features & LITE_CPU_X86_AVX512) return lite_f32_average_pool2d_nhwc_avx512;
  if (features & LITE_CPU_X86_AVX2) return lite_f32_average_pool2d_nhwc_avx2;
#endif
  (void)features;
  return lite_f32_average_pool2d_nhwc_portable;
}
