/* Proves the harness (kernel_test.h) and a few ref/ kernels against textbook formulas written
 * out here, independently of the kernels: GEMM as a triple loop in double, softmax from its
 * definition, grouped/strided/padded/dilated convolution as the sum over the receptive field,
 * max/average pooling and two elementwise ops. The optimized-kernel tests then trust ref/ as
 * their oracle. */
#include <math.h>
#include <stdlib.h>

#include "kernel_test.h"
#include "lite_kernels/conv2d.h"
#include "lite_kernels/dtype.h"
#include "lite_kernels/elementwise_unary.h"
#include "lite_kernels/f32_pool2d.h"
#include "lite_kernels/f32_softmax.h"
#include "lite_kernels/gemm.h"

/* The harness's own helpers: exact values where the answer is known. */
static void test_harness(void) {
  KT_CHECK_EQ_INT(kt_ulp_distance(1.0f, 1.0f), 0);
  KT_CHECK_EQ_INT(kt_ulp_distance(1.0f, nextafterf(1.0f, 2.0f)), 1);
  KT_CHECK_EQ_INT(kt_ulp_distance(-0.0f, 0.0f), 0);
  KT_CHECK_EQ_INT(kt_ulp_distance(-1e-45f, 1e-45f), 2); /* the two smallest denormals straddle 0 */
  KT_CHECK(kt_ulp_distance(NAN, 1.0f) == INT64_MAX);
  KT_CHECK(kt_close(NAN, NAN, 0.0f, 0.0f));
  KT_CHECK(!kt_close(INFINITY, 1e30f, 1.0f, 1.0f));
  KT_CHECK(kt_close(100.0f, 100.5f, 0.0f, 0.01f));
  KT_CHECK(!kt_close(100.0f, 102.0f, 0.0f, 0.01f));
  /* Same seed, same numbers; values stay inside the range. */
  kt_rng a = kt_rng_make(7), b = kt_rng_make(7);
  int same = 1, inside = 1;
  for (int i = 0; i < 1000; ++i) {
    float x = kt_rand_uniform(&a, -2.0f, 3.0f);
    same &= x == kt_rand_uniform(&b, -2.0f, 3.0f);
    inside &= x >= -2.0f && x < 3.0f;
    int32_t k = kt_rand_int(&a, -3, 3);
    (void)kt_rand_int(&b, -3, 3);
    inside &= k >= -3 && k <= 3;
  }
  KT_CHECK(same);
  KT_CHECK(inside);
}

/* C = A·B + bias with an activation, against a double-precision triple loop. */
static void test_gemm(kt_rng* rng) {
  const size_t shapes[][3] = {{1, 1, 1}, {3, 5, 7}, {17, 9, 33}, {8, 40, 64}};
  for (size_t s = 0; s < sizeof(shapes) / sizeof(shapes[0]); ++s) {
    const size_t m = shapes[s][0], n = shapes[s][1], k = shapes[s][2], lda = k + 2, ldc = n + 1;
    float* a = malloc(sizeof(float) * m * lda);
    float* b = malloc(sizeof(float) * k * n);
    float* bias = malloc(sizeof(float) * n);
    float* c = malloc(sizeof(float) * m * ldc);
    float* expected = malloc(sizeof(float) * m * ldc);
    kt_fill_uniform(rng, a, m * lda, -1.0f, 1.0f);
    kt_fill_uniform(rng, b, k * n, -1.0f, 1.0f);
    kt_fill_uniform(rng, bias, n, -1.0f, 1.0f);
    for (size_t i = 0; i < m * ldc; ++i) c[i] = expected[i] = -999.0f; /* untouched padding */
    for (size_t i = 0; i < m; ++i)
      for (size_t j = 0; j < n; ++j) {
        double sum = bias[j];
        for (size_t p = 0; p < k; ++p) sum += (double)a[i * lda + p] * (double)b[p * n + j];
        expected[i * ldc + j] = sum > 0.0 ? (float)sum : 0.0f;
      }
    lite_activation relu = {LITE_ACT_RELU, 0.0f, 0.0f, NULL};
    lite_f32_gemm_ref(m, n, k, a, lda, b, n, bias, &relu, c, ldc);
    KT_CHECK_CLOSE_ARRAY("gemm", c, expected, m * ldc, 1e-5f, 1e-5f);
    free(a), free(b), free(bias), free(c), free(expected);
  }
}

