/* The packing of the ARM int8 GEMM kernels that requantize with sqshl / sqdmulh / srshl
 * (arm/qs8_requantize_neon.h): the generic layout (qs8_gemm_packed.h) with each column's shift word
 * replaced by the two shift amounts and two panel flags, so a tile reads them without arithmetic:
 *   byte 0   u = max(0, 32 - s)           (sqshl; register-operand shifts read only the low byte)
 *   byte 1   -t = -max(1, s - 31)         (srshl of the word shifted right by 8)
 *   bit 16   LITE_QS8_PANEL_LEFT_SHIFT: some u of the panel is nonzero (else the sqshl is skipped)
 *   bit 17   LITE_QS8_PANEL_WEIGHT_MIN: some weight of the panel is -128 (two products of it can
 *            reach 2^15, so kernels summing product pairs in int16 take their one-product path)
 * Both flags are set on every column of the panel. Pure C: the layout, not the arithmetic. */
#include <string.h>

#include "lite_kernels/qs8_gemm_packed.h"

void lite_qs8_gemm_pack_shift_amounts(const lite_qs8_gemm_config* config, size_t n, size_t k, const int8_t* w,
                                      size_t stride_k, size_t stride_n, const int32_t* bias,
                                      int32_t input_zero_point, const int32_t* multiplier, const int32_t* shift,
                                      void* packed) {
  lite_qs8_gemm_pack_generic(config, n, k, w, stride_k, stride_n, bias, input_zero_point, multiplier, shift, packed);
  const size_t nr = config->nr, kc = (k + config->kr - 1) / config->kr * config->kr;
  const size_t panel_bytes = lite_qs8_gemm_panel_bytes(config, k);
  for (size_t j0 = 0; j0 < n; j0 += nr) {
    uint8_t* panel = (uint8_t*)packed + (j0 / nr) * panel_bytes;
    const int8_t* weights = (const int8_t*)(panel + nr * sizeof(int32_t));
    uint8_t* words = panel + nr * sizeof(int32_t) + nr * kc + nr * sizeof(int32_t);
    uint32_t flags = 0;
    for (size_t i = 0; i < nr * kc; ++i)
      if (weights[i] == INT8_MIN) flags |= LITE_QS8_PANEL_WEIGHT_MIN;
    for (size_t j = 0; j < nr; ++j) {
      int32_t s;
      memcpy(&s, words + j * sizeof(int32_t), sizeof(s));
      if (s < 32) flags |= LITE_QS8_PANEL_LEFT_SHIFT;
    }
    for (size_t j = 0; j < nr; ++j) {
      int32_t s;
      memcpy(&s, words + j * sizeof(int32_t), sizeof(s));
      const int32_t u = s < 32 ? 32 - s : 0, t = s > 32 ? s - 31 : 1;
      const uint32_t word = (uint32_t)u | (uint32_t)(-t & 0xff) << 8 | flags;
      memcpy(words + j * sizeof(int32_t), &word, sizeof(word));
    }
  }
}
