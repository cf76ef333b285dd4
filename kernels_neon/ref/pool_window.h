/* The taps of one pooling window that land inside a range of input coordinates, shared by the
 * fp32 and int8 pooling kernels. */
#ifndef LITE_KERNELS_REF_POOL_WINDOW_H
#define LITE_KERNELS_REF_POOL_WINDOW_H

#include <stddef.h>
#include <stdint.h>

/* Smallest k >= 0 with start + k * dilation >= bound, capped at kernel. */
static inline size_t lite_pool_first_tap_at_or_after(int64_t start, int64_t dilation, int64_t bound, size_t kernel) {
  if (start >= bound) return 0;
  const uint64_t k = ((uint64_t)(bound - start) + (uint64_t)dilation - 1) / (uint64_t)dilation;
  return k < (uint64_t)kernel ? (size_t)k : kernel;
}

/* Range [*first, *last) of the taps k whose coordinate out * stride + k * dilation - pad lies in
 * [lo, hi) (the unpadded input frame: [0, len) for the taps inside the input), in closed form:
 * kernel size, stride, dilation and pads come from the model and may be up to 2^31 each (a
 * tap-by-tap scan of such a window takes minutes). */
static inline void lite_pool_tap_range(size_t out, size_t stride, size_t dilation, size_t pad, size_t kernel,
                                       int64_t lo, int64_t hi, size_t* first, size_t* last) {
  const int64_t start = (int64_t)out * (int64_t)stride - (int64_t)pad;
  *first = lite_pool_first_tap_at_or_after(start, (int64_t)dilation, lo, kernel);
  const size_t end = lite_pool_first_tap_at_or_after(start, (int64_t)dilation, hi, kernel);
  *last = end > *first ? end : *first;
}

#endif
