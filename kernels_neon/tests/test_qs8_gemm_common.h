/* Shared body of the packed int8 GEMM microkernel tests (test_qs8_gemm_<variant>.c): the variant's
 * config packs and runs random problems (tails in m, n and k, strided A and C, zero points at the
 * extremes -128 / 127, per-channel multipliers over the whole shift range, every fused clamp, tiles
 * computed in pieces as threads split them) and must give EXACTLY the bytes of
 * lite_qs8_fully_connected_ref (the oracle). A variant the CPU cannot run is skipped. */
#ifndef LITE_TEST_QS8_GEMM_COMMON_H
#define LITE_TEST_QS8_GEMM_COMMON_H

#include <stdlib.h>
#include <string.h>

#include "kernel_test_cpu.h"
#include "lite_kernels/cpu_features.h"
#include "lite_kernels/qs8_conv2d_fully_connected.h"
#include "lite_kernels/qs8_gemm_packed.h"
#include "lite_kernels/requantize.h"

/* The least weight value the cases draw: -128 by default (imported models may hold it); -127 for
 * our quantizer's symmetric weights, which kernels may take a faster path for. */
static int32_t qs8_test_weight_min = -128;
/* Set: every case draws large multipliers too (left shifts), not only those with an odd k. */
static int qs8_test_wide_multipliers = 0;

/* A real multiplier drawn to cover tiny (shift ~60), usual (~2^-8) and, when `wide`, large (> 1,
 * shift < 31) cases; kernels may take a cheaper epilogue when every shift of a tile is >= 32. */
/* Set: only usual multipliers (shifts 35-45), so that whole tiles take an epilogue meant for them
 * (the AVX-512 high-dword path needs every shift of 16 columns in [33, 54]). */
static int qs8_test_usual_multipliers = 0;

static inline double qs8_test_real_multiplier(kt_rng* rng, int wide) {
  int kind = qs8_test_usual_multipliers ? 2 : kt_rand_int(rng, 0, 5);
  if (!wide && kind == 1) kind = 0;
  switch (kind) {
    case 0: return ldexp(kt_rand_uniform(rng, 0.5f, 1.0f), -kt_rand_int(rng, 20, 31));
    case 1: return ldexp(kt_rand_uniform(rng, 0.5f, 1.0f), kt_rand_int(rng, 0, 6));
    default: return ldexp(kt_rand_uniform(rng, 0.5f, 1.0f), -kt_rand_int(rng, 4, 14));
  }
}

/* One case; returns 1 when every output byte equals the reference's. */
static inline int qs8_gemm_case(const lite_qs8_gemm_config* cfg, kt_rng* rng, size_t m, size_t n, size_t k, int32_t zp_in,
                         int32_t zp_out, int32_t act_min, int32_t act_max, int split) {
  const size_t lda = k + (size_t)kt_rand_int(rng, 0, 3), ldc = n + (size_t)kt_rand_int(rng, 0, 5);
  /* A is a separate allocation ending exactly at row m-1's byte k-1: ASan catches over-reads. */
  int8_t* a = malloc((m - 1) * lda + k);
  int8_t* a_dense = malloc(m * k);
  int8_t* w = malloc(n * k);
  int32_t* bias = malloc(n * sizeof(int32_t));
  int32_t* multiplier = malloc(n * sizeof(int32_t));
  int32_t* shift = malloc(n * sizeof(int32_t));
  int8_t* ref = malloc(m * n);
  int8_t* out = malloc(m * ldc);
  void* packed = malloc(lite_qs8_gemm_packed_size(cfg, n, k));
  kt_fill_int8(rng, a, (m - 1) * lda + k, -128, 127);
  kt_fill_int8(rng, w, n * k, qs8_test_weight_min, 127);
  for (size_t i = 0; i < m; ++i) memcpy(a_dense + i * k, a + i * lda, k);
  for (size_t j = 0; j < n; ++j) {
    bias[j] = kt_rand_int(rng, -(1 << 20), 1 << 20);
    int s = 1;
    lite_quantize_multiplier(qs8_test_real_multiplier(rng, (int)(k % 2) | qs8_test_wide_multipliers), &multiplier[j],
                             &s);
    shift[j] = s;
  }
  if (n > 2) multiplier[1] = 0, shift[1] = 1; /* a dead channel: output is the zero point */
  const lite_qs8_requant_params rq = {zp_in, zp_out, act_min, act_max, multiplier, shift};
  lite_qs8_fully_connected_ref(m, k, n, &rq, a_dense, w, bias, ref);
  cfg->pack(cfg, n, k, w, 1, k, bias, zp_in, multiplier, shift, packed);
  memset(out, 0x5A, m * ldc); /* sentinels between rows */
  const lite_qs8_gemm_params params = {zp_out, act_min, act_max};
  if (split) {
    const size_t mb = cfg->mr + 1, nb = cfg->nr * 2;
    for (size_t i0 = 0; i0 < m; i0 += mb)
      for (size_t j0 = 0; j0 < n; j0 += nb)
        lite_qs8_gemm_packed_compute(cfg, m - i0 < mb ? m - i0 : mb, j0, n - j0 < nb ? n : j0 + nb, k, a + i0 * lda,
                                     lda, packed, &params, out + i0 * ldc, ldc);
  } else {
    lite_qs8_gemm_packed_compute(cfg, m, 0, n, k, a, lda, packed, &params, out, ldc);
  }
  int ok = 1;
  for (size_t i = 0; i < m && ok; ++i) {
    if (memcmp(out + i * ldc, ref + i * n, n) != 0) {
      for (size_t j = 0; j < n; ++j)
        if (out[i * ldc + j] != ref[i * n + j]) {
          fprintf(stderr, "%s m=%zu n=%zu k=%zu zp %d/%d clamp [%d,%d]: C[%zu,%zu] = %d, expected %d\n", cfg->name, m, n,
                  k, zp_in, zp_out, act_min, act_max, i, j, out[i * ldc + j], ref[i * n + j]);
          break;
        }
      ok = 0;
    }
    for (size_t j = n; j < ldc && ok; ++j) ok = out[i * ldc + j] == 0x5A;
  }
  free(a);
  free(a_dense);
  free(w);
  free(bias);
  free(multiplier);
  free(shift);
  free(ref);
  free(out);
  free(packed);
  return ok;
}

