/* The x86 kernel-row ("runs") GEMM paths (AVX2 6x16, AVX-512 8x32), lite_f32_gemm_packed_compute_runs: A rows given
 * as `runs` runs of run_len floats at a + i * a_stride + r * run_stride (a convolution's kernel rows
 * in the NHWC input, overlapping between pixels). Against the reference GEMM lite_f32_gemm_ref on
 * the same values copied into contiguous rows (the oracle, within a relative bound), and bit for bit
 * against the plain packed GEMM on that copy (the im2col path the runtime replaces with it). */
#include "test_f32_gemm_common.h"

/* One case (unused on ARM builds, where main only skips). */
__attribute__((unused)) static int runs_case(const lite_f32_gemm_config* cfg, size_t m, size_t n, size_t runs,
                                             size_t run_len, size_t run_stride, size_t a_stride, int act_kind) {
  const size_t k = runs * run_len, ldc = n + 3;
  const size_t a_size = (m > 0 ? (m - 1) * a_stride : 0) + (runs > 0 ? (runs - 1) * run_stride : 0) + run_len + 1;
  float* a = malloc(sizeof(float) * a_size);
  float* rows = malloc(sizeof(float) * (m * k + 1));
  float* b = malloc(sizeof(float) * (n * k + 1));
  float* bias = malloc(sizeof(float) * (n + 1));
  float* slope = malloc(sizeof(float) * (n + 1));
  float* ref = malloc(sizeof(float) * (m * ldc + 1));
  float* plain = malloc(sizeof(float) * (m * ldc + 1));
  float* out = malloc(sizeof(float) * (m * ldc + 1));
  float* packed = malloc(sizeof(float) * (lite_f32_gemm_packed_size(cfg, n, k) + 1));
  for (size_t i = 0; i < a_size; ++i) a[i] = gemm_test_rand();
  for (size_t i = 0; i < m; ++i)
    for (size_t r = 0; r < runs; ++r)
      memcpy(rows + i * k + r * run_len, a + i * a_stride + r * run_stride, run_len * sizeof(float));
  for (size_t i = 0; i < n * k; ++i) b[i] = gemm_test_rand();
  for (size_t j = 0; j < n; ++j) {
    bias[j] = gemm_test_rand();
    slope[j] = 0.1f * gemm_test_rand();
  }
  for (size_t i = 0; i < m * ldc; ++i) ref[i] = plain[i] = out[i] = 777.0f; /* sentinels between rows */
  lite_activation act = {act_kind, 0.2f, 0.7f, slope};
  if (act_kind == LITE_ACT_CLIP) act.alpha = -0.5f;
  lite_f32_gemm_ref(m, n, k, rows, k, b, n, bias, &act, ref, ldc);
  lite_f32_gemm_pack_b(cfg, n, k, b, n, 1, bias, packed);
  lite_f32_gemm_packed_compute(cfg, m, 0, n, k, rows, k, packed, &act, plain, ldc);
  lite_f32_gemm_packed_compute_runs(cfg, m, 0, n, runs, run_len, run_stride, a, a_stride, packed, &act, out, ldc);
  int ok = memcmp(out, plain, sizeof(float) * m * ldc) == 0;
  if (!ok)
    fprintf(stderr, "FAIL m=%zu n=%zu runs=%zu len=%zu: not identical to the contiguous-row GEMM\n", m, n, runs,
            run_len);
  for (size_t i = 0; i < m * ldc && ok; ++i) {
    const float tol = 1e-5f * (float)(k + 1) * (1.0f + fabsf(ref[i]));
    if (!(fabsf(ref[i] - out[i]) <= tol)) {
      fprintf(stderr, "FAIL m=%zu n=%zu runs=%zu len=%zu at %zu: got %g want %g\n", m, n, runs, run_len, i, out[i],
              ref[i]);
      ok = 0;
    }
  }
  free(a);
  free(rows);
  free(b);
  free(bias);
  free(slope);
  free(ref);
  free(plain);
  free(out);
  free(packed);
  return ok;
}

/* Every case of the sweep for the config selected by `features`, which must have a runs kernel. */
__attribute__((unused)) static void runs_sweep(uint32_t features, const char* variant) {
  const lite_f32_gemm_config* cfg = lite_f32_gemm_config_select(features, 32);
  KT_CHECK(cfg->runs != NULL); /* the selection from feature bits runs on any x86-64 CPU */
  if (!kt_cpu_has(features, variant)) return;
  const size_t ms[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 13, 17};
  const size_t ns[] = {1, 7, 8, 9, 16, 17, 24, 25, 32, 40};
  /* runs, len, stride; k = 147 and 288 cross the k blocks of f32_gemm_packed.h inside a run, 256 at a run's end */
  const size_t shapes[][3] = {{3, 9, 50}, {7, 21, 80}, {1, 27, 27}, {2, 5, 11}, {3, 1, 4}, {3, 24, 100},
                              {12, 24, 300}, {4, 64, 100}};
  int kind = 0;
  for (size_t mi = 0; mi < sizeof(ms) / sizeof(ms[0]); ++mi)
    for (size_t ni = 0; ni < sizeof(ns) / sizeof(ns[0]); ++ni)
      for (size_t si = 0; si < sizeof(shapes) / sizeof(shapes[0]); ++si) {
        /* pixel step 2 * (run_len / 3 + 1): windows overlap like a stride-2 convolution's */
        const size_t a_stride = 2 * (shapes[si][1] / 3 + 1);
        KT_CHECK(runs_case(cfg, ms[mi], ns[ni], shapes[si][0], shapes[si][1], shapes[si][2], a_stride, kind));
        kind = (kind + 1) % 10; /* every activation kind over the sweep */
      }
}

int main(void) {
#if defined(__x86_64__)
  runs_sweep(LITE_CPU_X86_AVX2, "f32_gemm_6x16_avx2 runs");
  runs_sweep(LITE_CPU_X86_AVX2 | LITE_CPU_X86_AVX512, "f32_gemm_8x32_avx512 runs");
  return kt_finish();
#else
  kt_skip("not an x86-64 build");
  return kt_finish();
#endif
}
