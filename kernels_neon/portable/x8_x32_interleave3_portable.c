/* Interleaving three planes, portable C (aarch64 compilers turn it into st3). */
#include "lite_kernels/interleave3.h"

void lite_interleave3_u32_portable(size_t n, const uint32_t* p0, const uint32_t* p1, const uint32_t* p2,
                                   uint32_t* out) {
  for (size_t i = 0; i < n; ++i, out += 3) {
    out[0] = p0[i];
    out[1] = p1[i];
    out[2] = p2[i];
  }
}

void lite_interleave3_u8_portable(size_t n, const uint8_t* p0, const uint8_t* p1, const uint8_t* p2, uint8_t* out) {
  for (size_t i = 0; i < n; ++i, out += 3) {
    out[0] = p0[i];
    out[1] = p1[i];
    out[2] = p2[i];
  }
}
