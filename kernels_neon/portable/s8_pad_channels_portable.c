/* Channel padding, portable (lite_kernels/s8_pad_channels.h). */
#include <string.h>

#include "lite_kernels/s8_pad_channels.h"

void lite_s8_pad_channels_portable(size_t pixels, size_t channels, size_t padded_channels, const int8_t* x,
                                   int8_t fill, int8_t* y) {
  for (size_t i = 0; i < pixels; ++i, x += channels, y += padded_channels) {
    memcpy(y, x, channels);
    memset(y + channels, fill, padded_channels - channels);
  }
}
