/* Selection of the fast int8 depthwise kernel (qs8_dwconv.h) from CPU features. */
#include "lite_kernels/cpu_features.h"
#include "lite_kernels/qs8_dwconv.h"

lite_qs8_dwconv_fn lite_qs8_dwconv_select(uint32_t features) {
#if defined(__x86_64__)
  if (features & LITE_CPU_X86_AVX512) return lite_qs8_dwconv_avx512;
#endif
  (void)features;
  return NULL;
}
