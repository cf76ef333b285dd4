/* Portable C int8 GEMM microkernel (qs8_gemm_packed.h): MR 4, NR 8, KR 4, signed A (A_OFFSET 0).
 * The sums are unsigned 32-bit (modulo 2^32, no signed-overflow UB), like a SIMD register's. */
#include <string.h>

#include "lite_kernels/qs8_gemm_packed.h"
#include "lite_kernels/requantize.h"

enum { MR = 4, NR = 8, KR = 4 };

void lite_qs8_gemm_ukernel_4x8c4_portable(size_t mr, size_t nc, size_t k, const int8_t* a, size_t a_stride,
                                          const void* w, int8_t* c, size_t c_stride,
                                          const lite_qs8_gemm_params* params) {
  const uint8_t* panel = (const uint8_t*)w;
  const size_t kc = (k + KR - 1) / KR * KR;
  const int8_t* weights = (const int8_t*)(panel + NR * sizeof(int32_t));
  const uint8_t* requant = panel + NR * sizeof(int32_t) + NR * kc;
  uint32_t acc[MR][NR];
  for (size_t j = 0; j < NR; ++j) {
    uint32_t b;
    memcpy(&b, panel + j * sizeof(int32_t), sizeof(b));
    for (size_t i = 0; i < MR; ++i) acc[i][j] = b;
  }
  for (size_t i = 0; i < mr; ++i) {
    const int8_t* row = a + i * a_stride;
    for (size_t p = 0; p < k; ++p) {
      const int32_t x = row[p];
      const int8_t* wp = weights + (p / KR) * NR * KR + p % KR;
      for (size_t j = 0; j < NR; ++j) acc[i][j] += (uint32_t)(x * wp[j * KR]);
    }
  }
  for (size_t j = 0; j < nc; ++j) {
    int32_t multiplier, shift;
    memcpy(&multiplier, requant + j * sizeof(int32_t), sizeof(multiplier));
    memcpy(&shift, requant + (NR + j) * sizeof(int32_t), sizeof(shift));
    for (size_t i = 0; i < mr; ++i)
      c[i * c_stride + j] = lite_requantize_to_int8((int32_t)acc[i][j], multiplier, (int)shift,
                                                    params->output_zero_point, params->act_min, params->act_max);
  }
}
