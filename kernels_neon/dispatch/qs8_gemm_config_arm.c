/* ARM selection of the packed int8 GEMM microkernel (qs8_gemm_packed.h); the one place that maps
 * aarch64 / armv7 CPU features to it (the depthwise kernel: qs8_dwconv_config.c).
 * GEMM: per instruction smmla does 32 multiply-adds, sdot 16, smull + smlal2 + sadalp 16 per three, so the
 * richest extension the CPU reports wins; n and k do not change the order (every kernel handles
 * any n, k with partial tiles). lite_qs8_gemm_config_select (dispatch/qs8_gemm_config.c) calls it. */
#include <stddef.h>
#include <stdint.h>

#include "lite_kernels/cpu_features.h"
#include "lite_kernels/qs8_gemm_packed.h"
#include "lite_kernels/qs8_gemm_packed_a.h"
#include "lite_kernels/qs8_gemm_packed_runs.h"

#if defined(__aarch64__) || defined(__arm__)
#include "../arm/qs8_gemm_ukernels_arm.h"

#if defined(__aarch64__)
static const lite_qs8_gemm_config k_i8mm = {lite_qs8_gemm_ukernel_4x16c8_aarch64_neoni8mm,
                                            lite_qs8_gemm_pack_shift_amounts, 16, 16, 8, 0,
                                            "qs8_gemm_4x16c8_aarch64_neoni8mm"};
static const lite_qs8_gemm_config k_dot = {lite_qs8_gemm_ukernel_64x16c4_aarch64_neondot,
                                           lite_qs8_gemm_pack_shift_amounts, 64, 16, 4, 0,
                                           "qs8_gemm_64x16c4_aarch64_neondot"};
static const lite_qs8_gemm_config k_neon = {lite_qs8_gemm_ukernel_36x8c16_aarch64_neon,
                                            lite_qs8_gemm_pack_shift_amounts, 36, 8, 16, 0,
                                            "qs8_gemm_36x8c16_aarch64_neon"};
#else
static const lite_qs8_gemm_config k_neon = {lite_qs8_gemm_ukernel_72x4c16_armv7_neon, lite_qs8_gemm_pack_shift_amounts,
                                            72, 4, 16, 0, "qs8_gemm_72x4c16_armv7_neon"};
#endif

const lite_qs8_gemm_config* lite_qs8_gemm_config_select_arm(uint32_t features, size_t n, size_t k);

const lite_qs8_gemm_config* lite_qs8_gemm_config_select_arm(uint32_t features, size_t n, size_t k) {
  (void)n;
  (void)k;
#if defined(__aarch64__)
  if ((features & LITE_CPU_ARM_NEON) && (features & LITE_CPU_ARM_I8MM)) return &k_i8mm;
  if ((features & LITE_CPU_ARM_NEON) && (features & LITE_CPU_ARM_DOTPROD)) return &k_dot;
#endif
  if (LITE_CPU_HAS_NEON(features)) return &k_neon;
  return lite_qs8_gemm_config_portable();
}

lite_qs8_gemm_runs_ukernel_fn lite_qs8_gemm_runs_ukernel_select_arm(const lite_qs8_gemm_config* config);

/* The dotprod config reads a convolution's kernel rows in place (qs8_gemm_packed_runs.h). */
lite_qs8_gemm_runs_ukernel_fn lite_qs8_gemm_runs_ukernel_select_arm(const lite_qs8_gemm_config* config) {
#if defined(__aarch64__)
  if (config == &k_dot) return lite_qs8_gemm_runs_ukernel_64x16c4_aarch64_neondot;
#endif
  (void)config;
  return NULL;
}

#endif

/* The i8mm config has a packed-A kernel (lite_kernels/qs8_gemm_packed_a.h); the others do not. */
const lite_qs8_gemm_packed_a_kernel* lite_qs8_gemm_packed_a_select(const lite_qs8_gemm_config* config) {
#if defined(__aarch64__)
  static const lite_qs8_gemm_packed_a_kernel k_i8mm_packed_a = {
      lite_qs8_gemm_i8mm_packed_a_bytes, lite_qs8_gemm_i8mm_pack_a, lite_qs8_gemm_i8mm_packed_a_compute};
  if (config == &k_i8mm) return &k_i8mm_packed_a;
#endif
  (void)config;
  return NULL;
}
