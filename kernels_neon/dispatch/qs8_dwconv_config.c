/* Selection of the fast int8 depthwise kernel (qs8_dwconv.h) from CPU features and the geometry;
 * ARM selection is delegated to qs8_config_arm.c (lite_qs8_dwconv_select_arm) when that file is in
 * the tree (the same __has_include rule as qs8_config.c). */
#include "lite_kernels/cpu_features.h"
#include "lite_kernels/qs8_dwconv.h"

#if (defined(__aarch64__) || defined(__arm__)) && defined(__has_include)
#if __has_include("qs8_config_arm.c")
#define LITE_QS8_HAVE_ARM_DWCONV 1
lite_qs8_dwconv_fn lite_qs8_dwconv_select_arm(uint32_t features, const lite_conv2d_params* p);
#endif
#endif

lite_qs8_dwconv_fn lite_qs8_dwconv_select(uint32_t features, const lite_conv2d_params* p) {
#if defined(__x86_64__)
  const int k3 = p->kernel_h == 3 && p->kernel_w == 3 && p->dilation_w == 1;
  if ((features & LITE_CPU_X86_AVX512) && (features & LITE_CPU_X86_AVX512VNNI) && k3 && p->stride_w <= 2)
    return p->stride_w == 1 ? lite_qs8_dwconv_3x3s1_avx512vnni : lite_qs8_dwconv_3x3s2_avx512vnni;
  if (features & LITE_CPU_X86_AVX512) return lite_qs8_dwconv_avx512;
  if (features & LITE_CPU_X86_AVX2) return lite_qs8_dwconv_avx2;
#elif defined(LITE_QS8_HAVE_ARM_DWCONV)
  return lite_qs8_dwconv_select_arm(features, p);
#endif
  (void)features;
  (void)p;
  return NULL;
}
