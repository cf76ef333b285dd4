/* AMX int8 GEMM microkernels (16x32c4 and 16x64c4 tiles) against the reference FC, byte for byte
 * (x86 only; skipped where the CPU or the OS does not offer AMX). */
#include "test_qs8_gemm_common.h"

int main(void) {
#if defined(__x86_64__)
  const uint32_t f = LITE_CPU_X86_AVX2 | LITE_CPU_X86_AVX512 | LITE_CPU_X86_AVX512VNNI | LITE_CPU_X86_AMX_INT8;
  run_qs8_gemm_variant(f, 32, 64, "qs8_gemm_16x32c4_avx512amx");
  run_qs8_gemm_variant(f, 96, 64, "qs8_gemm_16x32c4_avx512amx");
  run_qs8_gemm_variant(f, 64, 64, "qs8_gemm_16x64c4_avx512amx");
  run_qs8_gemm_variant(f, 128, 300, "qs8_gemm_16x64c4_avx512amx");
#else
  kt_skip("not an x86-64 build");
#endif
  return kt_finish();
}
