/* Dot-product CONV_TRANSPOSE_2D kernels (f32_conv_transpose2d_dot.h) against the reference scatter kernel
 * lite_f32_conv_transpose2d_nhwc_ref: every T <= 4 shape (kernel 1x1..2x2, 1..4 output channels),
 * channel counts around the 16-channel block (the masked last block), rows computed one at a time in
 * any order; and the selection: which shapes the kernels claim and which they leave to the GEMM path
 * (all of them on ARM, where no variant exists). */
#include <stdlib.h>

#include "kernel_test_cpu.h"
#include "lite_kernels/cpu_features.h"
#include "lite_kernels/f32_conv_transpose2d_dot.h"

static lite_conv_transpose2d_params shape(size_t h, size_t w, size_t ci, size_t co, size_t kh, size_t kw) {
  lite_conv_transpose2d_params p = {1, h, w, ci, h * kh, w * kw, co, kh, kw, kh, kw, 1, 1, 0, 0, 1};
  return p;
}

#if defined(__x86_64__)
static unsigned g_seed = 7u;
static float rand_float(void) {
  g_seed = g_seed * 1103515245u + 12345u;
  return (float)((g_seed >> 8) & 0xFFFF) / 32768.0f - 1.0f;
}

/* Runs the selected kernel row by row (last row first: rows are independent) against the reference. */
static void check_case(uint32_t features, size_t h, size_t w, size_t ci, size_t co, size_t kh, size_t kw, int bias_on) {
  const lite_conv_transpose2d_params p = shape(h, w, ci, co, kh, kw);
  const lite_f32_conv_transpose2d_dot_fn fn = lite_f32_conv_transpose2d_dot_select(&p, features);
  if (!KT_CHECK(fn != NULL)) return;
  const size_t in_n = h * w * ci, w_n = ci * kh * kw * co, out_n = p.out_h * p.out_w * co;
  float* x = malloc(sizeof(float) * in_n);
  float* weight = malloc(sizeof(float) * w_n);
  float* bias = malloc(sizeof(float) * co);
  float* want = malloc(sizeof(float) * out_n);
  float* got = malloc(sizeof(float) * out_n);
  float* packed = malloc(sizeof(float) * lite_f32_conv_transpose2d_dot_packed_size(&p));
  for (size_t i = 0; i < in_n; ++i) x[i] = rand_float();
  for (size_t i = 0; i < w_n; ++i) weight[i] = rand_float();
  for (size_t i = 0; i < co; ++i) bias[i] = rand_float();
  for (size_t i = 0; i < out_n; ++i) got[i] = 777.0f; /* every value must be written */
  lite_f32_conv_transpose2d_nhwc_ref(&p, x, weight, bias_on ? bias : NULL, NULL, want);
  lite_f32_conv_transpose2d_dot_pack(&p, weight, bias_on ? bias : NULL, packed);
  for (size_t ih = h; ih-- > 0;) fn(&p, packed, x + ih * w * ci, got + ih * kh * p.out_w * co);
  char name[96];
  snprintf(name, sizeof(name), "%zux%zu ci=%zu co=%zu k=%zux%zu bias=%d", h, w, ci, co, kh, kw, bias_on);
  kt_check_close_array(__FILE__, __LINE__, name, got, want, out_n, 1e-5f * (float)ci, 1e-5f);
  free(x);
  free(weight);
  free(bias);
  free(want);
  free(got);
  free(packed);
}

static void check_selection(uint32_t features) {
  lite_conv_transpose2d_params p = shape(4, 5, 24, 1, 2, 2);
  KT_CHECK(lite_f32_conv_transpose2d_dot_select(&p, features) != NULL);
  KT_CHECK(lite_f32_conv_transpose2d_dot_select(&p, LITE_CPU_X86_AVX2) == NULL); /* no AVX2 variant: GEMM path */
  p.out_c = 2; /* T = 8 */
  KT_CHECK(lite_f32_conv_transpose2d_dot_select(&p, features) == NULL);
  p = shape(4, 5, 24, 1, 2, 2);
  p.out_w += 1; /* output padding */
  KT_CHECK(lite_f32_conv_transpose2d_dot_select(&p, features) == NULL);
  p = shape(4, 5, 24, 1, 2, 2);
  p.stride_h = 1; /* overlapping rows */
  KT_CHECK(lite_f32_conv_transpose2d_dot_select(&p, features) == NULL);
  p = shape(4, 5, 24, 1, 2, 2);
  p.pad_left = 1;
  KT_CHECK(lite_f32_conv_transpose2d_dot_select(&p, features) == NULL);
}

#endif

int main(void) {
#if defined(__x86_64__)
  const uint32_t f = LITE_CPU_X86_AVX512;
  check_selection(f); /* feature bits only: runs on any x86-64 CPU */
  if (!kt_cpu_has(f, "f32_conv_transpose2d_dot_avx512")) return kt_finish();
  const size_t channels[] = {1, 3, 15, 16, 17, 24, 31, 32, 33, 64};
  for (size_t i = 0; i < sizeof(channels) / sizeof(channels[0]); ++i) {
    check_case(f, 3, 7, channels[i], 1, 2, 2, (int)(i & 1)); /* the DB head shape */
    check_case(f, 2, 5, channels[i], 2, 1, 2, 1);
    check_case(f, 2, 3, channels[i], 3, 1, 1, (int)(~i & 1));
    check_case(f, 3, 4, channels[i], 4, 1, 1, 1);
    check_case(f, 4, 2, channels[i], 1, 2, 1, 1);
    check_case(f, 1, 1, channels[i], 2, 2, 1, 0);
  }
#else
  /* No variant here: the op keeps its GEMM path for every shape. */
  const lite_conv_transpose2d_params p = shape(4, 5, 24, 1, 2, 2);
  KT_CHECK(lite_f32_conv_transpose2d_dot_select(&p, lite_cpu_features_detected()) == NULL);
#endif
  return kt_finish();
}
