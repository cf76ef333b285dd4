/* Packing of B and the tile loop of the packed fp32 GEMM (f32_gemm_packed.h), shared by every
 * microkernel: only the config's MR/NR and function differ per ISA. */
#include <math.h>
#include <string.h>

#include "lite_kernels/cpu_features.h"
#include "lite_kernels/f32_gemm_packed.h"
#include "lite_kernels/elementwise_binary.h"
#include "lite_kernels/f32_vactivation.h"
#include "lite_kernels/f32_vbinary.h"

size_t lite_f32_gemm_packed_size(const lite_f32_gemm_config* config, size_t n, size_t k) {
  const size_t nr = config->nr;
  const size_t panels = (n + nr - 1) / nr;
  return panels * nr * (k + 1);
}

void lite_f32_gemm_pack_b(const lite_f32_gemm_config* config, size_t n, size_t k, const float* b, size_t stride_k,
                          size_t stride_n, const float* bias, float* packed) {
  const size_t nr = config->nr;
  for (size_t j0 = 0; j0 < n; j0 += nr) {
    const size_t nc = n - j0 < nr ? n - j0 : nr;
    float* panel = packed + (j0 / nr) * nr * (k + 1);
    for (size_t j = 0; j < nr; ++j) panel[j] = (bias != NULL && j < nc) ? bias[j0 + j] : 0.0f;
    float* w = panel + nr;
    for (size_t p = 0; p < k; ++p) {
      const float* src = b + p * stride_k + j0 * stride_n;
      for (size_t j = 0; j < nc; ++j) w[p * nr + j] = src[j * stride_n];
      for (size_t j = nc; j < nr; ++j) w[p * nr + j] = 0.0f;
    }
  }
}

/* The part of an activation the microkernel cannot do as a clamp (Sigmoid, SiLU, Tanh, LeakyReLU,
 * PReLU...), run once per row of C over the call's columns after the tiles (a value's result does not
 * depend on its position, so neither on the tiling): the vector activation variant, or for PReLU the
 * vector PRELU row of the binary ops with the slopes of columns [n_begin, n_end). One call per tile row
 * of <= 32 values cost more in calls (EfficientNet-B0 11.3-12.3 -> 11.0-11.3 ms); PReLU per value in
 * each tile cost 4-6x the GEMM itself on 1x1 convolutions of 32-128 channels (MediaPipe iris).
 * Callers keep a call's C block small (tiles, bands), so its rows are still cached. */
static void activate_rows(const lite_activation* act, float* c, size_t ldc, size_t m, size_t n_begin, size_t n_end) {
  const uint32_t features = lite_cpu_features();
  if (act->kind == LITE_ACT_PRELU) {
    const lite_f32_vbinary_fn prelu = lite_f32_vbinary_select(features);
    for (size_t i = 0; i < m; ++i) {
      float* row = c + i * ldc + n_begin;
      prelu(LITE_BIN_PRELU, n_end - n_begin, row, 1, act->prelu_slope + n_begin, 1, row);
    }
    return;
  }
  const lite_f32_vactivation_fn fn = lite_f32_vactivation_select(features);
  for (size_t i = 0; i < m; ++i) fn(act, c + i * ldc + n_begin, c + i * ldc + n_begin, n_end - n_begin);
}

/* The microkernel's share of act (clamp or HardSwish) in *mm; returns nonzero when the rest must
 * run on the stored rows (activate_rows). */
static int split_activation(const lite_activation* act, lite_f32_minmax_params* mm) {
  mm->min = -INFINITY;
  mm->max = INFINITY;
  mm->hard_swish = 0;
  if (act == NULL) return 0;
  switch (act->kind) {
    case LITE_ACT_NONE: return 0;
    case LITE_ACT_RELU: mm->min = 0.0f; return 0;
    case LITE_ACT_CLIP:
      mm->min = act->alpha;
      mm->max = act->beta;
      return 0;
    case LITE_ACT_HARD_SWISH: mm->hard_swish = 1; return 0;
    default: return 1;
  }
}

void lite_f32_gemm_packed_compute(const lite_f32_gemm_config* config, size_t m, size_t n_begin, size_t n_end, size_t k,
                                  const float* a, size_t lda, const float* packed_b, const lite_activation* act,
                                  float* c, size_t ldc) {
  lite_f32_minmax_params mm;
  const int post = split_activation(act, &mm);
  const size_t mr_max = config->mr, nr = config->nr;
  for (size_t j0 = n_begin; j0 < n_end; j0 += nr) {
    const size_t nc = n_end - j0 < nr ? n_end - j0 : nr;
    const float* panel = packed_b + (j0 / nr) * nr * (k + 1);
    size_t i0 = 0;
    if (config->panel != NULL && nc == nr && m >= mr_max) {
      const size_t tiles = m / mr_max;
      config->panel(tiles, k, a, lda, panel, c + j0, ldc, &mm);
      i0 = tiles * mr_max;
    }
    for (; i0 < m; i0 += mr_max) {
      const size_t mr = m - i0 < mr_max ? m - i0 : mr_max;
      float* tile = c + i0 * ldc + j0;
      config->ukernel(mr, nc, k, a + i0 * lda, lda, panel, tile, ldc, &mm);
    }
  }
  if (post) activate_rows(act, c, ldc, m, n_begin, n_end);
}

void lite_f32_gemm_packed_compute_runs(const lite_f32_gemm_config* config, size_t m, size_t n_begin, size_t n_end,
                                       size_t runs, size_t run_len, size_t run_stride, const float* a,
                                       size_t a_stride, const float* packed_b, const lite_activation* act, float* c,
                                       size_t ldc) {
  lite_f32_minmax_params mm;
  const int post = split_activation(act, &mm);
  const size_t mr_max = config->mr, nr = config->nr, k = runs * run_len;
  for (size_t j0 = n_begin; j0 < n_end; j0 += nr) {
    const size_t nc = n_end - j0 < nr ? n_end - j0 : nr;
    const float* panel = packed_b + (j0 / nr) * nr * (k + 1);
    for (size_t i0 = 0; i0 < m; i0 += mr_max) {
      const size_t mr = m - i0 < mr_max ? m - i0 : mr_max;
      float* tile = c + i0 * ldc + j0;
      config->runs(mr, nc, runs, run_len, run_stride, a + i0 * a_stride, a_stride, panel, tile, ldc, &mm);
    }
  }
  if (post) activate_rows(act, c, ldc, m, n_begin, n_end);
}
