// Output size and padding of one spatial axis of the windowed NN ops (CONV_2D, CONV_TRANSPOSE_2D,
// MAX/AVERAGE_POOL_2D), following ONNX: explicit pads, or SAME_UPPER / SAME_LOWER / VALID computed
// from the input size at prepare time (so dynamic input sizes work).
#pragma once

#include <cstdint>

#include "schema/lite_generated.h"

namespace lite {

// Options CONV_2D and CONV_TRANSPOSE_2D share, with the schema's defaults when the op has no options table.
struct ConvWindowAttrs {
  int64_t stride_h = 1, stride_w = 1, dilation_h = 1, dilation_w = 1;
  int64_t pad_top = 0, pad_left = 0, pad_bottom = 0, pad_right = 0;
  lite_fb::Padding padding = lite_fb::Padding::EXPLICIT;
  int64_t group = 1;
  const lite_fb::Activation* activation = nullptr;
};

// Reads the shared fields from Conv2DOptions or ConvTranspose2DOptions (same field names).
template <typename Options>
ConvWindowAttrs read_conv_window_attrs(const Options* o) {
  ConvWindowAttrs a;
  if (o == nullptr) return a;
  a.stride_h = o->stride_h();
  a.stride_w = o->stride_w();
  a.dilation_h = o->dilation_h();
  a.dilation_w = o->dilation_w();
  a.pad_top = o->pad_top();
  a.pad_left = o->pad_left();
  a.pad_bottom = o->pad_bottom();
  a.pad_right = o->pad_right();
  a.padding = o->padding();
  a.group = o->group();
  a.activation = o->activation();
  return a;
}

struct WindowAxis {
  int64_t out = 0;
  int64_t pad_begin = 0;
  int64_t pad_end = 0;
};

// Extent of a dilated kernel: dilation * (kernel - 1) + 1. Callers check kernel >= 1 and
// dilation >= 1 first; both come from int32 options or tensor dims (<= 2^31), so this fits int64.
inline int64_t dilated_extent(int64_t kernel, int64_t dilation) { return dilation * (kernel - 1) + 1; }

// A sliding window over `in` (convolution and pooling). ceil_mode applies to explicit padding only,
// with the ONNX / PyTorch rule that the last window must start inside the input or its leading pad.
// Returns false when no window fits (out would be < 1).
inline bool sliding_window_axis(lite_fb::Padding padding, bool ceil_mode, int64_t in, int64_t kernel, int64_t stride,
                                int64_t dilation, int64_t pad_begin, int64_t pad_end, WindowAxis* axis) {
  const int64_t extent = dilated_extent(kernel, dilation);
  switch (padding) {
    case lite_fb::Padding::SAME_UPPER:
    case lite_fb::Padding::SAME_LOWER: {
      axis->out = (in + stride - 1) / stride;
      int64_t total = (axis->out - 1) * stride + extent - in;
      if (total < 0) total = 0;
      const int64_t smaller = total / 2;
      axis->pad_begin = padding == lite_fb::Padding::SAME_UPPER ? smaller : total - smaller;
      axis->pad_end = total - axis->pad_begin;
      break;
    }
    case lite_fb::Padding::VALID:
      axis->pad_begin = axis->pad_end = 0;
      axis->out = in >= extent ? (in - extent) / stride + 1 : 0;
      break;
    default: {
      axis->pad_begin = pad_begin;
      axis->pad_end = pad_end;
      const int64_t span = in + pad_begin + pad_end - extent;
      if (span < 0) {
        axis->out = 0;
      } else if (!ceil_mode) {
        axis->out = span / stride + 1;
      } else {
        axis->out = (span + stride - 1) / stride + 1;
        if ((axis->out - 1) * stride >= in + pad_begin) --axis->out;
      }
      break;
    }
  }
  return axis->out >= 1;
}

// CONV_TRANSPOSE_2D: out = stride * (in - 1) + output_padding + extent - pads. SAME_* make
// out = in * stride and split the needed padding (the odd one at the end for SAME_UPPER).
// Returns false when out < 1 or when the size computation overflows (stride, dilation, kernel
// and input up to 2^31 each: their products can exceed int64).
inline bool transposed_window_axis(lite_fb::Padding padding, int64_t in, int64_t kernel, int64_t stride,
                                   int64_t dilation, int64_t pad_begin, int64_t pad_end, int64_t output_padding,
                                   WindowAxis* axis) {
  int64_t full;
  if (__builtin_mul_overflow(stride, in - 1, &full) || __builtin_add_overflow(full, output_padding, &full) ||
      __builtin_add_overflow(full, dilated_extent(kernel, dilation), &full))
    return false;
  switch (padding) {
    case lite_fb::Padding::SAME_UPPER:
    case lite_fb::Padding::SAME_LOWER: {
      axis->out = in * stride;
      int64_t total = full - axis->out;
      if (total < 0) total = 0;
      const int64_t smaller = total / 2;
      axis->pad_begin = padding == lite_fb::Padding::SAME_UPPER ? smaller : total - smaller;
      axis->pad_end = total - axis->pad_begin;
      axis->out = full - total;
      break;
    }
    case lite_fb::Padding::VALID:
      axis->pad_begin = axis->pad_end = 0;
      axis->out = full;
      break;
    default:
      axis->pad_begin = pad_begin;
      axis->pad_end = pad_end;
      axis->out = full - pad_begin - pad_end;
      break;
  }
  return axis->out >= 1;
}

}  // namespace lite
