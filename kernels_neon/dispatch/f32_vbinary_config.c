/* Selection of the fp32 ADD/SUB/MUL/DIV row variant from CPU features: the one place that maps
 * ISA levels to lite_f32_vbinary_* (compiled only where the ISA is, see kernels_neon/CMakeLists.txt).
 * AVX-512 gets the AVX2 rows: these rows are bound by memory, not by vector width. */
#include "lite_kernels/cpu_features.h"
#include "lite_kernels/elementwise_binary.h"
#include "lite_kernels/f32_vbinary.h"

int lite_f32_vbinary_supports(int op) {
  return op == LITE_BIN_ADD || op == LITE_BIN_SUB || op == LITE_BIN_MUL || op == LITE_BIN_DIV ||
         op == LITE_BIN_PRELU;
}

lite_f32_vbinary_fn lite_f32_vbinary_select(uint32_t features) {
#if defined(__x86_64__)
  if (features & LITE_CPU_X86_AVX2) return lite_f32_vbinary_avx2;
#elif defined(__aarch64__)
  if (LITE_CPU_HAS_NEON(features)) return lite_f32_vbinary_aarch64_neon;
#elif defined(__arm__) && defined(__ARM_NEON)
  if (features & LITE_CPU_ARM_NEON) return lite_f32_vbinary_armv7_neon;
#endif
  (void)features;
  return lite_f32_vbinary_portable;
}

const char* lite_f32_vbinary_name(lite_f32_vbinary_fn fn) {
#if defined(__x86_64__)
  if (fn == lite_f32_vbinary_avx2) return "f32_vbinary_avx2";
#elif defined(__aarch64__)
  if (fn == lite_f32_vbinary_aarch64_neon) return "f32_vbinary_aarch64_neon";
#elif defined(__arm__) && defined(__ARM_NEON)
  if (fn == lite_f32_vbinary_armv7_neon) return "f32_vbinary_armv7_neon";
#endif
  return fn == lite_f32_vbinary_portable ? "f32_vbinary_portable" : "unknown";
}
