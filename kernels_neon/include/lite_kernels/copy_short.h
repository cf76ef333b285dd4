/* A copy of 8 to 32 bytes as two overlapping fixed-size copies: they compile to plain loads and
 * stores, where a memcpy call per short run (a resized pixel, a small-channel im2col row) costs more
 * than the copy. */
#ifndef LITE_KERNELS_COPY_SHORT_H
#define LITE_KERNELS_COPY_SHORT_H

#include <stddef.h>
#include <string.h>

/* n must be in [8, 32]. */
static inline void lite_copy_8_to_32(void* dst, const void* src, size_t n) {
  unsigned char* d = (unsigned char*)dst;
  const unsigned char* s = (const unsigned char*)src;
  if (n <= 16) {
    memcpy(d, s, 8);
    memcpy(d + n - 8, s + n - 8, 8);
  } else {
    memcpy(d, s, 16);
    memcpy(d + n - 16, s + n - 16, 16);
  }
}

#endif
