/* The int8 GLOBAL_AVERAGE_POOL loop, written once as plain C that compilers vectorize and
 * instantiated per ISA with that ISA's flags (portable/qs8_global_average_pool_nhwc_portable.c,
 * x86/qs8_global_average_pool_nhwc_avx2.c). The including file defines LITE_GAP_ENTRY, the public
 * name (signature: lite_qs8_global_average_pool_fn of qs8_pool2d.h).
 *
 * Why it is faster than the reference: the channel sums are int32 (exact while spatial * 128 <
 * 2^31, else the reference runs), channel runs of fixed width (64, 32, 16, 8) become vector
 * widen-and-add code, and only the per-channel rounding divides in int64 as the reference
 * does. Integer sums do not depend on order, so the bytes are the reference's. */
#include <stdint.h>

#include "lite_kernels/qs8_pool2d.h"
#include "qs8_global_average_finish.h"

enum { LITE_GAP_BLOCK = 64 };

/* sums[j] += the column j of `spatial` pixels `stride` bytes apart, for a width W the caller passes
 * as a constant (64, 32, 16, 8: inlined into vector widen-and-add code) or 1..7 (the tail). */
static inline __attribute__((always_inline)) void sum_columns(const int8_t* pixel, size_t stride, size_t spatial,
                                                              size_t W, int32_t* restrict sums) {
  for (size_t s = 0; s < spatial; ++s, pixel += stride)
    for (size_t j = 0; j < W; ++j) sums[j] += pixel[j];
}

void LITE_GAP_ENTRY(size_t batch, size_t spatial, size_t channels, int32_t zero_point, const int8_t* input,
                    int8_t* output) {
  if (spatial > (size_t)INT32_MAX / 128) { /* int32 sums could overflow */
    lite_qs8_global_average_pool_nhwc_ref(batch, spatial, channels, zero_point, input, output);
    return;
  }
  const int64_t count = (int64_t)spatial;
  for (size_t n = 0; n < batch; ++n)
    for (size_t c0 = 0; c0 < channels; c0 += LITE_GAP_BLOCK) {
      const size_t width = channels - c0 < LITE_GAP_BLOCK ? channels - c0 : LITE_GAP_BLOCK;
      int32_t sums[LITE_GAP_BLOCK] = {0};
      const int8_t* first = input + n * spatial * channels + c0;
      size_t j0 = 0; /* a partial block (96 = 64 + 32 channels, 24 = 16 + 8) in fixed-width pieces */
      if (width - j0 >= 64) sum_columns(first + j0, channels, spatial, 64, sums + j0), j0 += 64;
      if (width - j0 >= 32) sum_columns(first + j0, channels, spatial, 32, sums + j0), j0 += 32;
      if (width - j0 >= 16) sum_columns(first + j0, channels, spatial, 16, sums + j0), j0 += 16;
      if (width - j0 >= 8) sum_columns(first + j0, channels, spatial, 8, sums + j0), j0 += 8;
      if (width > j0) sum_columns(first + j0, channels, spatial, width - j0, sums + j0);
      qs8_global_average_finish(sums, width, count, zero_point, output + n * channels + c0);
    }
}
