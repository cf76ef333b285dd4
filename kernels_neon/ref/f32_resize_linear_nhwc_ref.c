/* Bilinear resize on NHWC data: two source rows and two source columns per output pixel, blended
 * over all channels at once. */
#include <math.h>

#include "lite_kernels/resize.h"

typedef struct {
  size_t i0, i1;
  float w1; /* weight of i1; i0 gets 1 - w1 */
} linear_tap;

static linear_tap linear_taps(const lite_resize_params* p, size_t out_index, double scale, size_t in_len,
                              size_t out_len) {
  double x = lite_resize_source_coordinate(p->coordinate_mode, out_index, scale, in_len, out_len);
  if (!(x >= 0.0)) x = 0.0; /* also NaN: the (size_t) conversion below must see a value in range */
  if (x > (double)(in_len - 1)) x = (double)(in_len - 1);
  linear_tap t;
  t.i0 = (size_t)x;
  t.i1 = t.i0 + 1 < in_len ? t.i0 + 1 : t.i0;
  t.w1 = (float)(x - (double)t.i0);
  return t;
}

void lite_f32_resize_linear_nhwc_rows(const lite_resize_params* p, const float* input, float* output, size_t row_begin,
                                      size_t row_end) {
  const size_t c_n = p->channels;
  for (size_t row = row_begin; row < row_end; ++row) { /* row = image * out_h + oh */
    const size_t n = row / p->out_h, oh = row % p->out_h;
    const float* image = input + n * p->in_h * p->in_w * c_n;
    const linear_tap ty = linear_taps(p, oh, p->scale_h, p->in_h, p->out_h);
    const float* row0 = image + ty.i0 * p->in_w * c_n;
    const float* row1 = image + ty.i1 * p->in_w * c_n;
    for (size_t ow = 0; ow < p->out_w; ++ow) {
      const linear_tap tx = linear_taps(p, ow, p->scale_w, p->in_w, p->out_w);
      const float* restrict a = row0 + tx.i0 * c_n;
      const float* restrict b = row0 + tx.i1 * c_n;
      const float* restrict c = row1 + tx.i0 * c_n;
      const float* restrict d = row1 + tx.i1 * c_n;
      float* restrict out = output + (row * p->out_w + ow) * c_n;
      const float wx1 = tx.w1, wx0 = 1.0f - tx.w1, wy1 = ty.w1, wy0 = 1.0f - ty.w1;
      for (size_t ch = 0; ch < c_n; ++ch)
        out[ch] = wy0 * (wx0 * a[ch] + wx1 * b[ch]) + wy1 * (wx0 * c[ch] + wx1 * d[ch]);
    }
  }
}

void lite_f32_resize_linear_nhwc_ref(const lite_resize_params* p, const float* input, float* output) {
  lite_f32_resize_linear_nhwc_rows(p, input, output, 0, p->batch * p->out_h);
}
