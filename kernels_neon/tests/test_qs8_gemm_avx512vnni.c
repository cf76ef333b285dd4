/* AVX-512 VNNI int8 GEMM microkernels (8x16c4 for narrow layers, 8x24c4 for 24-, 48-, 72-channel
 * ones, 8x32c4 otherwise) against the reference FC, byte for byte, with multipliers of every range and
 * again with usual ones only (x86 only; skipped on a CPU without VNNI). */
#include "test_qs8_gemm_common.h"

int main(void) {
#if defined(__x86_64__)
  const uint32_t f = LITE_CPU_X86_AVX2 | LITE_CPU_X86_AVX512 | LITE_CPU_X86_AVX512VNNI;
  run_qs8_gemm_variant(f, 16, 64, "qs8_gemm_8x16c4_avx512vnni");
  run_qs8_gemm_variant(f, 24, 64, "qs8_gemm_8x24c4_avx512vnni");
  run_qs8_gemm_variant(f, 64, 64, "qs8_gemm_8x32c4_avx512vnni");
  qs8_test_usual_multipliers = 1; /* again with every tile on the high-dword requantization */
  run_qs8_gemm_variant(f, 16, 64, "qs8_gemm_8x16c4_avx512vnni");
  run_qs8_gemm_variant(f, 24, 64, "qs8_gemm_8x24c4_avx512vnni");
  run_qs8_gemm_variant(f, 64, 64, "qs8_gemm_8x32c4_avx512vnni");
#else
  kt_skip("not an x86-64 build");
#endif
  return kt_finish();
}
