/* Winograd F(2,3), F(4,3), F(6,3) and stride-2 F(7,2) on the input phases (every transform variant the CPU runs, over the GEMM microkernel
 * the CPU selects and the portable one) against the reference direct convolution
 * lite_f32_conv2d_nhwc_ref (the oracle): odd, non-square and 1-pixel images, padding none / same /
 * asymmetric / wider than the kernel, channels around every vector width, batch > 1, every fused
 * activation incl. per-channel PReLU, with and without bias.
 *
 * Tolerance, per case: max |out - ref| <= tol(m) * max(1, max|sum|) (sum = the convolution before
 * its activation, the magnitude the transforms round at) with tol = 1e-5 (F(2,3)),
 * 5e-5 (F(4,3)), 1e-4 (F(6,3) and F(7,2)) on data uniform in [-1, 1). The transforms' fp32 rounding grows with
 * the tile (kernels_neon/tools/winograd_transforms.py measures ~2e-6, ~1e-5, ~2e-5 vs float64, where a
 * direct fp32 sum shows ~3e-7); the largest error seen per m is printed.
 * Also checked: tile rows computed in pieces are bit-identical to one call; a run without the packed
 * weight (transformed per panel at run time) is bit-identical to one with it, whole and in pieces;
 * nothing is written outside the output; the cost rule's choices on clear-cut shapes. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lite_kernels/conv2d.h"
#include "lite_kernels/cpu_features.h"
#include "lite_kernels/f32_winograd.h"
#include "kernel_test_cpu.h"

static kt_rng g_rng = {777u};
static float rand_unit(void) { return kt_rand_uniform(&g_rng, -1.0f, 1.0f); }

typedef struct {
  const char* name;
  lite_f32_winograd_fn fn;
  uint32_t needs; /* LITE_CPU_* features the variant runs on */
} variant;

static double g_worst[8];

static double tolerance(int m) { return m == 2 ? 1e-5 : (m == 4 ? 5e-5 : 1e-4); }

static void expect(int ok, const char* what) { kt_record(ok, __FILE__, __LINE__, what); }

