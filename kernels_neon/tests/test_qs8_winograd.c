/* The int8 Winograd F(2,3) and F(4,3) convolutions (qs8_winograd.h), portable and NEON (aarch64 /
 * armv7), against lite_qs8_conv2d_nhwc_ref byte for byte: odd and even sizes down to 1x1, 1 and 3
 * channels, channel counts around the 8-channel blocks, padding 0 / 1 on either side, zero points at
 * the extremes, every clamp, groups split as threads split them; sums near the exactness bound (2^29 /
 * 2^25) with weights and inputs at the int8 extremes; the bounds themselves and the cost rule's choices. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "kernel_test_cpu.h"
#include "lite_kernels/cpu_features.h"
#include "lite_kernels/qs8_conv2d_fully_connected.h"
#include "lite_kernels/qs8_winograd.h"
#include "lite_kernels/requantize.h"

static lite_conv2d_params conv3x3(size_t batch, size_t h, size_t w, size_t ci, size_t co, size_t pad_top,
                                  size_t pad_left, size_t pad_bottom, size_t pad_right) {
  lite_conv2d_params p = {0};
  p.batch = batch;
  p.in_h = h;
  p.in_w = w;
  p.in_c = ci;
  p.out_c = co;
  p.kernel_h = p.kernel_w = 3;
  p.stride_h = p.stride_w = p.dilation_h = p.dilation_w = p.groups = 1;
  p.pad_top = pad_top;
  p.pad_left = pad_left;
  p.out_h = h + pad_top + pad_bottom - 2;
  p.out_w = w + pad_left + pad_right - 2;
  return p;
}

static size_t wg_last_parts; /* input-channel parts of wg_case's last convolution */

/* One convolution; `extreme` puts weights at -128 / 127 and inputs at the far end from the zero
 * point (sums near the bound). Returns 0 on a difference, 1 equal, 2 equal with unclamped outputs. */
static int wg_case(const lite_qs8_winograd_kernel* kernel, kt_rng* rng, const lite_conv2d_params* p, int32_t zp_in,
                   int32_t zp_out, int32_t act_min, int32_t act_max, int extreme) {
  const size_t in_n = p->batch * p->in_h * p->in_w * p->in_c, out_n = p->batch * p->out_h * p->out_w * p->out_c;
  const size_t wn = p->out_c * 9 * p->in_c;
  int8_t* x = malloc(in_n);
  int8_t* w = malloc(wn);
  int32_t* bias = malloc(p->out_c * sizeof(int32_t));
  int32_t* mult = malloc(p->out_c * sizeof(int32_t));
  int32_t* shift = malloc(p->out_c * sizeof(int32_t));
  int8_t* ref = malloc(out_n);
  int8_t* out = malloc(out_n);
  const size_t tile = kernel->tile;
  void* packed = aligned_alloc(64, (lite_qs8_winograd_packed_size(p, tile) + 63) / 64 * 64);
  void* scratch = aligned_alloc(64, (lite_qs8_winograd_scratch_size(p, tile) + 63) / 64 * 64);
  kt_fill_int8(rng, x, in_n, -128, 127);
  kt_fill_int8(rng, w, wn, -128, 127);
  if (extreme) {
    /* x - zp at its largest magnitude, the weight's sign following it: sums at the bound */
    const int8_t far = zp_in >= 0 ? -128 : 127;
    for (size_t i = 0; i < in_n; ++i) x[i] = kt_rand_int(rng, 0, 15) ? far : x[i];
    for (size_t i = 0; i < wn; ++i) w[i] = (int8_t)(kt_rand_int(rng, 0, 15) ? (far < 0 ? -128 : 127) : w[i]);
  }
  /* typical |sum|: sqrt(9 ci) * 74 * 74 (uniform data), or 9 ci * 128 * 255 at the extremes */
  const double typical = extreme ? 9.0 * (double)p->in_c * 128.0 * 255.0 : sqrt(9.0 * (double)p->in_c) * 5500.0;
  for (size_t j = 0; j < p->out_c; ++j) {
    bias[j] = kt_rand_int(rng, -(1 << 16), 1 << 16);
    int s = 1;
    lite_quantize_multiplier(kt_rand_uniform(rng, 20.0f, 200.0f) / typical, &mult[j], &s);
    shift[j] = s;
  }
  const lite_qs8_requant_params rq = {zp_in, zp_out, act_min, act_max, mult, shift};
  lite_qs8_conv2d_nhwc_ref(p, &rq, x, w, bias, ref);
  wg_last_parts = lite_qs8_winograd_parts(p, w, zp_in, tile);
  int ok = wg_last_parts != 0;
  if (ok) {
    lite_qs8_winograd_pack(p, tile, w, bias, zp_in, mult, shift, packed);
    const lite_qs8_gemm_params params = {zp_out, act_min, act_max};
    const size_t groups = lite_qs8_winograd_groups(p, tile), blocks = lite_qs8_winograd_blocks(p);
    memset(out, 0x5a, out_n);
    for (size_t g0 = 0; g0 < groups;) { /* uneven splits of groups and blocks, as threads take them */
      const size_t step = (size_t)kt_rand_int(rng, 1, 3), g1 = g0 + step < groups ? g0 + step : groups;
      for (size_t b0 = 0; b0 < blocks;) {
        const size_t bstep = (size_t)kt_rand_int(rng, 1, 3), b1 = b0 + bstep < blocks ? b0 + bstep : blocks;
        lite_qs8_winograd_run(kernel, p, packed, &params, x, out, g0, g1, b0, b1, scratch);
        b0 = b1;
      }
      g0 = g1;
    }
    ok = memcmp(out, ref, out_n) == 0;
  }
  size_t inside = 0;
  for (size_t i = 0; i < out_n; ++i) inside += ref[i] > act_min && ref[i] < act_max;
  if (!ok)
    fprintf(stderr, "%s: %zux%zux%zux%zu -> %zu pads %zu,%zu zp %d/%d clamp [%d,%d]%s differs\n", kernel->name,
            p->batch, p->in_h, p->in_w, p->in_c, p->out_c, p->pad_top, p->pad_left, zp_in, zp_out, act_min, act_max,
            extreme ? " (extreme)" : "");
  free(x);
  free(w);
  free(bias);
  free(mult);
  free(shift);
  free(ref);
  free(out);
  free(packed);
  free(scratch);
  return ok ? 1 + (inside > 0) : 0;
}

