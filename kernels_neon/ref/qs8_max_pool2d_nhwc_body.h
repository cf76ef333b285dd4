/* The int8 MAX_POOL_2D row loop, written once as plain C that compilers vectorize and instantiated
 * per ISA with that ISA's flags (ref/qs8_max_pool2d_nhwc_portable.c: SSE2 / NEON baseline,
 * x86/qs8_max_pool2d_nhwc_avx2.c: 32 bytes per vpmaxsb). The including file defines
 * LITE_MAX_POOL_ENTRY, the public name (signature: lite_qs8_max_pool2d_fn of qs8_kernels.h).
 *
 * The window's taps are folded into the output pixel as whole channel vectors (one byte max per
 * lane) and the tap range is computed once per pixel, not once per channel as in the reference.
 * Max is exact, so the bytes equal lite_qs8_max_pool2d_nhwc_ref's by construction. */
#include <string.h>

#include "lite_kernels/qs8_kernels.h"
#include "qs8_pool_window.h"

/* y[c] = max(y[c], x[c]): the loop GCC and Clang turn into byte-max vectors at -O3. */
static void max_into(size_t channels, const int8_t* restrict x, int8_t* restrict y) {
  for (size_t c = 0; c < channels; ++c) y[c] = x[c] > y[c] ? x[c] : y[c];
}

void LITE_MAX_POOL_ENTRY(const lite_conv2d_params* p, const int8_t* input, int8_t* output, size_t row_begin,
                         size_t row_end) {
  const size_t channels = p->in_c;
  for (size_t row = row_begin; row < row_end; ++row) {
    const size_t n = row / p->out_h, oh = row % p->out_h;
    size_t kh0, kh1;
    lite_qs8_pool_tap_range(oh, p->stride_h, p->dilation_h, p->pad_top, p->kernel_h, p->in_h, &kh0, &kh1);
    for (size_t ow = 0; ow < p->out_w; ++ow) {
      size_t kw0, kw1;
      lite_qs8_pool_tap_range(ow, p->stride_w, p->dilation_w, p->pad_left, p->kernel_w, p->in_w, &kw0, &kw1);
      int8_t* y = output + (row * p->out_w + ow) * channels;
      memset(y, -128, channels); /* a window entirely in the padding gives the lowest value */
      for (size_t kh = kh0; kh < kh1; ++kh) {
        const size_t ih = oh * p->stride_h + kh * p->dilation_h - p->pad_top;
        const int8_t* x_row = input + (n * p->in_h + ih) * p->in_w * channels;
        for (size_t kw = kw0; kw < kw1; ++kw) {
          const size_t iw = ow * p->stride_w + kw * p->dilation_w - p->pad_left;
          max_into(channels, x_row + iw * channels, y);
        }
      }
    }
  }
}
