/* Portable C int8 GEMM microkernel and the shared packing / tile loop against the reference FC; also
 * the exactness bound that decides when int32 accumulation may be used. */
#include "test_qs8_gemm_common.h"

int main(void) {
  run_qs8_gemm_tests(lite_qs8_gemm_config_portable());
#if defined(__aarch64__) /* NEON is part of the base ISA there: no features still select it */
  KT_CHECK(strcmp(lite_qs8_gemm_config_select(0, 64, 64)->name, "qs8_gemm_36x8c16_aarch64_neon") == 0);
#else
  KT_CHECK(strcmp(lite_qs8_gemm_config_select(0, 64, 64)->name, "qs8_gemm_4x8c4_portable") == 0);
#endif
  const int32_t small_bias[2] = {1000, -1000}, huge_bias[2] = {5, INT32_MIN + 1};
  KT_CHECK(lite_qs8_gemm_is_exact(2, 4096, small_bias));
  KT_CHECK(lite_qs8_gemm_is_exact(2, 4096, NULL));
  KT_CHECK(!lite_qs8_gemm_is_exact(2, 4096, huge_bias));
  KT_CHECK(!lite_qs8_gemm_is_exact(1, 70000, NULL));
  return kt_finish();
}
