/* Depthwise convolution variants (portable, AVX2, AVX-512, NEON) against the reference direct
 * convolution lite_f32_conv2d_nhwc_ref (the oracle): specialized 3x3/5x5 stride 1/2 bodies and the
 * generic body (other kernels, strides, dilations), odd/non-square/1-pixel images, symmetric,
 * asymmetric and "larger than the kernel" padding, channel counts around every vector width, every
 * fused activation incl. per-channel PReLU, batch > 1; a 29-pixel-wide image runs several groups
 * of the interior pixel loop (4 pixels for 3x3, 2 for 5x5) and its remainder, on edge rows too;
 * 3x3 layers of widths 1..9 with 0..2 padded rows/columns per side cover the aarch64 3x3 rows
 * (row pairs, top/bottom rows, edge pixels, fallbacks).
 *
 * Tolerance: |out - ref| <= 1e-5 * max(1, max|ref|) per case. Inputs/weights/bias are uniform in
 * [-1, 1), so a 25-tap sum is O(5) and FMA-vs-separate rounding differs by a few ulp of that.
 * Also checked: rows computed in pieces (as threads split them) are bit-identical to one call, and
 * nothing is written outside the output. A variant the CPU cannot run is skipped. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lite_kernels/conv2d.h"
#include "lite_kernels/cpu_features.h"
#include "lite_kernels/f32_dwconv.h"
#include "kernel_test_cpu.h"

static kt_rng g_rng = {2024u};
static unsigned next_u(void) { return (unsigned)(kt_rand_u64(&g_rng) >> 33); }
static float rand_unit(void) { return kt_rand_uniform(&g_rng, -1.0f, 1.0f); }

typedef struct {
  const char* name;
  lite_f32_dwconv_fn fn;
  uint32_t needs; /* LITE_CPU_* features the variant runs on */
} variant;

/* Runs one case on one variant; returns 1 when it matches the oracle. */
static int run_case(const variant* v, const lite_conv2d_params* p, int act_kind, int with_bias) {
  const size_t C = p->in_c, taps = p->kernel_h * p->kernel_w;
  const size_t in_n = p->batch * p->in_h * p->in_w * C, out_n = p->batch * p->out_h * p->out_w * C;
  const size_t guard = 19;
  float* in = malloc(sizeof(float) * (in_n + 1));
  float* w = malloc(sizeof(float) * (taps * C + 1));
  float* bias = malloc(sizeof(float) * (C + 1));
  float* slope = malloc(sizeof(float) * (C + 1));
  float* ref_packed = malloc(sizeof(float) * (taps * C + 1));
  float* packed = malloc(sizeof(float) * (taps * C + 1));
  float* ref = malloc(sizeof(float) * (out_n + 1));
  float* out = malloc(sizeof(float) * (out_n + guard));
  float* split = malloc(sizeof(float) * (out_n + 1));
  for (size_t i = 0; i < in_n; ++i) in[i] = rand_unit();
  for (size_t i = 0; i < taps * C; ++i) w[i] = rand_unit();
  for (size_t i = 0; i < C; ++i) {
    bias[i] = rand_unit();
    slope[i] = 0.3f * rand_unit();
  }
  lite_activation act = {act_kind, 0.2f, 0.6f, slope};
  if (act_kind == LITE_ACT_CLIP) act.alpha = -0.4f;
  const float* b = with_bias ? bias : NULL;
  lite_f32_conv2d_pack_weight_ref(p, w, ref_packed);
  lite_f32_dwconv_pack_weight(p, w, packed);
  lite_f32_conv2d_nhwc_ref(p, in, ref_packed, b, &act, ref);
  for (size_t i = 0; i < out_n + guard; ++i) out[i] = 12345.0f;
  const size_t rows = p->batch * p->out_h;
  v->fn(p, in, packed, b, &act, out, 0, rows);
  /* rows in uneven pieces */
  for (size_t r0 = 0, step = 1; r0 < rows; r0 += step, step = step % 3 + 1)
    v->fn(p, in, packed, b, &act, split, r0, r0 + step < rows ? r0 + step : rows);
  float max_ref = 1.0f, max_err = 0.0f;
  for (size_t i = 0; i < out_n; ++i) {
    if (fabsf(ref[i]) > max_ref) max_ref = fabsf(ref[i]);
    const float e = fabsf(out[i] - ref[i]);
    if (!(e <= max_err)) max_err = isnan(e) ? INFINITY : e;
  }
  int ok = max_err <= 1e-5f * max_ref;
  for (size_t i = out_n; i < out_n + guard; ++i) ok &= out[i] == 12345.0f;
  ok &= memcmp(out, split, sizeof(float) * out_n) == 0;
  if (!ok)
    fprintf(stderr,
            "FAIL %s: n%zu %zux%zux%zu k%zux%zu s%zux%zu d%zux%zu pad t%zu l%zu -> %zux%zu act %d bias %d: "
            "max err %g (max |ref| %g)\n",
            v->name, p->batch, p->in_h, p->in_w, C, p->kernel_h, p->kernel_w, p->stride_h, p->stride_w,
            p->dilation_h, p->dilation_w, p->pad_top, p->pad_left, p->out_h, p->out_w, act_kind, with_bias,
            (double)max_err, (double)max_ref);
  free(in), free(w), free(bias), free(slope), free(ref_packed), free(packed), free(ref), free(out), free(split);
  return ok;
}