static void run_wg_tests(const lite_qs8_winograd_kernel* kernel) {
  kt_rng rng = kt_rng_make(20261127u);
  const size_t channels[][2] = {{1, 1}, {3, 8}, {8, 5}, {9, 16}, {16, 13}, {17, 24}, {64, 9}, {7, 33}};
  const size_t sizes[][2] = {{1, 1}, {2, 3}, {3, 3}, {4, 4}, {5, 7}, {6, 1}, {9, 10}, {12, 11}};
  const int32_t zps[] = {-128, 127, 0, -3};
  const int32_t clamps[][2] = {{-128, 127}, {-5, 127}, {-128, 60}, {9, 9}};
  size_t cases = 0, passed = 0, unclamped = 0;
  for (size_t c = 0; c < sizeof(channels) / sizeof(channels[0]); ++c)
    for (size_t s = 0; s < sizeof(sizes) / sizeof(sizes[0]); ++s)
      for (size_t pad = 0; pad < 3; ++pad) {
        const size_t v = c + s + pad;
        /* pad 0: valid, 1: same, 2: top / left only (trailing pads 0) */
        const size_t pt = pad > 0, pl = pad > 0, pb = pad == 1, pr = pad == 1;
        const lite_conv2d_params p = conv3x3(1 + v % 2, sizes[s][0], sizes[s][1], channels[c][0], channels[c][1], pt,
                                             pl, pb, pr);
        if (sizes[s][0] + pt + pb < 3 || sizes[s][1] + pl + pr < 3) continue;
        const int r = wg_case(kernel, &rng, &p, zps[v % 4], zps[(v + 1) % 4], clamps[v % 4][0], clamps[v % 4][1], 0);
        ++cases;
        passed += r != 0;
        unclamped += r == 2;
      }
  /* large channel counts: sums near the bound (2^29 / 2^25) through int32 wrapping */
  /* the last needs 3 input-channel parts */
  const size_t deep[] = {kernel->tile == 4 ? 16 : 256, kernel->tile == 4 ? 110 : 1800, kernel->tile == 4 ? 300 : 4000};
  for (size_t d = 0; d < 3; ++d) {
    const lite_conv2d_params p = conv3x3(1, 6, 5, deep[d], 3, 1, 1, 1, 1);
    for (size_t z = 0; z < 2; ++z) {
      const int r = wg_case(kernel, &rng, &p, zps[z], 3, -128, 127, 1);
      KT_CHECK(d < 2 || wg_last_parts == 3);
      ++cases;
      passed += r != 0;
      unclamped += r == 2;
    }
  }
  char what[200];
  snprintf(what, sizeof(what), "%s: %zu of %zu convolutions equal the reference (%zu not all clamped)", kernel->name,
           passed, cases, unclamped);
  kt_record(passed == cases && unclamped > cases / 2, __FILE__, __LINE__, what);
}

/* The exactness bounds: 9 * in_c * 128 * 255 below 2^29 holds up to in_c = 1827, below 2^25 (F(4,3))
 * up to in_c = 114 (full-range weights). */
static void check_bound(void) {
  const size_t ci[2][2] = {{1827, 1828}, {114, 115}}, tiles[2] = {2, 4};
  for (size_t t = 0; t < 2; ++t)
    for (size_t i = 0; i < 2; ++i) {
      const lite_conv2d_params p = conv3x3(1, 3, 3, ci[t][i], 1, 0, 0, 0, 0);
      int8_t* w = malloc(9 * ci[t][i]);
      memset(w, -128, 9 * ci[t][i]);
      KT_CHECK(lite_qs8_winograd_parts(&p, w, 127, tiles[t]) == (i == 0 ? 1u : 2u)); /* |x - zp| up to 255 */
      KT_CHECK(lite_qs8_winograd_parts(&p, w, -1, tiles[t]) == 1);                   /* up to 128: half */
      free(w);
    }
}

