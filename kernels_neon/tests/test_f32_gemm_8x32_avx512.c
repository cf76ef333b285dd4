/* AVX-512 8x32 microkernel of the packed fp32 GEMM against the reference GEMM (x86 only), its panel
 * function included (m >= 8); also checks that narrow layers (n <= 16) get it too (its 16-column
 * path) and that an AVX2-only CPU gets the 6x16 tile. */
#include "test_f32_gemm_common.h"

int main(void) {
#if defined(__x86_64__)
  const uint32_t f = LITE_CPU_X86_AVX2 | LITE_CPU_X86_AVX512;
  /* the selection from feature bits runs on any x86-64 CPU */
  KT_CHECK(strcmp(lite_f32_gemm_config_select(f, 16)->name, "f32_gemm_8x32_avx512") == 0);
  KT_CHECK(strcmp(lite_f32_gemm_config_select(LITE_CPU_X86_AVX2, 64)->name, "f32_gemm_6x16_avx2") == 0);
  KT_CHECK(lite_f32_gemm_config_select(f, 64)->panel != NULL);
  return run_gemm_variant_tests(f, 64, "f32_gemm_8x32_avx512");
#else
  kt_skip("not an x86-64 build");
  return kt_finish();
#endif
}
