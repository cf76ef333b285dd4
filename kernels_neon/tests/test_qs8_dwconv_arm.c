/* The NEON int8 depthwise kernel (aarch64 / armv7, the shared packed layout of qs8_dwconv.h) against
 * lite_qs8_conv2d_nhwc_ref, byte for byte: 3x3 (the row-paired layout), 5x5, 1x7, 2x2 kernels,
 * strides 1, 2 and 2x1, dilation, pads, channel counts around the 16-channel step and the 32-channel
 * block, zero points at the extremes, multipliers on both sides of 1/2, every clamp, row ranges as
 * threads split them; and the ARM selection. Called directly: x86 builds skip it. */
#include <stdlib.h>
#include <string.h>

#include "kernel_test_cpu.h"
#include "lite_kernels/cpu_features.h"
#include "lite_kernels/qs8_conv2d_fully_connected.h"
#include "lite_kernels/qs8_dwconv.h"
#include "lite_kernels/requantize.h"

#if defined(__aarch64__) || defined(__arm__)
#include "../arm/qs8_dwconv_ukernels_arm.h"

static int dw_case(lite_qs8_dwconv_fn fn, kt_rng* rng, size_t c, size_t kh, size_t kw, size_t stride_h,
                   size_t stride_w, size_t dilation, size_t pad, int32_t zp_in, int32_t zp_out, int32_t act_min,
                   int32_t act_max, int32_t w_min) {
  lite_conv2d_params p = {0};
  p.batch = 2;
  p.in_h = (size_t)kt_rand_int(rng, 1, 9);
  p.in_w = (size_t)kt_rand_int(rng, 1, 21);
  p.in_c = p.out_c = p.groups = c;
  p.kernel_h = kh;
  p.kernel_w = kw;
  p.stride_h = stride_h;
  p.stride_w = stride_w;
  p.dilation_h = p.dilation_w = dilation;
  p.pad_top = pad;
  p.pad_left = pad > 0 ? pad - 1 : 0;
  const size_t ekh = (kh - 1) * dilation + 1, ekw = (kw - 1) * dilation + 1;
  const size_t padded_h = p.in_h + 2 * pad, padded_w = p.in_w + 2 * pad;
  if (padded_h < ekh || padded_w < ekw) return 1; /* the kernel does not fit: not a convolution */
  p.out_h = (padded_h - ekh) / stride_h + 1;
  p.out_w = (padded_w - ekw) / stride_w + 1;
  const size_t in_n = p.batch * p.in_h * p.in_w * c, out_n = p.batch * p.out_h * p.out_w * c, taps = kh * kw;
  int8_t* x = malloc(in_n); /* its own allocation: the last pixel's channels end it */
  int8_t* w = malloc(c * taps);
  int32_t* bias = malloc(c * sizeof(int32_t));
  int32_t* mult = malloc(c * sizeof(int32_t));
  int32_t* shift = malloc(c * sizeof(int32_t));
  int8_t* ref = malloc(out_n);
  int8_t* out = malloc(out_n);
  void* packed = malloc(lite_qs8_dwconv_packed_size(&p));
  kt_fill_int8(rng, x, in_n, -128, 127);
  kt_fill_int8(rng, w, c * taps, w_min, 127);
  for (size_t j = 0; j < c; ++j) {
    bias[j] = kt_rand_int(rng, -(1 << 16), 1 << 16);
    int s = 1;
    lite_quantize_multiplier(ldexp(kt_rand_uniform(rng, 0.5f, 1.0f), -kt_rand_int(rng, c % 2 ? -3 : 6, 16)), &mult[j],
                             &s);
    shift[j] = s;
  }
  const lite_qs8_requant_params rq = {zp_in, zp_out, act_min, act_max, mult, shift};
  lite_qs8_conv2d_nhwc_ref(&p, &rq, x, w, bias, ref);
  lite_qs8_dwconv_pack(&p, w, bias, zp_in, mult, shift, packed);
  const lite_qs8_gemm_params params = {zp_out, act_min, act_max};
  const size_t rows = p.batch * p.out_h;
  for (size_t r0 = 0; r0 < rows; r0 += 3) fn(&p, packed, &params, x, out, r0, r0 + 3 < rows ? r0 + 3 : rows);
  size_t inside = 0;
  for (size_t i = 0; i < out_n; ++i) inside += ref[i] > act_min && ref[i] < act_max;
  const int ok = memcmp(out, ref, out_n) == 0;
  if (!ok)
    fprintf(stderr, "c=%zu k=%zux%zu s=%zux%zu d=%zu pad=%zu in %zux%zu zp %d/%d clamp [%d,%d] differs\n", c, kh, kw,
            stride_h, stride_w, dilation, pad, p.in_h, p.in_w, zp_in, zp_out, act_min, act_max);
  free(x);
  free(w);
  free(bias);
  free(mult);
  free(shift);
  free(ref);
  free(out);
  free(packed);
  return ok ? 1 + (inside > 0) : 0; /* 2: equal with some unclamped outputs */
}

