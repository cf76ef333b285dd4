/* Selection of the vectorized activation variant from CPU features: the one place that maps ISA
 * levels to lite_f32_vactivation_* (compiled only where the ISA is, see kernels_neon/CMakeLists.txt). */
#include "lite_kernels/cpu_features.h"
#include "lite_kernels/f32_vactivation.h"

int lite_f32_vactivation_supports(int kind) {
  switch (kind) {
    case LITE_ACT_NONE:
    case LITE_ACT_RELU:
    case LITE_ACT_CLIP:
    case LITE_ACT_HARD_SIGMOID:
    case LITE_ACT_HARD_SWISH:
    case LITE_ACT_LEAKY_RELU:
    case LITE_ACT_SIGMOID:
    case LITE_ACT_SILU:
    case LITE_ACT_TANH: return 1;
    default: return 0;
  }
}

lite_f32_vactivation_fn lite_f32_vactivation_select(uint32_t features) {
#if defined(__x86_64__)
  if (features & LITE_CPU_X86_AVX512) return lite_f32_vactivation_avx512;
  if (features & LITE_CPU_X86_AVX2) return lite_f32_vactivation_avx2;
#elif defined(__aarch64__)
  if (LITE_CPU_HAS_NEON(features)) return lite_f32_vactivation_aarch64_neonfma;
#elif defined(__arm__) && defined(__ARM_NEON)
  if (features & LITE_CPU_ARM_NEON) return lite_f32_vactivation_armv7_neonfma;
#endif
  (void)features;
  return lite_f32_vactivation_portable;
}

lite_f32_vexp_sum_fn lite_f32_vexp_sum_select(uint32_t features) {
#if defined(__x86_64__)
  if (features & LITE_CPU_X86_AVX512) return lite_f32_vexp_sum_avx512;
  if (features & LITE_CPU_X86_AVX2) return lite_f32_vexp_sum_avx2;
#elif defined(__aarch64__)
  if (LITE_CPU_HAS_NEON(features)) return lite_f32_vexp_sum_aarch64_neonfma;
#elif defined(__arm__) && defined(__ARM_NEON)
  if (features & LITE_CPU_ARM_NEON) return lite_f32_vexp_sum_armv7_neonfma;
#endif
  (void)features;
  return lite_f32_vexp_sum_portable;
}

lite_f32_vsoftmax_row_fn lite_f32_vsoftmax_row_select(uint32_t features) {
#if defined(__x86_64__)
  if (features & LITE_CPU_X86_AVX512) return lite_f32_vsoftmax_row_avx512;
  if (features & LITE_CPU_X86_AVX2) return lite_f32_vsoftmax_row_avx2;
#elif defined(__aarch64__)
  if (LITE_CPU_HAS_NEON(features)) return lite_f32_vsoftmax_row_aarch64_neonfma;
#elif defined(__arm__) && defined(__ARM_NEON)
  if (features & LITE_CPU_ARM_NEON) return lite_f32_vsoftmax_row_armv7_neonfma;
#endif
  (void)features;
  return lite_f32_vsoftmax_row_portable;
}

const char* lite_f32_vactivation_name(lite_f32_vactivation_fn fn) {
#if defined(__x86_64__)
  if (fn == lite_f32_vactivation_avx512) return "f32_vactivation_avx512";
  if (fn == lite_f32_vactivation_avx2) return "f32_vactivation_avx2";
#elif defined(__aarch64__)
  if (fn == lite_f32_vactivation_aarch64_neonfma) return "f32_vactivation_aarch64_neonfma";
#elif defined(__arm__) && defined(__ARM_NEON)
  if (fn == lite_f32_vactivation_armv7_neonfma) return "f32_vactivation_armv7_neonfma";
#endif
  return fn == lite_f32_vactivation_portable ? "f32_vactivation_portable" : "unknown";
}

void lite_f32_activate(const lite_activation* act, float* data, size_t rows, size_t channels) {
  if (act == NULL || act->kind == LITE_ACT_NONE || rows == 0 || channels == 0) return;
  if (!lite_f32_vactivation_supports(act->kind)) {
    lite_activate_rows(act, data, rows, channels);
    return;
  }
  lite_f32_vactivation_select(lite_cpu_features())(act, data, data, rows * channels);
}

int lite_f32_activate_copy(const lite_activation* act, const float* x, float* y, size_t n) {
  if (!lite_f32_vactivation_supports(act->kind)) return 0;
  lite_f32_vactivation_select(lite_cpu_features())(act, x, y, n);
  return 1;
}