/* Builds the params of a depthwise convolution; returns 0 when the window does not fit. */
static int make_params(lite_conv2d_params* p, size_t n, size_t h, size_t w, size_t c, size_t kh, size_t kw, size_t sh,
                       size_t sw, size_t dh, size_t dw, size_t pt, size_t pl, size_t pb, size_t pr) {
  memset(p, 0, sizeof(*p));
  const size_t eh = (kh - 1) * dh + 1, ew = (kw - 1) * dw + 1;
  if (h + pt + pb < eh || w + pl + pr < ew) return 0;
  p->batch = n, p->in_h = h, p->in_w = w, p->in_c = c, p->out_c = c, p->groups = c;
  p->kernel_h = kh, p->kernel_w = kw, p->stride_h = sh, p->stride_w = sw, p->dilation_h = dh, p->dilation_w = dw;
  p->pad_top = pt, p->pad_left = pl;
  p->out_h = (h + pt + pb - eh) / sh + 1;
  p->out_w = (w + pl + pr - ew) / sw + 1;
  return 1;
}

static void check(const variant* v, const lite_conv2d_params* p, int act_kind, int with_bias) {
  kt_record(run_case(v, p, act_kind, with_bias), __FILE__, __LINE__, "depthwise case (details above)");
}

static void run_variant(const variant* v) {
  lite_conv2d_params p;
  /* The specialized shapes with "same" and "valid" padding, every activation, channels around the
   * vector widths (1..33), odd and non-square images incl. 1 pixel. */
  static const size_t channels[] = {1, 3, 4, 5, 8, 12, 16, 17, 24, 31, 32, 33};
  static const size_t sizes[][2] = {{1, 1}, {2, 3}, {5, 5}, {7, 4}, {6, 9}, {13, 11}, {5, 29}};
  for (size_t k = 3; k <= 5; k += 2)
    for (size_t s = 1; s <= 2; ++s)
      for (size_t ci = 0; ci < sizeof(channels) / sizeof(channels[0]); ++ci)
        for (size_t si = 0; si < sizeof(sizes) / sizeof(sizes[0]); ++si)
          for (int pad = 0; pad < 3; ++pad) {
            const size_t h = sizes[si][0], w = sizes[si][1], half = k / 2;
            const size_t pt = pad == 0 ? 0 : (pad == 1 ? half : 1), pl = pad == 0 ? 0 : (pad == 1 ? half : 0);
            const size_t pb = pad == 0 ? 0 : (pad == 1 ? half : k), pr = pad == 0 ? 0 : (pad == 1 ? half : 2);
            if (!make_params(&p, 1, h, w, channels[ci], k, k, s, s, 1, 1, pt, pl, pb, pr)) continue;
            const int act = (int)((ci + si + (size_t)pad) % 10);
            check(v, &p, act, (int)(ci & 1) || pad);
          }
  /* every activation on the four specialized bodies */
  for (int act = 0; act <= 9; ++act)
    for (size_t k = 3; k <= 5; k += 2)
      for (size_t s = 1; s <= 2; ++s)
        if (make_params(&p, 2, 9, 8, 19, k, k, s, s, 1, 1, k / 2, k / 2, k / 2, k / 2)) check(v, &p, act, 1);
  /* 3x3 stride 1 and 2 around the row-pair / pixel-group / edge-pixel blocks of the aarch64 body:
   * widths 1..9 (groups of 4 and their remainders), heights giving 3-, 2- and 1-row blocks, 0..2
   * padded rows and columns on each side (2 padded columns or rows take the fallback paths), batch 2
   * (pairs never span two images), channels with and without a tail. */
  static const size_t dw3_heights[] = {1, 2, 3, 5, 6, 7, 8};
  static const size_t dw3_channels[] = {4, 12, 6};
  for (size_t s = 1; s <= 2; ++s)
    for (size_t hi = 0; hi < sizeof(dw3_heights) / sizeof(dw3_heights[0]); ++hi)
      for (size_t w = 1; w <= 9; ++w)
        for (size_t ci = 0; ci < sizeof(dw3_channels) / sizeof(dw3_channels[0]); ++ci)
          for (size_t pads = 0; pads < 54; ++pads) {
            const size_t pt = pads % 3, pb = pads / 3 % 3, pl = pads / 9 % 2, pr = pads / 18;
            if (ci == 2 && pads % 5 != 0) continue; /* the tail channels take the shared body: a sample */
            if (!make_params(&p, 1 + (w + hi) % 2, dw3_heights[hi], w, dw3_channels[ci], 3, 3, s, s, 1, 1, pt, pl,
                             pb, pr))
              continue;
            const int act = pads % 3 == 0 ? LITE_ACT_CLIP : (int)((w + pads) % 10);
            check(v, &p, act, (int)((pads + w) % 4 != 0));
          }
  /* stride-1 rows of 15..18 pixels around the shared body's narrow-row threshold (<= 16 output pixels:
   * every pixel in checked groups of 4, 2, 1; wider: border pairs around the interior groups), with
   * "same" and one-sided padding */
  for (size_t k = 3; k <= 5; k += 2)
    for (size_t w = 15; w <= 18; ++w)
      for (int pad = 0; pad < 2; ++pad)
        if (make_params(&p, 1, 4, w, 20, k, k, 1, 1, 1, 1, k / 2, pad ? 0 : k / 2, k / 2, pad ? k - 1 : k / 2))
          check(v, &p, (int)((w + k) % 10), pad);
  /* rows wider than the aarch64 body's row of zeros (in_w * C > 16384): padded rows fall back */
  for (size_t s = 1; s <= 2; ++s)
    for (size_t h = 3; h <= 8; h += 5)
      if (make_params(&p, 1, h, 130, 128, 3, 3, s, s, 1, 1, 1, 1, 1, 1)) check(v, &p, LITE_ACT_CLIP, 1);
  /* generic body: random kernels, strides, dilations and pads */
  for (int i = 0; i < 400; ++i) {
    const size_t kh = 1 + next_u() % 7, kw = 1 + next_u() % 7, sh = 1 + next_u() % 3, sw = 1 + next_u() % 3;
    const size_t dh = 1 + next_u() % 2, dw = 1 + next_u() % 2;
    const size_t h = 1 + next_u() % 12, w = 1 + next_u() % 12, c = 1 + next_u() % 40;
    const size_t pt = next_u() % 4, pl = next_u() % 4, pb = next_u() % 4, pr = next_u() % 4;
    if (!make_params(&p, 1 + next_u() % 2, h, w, c, kh, kw, sh, sw, dh, dw, pt, pl, pb, pr)) continue;
    check(v, &p, (int)(next_u() % 10), (int)(next_u() & 1));
  }
}

