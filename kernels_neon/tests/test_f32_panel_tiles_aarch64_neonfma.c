/* The aarch64 fp32 GEMM panel (lite_f32_gemm_panel_6x16_aarch64_neonfma) over panels of 1..12 full
 * tiles: it runs 5-row tiles plus, depending on tiles % 5, one or two 6-row or 4-row tiles, so
 * every tiles % 5 and counts mixing the kinds are checked against the reference GEMM
 * lite_f32_gemm_ref, with k giving every k % 8 (odd and even counts of 4-k groups, 0..3
 * leftovers), 1..2 full panels plus an edge panel, and every fused activation. (test_f32_gemm_6x16_aarch64_neonfma covers at most 5 tiles.) */
#include "test_f32_gemm_common.h"

int main(void) {
#if defined(__aarch64__)
  if (!kt_cpu_has(LITE_CPU_ARM_NEON, "f32_gemm_6x16_aarch64_neonfma panel tiles")) {
    return kt_finish();
  }
  const lite_f32_gemm_config* cfg = lite_f32_gemm_config_select(LITE_CPU_ARM_NEON, 64);
  KT_CHECK(strcmp(cfg->name, "f32_gemm_6x16_aarch64_neonfma") == 0);
  static const size_t ks[] = {0, 1, 4, 7, 8, 9, 14, 27, 32};
  static const size_t ns[] = {16, 32, 40};
  int act = 0;
  for (size_t tiles = 1; tiles <= 12; ++tiles)
    for (size_t ki = 0; ki < sizeof(ks) / sizeof(ks[0]); ++ki) {
      const size_t m = tiles * 6 + ki % 3 * 2; /* + 0, 2 or 4 rows for the per-tile kernel */
      KT_CHECK(gemm_case(cfg, m, ns[(tiles + ki) % 3], ks[ki], act, (int)(ki & 1), 0));
      act = (act + 1) % 10;
    }
  return kt_finish();
#else
  kt_skip("not an aarch64 build");
  return kt_finish();
#endif
}