/* Every kernel size the 3x3 kernels (aarch64, armv7) are chosen for and others; weights over the
 * whole int8 range (most 16-channel steps hold a -128: the kernels' unpaired paths) or symmetric
 * [-127, 127] (their int16-paired paths) when `variant` is odd; variant also seeds the data. */
static void run_dw_tests(lite_qs8_dwconv_fn fn, const char* name, const size_t (*kernels)[2], size_t kernel_count,
                         int variant) {
  kt_rng rng = kt_rng_make(20261121u + 7919u * (uint32_t)variant);
  const size_t channels[] = {1, 7, 16, 17, 31, 32, 33, 48, 96, 144};
  const int32_t zps[] = {-128, 127, 0, -3};
  const int32_t clamps[][2] = {{-128, 127}, {-5, 127}, {-128, 60}, {9, 9}};
  size_t cases = 0, passed = 0, unclamped = 0;
  for (size_t ci = 0; ci < sizeof(channels) / sizeof(channels[0]); ++ci)
    for (size_t ki = 0; ki < kernel_count; ++ki)
      for (size_t stride = 1; stride <= 3; ++stride) {
        const size_t v = ci + ki + stride, stride_h = stride == 3 ? 2 : stride, stride_w = stride == 3 ? 1 : stride;
        const int r = dw_case(fn, &rng, channels[ci], kernels[ki][0], kernels[ki][1], stride_h, stride_w,
                              v % 5 == 0 ? 2 : 1, v % 3, zps[v % 4], zps[(v + 1) % 4], clamps[v % 4][0],
                              clamps[v % 4][1], (variant & 1) ? -127 : -128);
        ++cases;
        passed += r != 0;
        unclamped += r == 2;
      }
  char what[200];
  snprintf(what, sizeof(what), "%s (%s weights): %zu of %zu depthwise convolutions equal the reference (%zu not all "
           "clamped)", name, (variant & 1) ? "symmetric" : "full-range", passed, cases, unclamped);
  kt_record(passed == cases && unclamped > cases / 2, __FILE__, __LINE__, what);
}
#endif

int main(void) {
#if defined(__aarch64__) || defined(__arm__)
  const uint32_t detected = lite_cpu_features_detected();
  lite_conv2d_params probe = {0};
  probe.in_c = probe.out_c = probe.groups = 8;
  probe.kernel_h = probe.kernel_w = 3;
  probe.stride_h = probe.stride_w = probe.dilation_h = probe.dilation_w = 1;
  if (!kt_cpu_has(LITE_CPU_ARM_NEON, "qs8_dwconv_neon")) {
    KT_CHECK(lite_qs8_dwconv_select(detected, &probe) == NULL);
  } else {
    const size_t all_kernels[][2] = {{3, 3}, {5, 5}, {1, 7}, {2, 2}};
#if defined(__aarch64__)
    const size_t only_3x3[][2] = {{3, 3}};
    KT_CHECK(lite_qs8_dwconv_select(detected, &probe) == lite_qs8_dwconv_3x3_aarch64_neon);
    probe.kernel_w = 5;
    KT_CHECK(lite_qs8_dwconv_select(detected, &probe) == lite_qs8_dwconv_aarch64_neon);
    probe.kernel_w = 3;
    for (int variant = 0; variant < 2; ++variant) /* the int16-paired path (symmetric) and the -128 one */
      run_dw_tests(lite_qs8_dwconv_aarch64_neon, "qs8_dwconv_aarch64_neon", all_kernels, 4, variant);
    for (int variant = 0; variant < 6; ++variant)
      run_dw_tests(lite_qs8_dwconv_3x3_aarch64_neon, "qs8_dwconv_3x3_aarch64_neon", only_3x3, 1, variant);
#else
    const size_t only_3x3[][2] = {{3, 3}};
    KT_CHECK(lite_qs8_dwconv_select(detected, &probe) == lite_qs8_dwconv_3x3_armv7_neon);
    probe.kernel_w = 5;
    KT_CHECK(lite_qs8_dwconv_select(detected, &probe) == lite_qs8_dwconv_armv7_neon);
    probe.kernel_w = 3;
    for (int variant = 0; variant < 2; ++variant) /* the int16-paired path (symmetric) and the -128 one */
      run_dw_tests(lite_qs8_dwconv_armv7_neon, "qs8_dwconv_armv7_neon", all_kernels, 4, variant);
    for (int variant = 0; variant < 6; ++variant)
      run_dw_tests(lite_qs8_dwconv_3x3_armv7_neon, "qs8_dwconv_3x3_armv7_neon", only_3x3, 1, variant);
#endif
  }
  KT_CHECK(lite_qs8_dwconv_select(0, &probe) == NULL);
#else
  kt_skip("not an ARM build");
#endif
  return kt_finish();
}
