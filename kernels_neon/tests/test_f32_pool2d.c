/* The vectorized fp32 MAX_POOL_2D / AVERAGE_POOL_2D kernels against their ref/ twins, bit for bit:
 * kernels 1..4, strides 1..3, dilations 1..2, asymmetric pads up to windows lying entirely in the
 * padding, count_include_pad on and off, no activation or Relu6, channel counts around vector
 * widths (1..70) and past 32-channel blocks (64..150), values including NaN, +-inf and -0.0,
 * computed whole and in two row ranges as threads split it; for the portable kernel and every
 * variant this CPU runs. Average outputs that are NaN need only be NaN: which NaN a sum of NaNs and
 * infinities yields depends on the operand order the compiler picked for the add, not on the kernel. */
#include <stdlib.h>
#include <string.h>

#include "kernel_test_cpu.h"
#include "lite_kernels/cpu_features.h"
#include "lite_kernels/f32_pool2d.h"

/* Same bytes, except that two NaNs match whatever their sign and payload. */
static void check_same_floats(const char* what, int line, const float* out, const float* ref, size_t n) {
  size_t i = 0;
  while (i < n && (memcmp(&out[i], &ref[i], sizeof(float)) == 0 || (isnan(out[i]) && isnan(ref[i])))) ++i;
  char message[200];
  snprintf(message, sizeof(message), "%.150s: first difference at value %zu", what, i);
  kt_record(i == n, __FILE__, line, message);
}

typedef struct {
  const char* name;
  lite_f32_pool2d_rows_fn max_rows, average_rows;
} pool_variant;

static float special_or_random(kt_rng* rng) {
  switch (kt_rand_int(rng, 0, 40)) {
    case 0: return NAN;
    case 1: return INFINITY;
    case 2: return -INFINITY;
    case 3: return -0.0f;
    default: return kt_rand_uniform(rng, -10.0f, 10.0f);
  }
}

static void pool_case(kt_rng* rng, const pool_variant* v) {
  lite_pool2d_params p = {0};
  p.batch = (size_t)kt_rand_int(rng, 1, 2);
  p.in_h = (size_t)kt_rand_int(rng, 1, 9);
  p.in_w = (size_t)kt_rand_int(rng, 1, 11);
  p.channels = (size_t)(kt_rand_int(rng, 0, 4) == 0 ? kt_rand_int(rng, 64, 150) : kt_rand_int(rng, 1, 70));
  p.kernel_h = (size_t)kt_rand_int(rng, 1, 4);
  p.kernel_w = (size_t)kt_rand_int(rng, 1, 4);
  p.stride_h = (size_t)kt_rand_int(rng, 1, 3);
  p.stride_w = (size_t)kt_rand_int(rng, 1, 3);
  p.dilation_h = (size_t)kt_rand_int(rng, 1, 2);
  p.dilation_w = (size_t)kt_rand_int(rng, 1, 2);
  const size_t ekh = (p.kernel_h - 1) * p.dilation_h + 1, ekw = (p.kernel_w - 1) * p.dilation_w + 1;
  p.pad_top = (size_t)kt_rand_int(rng, 0, (int32_t)ekh);
  p.pad_left = (size_t)kt_rand_int(rng, 0, (int32_t)ekw);
  p.pad_bottom = (size_t)kt_rand_int(rng, 0, (int32_t)ekh);
  p.pad_right = (size_t)kt_rand_int(rng, 0, (int32_t)ekw);
  p.count_include_pad = kt_rand_int(rng, 0, 1);
  const size_t padded_h = p.in_h + p.pad_top + p.pad_bottom, padded_w = p.in_w + p.pad_left + p.pad_right;
  if (padded_h < ekh || padded_w < ekw) return; /* the window does not fit: not a pooling */
  p.out_h = (padded_h - ekh) / p.stride_h + 1;
  p.out_w = (padded_w - ekw) / p.stride_w + 1;
  lite_activation relu6 = {0};
  relu6.kind = LITE_ACT_CLIP;
  relu6.alpha = 0.0f;
  relu6.beta = 6.0f;
  const lite_activation* act = kt_rand_int(rng, 0, 2) == 0 ? &relu6 : NULL;
  const size_t in_n = p.batch * p.in_h * p.in_w * p.channels, out_n = p.batch * p.out_h * p.out_w * p.channels;
  float* x = malloc(in_n * sizeof(float));
  float* ref = malloc(out_n * sizeof(float));
  float* out = malloc(out_n * sizeof(float));
  for (size_t i = 0; i < in_n; ++i) x[i] = special_or_random(rng);
  const size_t rows = p.batch * p.out_h, split = (size_t)kt_rand_int(rng, 0, (int32_t)rows);
  char what[160];
  for (int average = 0; average <= 1; ++average) {
    if (average)
      lite_f32_average_pool2d_nhwc_ref(&p, x, act, ref);
    else
      lite_f32_max_pool2d_nhwc_ref(&p, x, act, ref);
    const lite_f32_pool2d_rows_fn rows_fn = average ? v->average_rows : v->max_rows;
    snprintf(what, sizeof(what), "%s %s %zux%zux%zux%zu k%zux%zu s%zux%zu d%zux%zu pads %zu,%zu,%zu,%zu cip %d act %d",
             v->name, average ? "average" : "max", p.batch, p.in_h, p.in_w, p.channels, p.kernel_h, p.kernel_w,
             p.stride_h, p.stride_w, p.dilation_h, p.dilation_w, p.pad_top, p.pad_left, p.pad_bottom, p.pad_right,
             p.count_include_pad, act != NULL);
    memset(out, 0x55, out_n * sizeof(float));
    rows_fn(&p, x, act, out, 0, rows);
    if (average)
      check_same_floats(what, __LINE__, out, ref, out_n);
    else
      kt_check_equal_bytes(__FILE__, __LINE__, what, out, ref, out_n * sizeof(float));
    memset(out, 0x55, out_n * sizeof(float));
    rows_fn(&p, x, act, out, split, rows);
    rows_fn(&p, x, act, out, 0, split);
    if (average)
      check_same_floats(what, __LINE__, out, ref, out_n);
    else
      kt_check_equal_bytes(__FILE__, __LINE__, what, out, ref, out_n * sizeof(float));
  }
  free(x);
  free(ref);
  free(out);
}

int main(void) {
  kt_rng rng = kt_rng_make(20261121);
  pool_variant variants[3] = {
      {"portable", lite_f32_max_pool2d_nhwc_portable, lite_f32_average_pool2d_nhwc_portable}};
  size_t count = 1;
#if defined(__x86_64__)
  const uint32_t features = lite_cpu_features();
  if (kt_cpu_has_among(features, LITE_CPU_X86_AVX2, "f32_pool2d_nhwc_avx2"))
    variants[count++] = (pool_variant){"avx2", lite_f32_max_pool2d_nhwc_avx2, lite_f32_average_pool2d_nhwc_avx2};
  if (kt_cpu_has_among(features, LITE_CPU_X86_AVX512, "f32_pool2d_nhwc_avx512"))
    variants[count++] =
        (pool_variant){"avx512", lite_f32_max_pool2d_nhwc_avx512, lite_f32_average_pool2d_nhwc_avx512};
#endif
  for (size_t v = 0; v < count; ++v)
    for (int i = 0; i < 400; ++i) pool_case(&rng, &variants[v]);
  KT_CHECK(lite_f32_max_pool2d_select(lite_cpu_features()) == variants[count - 1].max_rows);
  KT_CHECK(lite_f32_average_pool2d_select(lite_cpu_features()) == variants[count - 1].average_rows);
  return kt_finish();
}
