/* AVX2 int8 GEMM microkernel (4x16c2, int16 vpmaddwd) against the reference FC, byte for byte; it is
 * the choice of an AVX2 CPU without AVX-512 VNNI (x86 only; skipped on a CPU without AVX2). */
#include "test_qs8_gemm_common.h"

int main(void) {
#if defined(__x86_64__)
  run_qs8_gemm_variant(LITE_CPU_X86_AVX2, 64, 64, "qs8_gemm_4x16c2_avx2");
  run_qs8_gemm_variant(LITE_CPU_X86_AVX2 | LITE_CPU_X86_AVX512, 64, 64, "qs8_gemm_4x16c2_avx2");
#else
  kt_skip("not an x86-64 build");
#endif
  return kt_finish();
}
