/* Selection of the packed fp32 GEMM microkernel from CPU features (like XNNPACK's gemm config):
 * the one place that knows which variant each ISA level gets. */
#include "lite_kernels/cpu_features.h"
#include "lite_kernels/f32_gemm_packed.h"

static const lite_f32_gemm_config k_portable = {lite_f32_gemm_ukernel_4x8_portable, 4, 8, "f32_gemm_4x8_portable",
                                                NULL, NULL};

#if defined(__x86_64__)
static const lite_f32_gemm_config k_avx2 = {lite_f32_gemm_ukernel_6x16_avx2, 6, 16, "f32_gemm_6x16_avx2", NULL,
                                           lite_f32_gemm_runs_6x16_avx2};
static const lite_f32_gemm_config k_avx512 = {lite_f32_gemm_ukernel_8x32_avx512, 8, 32, "f32_gemm_8x32_avx512",
                                              lite_f32_gemm_panel_8x32_avx512,
                                              lite_f32_gemm_runs_8x32_avx512};
#elif defined(__aarch64__)
static const lite_f32_gemm_config k_neonfma = {lite_f32_gemm_ukernel_6x16_aarch64_neonfma, 6, 16,
                                               "f32_gemm_6x16_aarch64_neonfma",
                                               lite_f32_gemm_panel_6x16_aarch64_neonfma, NULL};
#elif defined(__arm__) && defined(__ARM_NEON)
static const lite_f32_gemm_config k_armv7 = {lite_f32_gemm_ukernel_4x8_armv7_neon, 4, 8, "f32_gemm_4x8_armv7_neon",
                                             lite_f32_gemm_panel_4x8_armv7_neon, NULL};
#endif

const lite_f32_gemm_config* lite_f32_gemm_config_portable(void) { return &k_portable; }

const lite_f32_gemm_config* lite_f32_gemm_config_select(uint32_t features, size_t n) {
#if defined(__x86_64__)
  if (features & LITE_CPU_X86_AVX512) return &k_avx512; /* narrow n: its 16- and 24-column paths */
  if (features & LITE_CPU_X86_AVX2) return &k_avx2;
#elif defined(__aarch64__)
  if (LITE_CPU_HAS_NEON(features)) return &k_neonfma;
#elif defined(__arm__) && defined(__ARM_NEON)
  if (features & LITE_CPU_ARM_NEON) return &k_armv7;
#endif
  (void)features;
  (void)n;
  return &k_portable;
}