/* The cost rule: ResNet-18's 3x3 layers on ARM without dotprod (F(4,3) where its sums stay exact, else
 * F(2,3)), never with dotprod, never a 3-channel stem. */
static size_t choose(uint32_t features, const lite_conv2d_params* p, int8_t weight_value) {
  const size_t wn = 9 * p->in_c * p->out_c;
  int8_t* w = malloc(wn);
  memset(w, weight_value, wn);
  double saving = -1.0;
  const size_t tile = lite_qs8_winograd_choose(features, p, w, -128, &saving);
  KT_CHECK(tile != 0 ? saving > 0.0 : saving == 0.0);
  free(w);
  return tile;
}

static void check_cost_rule(void) {
  const lite_conv2d_params stage1 = conv3x3(1, 56, 56, 64, 64, 1, 1, 1, 1);
  const lite_conv2d_params stage2 = conv3x3(1, 28, 28, 128, 128, 1, 1, 1, 1);
  const lite_conv2d_params stage3 = conv3x3(1, 14, 14, 256, 256, 1, 1, 1, 1);
  const lite_conv2d_params stage4 = conv3x3(1, 7, 7, 512, 512, 1, 1, 1, 1);
  const lite_conv2d_params stem = conv3x3(1, 56, 56, 3, 16, 1, 1, 1, 1);
  /* tests/test_int8_arm.py's winograd_net */
  const lite_conv2d_params small[] = {conv3x3(1, 17, 15, 32, 32, 1, 1, 1, 1), conv3x3(1, 17, 15, 32, 24, 0, 0, 0, 0),
                                      conv3x3(1, 15, 13, 24, 19, 1, 1, 1, 1)};
  const uint32_t neon = LITE_CPU_ARM_NEON;
#if defined(__aarch64__) || defined(__arm__)
  KT_CHECK(choose(neon, &stage1, 3) == 4);
  KT_CHECK(choose(neon, &stage3, 3) == 4);
  KT_CHECK(choose(neon, &stage2, 3) == 4);
  KT_CHECK(choose(neon, &stage2, 127) == 4); /* 9 * 128 * 127 * 255 >= 2^25: in two parts */
  KT_CHECK(choose(neon, &stage4, 3) == 4);   /* 4 tiles: one half group */
  KT_CHECK(choose(neon, &stage4, 127) == 2); /* F(4,3) inexact even in 4 parts; F(2,3) within 2^29 */
  for (size_t i = 0; i < 3; ++i) KT_CHECK(choose(neon, &small[i], 3) != 0);
#else
  (void)small;
  (void)stage2;
  (void)stage3;
  KT_CHECK(choose(neon, &stage1, 3) == 0); /* x86: the direct GEMM */
#endif
  KT_CHECK(choose(neon, &stem, 3) == 0);
  KT_CHECK(choose(neon | LITE_CPU_ARM_DOTPROD, &stage1, 3) == 0);
  KT_CHECK(choose(neon | LITE_CPU_ARM_DOTPROD | LITE_CPU_ARM_I8MM, &stage4, 3) == 0);
}

int main(void) {
  check_bound();
  check_cost_rule();
  run_wg_tests(&lite_qs8_winograd_f23_portable);
  run_wg_tests(&lite_qs8_winograd_f43_portable);
  const uint32_t detected = lite_cpu_features_detected();
#if defined(__aarch64__)
  if (kt_cpu_has(LITE_CPU_ARM_NEON, "qs8_winograd_aarch64_neon")) {
    KT_CHECK(lite_qs8_winograd_select(detected, 2) == &lite_qs8_winograd_f23_aarch64_neon);
    KT_CHECK(lite_qs8_winograd_select(detected, 4) == &lite_qs8_winograd_f43_aarch64_neon);
    run_wg_tests(&lite_qs8_winograd_f23_aarch64_neon);
    run_wg_tests(&lite_qs8_winograd_f43_aarch64_neon);
  }
#elif defined(__arm__)
  if (kt_cpu_has(LITE_CPU_ARM_NEON, "qs8_winograd_armv7_neon")) {
    KT_CHECK(lite_qs8_winograd_select(detected, 2) == &lite_qs8_winograd_f23_armv7_neon);
    KT_CHECK(lite_qs8_winograd_select(detected, 4) == &lite_qs8_winograd_f43_armv7_neon);
    run_wg_tests(&lite_qs8_winograd_f23_armv7_neon);
    run_wg_tests(&lite_qs8_winograd_f43_armv7_neon);
  }
#else
  KT_CHECK(lite_qs8_winograd_select(detected, 2) == &lite_qs8_winograd_f23_portable);
  KT_CHECK(lite_qs8_winograd_select(detected, 4) == &lite_qs8_winograd_f43_portable);
#endif
  KT_CHECK(lite_qs8_winograd_select(0, 4) == &lite_qs8_winograd_f43_portable || LITE_CPU_HAS_NEON(0));
  return kt_finish();
}
