/* The last step the int8 GLOBAL_AVERAGE_POOL kernels share (the portable body and the NEON one; the
 * reference keeps its own, as the oracle): from the exact int32 channel sums of `count` pixels, each
 * output is zero_point + (sum - zero_point * count) / count rounded half away from zero, clamped to int8
 * (the int64 divide the reference does). */
#ifndef LITE_KERNELS_PORTABLE_QS8_GLOBAL_AVERAGE_FINISH_H
#define LITE_KERNELS_PORTABLE_QS8_GLOBAL_AVERAGE_FINISH_H

#include <stddef.h>
#include <stdint.h>

static inline void qs8_global_average_finish(const int32_t* sums, size_t width, int64_t count, int32_t zero_point,
                                             int8_t* output) {
  for (size_t j = 0; j < width; ++j) {
    const int64_t sum = (int64_t)sums[j] - (int64_t)zero_point * count;
    const int64_t rounded = count == 0 ? 0 : (sum >= 0 ? (sum + count / 2) / count : (sum - count / 2) / count);
    int64_t v = rounded + zero_point;
    if (v < -128) v = -128;
    if (v > 127) v = 127;
    output[j] = (int8_t)v;
  }
}

#endif
