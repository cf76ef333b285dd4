/* Private helpers of the gather/scatter kernels: reading INT32/INT64 index tensors and wrapping
 * negative indices with a bounds check. */
#ifndef LITE_KERNELS_REF_INDEX_UTIL_H
#define LITE_KERNELS_REF_INDEX_UTIL_H

#include <stdint.h>

static inline int64_t lite_load_index(const void* indices, int index_is_64, int64_t i) {
  return index_is_64 ? ((const int64_t*)indices)[i] : (int64_t)((const int32_t*)indices)[i];
}

/* Wraps a negative index into [0, dim); returns 0 when out of range (and leaves *out alone). */
static inline int lite_wrap_index(int64_t index, int64_t dim, int64_t* out) {
  if (index < 0) index += dim;
  if (index < 0 || index >= dim) return 0;
  *out = index;
  return 1;
}

#endif
