/* fp32 MAX_POOL_2D / AVERAGE_POOL_2D over a range of output rows, written once as plain C that
 * compilers vectorize and instantiated per ISA with that ISA's flags (portable/f32_pool2d_nhwc_portable.c:
 * the baseline SSE2 / NEON, x86/f32_pool2d_nhwc_avx512.c). The including file defines
 * LITE_F32_MAX_POOL_ROWS and LITE_F32_AVERAGE_POOL_ROWS, the public names (lite_f32_pool2d_rows_fn).
 *
 * Each output pixel keeps blocks of 32 channels in a fixed-size local (registers once vectorized)
 * across the window's taps, where the reference goes through the output once per tap. Per channel,
 * the taps are visited in the reference's order (rows, then columns) with the reference's
 * expressions (max: `x > best || x is NaN ? x : best` from -inf; average: a sum from 0, then one division), so
 * the outputs equal lite_f32_*_pool2d_nhwc_ref's bit for bit, NaN included. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include "lite_kernels/f32_pool2d.h"
#include "../ref/pool_window.h"

enum { LITE_F32_POOL_BLOCK = 32 };

typedef struct {
  const float* first; /* the first tap inside the input of this output pixel */
  size_t rows, cols;  /* taps inside the input */
  size_t row_step, col_step;
} lite_f32_pool_taps;

static inline lite_f32_pool_taps lite_f32_pool_pixel_taps(const lite_pool2d_params* p, const float* image, size_t oh,
                                                          size_t ow, size_t kh0, size_t kh1) {
  size_t kw0, kw1;
  lite_pool_tap_range(ow, p->stride_w, p->dilation_w, p->pad_left, p->kernel_w, 0, (int64_t)p->in_w, &kw0, &kw1);
  lite_f32_pool_taps t = {image, kh1 - kh0, kw1 - kw0, p->dilation_h * p->in_w * p->channels,
                          p->dilation_w * p->channels};
  if (t.rows > 0 && t.cols > 0) {
    const size_t ih = oh * p->stride_h + kh0 * p->dilation_h - p->pad_top;
    const size_t iw = ow * p->stride_w + kw0 * p->dilation_w - p->pad_left;
    t.first = image + (ih * p->in_w + iw) * p->channels;
  } else {
    t.rows = t.cols = 0;
  }
  return t;
}

/* One output pixel's channels [c0, c0 + width): the running max or sum over the taps in a local;
 * `width` is a constant after inlining: LITE_F32_POOL_BLOCK, or 8 for the 8-32 channels of MediaPipe's
 * blocks (BlazeFace, hand recrop), which the per-channel tail below would run one value at a time. */
static inline __attribute__((always_inline)) void lite_f32_pool_block(const lite_f32_pool_taps* t, size_t c0,
                                                                      const int average, float* y) {
  float acc[LITE_F32_POOL_BLOCK];
  for (size_t c = 0; c < LITE_F32_POOL_BLOCK; ++c) acc[c] = average ? 0.0f : -INFINITY;
  for (size_t r = 0; r < t->rows; ++r)
    for (size_t k = 0; k < t->cols; ++k) {
      const float* x = t->first + r * t->row_step + k * t->col_step + c0;
      if (average)
        for (size_t c = 0; c < LITE_F32_POOL_BLOCK; ++c) acc[c] += x[c];
      else
        for (size_t c = 0; c < LITE_F32_POOL_BLOCK; ++c) acc[c] = x[c] > acc[c] || x[c] != x[c] ? x[c] : acc[c];
    }
  memcpy(y + c0, acc, sizeof(acc));
}

/* The same for 8 and 4 channels, for the 8-88 channels of MediaPipe's blocks (BlazeFace, hand recrop)
 * that the per-channel tail below ran one value at a time. Written with the compilers' generic vectors:
 * a loop of 8 is unrolled into scalars before the loop vectorizer sees it, and the max's `||` then
 * stays a branch per value. The select is the same expression, lane by lane. */
#define LITE_F32_POOL_SMALL_BLOCK(name, width, vf, vm)                                                              \
  typedef float vf __attribute__((vector_size(4 * (width))));                                                       \
  typedef int32_t vm __attribute__((vector_size(4 * (width))));                                                     \
  static inline __attribute__((always_inline)) void name(const lite_f32_pool_taps* t, size_t c0, const int average,  \
                                                         float* y) {                                                \
    vf acc;                                                                                                         \
    for (size_t c = 0; c < (width); ++c) acc[c] = average ? 0.0f : -INFINITY;                                       \
    for (size_t r = 0; r < t->rows; ++r)                                                                            \
      for (size_t k = 0; k < t->cols; ++k) {                                                                        \
        vf x;                                                                                                       \
        memcpy(&x, t->first + r * t->row_step + k * t->col_step + c0, sizeof(x));                                   \
        if (average) {                                                                                              \
          acc += x;                                                                                                 \
        } else {                                                                                                    \
          const vm take = (x > acc) | (x != x);                                                                     \
          acc = (vf)(((vm)x & take) | ((vm)acc & ~take));                                                           \
        }                                                                                                           \
      }                                                                                                             \
    memcpy(y + c0, &acc, sizeof(acc));                                                                              \
  }
