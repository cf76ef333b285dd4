/* Selection of the fast int8 depthwise kernel (qs8_dwconv.h) from CPU features and the geometry: the
 * one place that maps them to a variant. NULL: no fast kernel, the reference runs. */
#include "lite_kernels/cpu_features.h"
#include "lite_kernels/qs8_dwconv.h"

#if defined(__aarch64__) || defined(__arm__)
#include "../arm/qs8_dwconv_ukernels_arm.h"
#endif

lite_qs8_dwconv_fn lite_qs8_dwconv_select(uint32_t features, const lite_conv2d_params* p) {
#if defined(__x86_64__)
  const int k3 = p->kernel_h == 3 && p->kernel_w == 3 && p->dilation_w == 1;
  const int k5s1 = p->kernel_h == 5 && p->kernel_w == 5 && p->dilation_w == 1 && p->stride_w == 1;
  const int vnni = (features & LITE_CPU_X86_AVX512) && (features & LITE_CPU_X86_AVX512VNNI);
  if (vnni && k3 && p->stride_w <= 2)
    return p->stride_w == 1 ? lite_qs8_dwconv_3x3s1_avx512vnni : lite_qs8_dwconv_3x3s2_avx512vnni;
  if (vnni && k5s1) return lite_qs8_dwconv_5x5s1_avx512vnni;
  if (features & LITE_CPU_X86_AVX512) return lite_qs8_dwconv_avx512;
  if (features & LITE_CPU_X86_AVX2) return lite_qs8_dwconv_avx2;
#elif defined(__aarch64__)
  /* NEON takes every geometry the packed layout does (smlal needs no extension); 3x3 kernels run
   * their own kernel (int8 taps in registers). */
  if (features & LITE_CPU_ARM_NEON)
    return p->kernel_h == 3 && p->kernel_w == 3 ? lite_qs8_dwconv_3x3_aarch64_neon : lite_qs8_dwconv_aarch64_neon;
#elif defined(__arm__)
  if (features & LITE_CPU_ARM_NEON)
    return p->kernel_h == 3 && p->kernel_w == 3 ? lite_qs8_dwconv_3x3_armv7_neon : lite_qs8_dwconv_armv7_neon;
#endif
  (void)features;
  (void)p;
  return NULL;
}
