/* Fast int8 depthwise convolution against lite_qs8_conv2d_nhwc_ref (groups == channels), byte for
 * byte: 3x3 / 5x5 / 1x7 / 2x2 kernels, strides 1, 2 and 2x1, dilation, asymmetric pads, channel counts
 * around the 32-channel block (16-channel tails: 16, 48, 144), zero points at the extremes,
 * per-channel multipliers (odd counts: some >= 0.5, off the narrow epilogue), every clamp, and the
 * output computed in row ranges as threads split it; every variant the CPU runs (the VNNI 3x3
 * stride-1 and stride-2 and 5x5 stride-1 kernels, the generic AVX-512 and AVX2 ones). Skipped where no fast kernel
 * exists. */
#include <stdlib.h>
#include <string.h>

#include "kernel_test_cpu.h"
#include "lite_kernels/cpu_features.h"
#include "lite_kernels/qs8_conv2d_fully_connected.h"
#include "lite_kernels/qs8_dwconv.h"
#include "lite_kernels/requantize.h"

/* Returns 1 when the kernel `features` select equals the reference (or when none applies). */
static int dw_case(uint32_t features, kt_rng* rng, size_t c, size_t kh, size_t kw, size_t stride_h, size_t stride_w,
                   size_t dilation, size_t pad, int32_t zp_in, int32_t zp_out, int32_t act_min, int32_t act_max) {
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
  if (padded_h < ekh || padded_w < ekw) return 1; /* kernel does not fit: not a convolution */
  p.out_h = (padded_h - ekh) / stride_h + 1;
  p.out_w = (padded_w - ekw) / stride_w + 1;
  const lite_qs8_dwconv_fn fn = lite_qs8_dwconv_select(features, &p);
  if (fn == NULL) return 1;
  const size_t in_n = p.batch * p.in_h * p.in_w * c, out_n = p.batch * p.out_h * p.out_w * c, taps = kh * kw;
  int8_t* x = malloc(in_n);
  int8_t* w = malloc(c * taps);
  int32_t* bias = malloc(c * sizeof(int32_t));
  int32_t* mult = malloc(c * sizeof(int32_t));
  int32_t* shift = malloc(c * sizeof(int32_t));
  int8_t* ref = malloc(out_n);
  int8_t* out = malloc(out_n);
  void* packed = malloc(lite_qs8_dwconv_packed_size(&p));
  kt_fill_int8(rng, x, in_n, -128, 127);
  kt_fill_int8(rng, w, c * taps, -128, 127);
  for (size_t j = 0; j < c; ++j) {
    bias[j] = kt_rand_int(rng, -(1 << 16), 1 << 16);
    int s = 1;
    /* odd channel counts: some real multipliers >= 0.5 (shift < 32: the kernels' wide epilogue) */
    const int wide = (int)(c % 2);
    lite_quantize_multiplier(ldexp(kt_rand_uniform(rng, 0.5f, 1.0f), -kt_rand_int(rng, wide ? -3 : 1, 14)), &mult[j],
                             &s);
    shift[j] = s;
  }
  const lite_qs8_requant_params rq = {zp_in, zp_out, act_min, act_max, mult, shift};
  lite_qs8_conv2d_nhwc_ref(&p, &rq, x, w, bias, ref);
  lite_qs8_dwconv_pack(&p, w, bias, zp_in, mult, shift, packed);
  const lite_qs8_gemm_params params = {zp_out, act_min, act_max};
  const size_t rows = p.batch * p.out_h;
  for (size_t r0 = 0; r0 < rows; r0 += 3) fn(&p, packed, &params, x, out, r0, r0 + 3 < rows ? r0 + 3 : rows);
  const int ok = memcmp(out, ref, out_n) == 0;
  if (!ok)
    fprintf(stderr, "features %#x c=%zu k=%zux%zu s=%zux%zu d=%zu pad=%zu in %zux%zu zp %d/%d clamp [%d,%d] differs\n",
            features, c, kh, kw, stride_h, stride_w, dilation, pad, p.in_h, p.in_w, zp_in, zp_out, act_min, act_max);
  free(x);
  free(w);
  free(bias);
  free(mult);
  free(shift);
  free(ref);
  free(out);
  free(packed);
  return ok;
}

