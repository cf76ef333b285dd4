/* aarch64 NEON FMA 6x16 microkernel of the packed fp32 GEMM against the reference GEMM. */
#include "test_f32_gemm_common.h"

int main(void) {
#if defined(__aarch64__)
  return run_gemm_variant_tests(LITE_CPU_ARM_NEON, 64, "f32_gemm_6x16_aarch64_neonfma");
#else
  kt_skip("not an aarch64 build");
  return kt_finish();
#endif
}
