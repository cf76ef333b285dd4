/* Selection of the channel-padding copy from CPU features (the one place that maps them). */
#include "lite_kernels/cpu_features.h"
#include "lite_kernels/s8_pad_channels.h"

lite_s8_pad_channels_fn lite_s8_pad_channels_select(uint32_t features, size_t channels, size_t padded_channels) {
#if defined(__x86_64__)
  if ((features & LITE_CPU_X86_AVX512) && channels == 3 && padded_channels == 4)
    return lite_s8_pad_channels_3to4_avx512;
#endif
  (void)features;
  (void)channels;
  (void)padded_channels;
  return lite_s8_pad_channels_portable;
}
