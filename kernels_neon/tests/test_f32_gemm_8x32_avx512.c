/* AVX-512 8x32 microkernel of the packed fp32 GEMM against the reference GEMM (x86 only); also
 * checks that narrow layers (n <= 16) still get the 16-wide AVX2 tile. */
#include "test_f32_gemm_common.h"

int main(void) {
#if defined(__x86_64__)
  const uint32_t f = LITE_CPU_X86_AVX2 | LITE_CPU_X86_AVX512;
  if ((lite_cpu_features_detected() & f) == f)
    KT_CHECK(strcmp(lite_f32_gemm_config_select(f, 16)->name, "f32_gemm_6x16_avx2") == 0);
  return run_gemm_variant_tests(f, 64, "f32_gemm_8x32_avx512");
#else
  kt_skip("not an x86-64 build");
  return kt_finish();
#endif
}
