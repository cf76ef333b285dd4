/* Depthwise convolution: weight packing, applicability, and the run-time choice of variant. A
 * variant is compiled only for the architecture that runs it (kernels_neon/CMakeLists.txt picks the
 * files by name), so the preprocessor guards here mirror that choice. */
#include "lite_kernels/cpu_features.h"
#include "lite_kernels/f32_dwconv.h"

int lite_f32_dwconv_applies(const lite_conv2d_params* p) {
  return p->groups == p->in_c && p->out_c == p->in_c && p->in_c > 0 && p->kernel_h > 0 && p->kernel_w > 0 &&
         p->stride_h > 0 && p->stride_w > 0 && p->dilation_h > 0 && p->dilation_w > 0;
}

size_t lite_f32_dwconv_packed_weight_size(const lite_conv2d_params* p) { return p->kernel_h * p->kernel_w * p->in_c; }

void lite_f32_dwconv_pack_weight(const lite_conv2d_params* p, const float* weight, float* packed) {
  const size_t taps = p->kernel_h * p->kernel_w, C = p->in_c;
  for (size_t c = 0; c < C; ++c)
    for (size_t t = 0; t < taps; ++t) packed[t * C + c] = weight[c * taps + t];
}

lite_f32_dwconv_fn lite_f32_dwconv_select(void) {
  const uint32_t f = lite_cpu_features();
#if defined(__x86_64__)
  if (f & LITE_CPU_X86_AVX512) return lite_f32_dwconv_nhwc_avx512;
  if (f & LITE_CPU_X86_AVX2) return lite_f32_dwconv_nhwc_avx2;
#elif defined(__aarch64__)
  if (LITE_CPU_HAS_NEON(f)) return lite_f32_dwconv_nhwc_aarch64_neonfma;
#elif defined(__arm__)
  if (f & LITE_CPU_ARM_NEON) return lite_f32_dwconv_nhwc_armv7_neonfma;
#endif
  (void)f;
  return lite_f32_dwconv_nhwc_portable;
}

lite_f32_dwconv_fn lite_f32_dwconv_select_for(size_t channels) {
  const lite_f32_dwconv_fn best = lite_f32_dwconv_select();
#if defined(__x86_64__)
  if (best == lite_f32_dwconv_nhwc_avx512 && channels % 16 > channels % 8) return lite_f32_dwconv_nhwc_avx2;
#endif
  (void)channels;
  return best;
}

const char* lite_f32_dwconv_selected_name(void) {
  const lite_f32_dwconv_fn fn = lite_f32_dwconv_select();
#if defined(__x86_64__)
  if (fn == lite_f32_dwconv_nhwc_avx512) return "avx512";
  if (fn == lite_f32_dwconv_nhwc_avx2) return "avx2";
#elif defined(__aarch64__)
  if (fn == lite_f32_dwconv_nhwc_aarch64_neonfma) return "neonfma";
#elif defined(__arm__)
  if (fn == lite_f32_dwconv_nhwc_armv7_neonfma) return "neonfma";
#endif
  (void)fn;
  return "portable";
}
