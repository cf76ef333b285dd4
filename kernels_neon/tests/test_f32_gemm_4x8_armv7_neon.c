/* armv7 NEON 4x8 microkernel of the packed fp32 GEMM against the reference GEMM. */
#include "test_f32_gemm_common.h"

int main(void) {
#if defined(__arm__) && defined(__ARM_NEON)
  return run_gemm_variant_tests(LITE_CPU_ARM_NEON, 64, "f32_gemm_4x8_armv7_neon");
#else
  kt_skip("not an armv7 NEON build");
  return kt_finish();
#endif
}
