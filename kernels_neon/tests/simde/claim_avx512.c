/* Test-only (make test-avx512-emulated): the CPU "has" AVX-512, so the dispatchers pick the
 * SIMDe-compiled AVX-512 GEMM; the fused activation rows it calls run on AVX2. */
#include <stddef.h>
#include <stdint.h>

#include "lite_kernels/cpu_features.h"
#include "lite_kernels/f32_vactivation.h"

uint32_t lite_cpu_features(void) { return LITE_CPU_X86_AVX2 | LITE_CPU_X86_AVX512; }
uint32_t lite_cpu_features_detected(void) { return LITE_CPU_X86_AVX2 | LITE_CPU_X86_AVX512; }

void lite_f32_vactivation_avx512(const lite_activation* act, const float* x, float* y, size_t n) {
  lite_f32_vactivation_avx2(act, x, y, n);
}
