/* Selection of the layer normalization variant from CPU features (compiled only where the ISA is,
 * see kernels_neon/CMakeLists.txt). */
#include "lite_kernels/cpu_features.h"
#include "lite_kernels/f32_layer_norm.h"

lite_f32_layer_norm_fn lite_f32_layer_norm_select(uint32_t features) {
#if defined(__x86_64__)
  if (features & LITE_CPU_X86_AVX512) return lite_f32_layer_norm_avx512;
  if (features & LITE_CPU_X86_AVX2) return lite_f32_layer_norm_avx2;
#elif defined(__aarch64__)
  if (LITE_CPU_HAS_NEON(features)) return lite_f32_layer_norm_aarch64_neonfma;
#elif defined(__arm__) && defined(__ARM_NEON)
  if (features & LITE_CPU_ARM_NEON) return lite_f32_layer_norm_armv7_neonfma;
#endif
  (void)features;
  return lite_f32_layer_norm_portable;
}

const char* lite_f32_layer_norm_name(lite_f32_layer_norm_fn fn) {
#if defined(__x86_64__)
  if (fn == lite_f32_layer_norm_avx512) return "f32_layer_norm_avx512";
  if (fn == lite_f32_layer_norm_avx2) return "f32_layer_norm_avx2";
#elif defined(__aarch64__)
  if (fn == lite_f32_layer_norm_aarch64_neonfma) return "f32_layer_norm_aarch64_neonfma";
#elif defined(__arm__) && defined(__ARM_NEON)
  if (fn == lite_f32_layer_norm_armv7_neonfma) return "f32_layer_norm_armv7_neonfma";
#endif
  return fn == lite_f32_layer_norm_portable ? "f32_layer_norm_portable" : "unknown";
}