/* softmax_i = exp(x_i) / sum_j exp(x_j) on the middle axis of [2, 7, 3]; sums to 1. */
static void test_softmax(kt_rng* rng) {
  enum { OUTER = 2, AXIS = 7, INNER = 3, N = OUTER * AXIS * INNER };
  float x[N], y[N], expected[N];
  kt_fill_uniform(rng, x, N, -5.0f, 5.0f);
  for (int o = 0; o < OUTER; ++o)
    for (int i = 0; i < INNER; ++i) {
      double sum = 0.0;
      for (int a = 0; a < AXIS; ++a) sum += exp((double)x[(o * AXIS + a) * INNER + i]);
      for (int a = 0; a < AXIS; ++a) {
        const int at = (o * AXIS + a) * INNER + i;
        expected[at] = (float)(exp((double)x[at]) / sum);
      }
    }
  lite_f32_softmax_ref(OUTER, AXIS, INNER, x, y);
  KT_CHECK_CLOSE_ARRAY("softmax", y, expected, N, 1e-7f, 1e-5f);
  float total = 0.0f;
  for (int a = 0; a < AXIS; ++a) total += y[a * INNER];
  KT_CHECK_CLOSE(total, 1.0f, 1e-6f, 0.0f);
}

/* output[n, oy, ox, oc] = bias[oc] + sum over ky, kx, ic of input[n, iy, ix, g*cpg+ic] * w[oc, ky, kx, ic]
 * with iy = oy*stride - pad + ky*dilation (taps outside the input contribute 0). */
static void test_conv2d(kt_rng* rng) {
  lite_conv2d_params p = {0};
  p.batch = 2, p.in_h = 7, p.in_w = 6, p.in_c = 4;
  p.out_c = 6, p.kernel_h = 3, p.kernel_w = 2;
  p.stride_h = 2, p.stride_w = 1, p.dilation_h = 1, p.dilation_w = 2;
  p.pad_top = 1, p.pad_left = 1, p.groups = 2;
  p.out_h = (p.in_h + 2 * p.pad_top - p.dilation_h * (p.kernel_h - 1) - 1) / p.stride_h + 1;
  p.out_w = (p.in_w + 2 * p.pad_left - p.dilation_w * (p.kernel_w - 1) - 1) / p.stride_w + 1;
  const size_t cin_g = p.in_c / p.groups, cout_g = p.out_c / p.groups;
  const size_t in_n = p.batch * p.in_h * p.in_w * p.in_c, out_n = p.batch * p.out_h * p.out_w * p.out_c;
  const size_t w_n = p.out_c * p.kernel_h * p.kernel_w * cin_g;
  float* input = malloc(sizeof(float) * in_n);
  float* weight = malloc(sizeof(float) * w_n);
  float* packed = malloc(sizeof(float) * lite_f32_conv2d_packed_weight_size(&p));
  float bias[6];
  float* out = malloc(sizeof(float) * out_n);
  float* expected = malloc(sizeof(float) * out_n);
  kt_fill_uniform(rng, input, in_n, -1.0f, 1.0f);
  kt_fill_uniform(rng, weight, w_n, -1.0f, 1.0f);
  kt_fill_uniform(rng, bias, 6, -1.0f, 1.0f);
  KT_CHECK_EQ_INT(lite_f32_conv2d_packed_weight_size(&p), w_n);
  for (size_t n = 0; n < p.batch; ++n)
    for (size_t oy = 0; oy < p.out_h; ++oy)
      for (size_t ox = 0; ox < p.out_w; ++ox)
        for (size_t oc = 0; oc < p.out_c; ++oc) {
          const size_t g = oc / cout_g;
          double sum = bias[oc];
          for (size_t ky = 0; ky < p.kernel_h; ++ky)
            for (size_t kx = 0; kx < p.kernel_w; ++kx) {
              const long iy = (long)(oy * p.stride_h + ky * p.dilation_h) - (long)p.pad_top;
              const long ix = (long)(ox * p.stride_w + kx * p.dilation_w) - (long)p.pad_left;
              if (iy < 0 || ix < 0 || iy >= (long)p.in_h || ix >= (long)p.in_w) continue;
              for (size_t ic = 0; ic < cin_g; ++ic)
                sum += (double)input[((n * p.in_h + (size_t)iy) * p.in_w + (size_t)ix) * p.in_c + g * cin_g + ic] *
                       (double)weight[((oc * p.kernel_h + ky) * p.kernel_w + kx) * cin_g + ic];
            }
          expected[((n * p.out_h + oy) * p.out_w + ox) * p.out_c + oc] = (float)sum;
        }
  lite_f32_conv2d_pack_weight_ref(&p, weight, packed);
  lite_f32_conv2d_nhwc_ref(&p, input, packed, bias, NULL, out);
  KT_CHECK_CLOSE_ARRAY("conv2d", out, expected, out_n, 1e-5f, 1e-5f);
  free(input), free(weight), free(packed), free(out), free(expected);
}