int main(void) {
  const uint32_t f = lite_cpu_features();
  variant variants[] = {
      {"portable", lite_f32_dwconv_nhwc_portable, 0},
#if defined(__x86_64__)
      {"avx2", lite_f32_dwconv_nhwc_avx2, LITE_CPU_X86_AVX2},
      {"avx512", lite_f32_dwconv_nhwc_avx512, LITE_CPU_X86_AVX512},
#elif defined(__aarch64__)
      {"aarch64_neonfma", lite_f32_dwconv_nhwc_aarch64_neonfma, LITE_CPU_ARM_NEON},
#elif defined(__arm__)
      {"armv7_neonfma", lite_f32_dwconv_nhwc_armv7_neonfma, LITE_CPU_ARM_NEON},
#endif
  };
  (void)f;
  for (size_t i = 0; i < sizeof(variants) / sizeof(variants[0]); ++i) {
    char variant_name[64];
    snprintf(variant_name, sizeof(variant_name), "f32_dwconv_nhwc_%s", variants[i].name);
    if (!kt_cpu_has_among(f, variants[i].needs, variant_name)) continue;
    const int passed = kt_global()->passed, failed = kt_global()->failed;
    run_variant(&variants[i]);
    printf("%s: %d cases, %d failed\n", variants[i].name,
           kt_global()->passed + kt_global()->failed - passed - failed, kt_global()->failed - failed);
  }
  printf("selected: %s\n", lite_f32_dwconv_selected_name());
#if defined(__x86_64__)
  /* per-channel-count choice: 24 channels leave no tail on AVX2 but 8 on AVX-512 */
  if (f & LITE_CPU_X86_AVX512) {
    KT_CHECK(lite_f32_dwconv_select_for(24) == lite_f32_dwconv_nhwc_avx2);
    KT_CHECK(lite_f32_dwconv_select_for(32) == lite_f32_dwconv_nhwc_avx512);
  }
#endif
  return kt_finish();
}
