/* Packing and the tile loop of the packed int8 GEMM (qs8_gemm_packed.h), shared by every
 * microkernel: only the config's MR/NR/KR/A_OFFSET and functions differ per ISA. */
#include <string.h>

#include "lite_kernels/qs8_gemm_packed.h"

size_t lite_qs8_gemm_panel_bytes(const lite_qs8_gemm_config* config, size_t k) {
  const size_t kr = config->kr, kc = (k + kr - 1) / kr * kr;
  return config->nr * (sizeof(int32_t) * 3 + kc);
}

size_t lite_qs8_gemm_packed_size(const lite_qs8_gemm_config* config, size_t n, size_t k) {
  const size_t panels = (n + config->nr - 1) / config->nr;
  return panels * lite_qs8_gemm_panel_bytes(config, k);
}

void lite_qs8_gemm_pack_generic(const lite_qs8_gemm_config* config, size_t n, size_t k, const int8_t* w,
                                size_t stride_k, size_t stride_n, const int32_t* bias, int32_t input_zero_point,
                                const int32_t* multiplier, const int32_t* shift, void* packed) {
  const size_t nr = config->nr, kr = config->kr, kc = (k + kr - 1) / kr * kr;
  const size_t panel_bytes = lite_qs8_gemm_panel_bytes(config, k);
  const int64_t offset = (int64_t)input_zero_point + config->a_offset;
  for (size_t j0 = 0; j0 < n; j0 += nr) {
    const size_t nc = n - j0 < nr ? n - j0 : nr;
    uint8_t* panel = (uint8_t*)packed + (j0 / nr) * panel_bytes;
    int8_t* weights = (int8_t*)(panel + nr * sizeof(int32_t));
    uint8_t* requant = panel + nr * sizeof(int32_t) + nr * kc;
    for (size_t j = 0; j < nr; ++j) {
      int64_t sum = 0;
      for (size_t g = 0; g < kc; g += kr)
        for (size_t r = 0; r < kr; ++r) {
          const size_t p = g + r;
          const int8_t v = (j < nc && p < k) ? w[p * stride_k + (j0 + j) * stride_n] : 0;
          weights[g * nr + j * kr + r] = v;
          sum += v;
        }
      /* Two's complement wrap of the int64 value (exact modulo 2^32, like the ukernel's sums). */
      const int64_t folded = (j < nc && bias != NULL ? bias[j0 + j] : 0) - offset * sum;
      const uint32_t b32 = (uint32_t)(uint64_t)folded;
      const int32_t m32 = j < nc ? multiplier[j0 + j] : 0;
      const int32_t s32 = j < nc ? shift[j0 + j] : 1;
      memcpy(panel + j * sizeof(int32_t), &b32, sizeof(b32));
      memcpy(requant + j * sizeof(int32_t), &m32, sizeof(m32));
      memcpy(requant + (nr + j) * sizeof(int32_t), &s32, sizeof(s32));
    }
  }
}

int lite_qs8_gemm_is_exact(size_t n, size_t k, const int32_t* bias) {
  const int64_t limit = (int64_t)1 << 31;
  if (k >= (size_t)(limit / (255 * 128))) return 0;
  int64_t max_bias = 0;
  for (size_t j = 0; bias != NULL && j < n; ++j) {
    const int64_t b = bias[j] < 0 ? -(int64_t)bias[j] : bias[j];
    if (b > max_bias) max_bias = b;
  }
  return max_bias + (int64_t)k * 255 * 128 < limit;
}

void lite_qs8_gemm_packed_compute(const lite_qs8_gemm_config* config, size_t m, size_t n_begin, size_t n_end,
                                  size_t k, const int8_t* a, size_t lda, const void* packed,
                                  const lite_qs8_gemm_params* params, int8_t* c, size_t ldc) {
  const size_t mr_max = config->mr, nr = config->nr;
  const size_t panel_bytes = lite_qs8_gemm_panel_bytes(config, k);
  for (size_t j0 = n_begin; j0 < n_end; j0 += nr) {
    const size_t nc = n_end - j0 < nr ? n_end - j0 : nr;
    const void* panel = (const uint8_t*)packed + (j0 / nr) * panel_bytes;
    for (size_t i0 = 0; i0 < m; i0 += mr_max) {
      const size_t mr = m - i0 < mr_max ? m - i0 : mr_max;
      config->ukernel(mr, nc, k, a + i0 * lda, lda, panel, c + i0 * ldc + j0, ldc, params);
    }
  }
}