LITE_F32_POOL_SMALL_BLOCK(lite_f32_pool_block8, 8, lite_f32_pool_x8, lite_f32_pool_m8)
LITE_F32_POOL_SMALL_BLOCK(lite_f32_pool_block4, 4, lite_f32_pool_x4, lite_f32_pool_m4)
#undef LITE_F32_POOL_SMALL_BLOCK

/* Both ops' row loop; `average` is a constant after inlining. */
static inline __attribute__((always_inline)) void lite_f32_pool_rows(const lite_pool2d_params* p, const float* input,
                                                                     const lite_activation* act, float* output,
                                                                     size_t row_begin, size_t row_end,
                                                                     const int average) {
  const size_t channels = p->channels;
  for (size_t row = row_begin; row < row_end; ++row) {
    const size_t n = row / p->out_h, oh = row % p->out_h;
    const float* image = input + n * p->in_h * p->in_w * channels;
    size_t kh0, kh1, ph0 = 0, ph1 = 0;
    lite_pool_tap_range(oh, p->stride_h, p->dilation_h, p->pad_top, p->kernel_h, 0, (int64_t)p->in_h, &kh0, &kh1);
    if (average && p->count_include_pad)
      lite_pool_tap_range(oh, p->stride_h, p->dilation_h, p->pad_top, p->kernel_h, -(int64_t)p->pad_top,
                          (int64_t)p->in_h + (int64_t)p->pad_bottom, &ph0, &ph1);
    for (size_t ow = 0; ow < p->out_w; ++ow) {
      const lite_f32_pool_taps t = lite_f32_pool_pixel_taps(p, image, oh, ow, kh0, kh1);
      float* y = output + (row * p->out_w + ow) * channels;
      size_t c0 = 0;
      for (; c0 + LITE_F32_POOL_BLOCK <= channels; c0 += LITE_F32_POOL_BLOCK)
        lite_f32_pool_block(&t, c0, average, y);
      for (; c0 + 8 <= channels; c0 += 8) lite_f32_pool_block8(&t, c0, average, y);
      if (c0 + 4 <= channels) {
        lite_f32_pool_block4(&t, c0, average, y);
        c0 += 4;
      }
      for (size_t c = c0; c < channels; ++c) y[c] = average ? 0.0f : -INFINITY;
      for (size_t r = 0; r < t.rows && c0 < channels; ++r)
        for (size_t k = 0; k < t.cols; ++k) {
          const float* x = t.first + r * t.row_step + k * t.col_step;
          if (average)
            for (size_t c = c0; c < channels; ++c) y[c] += x[c];
          else
            for (size_t c = c0; c < channels; ++c) y[c] = x[c] > y[c] || x[c] != x[c] ? x[c] : y[c];
        }
      if (average) {
        size_t count = t.rows * t.cols;
        if (p->count_include_pad) {
          size_t pw0, pw1;
          lite_pool_tap_range(ow, p->stride_w, p->dilation_w, p->pad_left, p->kernel_w, -(int64_t)p->pad_left,
                              (int64_t)p->in_w + (int64_t)p->pad_right, &pw0, &pw1);
          count = (ph1 - ph0) * (pw1 - pw0);
        }
        if (count > 0) {
          const float divisor = (float)count;
          for (size_t c = 0; c < channels; ++c) y[c] /= divisor;
        }
      }
      if (act != NULL) lite_activate_rows(act, y, 1, channels);
    }
  }
}

void LITE_F32_MAX_POOL_ROWS(const lite_pool2d_params* p, const float* input, const lite_activation* act,
                            float* output, size_t row_begin, size_t row_end) {
  lite_f32_pool_rows(p, input, act, output, row_begin, row_end, 0);
}

void LITE_F32_AVERAGE_POOL_ROWS(const lite_pool2d_params* p, const float* input, const lite_activation* act,
                                float* output, size_t row_begin, size_t row_end) {
  lite_f32_pool_rows(p, input, act, output, row_begin, row_end, 1);
}
