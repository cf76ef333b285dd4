/* Which GEMV runs over B packed for a given fp32 GEMM config (f32_gemv_packed.h). */
#include "lite_kernels/f32_gemv_packed.h"

lite_f32_gemv_packed_fn lite_f32_gemv_packed_select(const lite_f32_gemm_config* config) {
#if defined(__x86_64__)
  if (config != NULL && config->ukernel == lite_f32_gemm_ukernel_6x16_avx2) return lite_f32_gemv_packed_16_avx2;
#elif defined(__aarch64__)
  if (config != NULL && config->ukernel == lite_f32_gemm_ukernel_6x16_aarch64_neonfma)
    return lite_f32_gemv_packed_16_aarch64_neonfma;
#else
  (void)config;
#endif
  return NULL;
}
