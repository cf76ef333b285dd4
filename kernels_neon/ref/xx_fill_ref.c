/* Reference fill: memset for zeros or one-byte values, doubling memcpy otherwise. */
#include <string.h>

#include "lite_kernels/fill.h"

void lite_fill_ref(size_t elem_size, const void* value, void* out, size_t n) {
  const size_t total = n * elem_size;
  if (total == 0) return;
  if (value == NULL) {
    memset(out, 0, total);
    return;
  }
  if (elem_size == 1) {
    memset(out, *(const unsigned char*)value, n);
    return;
  }
  char* dst = (char*)out;
  memcpy(dst, value, elem_size);
  size_t filled = elem_size;
  while (filled < total) {
    const size_t chunk = filled < total - filled ? filled : total - filled;
    memcpy(dst + filled, dst, chunk);
    filled += chunk;
  }
}
