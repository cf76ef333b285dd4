/* Portable C microkernel of the packed fp32 GEMM against the reference GEMM. */
#include "test_f32_gemm_common.h"

int main(void) { return run_gemm_variant_tests(0, 64, "f32_gemm_4x8_portable"); }
