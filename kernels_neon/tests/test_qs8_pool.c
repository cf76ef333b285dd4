/* The vectorizable int8 pooling kernels against their ref/ twins, byte for byte. Max pool over
 * kernels 1..4 with strides 1..3, dilations 1..2, asymmetric pads up to windows lying entirely in the
 * padding, channel counts around vector widths (1..70) and past 64-channel blocks (64..150), values
 * at -128 and 127, computed whole and in row ranges as threads split it; global average pool over
 * the cases of global_average_cases; each for the portable kernel and the one this CPU selects. */
#include <stdlib.h>
#include <string.h>

#include "kernel_test.h"
#include "lite_kernels/cpu_features.h"
#include "lite_kernels/qs8_pool2d.h"

static void max_pool_case(kt_rng* rng, lite_qs8_max_pool2d_fn max_pool, const char* name) {
  lite_conv2d_params p = {0};
  p.batch = (size_t)kt_rand_int(rng, 1, 2);
  p.in_h = (size_t)kt_rand_int(rng, 1, 9);
  p.in_w = (size_t)kt_rand_int(rng, 1, 11);
  /* mostly around vector widths, sometimes past one or two 64-channel blocks */
  p.in_c = p.out_c = (size_t)(kt_rand_int(rng, 0, 4) == 0 ? kt_rand_int(rng, 64, 150) : kt_rand_int(rng, 1, 70));
  p.groups = 1;
  p.kernel_h = (size_t)kt_rand_int(rng, 1, 4);
  p.kernel_w = (size_t)kt_rand_int(rng, 1, 4);
  p.stride_h = (size_t)kt_rand_int(rng, 1, 3);
  p.stride_w = (size_t)kt_rand_int(rng, 1, 3);
  p.dilation_h = (size_t)kt_rand_int(rng, 1, 2);
  p.dilation_w = (size_t)kt_rand_int(rng, 1, 2);
  const size_t ekh = (p.kernel_h - 1) * p.dilation_h + 1, ekw = (p.kernel_w - 1) * p.dilation_w + 1;
  p.pad_top = (size_t)kt_rand_int(rng, 0, (int32_t)ekh);
  p.pad_left = (size_t)kt_rand_int(rng, 0, (int32_t)ekw);
  const size_t pad_bottom = (size_t)kt_rand_int(rng, 0, (int32_t)ekh);
  const size_t pad_right = (size_t)kt_rand_int(rng, 0, (int32_t)ekw);
  const size_t padded_h = p.in_h + p.pad_top + pad_bottom, padded_w = p.in_w + p.pad_left + pad_right;
  if (padded_h < ekh || padded_w < ekw) return; /* the window does not fit: not a pooling */
  p.out_h = (padded_h - ekh) / p.stride_h + 1;
  p.out_w = (padded_w - ekw) / p.stride_w + 1;
  const size_t in_n = p.batch * p.in_h * p.in_w * p.in_c, out_n = p.batch * p.out_h * p.out_w * p.out_c;
  int8_t* x = malloc(in_n);
  int8_t* ref = malloc(out_n);
  int8_t* out = malloc(out_n);
  /* mostly the extremes -128 / 127 in some cases, the full range in others */
  const int extremes = kt_rand_int(rng, 0, 1);
  for (size_t i = 0; i < in_n; ++i)
    x[i] = extremes ? (int8_t)(kt_rand_int(rng, 0, 1) ? 127 : -128) : (int8_t)kt_rand_int(rng, -128, 127);
  lite_qs8_max_pool2d_nhwc_ref(&p, x, ref);

  memset(out, 0x55, out_n);
  max_pool(&p, x, out, 0, p.batch * p.out_h);
  char what[160];
  snprintf(what, sizeof(what), "%s %zux%zux%zux%zu k%zux%zu s%zux%zu d%zux%zu pads %zu,%zu,%zu,%zu", name, p.batch,
           p.in_h, p.in_w, p.in_c, p.kernel_h, p.kernel_w, p.stride_h, p.stride_w, p.dilation_h, p.dilation_w,
           p.pad_top, p.pad_left, pad_bottom, pad_right);
  kt_check_equal_bytes(__FILE__, __LINE__, what, out, ref, out_n);

  /* the rows in two ranges, as two tasks would compute them */
  memset(out, 0x55, out_n);
  const size_t rows = p.batch * p.out_h, split = (size_t)kt_rand_int(rng, 0, (int32_t)rows);
  max_pool(&p, x, out, split, rows);
  max_pool(&p, x, out, 0, split);
  kt_check_equal_bytes(__FILE__, __LINE__, what, out, ref, out_n);
  free(x);
  free(ref);
  free(out);
}

