/* AVX2/FMA 6x16 microkernel of the packed fp32 GEMM against the reference GEMM (x86 only). */
#include "test_f32_gemm_common.h"

int main(void) {
#if defined(__x86_64__)
  return run_gemm_variant_tests(LITE_CPU_X86_AVX2, 64, "f32_gemm_6x16_avx2");
#else
  kt_skip("not an x86-64 build");
  return kt_finish();
#endif
}