int main(void) {
  const uint32_t detected = lite_cpu_features_detected();
  lite_conv2d_params probe = {0};
  probe.in_c = probe.out_c = probe.groups = 8;
  probe.kernel_h = probe.kernel_w = 3;
  probe.stride_h = probe.stride_w = probe.dilation_h = probe.dilation_w = 1;
  if (lite_qs8_dwconv_select(detected, &probe) == NULL) {
    kt_skip("no fast int8 depthwise kernel on this CPU / build");
    return kt_finish();
  }
#if defined(__x86_64__)
  kt_cpu_has(LITE_CPU_X86_AVX512, "qs8_dwconv_avx512"); /* declared: each runs below where the CPU has it */
  kt_cpu_has(LITE_CPU_X86_AVX512 | LITE_CPU_X86_AVX512VNNI, "qs8_dwconv_3x3_avx512vnni");
  kt_cpu_has(LITE_CPU_X86_AVX512 | LITE_CPU_X86_AVX512VNNI, "qs8_dwconv_5x5s1_avx512vnni");
#endif
  /* every variant this CPU can run: all features, without VNNI (the generic AVX-512 kernel), AVX2 only */
  const uint32_t feature_sets[3] = {detected, detected & ~(uint32_t)LITE_CPU_X86_AVX512VNNI,
                                    detected & ~(uint32_t)(LITE_CPU_X86_AVX512 | LITE_CPU_X86_AVX512VNNI)};
  kt_rng rng = kt_rng_make(20261121u);
  const size_t channels[] = {1, 7, 16, 31, 32, 33, 48, 64, 96, 144};
  const size_t kernels[][2] = {{3, 3}, {5, 5}, {1, 7}, {2, 2}};
  const int32_t zps[] = {-128, 127, 0, -3};
  const int32_t clamps[][2] = {{-128, 127}, {-5, 127}, {-128, 60}, {9, 9}};
  for (size_t f = 0; f < 3; ++f) {
    size_t cases = 0, passed = 0;
    for (size_t ci = 0; ci < sizeof(channels) / sizeof(channels[0]); ++ci)
      for (size_t ki = 0; ki < 4; ++ki)
        for (size_t stride = 1; stride <= 3; ++stride) {
          /* stride 3 stands for stride_h 2 with stride_w 1 */
          const size_t v = ci + ki + stride, stride_h = stride == 3 ? 2 : stride, stride_w = stride == 3 ? 1 : stride;
          const size_t dilation = v % 5 == 0 ? 2 : 1, pad = v % 3;
          ++cases;
          passed += (size_t)dw_case(feature_sets[f], &rng, channels[ci], kernels[ki][0], kernels[ki][1], stride_h,
                                    stride_w, dilation, pad, zps[v % 4], zps[(v + 1) % 4], clamps[v % 4][0],
                                    clamps[v % 4][1]);
        }
    char what[160];
    snprintf(what, sizeof(what), "features %#x: %zu of %zu depthwise convolutions equal the reference",
             feature_sets[f], passed, cases);
    kt_record(passed == cases, __FILE__, __LINE__, what);
  }
  { /* 5x5 along W at stride 1 (the PP-LCNet layers): more pads, heights and row strides than above */
    size_t cases = 0, passed = 0;
    for (size_t ci = 0; ci < sizeof(channels) / sizeof(channels[0]); ++ci)
      for (size_t pad = 0; pad <= 3; ++pad)
        for (size_t stride_h = 1; stride_h <= 2; ++stride_h) {
          const size_t v = ci + pad + stride_h;
          ++cases;
          passed += (size_t)dw_case(detected, &rng, channels[ci], 5, 5, stride_h, 1, 1, pad, zps[v % 4],
                                    zps[(v + 1) % 4], clamps[v % 4][0], clamps[v % 4][1]);
        }
    char what[160];
    snprintf(what, sizeof(what), "5x5 stride_w 1: %zu of %zu depthwise convolutions equal the reference", passed,
             cases);
    kt_record(passed == cases, __FILE__, __LINE__, what);
  }
#if defined(__x86_64__)
  if (detected & LITE_CPU_X86_AVX512VNNI) {
    KT_CHECK(lite_qs8_dwconv_select(detected, &probe) == lite_qs8_dwconv_3x3s1_avx512vnni);
    probe.stride_w = 2;
    KT_CHECK(lite_qs8_dwconv_select(detected, &probe) == lite_qs8_dwconv_3x3s2_avx512vnni);
    probe.kernel_h = probe.kernel_w = 5;
    KT_CHECK(lite_qs8_dwconv_select(detected, &probe) == lite_qs8_dwconv_avx512); /* 5x5 stride_w 2 */
    probe.stride_w = 1;
    KT_CHECK(lite_qs8_dwconv_select(detected, &probe) == lite_qs8_dwconv_5x5s1_avx512vnni);
  }
#endif
  lite_conv2d_params p = {0};
  p.in_c = p.out_c = p.groups = 8;
  p.kernel_h = p.kernel_w = 9;
  KT_CHECK(!lite_qs8_dwconv_applies(&p, NULL)); /* 81 taps > LITE_QS8_DWCONV_MAX_TAPS */
  return kt_finish();
}
