/* Shared body of the packed fp32 GEMM microkernel tests (test_f32_gemm_<variant>.c): the variant's
 * config is packed and run over odd M/N/K, edge tiles, strided A/C, every fused activation and
 * tiles computed in pieces, against the reference GEMM lite_f32_gemm_ref (the oracle).
 * Results go through the shared harness kernel_test.h (closing line "N passed, M failed"); a variant
 * the CPU cannot run is skipped ("0 passed, 0 failed"), e.g. AVX-512 on an AVX2-only host. */
#ifndef LITE_TEST_F32_GEMM_COMMON_H
#define LITE_TEST_F32_GEMM_COMMON_H

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernel_test_cpu.h"
#include "lite_kernels/cpu_features.h"
#include "lite_kernels/f32_gemm_packed.h"
#include "lite_kernels/gemm.h"

static unsigned g_gemm_seed = 12345u;
static float gemm_test_rand(void) {
  g_gemm_seed = g_gemm_seed * 1103515245u + 12345u;
  return (float)((g_gemm_seed >> 8) & 0xFFFF) / 32768.0f - 1.0f;
}

/* One case: returns 1 when the packed GEMM matches the reference within a relative bound. */
static int gemm_case(const lite_f32_gemm_config* cfg, size_t m, size_t n, size_t k, int act_kind, int b_transposed,
                     int split) {
  const size_t lda = k + 3, ldc = n + 5;
  float* a = malloc(sizeof(float) * (m * lda + 1));
  float* b = malloc(sizeof(float) * (n * k + 1));
  float* bt = malloc(sizeof(float) * (n * k + 1));
  float* bias = malloc(sizeof(float) * (n + 1));
  float* slope = malloc(sizeof(float) * (n + 1));
  float* ref = malloc(sizeof(float) * (m * ldc + 1));
  float* out = malloc(sizeof(float) * (m * ldc + 1));
  float* packed = malloc(sizeof(float) * (lite_f32_gemm_packed_size(cfg, n, k) + 1));
  for (size_t i = 0; i < m * lda; ++i) a[i] = gemm_test_rand();
  for (size_t i = 0; i < n * k; ++i) b[i] = gemm_test_rand();
  for (size_t p = 0; p < k; ++p)
    for (size_t j = 0; j < n; ++j) bt[j * k + p] = b[p * n + j];
  for (size_t j = 0; j < n; ++j) {
    bias[j] = gemm_test_rand();
    slope[j] = 0.1f * gemm_test_rand();
  }
  for (size_t i = 0; i < m * ldc; ++i) out[i] = ref[i] = 777.0f; /* sentinels between rows */
  lite_activation act = {act_kind, 0.2f, 0.7f, slope};
  if (act_kind == LITE_ACT_CLIP) act.alpha = -0.5f;
  lite_f32_gemm_ref(m, n, k, a, lda, b, n, bias, &act, ref, ldc);
  if (b_transposed)
    lite_f32_gemm_pack_b(cfg, n, k, bt, 1, k, bias, packed);
  else
    lite_f32_gemm_pack_b(cfg, n, k, b, n, 1, bias, packed);
  if (split) { /* row blocks x column blocks, as the runtime's threads split the work */
    const size_t mb = cfg->mr + 1, nb = cfg->nr * 2;
    for (size_t i0 = 0; i0 < m; i0 += mb)
      for (size_t j0 = 0; j0 < n; j0 += nb)
        lite_f32_gemm_packed_compute(cfg, m - i0 < mb ? m - i0 : mb, j0, n - j0 < nb ? n : j0 + nb, k, a + i0 * lda,
                                     lda, packed, &act, out + i0 * ldc, ldc);
  } else {
    lite_f32_gemm_packed_compute(cfg, m, 0, n, k, a, lda, packed, &act, out, ldc);
  }
  int ok = 1;
  for (size_t i = 0; i < m && ok; ++i) {
    for (size_t j = 0; j < ldc; ++j) {
      const float r = ref[i * ldc + j], o = out[i * ldc + j];
      const float tol = 1e-5f * (float)(k + 1) * (1.0f + fabsf(r));
      if (!(fabsf(r - o) <= tol)) {
        fprintf(stderr, "FAIL %s m=%zu n=%zu k=%zu act=%d bt=%d split=%d at [%zu,%zu]: got %g want %g\n", cfg->name, m, n, k,
               act_kind, b_transposed, split, i, j, o, r);
        ok = 0;
        break;
      }
    }
  }
  free(a);
  free(b);
  free(bt);
  free(bias);
  free(slope);
  free(ref);
  free(out);
  free(packed);
  return ok;
}

/* Runs every case for the config selected by `features` (which must be `expected_name`; features 0:
 * the portable config, which aarch64's select never returns); returns the exit code of kt_finish(). */
__attribute__((unused)) static int run_gemm_variant_tests(uint32_t features, size_t n_hint, const char* expected_name) {
  if (!kt_cpu_has(features, expected_name)) return kt_finish();
  const lite_f32_gemm_config* cfg =
      features == 0 ? lite_f32_gemm_config_portable() : lite_f32_gemm_config_select(features, n_hint);
  KT_CHECK(strcmp(cfg->name, expected_name) == 0);
  const size_t ms[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 13, 16, 17, 31}; /* every m % 6 and m % 8 */
  const size_t ns[] = {1, 3, 7, 8, 9, 15, 16, 17, 24, 31, 32, 33, 40, 56, 65}; /* every 16 / 24 / 32-wide panel end */
  const size_t ks[] = {0, 1, 2, 3, 7, 16, 27, 64, 129};
  for (size_t mi = 0; mi < sizeof(ms) / sizeof(ms[0]); ++mi)
    for (size_t ni = 0; ni < sizeof(ns) / sizeof(ns[0]); ++ni)
      for (size_t ki = 0; ki < sizeof(ks) / sizeof(ks[0]); ++ki) {
        const int act = (int)((mi + ni + ki) % 10); /* every activation kind 0..9 over the sweep */
        KT_CHECK(gemm_case(cfg, ms[mi], ns[ni], ks[ki], act, (int)(ni & 1), (int)(ki & 1)));
      }
  for (int act = 0; act <= 9; ++act) /* every activation on a full multi-tile case */
    KT_CHECK(gemm_case(cfg, 19, 37, 45, act, act & 1, 1));
  fprintf(stderr, "%s\n", cfg->name);
  return kt_finish();
}

#endif
