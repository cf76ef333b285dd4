/* int8 Winograd F(2,3) in portable C (qs8_winograd.h): the fallback and the layouts' executable
 * definition. Sums are kept in uint32 so that their wrapping (modulo 2^32, exact, see the header) is
 * defined behaviour. */
#include <stdint.h>

#include "lite_kernels/qs8_winograd.h"
#include "lite_kernels/requantize.h"

static void input_portable(const int8_t* const px[16], size_t in_c, size_t cb, int32_t input_zero_point,
                           int16_t* v) {
  for (size_t b = 0; b < cb; ++b)
    for (size_t c = 0; c < 8; ++c) {
      const size_t ch = b * 8 + c;
      int32_t d[16], t[16];
      for (size_t k = 0; k < 16; ++k) d[k] = ch < in_c ? px[k][ch] - input_zero_point : 0;
      for (size_t j = 0; j < 4; ++j) { /* B^T d: rows */
        t[0 + j] = d[0 + j] - d[8 + j];
        t[4 + j] = d[4 + j] + d[8 + j];
        t[8 + j] = d[8 + j] - d[4 + j];
        t[12 + j] = d[4 + j] - d[12 + j];
      }
      for (size_t i = 0; i < 4; ++i) { /* (B^T d) B: columns */
        const int32_t* r = t + 4 * i;
        const int32_t row[4] = {r[0] - r[2], r[1] + r[2], r[2] - r[1], r[1] - r[3]};
        for (size_t j = 0; j < 4; ++j) v[((i * 4 + j) * cb + b) * 64 + c] = (int16_t)row[j];
      }
    }
}

static void product_portable(size_t cb, const int16_t* v, const int16_t* u, int32_t* m) {
  for (size_t t = 0; t < 16; ++t)
    for (size_t tile = 0; tile < 8; ++tile)
      for (size_t co = 0; co < 8; ++co) {
        uint32_t acc = 0;
        for (size_t b = 0; b < cb; ++b)
          for (size_t ci = 0; ci < 8; ++ci)
            acc += (uint32_t)((int32_t)v[((t * cb + b) * 8 + tile) * 8 + ci] * u[((t * cb + b) * 8 + ci) * 8 + co]);
        m[(t * 8 + tile) * 8 + co] = (int32_t)acc;
      }
}

static void output_portable(const int32_t* m, size_t nc, const int32_t* epilogue, size_t co_pad,
                            const lite_qs8_gemm_params* params, int8_t* const dst[8], const uint8_t shape[8],
                            size_t row_stride, size_t pixel_stride) {
  for (size_t tile = 0; tile < 8; ++tile) {
    if (dst[tile] == NULL) continue;
    for (size_t co = 0; co < nc; ++co) {
      uint32_t s[2][4];
      for (size_t j = 0; j < 4; ++j) { /* A^T M: rows */
        const uint32_t m0 = (uint32_t)m[((0 + j) * 8 + tile) * 8 + co], m1 = (uint32_t)m[((4 + j) * 8 + tile) * 8 + co];
        const uint32_t m2 = (uint32_t)m[((8 + j) * 8 + tile) * 8 + co], m3 = (uint32_t)m[((12 + j) * 8 + tile) * 8 + co];
        s[0][j] = m0 + m1 + m2;
        s[1][j] = m1 - m2 - m3;
      }
      for (size_t r = 0; r < 2; ++r)
        for (size_t c = 0; c < 2; ++c) {
          if ((r == 1 && !(shape[tile] & 2)) || (c == 1 && !(shape[tile] & 1))) continue;
          const uint32_t y = c == 0 ? s[r][0] + s[r][1] + s[r][2] : s[r][1] - s[r][2] - s[r][3];
          /* y = 4 * (the exact sum) as an int32: divisible by 4 */
          const int64_t acc = (int64_t)((int32_t)y / 4) + epilogue[co];
          dst[tile][r * row_stride + c * pixel_stride + co] =
              lite_requantize_to_int8(acc, epilogue[co_pad + co], epilogue[2 * co_pad + co], params->output_zero_point,
                                      params->act_min, params->act_max);
        }
    }
  }
}

const lite_qs8_winograd_kernel lite_qs8_winograd_f23_portable = {input_portable, product_portable, output_portable,
                                                                 "qs8_winograd_f23_portable"};
