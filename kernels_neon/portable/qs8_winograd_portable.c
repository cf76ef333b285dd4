/* int8 Winograd F(2,3) and F(4,3) in portable C (qs8_winograd.h): the fallback and the layouts'
 * executable definition, driven by the matrices of qs8_winograd_matrices.h. Sums are kept in uint32
 * so that their wrapping (modulo 2^32, exact, see the header) is defined behaviour. */
#include <stdint.h>

#include "lite_kernels/qs8_winograd.h"
#include "lite_kernels/requantize.h"
#include "qs8_winograd_matrices.h"

static void input_portable(const qs8_winograd_matrices* mx, const int8_t* const* px, size_t in_c, size_t cb,
                           int32_t input_zero_point, int16_t* v) {
  const size_t n = mx->n;
  for (size_t b = 0; b < cb; ++b)
    for (size_t c = 0; c < 8; ++c) {
      const size_t ch = b * 8 + c;
      int32_t d[36], t[36];
      for (size_t k = 0; k < n * n; ++k) d[k] = ch < in_c ? px[k][ch] - input_zero_point : 0;
      for (size_t i = 0; i < n; ++i) /* B^T d */
        for (size_t j = 0; j < n; ++j) {
          int32_t s = 0;
          for (size_t k = 0; k < n; ++k) s += mx->bt[i][k] * d[k * n + j];
          t[i * n + j] = s;
        }
      for (size_t i = 0; i < n; ++i) /* (B^T d) B */
        for (size_t j = 0; j < n; ++j) {
          int32_t s = 0;
          for (size_t k = 0; k < n; ++k) s += t[i * n + k] * mx->bt[j][k];
          v[((i * n + j) * cb + b) * 64 + c] = (int16_t)s;
        }
    }
}

static void product_portable(size_t points, size_t tiles, size_t stride, size_t cb, const int16_t* v, const int16_t* u, int32_t* m) {
  for (size_t t = 0; t < points; ++t)
    for (size_t tile = 0; tile < tiles; ++tile)
      for (size_t co = 0; co < 8; ++co) {
        uint32_t acc = 0;
        for (size_t b = 0; b < cb; ++b)
          for (size_t ci = 0; ci < 8; ++ci)
            acc += (uint32_t)((int32_t)v[((t * stride + b) * 8 + tile) * 8 + ci] * u[((t * stride + b) * 8 + ci) * 8 + co]);
        m[(t * 8 + tile) * 8 + co] = (int32_t)acc;
      }
}

static void output_portable(const qs8_winograd_matrices* mx, const int32_t* m, size_t parts, size_t nc,
                            const int32_t* epilogue, size_t co_pad, const lite_qs8_gemm_params* params,
                            int8_t* const dst[8], const uint8_t shape[8], size_t row_stride, size_t pixel_stride) {
  const size_t n = mx->n, mo = mx->m;
  for (size_t tile = 0; tile < 8; ++tile) {
    if (dst[tile] == NULL) continue;
    const size_t rows = shape[tile] >> 4, cols = shape[tile] & 15;
    for (size_t co = 0; co < nc; ++co) {
      int32_t y[4][4] = {{0}};
      for (size_t k = 0; k < parts; ++k) {
        const int32_t* mk = m + k * n * n * 64;
        uint32_t s[4][6];
        for (size_t r = 0; r < mo; ++r) /* A'^T M */
          for (size_t j = 0; j < n; ++j) {
            uint32_t acc = 0;
            for (size_t i = 0; i < n; ++i)
              acc += (uint32_t)(int32_t)mx->at[r][i] * (uint32_t)mk[((i * n + j) * 8 + tile) * 8 + co];
            s[r][j] = acc;
          }
        for (size_t r = 0; r < mo; ++r)
          for (size_t c = 0; c < mo; ++c) {
            uint32_t f = 0; /* (A'^T M A') = f * the part's exact sum, modulo 2^32 */
            for (size_t i = 0; i < n; ++i) f += s[r][i] * (uint32_t)(int32_t)mx->at[c][i];
            y[r][c] += (int32_t)(f * mx->odd_inverse) >> mx->shift;
          }
      }
      for (size_t r = 0; r < rows; ++r)
        for (size_t c = 0; c < cols; ++c)
          dst[tile][r * row_stride + c * pixel_stride + co] = lite_requantize_to_int8(
              (int64_t)y[r][c] + epilogue[co], epilogue[co_pad + co], epilogue[2 * co_pad + co],
              params->output_zero_point, params->act_min, params->act_max);
    }
  }
}

static void input_f23(const int8_t* const* px, size_t in_c, size_t cb, int32_t zp, int16_t* v) {
  input_portable(&qs8_winograd_f23_matrices, px, in_c, cb, zp, v);
}
static void input_f43(const int8_t* const* px, size_t in_c, size_t cb, int32_t zp, int16_t* v) {
  input_portable(&qs8_winograd_f43_matrices, px, in_c, cb, zp, v);
}
static void output_f23(const int32_t* m, size_t parts, size_t nc, const int32_t* epilogue, size_t co_pad,
                       const lite_qs8_gemm_params* params, int8_t* const dst[8], const uint8_t shape[8], size_t rs,
                       size_t ps) {
  output_portable(&qs8_winograd_f23_matrices, m, parts, nc, epilogue, co_pad, params, dst, shape, rs, ps);
}
static void output_f43(const int32_t* m, size_t parts, size_t nc, const int32_t* epilogue, size_t co_pad,
                       const lite_qs8_gemm_params* params, int8_t* const dst[8], const uint8_t shape[8], size_t rs,
                       size_t ps) {
  output_portable(&qs8_winograd_f43_matrices, m, parts, nc, epilogue, co_pad, params, dst, shape, rs, ps);
}

const lite_qs8_winograd_kernel lite_qs8_winograd_f23_portable = {input_f23, product_portable, output_f23, 2,
                                                                 "qs8_winograd_f23_portable"};
const lite_qs8_winograd_kernel lite_qs8_winograd_f43_portable = {input_f43, product_portable, output_f43, 4,
                                                                 "qs8_winograd_f43_portable"};