static void global_average_case(kt_rng* rng, lite_qs8_global_average_pool_fn gap, const char* name, size_t batch,
                                size_t spatial, size_t channels, int32_t zero_point, int extremes) {
  const size_t in_n = batch * spatial * channels, out_n = batch * channels;
  int8_t* x = malloc(in_n + 1);
  int8_t* ref = malloc(out_n + 1);
  int8_t* out = malloc(out_n + 1);
  for (size_t i = 0; i < in_n; ++i)
    x[i] = extremes == 1 ? (int8_t)-128 : extremes == 2 ? (int8_t)127 : (int8_t)kt_rand_int(rng, -128, 127);
  lite_qs8_global_average_pool_nhwc_ref(batch, spatial, channels, zero_point, x, ref);
  memset(out, 0x55, out_n);
  gap(batch, spatial, channels, zero_point, x, out);
  char what[128];
  snprintf(what, sizeof(what), "%s global average pool %zux%zux%zu zp %d", name, batch, spatial, channels,
           (int)zero_point);
  kt_check_equal_bytes(__FILE__, __LINE__, what, out, ref, out_n);
  free(x);
  free(ref);
  free(out);
}

/* Channel counts around the 64-channel block, spatial sizes from 1 to a 160x160 map, zero points at
 * both ends, inputs all -128 / all 127 (the largest sums) or random. */
static void global_average_cases(kt_rng* rng, lite_qs8_global_average_pool_fn gap, const char* name) {
  const size_t channels[] = {1, 3, 16, 63, 64, 65, 96, 128, 130, 200};
  const int32_t zero_points[] = {-128, 127, 0, -7};
  for (size_t ci = 0; ci < sizeof(channels) / sizeof(channels[0]); ++ci)
    for (size_t zi = 0; zi < 4; ++zi) {
      const size_t spatial = (size_t)kt_rand_int(rng, 1, 400);
      global_average_case(rng, gap, name, (size_t)kt_rand_int(rng, 1, 2), spatial, channels[ci], zero_points[zi],
                          (int)((ci + zi) % 3));
    }
  global_average_case(rng, gap, name, 1, 160 * 160, 64, -128, 1);
  global_average_case(rng, gap, name, 1, 160 * 160, 64, 127, 2);
  global_average_case(rng, gap, name, 1, 20 * 20, 96, 3, 0);
}

int main(void) {
  kt_rng rng = kt_rng_make(20261121);
  for (int i = 0; i < 400; ++i) max_pool_case(&rng, lite_qs8_max_pool2d_nhwc_portable, "portable");
  const lite_qs8_max_pool2d_fn selected = lite_qs8_max_pool2d_select(lite_cpu_features());
  if (selected == lite_qs8_max_pool2d_nhwc_portable)
    kt_skip("no ISA-specific max pool kernel on this CPU");
  else
    for (int i = 0; i < 400; ++i) max_pool_case(&rng, selected, "selected");
  global_average_cases(&rng, lite_qs8_global_average_pool_nhwc_portable, "portable");
  const lite_qs8_global_average_pool_fn selected_gap = lite_qs8_global_average_pool_select(lite_cpu_features());
  if (selected_gap != lite_qs8_global_average_pool_nhwc_portable) global_average_cases(&rng, selected_gap, "selected");
  return kt_finish();
}