static int run_case(const variant* v, const lite_f32_gemm_config* gemm, int m, const lite_conv2d_params* p,
                    int act_kind, int with_bias) {
  const size_t Ci = p->in_c, Co = p->out_c;
  const size_t in_n = p->batch * p->in_h * p->in_w * Ci, out_n = p->batch * p->out_h * p->out_w * Co;
  const size_t w_n = Co * 9 * Ci, guard = 23;
  float* in = malloc(sizeof(float) * (in_n + 1));
  float* w = malloc(sizeof(float) * (w_n + 1));
  float* bias = malloc(sizeof(float) * (Co + 1));
  float* slope = malloc(sizeof(float) * (Co + 1));
  float* ref_packed = malloc(sizeof(float) * (w_n + 1));
  float* packed = malloc(sizeof(float) * (lite_f32_winograd_packed_weight_size(gemm, m, p) + 1));
  const size_t scratch_n = m == 7 ? lite_f32_winograd_scratch_size(m, p)
                                  : lite_f32_winograd_scratch_size_unpacked(gemm, m, p); /* the larger */
  float* scratch = malloc(sizeof(float) * (scratch_n + 1));
  float* ref = malloc(sizeof(float) * (out_n + 1));
  float* plain = malloc(sizeof(float) * (out_n + 1));
  float* out = malloc(sizeof(float) * (out_n + guard));
  float* split = malloc(sizeof(float) * (out_n + 1));
  for (size_t i = 0; i < in_n; ++i) in[i] = rand_unit();
  for (size_t i = 0; i < w_n; ++i) w[i] = rand_unit();
  for (size_t i = 0; i < Co; ++i) {
    bias[i] = rand_unit();
    slope[i] = 0.3f * rand_unit();
  }
  lite_activation act = {act_kind, 0.2f, 0.6f, slope};
  if (act_kind == LITE_ACT_CLIP) act.alpha = -0.4f;
  const float* b = with_bias ? bias : NULL;
  lite_f32_conv2d_pack_weight_ref(p, w, ref_packed);
  lite_f32_conv2d_nhwc_ref(p, in, ref_packed, b, &act, ref);
  lite_f32_conv2d_nhwc_ref(p, in, ref_packed, b, NULL, plain); /* the scale errors are relative to */
  int ok = lite_f32_winograd_pack_weight(gemm, m, p, w, packed);
  for (size_t i = 0; i < out_n + guard; ++i) out[i] = 12345.0f;
  const size_t rows = lite_f32_winograd_tile_rows(m, p);
  v->fn(gemm, m, p, in, packed, w, b, &act, out, scratch, 0, rows, 0, Co);
  /* row blocks of 1 and 2 tile rows, each in output-channel groups of 1, 2, 1, ... panels */
  const size_t nr = gemm->nr;
  for (size_t r0 = 0, step = 1; r0 < rows; r0 += step, step = step % 2 + 1)
    for (size_t c0 = 0, width = nr * step; c0 < Co; c0 += width, width = width == nr ? 2 * nr : nr)
      v->fn(gemm, m, p, in, packed, w, b, &act, split, scratch, r0, r0 + step < rows ? r0 + step : rows, c0,
            c0 + width < Co ? c0 + width : Co);
  double max_ref = 1.0, max_err = 0.0;
  for (size_t i = 0; i < out_n; ++i) {
    if (fabs(plain[i]) > max_ref) max_ref = fabs(plain[i]);
    const double e = fabs((double)out[i] - (double)ref[i]);
    if (!(e <= max_err)) max_err = isnan(e) ? INFINITY : e;
  }
  if (max_err / max_ref > g_worst[m]) g_worst[m] = max_err / max_ref;
  ok &= max_err <= tolerance(m) * max_ref;
  for (size_t i = out_n; i < out_n + guard; ++i) ok &= out[i] == 12345.0f;
  ok &= memcmp(out, split, sizeof(float) * out_n) == 0;
  if (m != 7) {
    /* Without the packed weight (transformed per panel at run time): the same bits, whole and, every
     * third case (test time under qemu), split as above (channel groups of 1 and 2 panels, so 1 and 2
     * transformed panels per block). */
    static int n_unpacked;
    const int split_too = n_unpacked++ % 3 == 0;
    float* unpacked = malloc(sizeof(float) * (out_n + guard));
    for (size_t i = 0; i < out_n + guard; ++i) unpacked[i] = 12345.0f;
    v->fn(gemm, m, p, in, NULL, w, b, &act, unpacked, scratch, 0, rows, 0, Co);
    ok &= memcmp(out, unpacked, sizeof(float) * out_n) == 0;
    for (size_t i = out_n; i < out_n + guard; ++i) ok &= unpacked[i] == 12345.0f;
    for (size_t i = 0; split_too && i < out_n; ++i) unpacked[i] = 12345.0f;
    for (size_t r0 = 0, step = 2; split_too && r0 < rows; r0 += step, step = step % 2 + 1)
      for (size_t c0 = 0, width = 2 * nr; c0 < Co; c0 += width, width = width == nr ? 2 * nr : nr)
        v->fn(gemm, m, p, in, NULL, w, b, &act, unpacked, scratch, r0, r0 + step < rows ? r0 + step : rows, c0,
              c0 + width < Co ? c0 + width : Co);
    ok &= memcmp(out, unpacked, sizeof(float) * out_n) == 0;
    free(unpacked);
  }
  if (!ok)
    fprintf(stderr, "FAIL %s/%s m %d stride %zu: n%zu %zux%zu ci%zu co%zu pad t%zu l%zu -> %zux%zu act %d bias %d: err %g (max|ref| %g)\n",
            v->name, gemm->name, m, p->stride_h, p->batch, p->in_h, p->in_w, Ci, Co, p->pad_top, p->pad_left, p->out_h, p->out_w,
            act_kind, with_bias, max_err, max_ref);
  free(in), free(w), free(bias), free(slope), free(ref_packed), free(packed), free(scratch), free(ref), free(plain), free(out),
      free(split);
  return ok;
}

static int make_strided_params(lite_conv2d_params* p, size_t stride, size_t n, size_t h, size_t w, size_t ci,
                               size_t co, size_t pt, size_t pl, size_t pb, size_t pr) {
  memset(p, 0, sizeof(*p));
  if (h + pt + pb < 3 || w + pl + pr < 3) return 0;
  p->batch = n, p->in_h = h, p->in_w = w, p->in_c = ci, p->out_c = co, p->groups = 1;
  p->kernel_h = p->kernel_w = 3, p->stride_h = p->stride_w = stride, p->dilation_h = p->dilation_w = 1;
  p->pad_top = pt, p->pad_left = pl;
  p->out_h = (h + pt + pb - 3) / stride + 1;
  p->out_w = (w + pl + pr - 3) / stride + 1;
  return 1;
}

static int make_params(lite_conv2d_params* p, size_t n, size_t h, size_t w, size_t ci, size_t co, size_t pt,
                       size_t pl, size_t pb, size_t pr) {
  return make_strided_params(p, 1, n, h, w, ci, co, pt, pl, pb, pr);
}

