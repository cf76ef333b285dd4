/* Selection of the packed int8 GEMM microkernel from CPU features (qs8_gemm_packed.h): the one place
 * that knows which variant each x86 level gets; ARM selection is delegated to qs8_gemm_config_arm.c. */
#include "lite_kernels/cpu_features.h"
#include "lite_kernels/qs8_gemm_packed.h"
#include "lite_kernels/qs8_gemm_packed_runs.h"

static const lite_qs8_gemm_config k_portable = {lite_qs8_gemm_ukernel_4x8c4_portable, lite_qs8_gemm_pack_generic, 4,
                                                8, 4, 0, "qs8_gemm_4x8c4_portable"};

const lite_qs8_gemm_config* lite_qs8_gemm_config_portable(void) { return &k_portable; }

#if defined(__x86_64__)
static const lite_qs8_gemm_config k_avx512vnni_16 = {lite_qs8_gemm_ukernel_8x16c4_avx512vnni,
                                                     lite_qs8_gemm_pack_generic, 8, 16, 4, 128,
                                                     "qs8_gemm_8x16c4_avx512vnni"};
static const lite_qs8_gemm_config k_avx512vnni_32 = {lite_qs8_gemm_ukernel_8x32c4_avx512vnni,
                                                     lite_qs8_gemm_pack_generic, 8, 32, 4, 128,
                                                     "qs8_gemm_8x32c4_avx512vnni"};
static const lite_qs8_gemm_config k_avx512vnni_24 = {lite_qs8_gemm_ukernel_8x24c4_avx512vnni,
                                                     lite_qs8_gemm_pack_generic, 8, 24, 4, 128,
                                                     "qs8_gemm_8x24c4_avx512vnni"};
static const lite_qs8_gemm_config k_amx_32 = {lite_qs8_gemm_ukernel_16x32c4_avx512amx, lite_qs8_gemm_pack_generic,
                                              16, 32, 4, 0, "qs8_gemm_16x32c4_avx512amx"};
static const lite_qs8_gemm_config k_amx_64 = {lite_qs8_gemm_ukernel_16x64c4_avx512amx, lite_qs8_gemm_pack_generic,
                                              16, 64, 4, 0, "qs8_gemm_16x64c4_avx512amx"};
static const lite_qs8_gemm_config k_avx2 = {lite_qs8_gemm_ukernel_4x16c2_avx2, lite_qs8_gemm_pack_generic, 4, 16, 2, 0,
                                            "qs8_gemm_4x16c2_avx2"};

/* The tile width with the least work for n columns. Every width costs the same per column (a zmm
 * multiply-add per 16 columns and row; 24 shares one zmm between two rows' last 8 columns) and a
 * multiply-add takes as long in a ymm as in a zmm here, so the work is the padded column count;
 * on a tie the wider tile reads each A row for fewer panels. */
static const lite_qs8_gemm_config* avx512vnni_for(size_t n) {
  const lite_qs8_gemm_config* const widths[] = {&k_avx512vnni_32, &k_avx512vnni_24, &k_avx512vnni_16};
  const lite_qs8_gemm_config* best = widths[0];
  size_t best_padded = (size_t)-1;
  for (size_t i = 0; i < 3; ++i) {
    const size_t nr = widths[i]->nr, padded = (n + nr - 1) / nr * nr;
    if (padded < best_padded) best = widths[i], best_padded = padded;
  }
  return best;
}
#endif

#if (defined(__aarch64__) || defined(__arm__)) && defined(__has_include)
#if __has_include("qs8_gemm_config_arm.c")
#define LITE_QS8_HAVE_ARM_CONFIG 1
const lite_qs8_gemm_config* lite_qs8_gemm_config_select_arm(uint32_t features, size_t n, size_t k);
lite_qs8_gemm_runs_ukernel_fn lite_qs8_gemm_runs_ukernel_select_arm(const lite_qs8_gemm_config* config);
#endif
#endif

const lite_qs8_gemm_config* lite_qs8_gemm_config_select(uint32_t features, size_t n, size_t k) {
#if defined(LITE_QS8_HAVE_ARM_CONFIG)
  const lite_qs8_gemm_config* arm = lite_qs8_gemm_config_select_arm(features, n, k);
  if (arm != NULL) return arm;
#endif
#if defined(__x86_64__)
  /* AMX tiles (16 x 16 int32 per tdpbssd, 64 k per step) for layers with at least one whole k step
   * and wide enough to fill a 32-column tile pair (below, the per-call tile configuration and the
   * copied k tail cost more than they save: MobileNetV2 int8 2.82-2.93 ms on VNNI, 3.0-3.1 with AMX
   * everywhere, 2.41-2.45 from k >= 64; ResNet-18 int8 8.5-8.6 -> 4.3 ms); the 64-column kernel where
   * it pads no more columns than the 32-column one. */
  if ((features & LITE_CPU_X86_AMX_INT8) && n > 16 && k >= 64)
    return (n + 63) / 64 * 64 <= (n + 31) / 32 * 32 ? &k_amx_64 : &k_amx_32;
  if ((features & LITE_CPU_X86_AVX512) && (features & LITE_CPU_X86_AVX512VNNI)) return avx512vnni_for(n);
  if (features & LITE_CPU_X86_AVX2) return &k_avx2;
#endif
  (void)features;
  (void)n;
  (void)k;
  return &k_portable;
}

lite_qs8_gemm_runs_ukernel_fn lite_qs8_gemm_runs_ukernel_select(const lite_qs8_gemm_config* config) {
#if defined(__x86_64__)
  if (config == &k_avx512vnni_16) return lite_qs8_gemm_runs_ukernel_8x16c4_avx512vnni;
  if (config == &k_avx512vnni_32) return lite_qs8_gemm_runs_ukernel_8x32c4_avx512vnni;
  if (config == &k_avx512vnni_24) return lite_qs8_gemm_runs_ukernel_8x24c4_avx512vnni;
#endif
#if defined(LITE_QS8_HAVE_ARM_CONFIG)
  return lite_qs8_gemm_runs_ukernel_select_arm(config);
#endif
  (void)config;
  return NULL;
}
