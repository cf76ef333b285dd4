/* Tap pointers of one output pixel of an int8 depthwise convolution (qs8_dwconv.h), shared by the
 * ISA variants: the input pixel of each tap at channel 0, or the packed zero-point row for a tap in
 * the padding; windows wholly inside the input take constant offsets from their top-left pixel. */
#ifndef LITE_KERNELS_REF_QS8_DWCONV_TAPS_H
#define LITE_KERNELS_REF_QS8_DWCONV_TAPS_H

#include <stddef.h>
#include <stdint.h>

#include "lite_kernels/conv2d.h"

/* Offsets of the taps from the window's top-left input pixel, in bytes. */
static inline void lite_qs8_dwconv_tap_offsets(const lite_conv2d_params* p, size_t* offsets) {
  for (size_t kh = 0, t = 0; kh < p->kernel_h; ++kh)
    for (size_t kw = 0; kw < p->kernel_w; ++kw, ++t)
      offsets[t] = (kh * p->dilation_h * p->in_w + kw * p->dilation_w) * p->in_c;
}

/* ptrs[t] for the kernel_h * kernel_w taps of output pixel (b, oh, ow). */
static inline void lite_qs8_dwconv_tap_pointers(const lite_conv2d_params* p, const int8_t* input,
                                                const int8_t* zero_row, const size_t* offsets, size_t b, size_t oh,
                                                size_t ow, const int8_t** ptrs) {
  const size_t c = p->in_c, taps = p->kernel_h * p->kernel_w;
  const size_t window_h = (p->kernel_h - 1) * p->dilation_h + 1, window_w = (p->kernel_w - 1) * p->dilation_w + 1;
  const size_t ih0_padded = oh * p->stride_h, iw0_padded = ow * p->stride_w;
  if (ih0_padded >= p->pad_top && ih0_padded - p->pad_top + window_h <= p->in_h && iw0_padded >= p->pad_left &&
      iw0_padded - p->pad_left + window_w <= p->in_w) {
    const int8_t* base = input + ((b * p->in_h + (ih0_padded - p->pad_top)) * p->in_w + (iw0_padded - p->pad_left)) * c;
    for (size_t t = 0; t < taps; ++t) ptrs[t] = base + offsets[t];
    return;
  }
  size_t t = 0;
  for (size_t kh = 0; kh < p->kernel_h; ++kh) {
    const size_t ih_padded = ih0_padded + kh * p->dilation_h;
    const int row_ok = ih_padded >= p->pad_top && ih_padded - p->pad_top < p->in_h;
    for (size_t kw = 0; kw < p->kernel_w; ++kw, ++t) {
      const size_t iw_padded = iw0_padded + kw * p->dilation_w;
      ptrs[t] = row_ok && iw_padded >= p->pad_left && iw_padded - p->pad_left < p->in_w
                    ? input + ((b * p->in_h + (ih_padded - p->pad_top)) * p->in_w + (iw_padded - p->pad_left)) * c
                    : zero_row;
    }
  }
}

#endif