static void run_variant(const variant* v, const lite_f32_gemm_config* gemm) {
  static const size_t sizes[][2] = {{1, 1}, {3, 3}, {2, 5}, {7, 7}, {8, 13}, {14, 9}};
  static const size_t pads[][4] = {{0, 0, 0, 0}, {1, 1, 1, 1}, {0, 1, 2, 0}, {3, 2, 1, 4}};
  static const size_t chans[][2] = {{1, 1}, {3, 5}, {8, 8}, {12, 20}, {16, 17}, {17, 33}, {20, 70}};
  /* 12: odd count of 4-k groups; 70 output channels: three 32-wide panels, the last partial, split
   * into channel groups by run_case.
   * A covering design, not the full product (7x fewer cases: test time under qemu): per F(m, 3) every
   * size meets every padding, with the channel pair turning so that each padding meets 6 of the 7 channel
   * pairs and, over the three m, each size meets all 7. */
  const size_t n_chans = sizeof(chans) / sizeof(chans[0]);
  lite_conv2d_params p;
  char what[64];
  int k = 0;
  for (int m = 2; m <= 6; m += 2)
    for (size_t si = 0; si < sizeof(sizes) / sizeof(sizes[0]); ++si)
      for (size_t pi = 0; pi < sizeof(pads) / sizeof(pads[0]); ++pi, ++k) {
        const size_t ci = (si + 2 * pi + (size_t)m / 2) % n_chans;
        if (!make_params(&p, 1 + (size_t)(k % 5 == 0), sizes[si][0], sizes[si][1], chans[ci][0], chans[ci][1],
                         pads[pi][0], pads[pi][1], pads[pi][2], pads[pi][3]))
          continue;
        snprintf(what, sizeof(what), "%s F(%d,3) case %d", v->name, m, k);
        expect(run_case(v, gemm, m, &p, k % 10, k % 3 != 0), what);
      }
  /* stride 2 (F(7,2) on the four input phases): odd / even sizes, non-square, whole interior tiles
   * (16 input pixels per tile side) and partial ones, padding, channels around every vector width */
  static const size_t sizes2[][2] = {{1, 1}, {3, 4}, {7, 7}, {16, 17}, {33, 30}};
  static const size_t chans2[][2] = {{1, 1}, {3, 5}, {8, 8}, {17, 33}, {32, 16}, {9, 70}};
  /* covering as above: every size meets every padding and, over its four paddings, all 6 channel pairs */
  const size_t n_chans2 = sizeof(chans2) / sizeof(chans2[0]);
  for (size_t si = 0; si < sizeof(sizes2) / sizeof(sizes2[0]); ++si)
    for (size_t pi = 0; pi < sizeof(pads) / sizeof(pads[0]); ++pi)
      for (size_t half = 0; half < 2; ++half, ++k) {
        const size_t ci = (si + pi + 3 * half) % n_chans2;
        if (!make_strided_params(&p, 2, 1 + (size_t)(k % 5 == 0), sizes2[si][0], sizes2[si][1], chans2[ci][0],
                                 chans2[ci][1], pads[pi][0], pads[pi][1], pads[pi][2], pads[pi][3]))
          continue;
        snprintf(what, sizeof(what), "%s F(7,2) stride 2 case %d", v->name, k);
        expect(run_case(v, gemm, 7, &p, k % 10, k % 3 != 0), what);
      }
  /* every activation on a mid-size layer */
  for (int m = 2; m <= 6; m += 2)
    for (int act = 0; act <= 9; ++act)
      if (make_params(&p, 1, 11, 10, 24, 20, 1, 1, 1, 1)) {
        snprintf(what, sizeof(what), "%s F(%d,3) act %d", v->name, m, act);
        expect(run_case(v, gemm, m, &p, act, 1), what);
      }
}

