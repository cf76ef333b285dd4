/* The packed-B GEMV against the GEMM microkernel it shares the packing with (same sums in the same
 * order: equal bytes) and against the reference GEMM (within rounding), for widths that leave
 * partial groups of panels and a partial last panel. */
#include <stdlib.h>

#include "kernel_test.h"
#include "lite_kernels/cpu_features.h"
#include "lite_kernels/f32_gemv_packed.h"
#include "lite_kernels/gemm.h"

static void check_shape(const lite_f32_gemm_config* config, lite_f32_gemv_packed_fn gemv, size_t n, size_t k,
                        kt_rng* rng) {
  float* a = malloc((k + 1) * sizeof(float));
  float* b = malloc((k * n + 1) * sizeof(float));
  float* bias = malloc(n * sizeof(float));
  float* packed = malloc(lite_f32_gemm_packed_size(config, n, k) * sizeof(float));
  float* got = malloc(n * sizeof(float));
  float* gemm = malloc(n * sizeof(float));
  float* ref = malloc(n * sizeof(float));
  kt_fill_uniform(rng, a, k, -1.0f, 1.0f);
  kt_fill_uniform(rng, b, k * n, -1.0f, 1.0f);
  kt_fill_uniform(rng, bias, n, -1.0f, 1.0f);
  lite_f32_gemm_pack_b(config, n, k, b, n, 1, bias, packed);
  gemv(n, k, a, packed, got);
  lite_f32_gemm_packed_compute(config, 1, 0, n, k, a, k, packed, NULL, gemm, n);
  lite_f32_gemm_ref(1, n, k, a, k, b, n, bias, NULL, ref, n);
  KT_CHECK_EQUAL_BYTES("gemv vs gemm", got, gemm, n * sizeof(float));
  KT_CHECK_CLOSE_ARRAY("gemv vs ref", got, ref, n, 1e-5f, 1e-5f);
  free(a);
  free(b);
  free(bias);
  free(packed);
  free(got);
  free(gemm);
  free(ref);
}

int main(void) {
  int tested = 0;
  const lite_f32_gemm_config* config = lite_f32_gemm_config_select(lite_cpu_features(), 64);
  lite_f32_gemv_packed_fn gemv = lite_f32_gemv_packed_select(config);
  if (gemv != NULL) {
    kt_rng rng = kt_rng_make(7);
    const size_t widths[] = {1, 15, 16, 17, 63, 64, 65, 100, 512};
    const size_t depths[] = {0, 1, 7, 128, 129, 256, 300}; /* 129-300: one to three k blocks (f32_gemm_packed.h) */
    for (size_t i = 0; i < sizeof(widths) / sizeof(widths[0]); ++i)
      for (size_t j = 0; j < sizeof(depths) / sizeof(depths[0]); ++j) check_shape(config, gemv, widths[i], depths[j], &rng);
    tested = 1;
  }
  KT_CHECK(lite_f32_gemv_packed_select(lite_f32_gemm_config_portable()) == NULL);
  if (!tested) kt_skip("no GEMV variant for this CPU's GEMM packing");
  return kt_finish();
}