/* Many shapes around the config's tile sizes, every zero-point extreme and clamp. */
static inline void run_qs8_gemm_tests(const lite_qs8_gemm_config* cfg) {
  kt_rng rng = kt_rng_make(0x9e3779b97f4a7c15ull ^ cfg->mr ^ ((uint64_t)cfg->nr << 8));
  const size_t ks[] = {1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 32, 33, 64, 96, 143, 300};
  const int32_t zps[] = {-128, 127, 0, 5};
  const int32_t clamps[][2] = {{-128, 127}, {-3, 127}, {-128, 40}, {-20, 20}, {7, 7}};
  size_t cases = 0, passed = 0;
  for (size_t ki = 0; ki < sizeof(ks) / sizeof(ks[0]); ++ki)
    for (size_t zi = 0; zi < 4; ++zi) {
      const size_t m = (size_t)kt_rand_int(&rng, 1, (int32_t)cfg->mr * 3 + 1);
      const size_t n = (size_t)kt_rand_int(&rng, 1, (int32_t)cfg->nr * 3 + 1);
      const int32_t* cl = clamps[(ki + zi) % 5];
      ++cases;
      passed += (size_t)qs8_gemm_case(cfg, &rng, m, n, ks[ki], zps[zi], zps[(zi + 1) % 4], cl[0], cl[1], (int)(ki & 1));
    }
  /* exact tiles and single rows / columns */
  const size_t shapes[][3] = {{1, 1, 1}, {1, 1, 300}, {64, 64, 64}, {1, 200, 37}, {50, 3, 11}};
  for (size_t s = 0; s < sizeof(shapes) / sizeof(shapes[0]); ++s) {
    ++cases;
    passed += (size_t)qs8_gemm_case(cfg, &rng, shapes[s][0], shapes[s][1], shapes[s][2], -128, 127, -128, 127, 0);
  }
  char what[160];
  snprintf(what, sizeof(what), "%s: %zu of %zu random GEMMs equal lite_qs8_fully_connected_ref", cfg->name, passed,
           cases);
  kt_record(passed == cases, __FILE__, __LINE__, what);
}

/* The variant `features` select for (n, k) must be `name`; then it runs the tests (or skips). */
static inline void run_qs8_gemm_variant(uint32_t features, size_t n, size_t k, const char* name) {
  char variant[160], feature_names[96];
  snprintf(variant, sizeof(variant), "%s for %s", name,
           lite_cpu_features_describe(features, feature_names, sizeof(feature_names)));
  if (!kt_cpu_has(features, variant)) return;
  const lite_qs8_gemm_config* cfg = lite_qs8_gemm_config_select(features, n, k);
  char what[160];
  snprintf(what, sizeof(what), "selected %s, expected %s", cfg->name, name);
  if (kt_record(strcmp(cfg->name, name) == 0, __FILE__, __LINE__, what)) run_qs8_gemm_tests(cfg);
}

#endif