int main(void) {
  const uint32_t f = lite_cpu_features();
  variant variants[] = {
      {"portable", lite_f32_winograd_nhwc_portable, 0},
#if defined(__x86_64__)
      {"avx2", lite_f32_winograd_nhwc_avx2, LITE_CPU_X86_AVX2},
      {"avx512", lite_f32_winograd_nhwc_avx512, LITE_CPU_X86_AVX512},
#elif defined(__aarch64__)
      {"aarch64_neonfma", lite_f32_winograd_nhwc_aarch64_neonfma, LITE_CPU_ARM_NEON},
#elif defined(__arm__)
      {"armv7_neonfma", lite_f32_winograd_nhwc_armv7_neonfma, LITE_CPU_ARM_NEON},
#endif
  };
  const lite_f32_gemm_config* gemms[] = {lite_f32_gemm_config_portable(), lite_f32_gemm_config_select(f, 64)};
  for (size_t i = 0; i < sizeof(variants) / sizeof(variants[0]); ++i) {
    char variant_name[64];
    snprintf(variant_name, sizeof(variant_name), "f32_winograd_nhwc_%s", variants[i].name);
    if (!kt_cpu_has_among(f, variants[i].needs, variant_name)) continue;
    /* The transforms do not depend on the GEMM: each variant runs over the GEMM this CPU selects,
     * the portable transforms also over the portable GEMM. */
    for (size_t g = i == 0 ? 0 : 1; g < 2; ++g) {
      if (g == 1 && gemms[1] == gemms[0] && i == 0) continue;
      const int before = kt_global()->passed + kt_global()->failed, failed = kt_global()->failed;
      run_variant(&variants[i], gemms[g]);
      printf("%s over %s: %d cases, %d failed\n", variants[i].name, gemms[g]->name,
             kt_global()->passed + kt_global()->failed - before, kt_global()->failed - failed);
    }
  }
  for (int m = 2; m <= 7; m += m < 6 ? 2 : 1)
    printf("m = %d: worst max|err| / max(1, max|sum|) = %.2e (bound %.0e)\n", m, g_worst[m], tolerance(m));
  /* cost rule on clear-cut shapes */
  expect(lite_f32_winograd_choose(3, 3, 640, 640) == 0, "choose: 3 channels -> direct");
  expect(lite_f32_winograd_choose(64, 64, 1, 1) == 0, "choose: 1x1 output -> direct");
#if defined(__aarch64__) || defined(__arm__)
  expect(lite_f32_winograd_choose(256, 256, 56, 56) == 6, "choose: 256x256 at 56x56 -> F(6,3)");
  /* ARM counts rows in 4s and weighs F(4,3): 14x14 is 16 tiles x 36 products against F(2,3)'s
   * 49 x 16 and F(6,3)'s 9 (as 12) x 64; 7x7 is 4 x 36 against 16 x 16 and 4 x 64. */
  expect(lite_f32_winograd_choose(256, 256, 14, 14) == 4, "choose: 256x256 at 14x14 -> F(4,3)");
  expect(lite_f32_winograd_choose(512, 512, 7, 7) == 4, "choose: 512x512 at 7x7 -> F(4,3)");
#else
  /* x86 weighs the weight read from memory: F(4,3) on large maps, F(2,3) (16 / 9 of the weight)
   * on ResNet-18's 14x14 and 7x7 layers, where F(4,3)'s 36 / 9 made it slower (measured) */
  expect(lite_f32_winograd_choose(256, 256, 56, 56) == 4, "choose: 256x256 at 56x56 -> F(4,3)");
  expect(lite_f32_winograd_choose(64, 64, 56, 56) == 4, "choose: 64x64 at 56x56 -> F(4,3)");
  expect(lite_f32_winograd_choose(128, 128, 28, 28) == 4, "choose: 128x128 at 28x28 -> F(4,3)");
  expect(lite_f32_winograd_choose(32, 32, 8, 8) == 2, "choose: 32x32 at 8x8 -> F(2,3)");
  expect(lite_f32_winograd_choose(256, 256, 14, 14) == 2, "choose: 256x256 at 14x14 -> F(2,3)");
  expect(lite_f32_winograd_choose(512, 512, 7, 7) == 2, "choose: 512x512 at 7x7 -> F(2,3)");
#endif
  expect(lite_f32_winograd_choose(24, 24, 160, 160) == 6, "choose: 24x24 at 160x160 -> F(6,3)");
#if defined(__aarch64__) || defined(__arm__)
  /* stride 2 (ResNet-18's downsampling 3x3 convolutions): 16 and 4 tiles of 64 x 4 in_c products
   * against 784 and 196 pixels x 9 in_c; a 7x7 output is 1 tile, computed as 4 rows: direct */
  expect(lite_f32_winograd_choose_stride2(64, 128, 28, 28) == 7, "choose: s2 64->128 at 28x28 -> F(7,2)");
  expect(lite_f32_winograd_choose_stride2(128, 256, 14, 14) == 7, "choose: s2 128->256 at 14x14 -> F(7,2)");
  expect(lite_f32_winograd_choose_stride2(256, 512, 7, 7) == 0, "choose: s2 256->512 at 7x7 -> direct");
#else
  expect(lite_f32_winograd_choose_stride2(64, 128, 28, 28) == 0, "choose: s2 on x86 -> direct (not timed)");
#endif
  expect(lite_f32_winograd_choose_stride2(3, 32, 112, 112) == 0, "choose: s2 with 3 channels -> direct");
  printf("selected: %s\n", lite_f32_winograd_selected_name());
  return kt_finish();
}