/* 3x3 stride-2 max and average pooling with one pixel of padding on each side; average divides by
 * the taps inside the input (count_include_pad = 0). */
static void test_pool2d(kt_rng* rng) {
  lite_pool2d_params p = {0};
  p.batch = 1, p.in_h = 5, p.in_w = 6, p.channels = 3;
  p.kernel_h = p.kernel_w = 3, p.stride_h = p.stride_w = 2, p.dilation_h = p.dilation_w = 1;
  p.pad_top = p.pad_left = p.pad_bottom = p.pad_right = 1;
  p.out_h = (5 + 2 - 3) / 2 + 1, p.out_w = (6 + 2 - 3) / 2 + 1;
  enum { IN_N = 5 * 6 * 3, OUT_N = 3 * 3 * 3 };
  float input[IN_N], max_out[OUT_N], avg_out[OUT_N], max_exp[OUT_N], avg_exp[OUT_N];
  kt_fill_uniform(rng, input, IN_N, -3.0f, 3.0f);
  for (size_t oy = 0; oy < p.out_h; ++oy)
    for (size_t ox = 0; ox < p.out_w; ++ox)
      for (size_t c = 0; c < p.channels; ++c) {
        float best = -INFINITY;
        double sum = 0.0;
        int count = 0;
        for (long y = (long)(oy * 2) - 1; y < (long)(oy * 2) + 2; ++y)
          for (long x = (long)(ox * 2) - 1; x < (long)(ox * 2) + 2; ++x) {
            if (y < 0 || x < 0 || y >= 5 || x >= 6) continue;
            const float v = input[((size_t)y * 6 + (size_t)x) * 3 + c];
            best = v > best ? v : best;
            sum += v;
            count++;
          }
        max_exp[(oy * p.out_w + ox) * 3 + c] = best;
        avg_exp[(oy * p.out_w + ox) * 3 + c] = (float)(sum / count);
      }
  lite_f32_max_pool2d_nhwc_ref(&p, input, NULL, max_out);
  lite_f32_average_pool2d_nhwc_ref(&p, input, NULL, avg_out);
  KT_CHECK_EQUAL_BYTES("max_pool2d", max_out, max_exp, sizeof(max_exp));
  KT_CHECK_CLOSE_ARRAY("average_pool2d", avg_out, avg_exp, OUT_N, 1e-6f, 1e-6f);
}

/* sigmoid (within 4 ulp) and hard-swish from their definitions, elementwise. */
static void test_unary(kt_rng* rng) {
  enum { N = 257 };
  float x[N], y[N];
  kt_fill_uniform(rng, x, N, -8.0f, 8.0f);
  x[0] = 0.0f, x[1] = -3.0f, x[2] = 3.0f;
  lite_unary_params params = {0};
  KT_CHECK_EQ_INT(lite_unary_ref(LITE_UN_SIGMOID, LITE_DT_F32, &params, x, y, N), 0);
  int worst = 0;
  for (int i = 0; i < N; ++i) {
    const float expected = (float)(1.0 / (1.0 + exp(-(double)x[i])));
    const int64_t d = kt_ulp_distance(y[i], expected);
    worst = d > worst ? (int)d : worst;
  }
  KT_CHECK(worst <= 4);
  KT_CHECK_ULP(y[0], 0.5f, 0);
  KT_CHECK_EQ_INT(lite_unary_ref(LITE_UN_HARD_SWISH, LITE_DT_F32, &params, x, y, N), 0);
  for (int i = 0; i < N; ++i) {
    const double r = (double)x[i] / 6.0 + 0.5;
    const float expected = (float)((double)x[i] * (r < 0.0 ? 0.0 : (r > 1.0 ? 1.0 : r)));
    /* Near x = -3, x/6 + 0.5 cancels: float rounding there is large in ulp, tiny in value. */
    KT_CHECK_CLOSE(y[i], expected, 1e-6f, 1e-6f);
  }
}

int main(void) {
  kt_rng rng = kt_rng_make(20261121u);
  test_harness();
  test_gemm(&rng);
  test_softmax(&rng);
  test_conv2d(&rng);
  test_pool2d(&rng);
  test_unary(&rng);
  return kt_finish();
}
