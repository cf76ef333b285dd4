/* The int8 MAX_POOL_2D row loop, written once as plain C that compilers vectorize and instantiated
 * per ISA with that ISA's flags (portable/qs8_max_pool2d_nhwc_portable.c: SSE2 / NEON baseline,
 * x86/qs8_max_pool2d_nhwc_avx2.c: 32 bytes per vpmaxsb). The including file defines
 * LITE_MAX_POOL_ENTRY, the public name (signature: lite_qs8_max_pool2d_fn of qs8_pool2d.h).
 *
 * The window's taps are folded into the output pixel as whole channel vectors (one byte max per
 * lane) and the tap range is computed once per pixel, not once per channel as in the reference.
 * Max is exact, so the bytes equal lite_qs8_max_pool2d_nhwc_ref's by construction. */
#include <string.h>

#include "lite_kernels/qs8_pool2d.h"
#include "../ref/pool_window.h"

enum { LITE_MAX_POOL_BLOCK = 64 };

/* y[c] = max(y[c], x[c]): the loop GCC and Clang turn into byte-max vectors at -O3. */
static void max_into(size_t channels, const int8_t* restrict x, int8_t* restrict y) {
  for (size_t c = 0; c < channels; ++c) y[c] = x[c] > y[c] ? x[c] : y[c];
}

/* One output pixel's `block` channels (a constant after inlining: 64 or 16) over the taps
 * [kh0, kh1) x [kw0, kw1): the running max stays in vector registers (a fixed-size local the compiler
 * keeps there) instead of going through y. Fixed trip counts vectorize at -O2 too (ARM builds). */
static inline __attribute__((always_inline)) void max_block(const int8_t* x_pixel0, size_t row_step, size_t tap_step,
                                                            size_t rows, size_t cols, size_t block, int8_t* y) {
  int8_t best[LITE_MAX_POOL_BLOCK];
  for (size_t c = 0; c < block; ++c) best[c] = -128;
  for (size_t r = 0; r < rows; ++r)
    for (size_t t = 0; t < cols; ++t) {
      const int8_t* x = x_pixel0 + r * row_step + t * tap_step;
      for (size_t c = 0; c < block; ++c) best[c] = x[c] > best[c] ? x[c] : best[c];
    }
  memcpy(y, best, block);
}

void LITE_MAX_POOL_ENTRY(const lite_conv2d_params* p, const int8_t* input, int8_t* output, size_t row_begin,
                         size_t row_end) {
  const size_t channels = p->in_c;
  for (size_t row = row_begin; row < row_end; ++row) {
    const size_t n = row / p->out_h, oh = row % p->out_h;
    size_t kh0, kh1;
    lite_pool_tap_range(oh, p->stride_h, p->dilation_h, p->pad_top, p->kernel_h, 0, (int64_t)p->in_h, &kh0, &kh1);
    for (size_t ow = 0; ow < p->out_w; ++ow) {
      size_t kw0, kw1;
      lite_pool_tap_range(ow, p->stride_w, p->dilation_w, p->pad_left, p->kernel_w, 0, (int64_t)p->in_w, &kw0, &kw1);
      int8_t* y = output + (row * p->out_w + ow) * channels;
      size_t c0 = 0;
      if (kh1 > kh0 && kw1 > kw0) {
        const size_t ih0 = oh * p->stride_h + kh0 * p->dilation_h - p->pad_top;
        const size_t iw0 = ow * p->stride_w + kw0 * p->dilation_w - p->pad_left;
        const int8_t* x0 = input + ((n * p->in_h + ih0) * p->in_w + iw0) * channels;
        const size_t row_step = p->dilation_h * p->in_w * channels, tap_step = p->dilation_w * channels;
        for (; c0 + LITE_MAX_POOL_BLOCK <= channels; c0 += LITE_MAX_POOL_BLOCK)
          max_block(x0 + c0, row_step, tap_step, kh1 - kh0, kw1 - kw0, LITE_MAX_POOL_BLOCK, y + c0);
        /* 16-channel blocks: a 32-channel map's pools ran the scalar tail loop on ARM (-O2) */
        for (; c0 + 16 <= channels; c0 += 16) max_block(x0 + c0, row_step, tap_step, kh1 - kh0, kw1 - kw0, 16, y + c0);
      }
      if (c0 == channels) continue;
      memset(y + c0, -128, channels - c0); /* a window entirely in the padding gives the lowest value */
      for (size_t kh = kh0; kh < kh1; ++kh) {
        const size_t ih = oh * p->stride_h + kh * p->dilation_h - p->pad_top;
        const int8_t* x_row = input + (n * p->in_h + ih) * p->in_w * channels;
        for (size_t kw = kw0; kw < kw1; ++kw) {
          const size_t iw = ow * p->stride_w + kw * p->dilation_w - p->pad_left;
          max_into(channels - c0, x_row + iw * channels + c0, y + c0);
        }
      }
    }
  }
}
