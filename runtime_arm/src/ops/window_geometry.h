// Output size and padding of the spatial axes of the windowed NN ops (CONV_2D, CONV_TRANSPOSE_2D,
// MAX/AVERAGE_POOL_2D, fp32 and int8), following ONNX: explicit pads, or SAME_UPPER / SAME_LOWER /
// VALID computed from the input size at prepare time (so dynamic input sizes work); the option checks
// and the kernel parameters those ops share.
#pragma once

#include <cstddef>
#include <cstdint>

#include "op_api.h"
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

// A 2-D window over an NHWC input: kernel size, strides, dilations, and the axes computed from them.
struct Window2D {
  int64_t kernel_h = 1, kernel_w = 1, stride_h = 1, stride_w = 1, dilation_h = 1, dilation_w = 1;
  WindowAxis h, w;
};

// A convolution's window (axes not computed yet) for a kernel_h x kernel_w weight.
inline Window2D conv_window(const ConvWindowAttrs& a, int64_t kernel_h, int64_t kernel_w) {
  Window2D win;
  win.kernel_h = kernel_h;
  win.kernel_w = kernel_w;
  win.stride_h = a.stride_h;
  win.stride_w = a.stride_w;
  win.dilation_h = a.dilation_h;
  win.dilation_w = a.dilation_w;
  return win;
}

// What every convolution checks of its options: strides, dilations and group >= 1, explicit pads >= 0.
inline Status check_conv_window_attrs(OpContext* ctx, const ConvWindowAttrs& a) {
  if (a.stride_h < 1 || a.stride_w < 1 || a.dilation_h < 1 || a.dilation_w < 1 || a.group < 1)
    return fail(ctx, Status::kInvalidModel, "strides, dilations and group must be >= 1");
  if (a.pad_top < 0 || a.pad_left < 0 || a.pad_bottom < 0 || a.pad_right < 0)
    return fail(ctx, Status::kInvalidModel, "pads must be >= 0");
  return Status::kOk;
}

// The sliding window's two axes over x [N,H,W,C] (win's kernel, strides and dilations); false when no
// window fits.
inline bool slide_window(lite_fb::Padding padding, bool ceil_mode, const Shape& x, int64_t pad_top, int64_t pad_left,
                         int64_t pad_bottom, int64_t pad_right, Window2D* win) {
  return sliding_window_axis(padding, ceil_mode, x.dims[1], win->kernel_h, win->stride_h, win->dilation_h, pad_top,
                             pad_bottom, &win->h) &&
         sliding_window_axis(padding, ceil_mode, x.dims[2], win->kernel_w, win->stride_w, win->dilation_w, pad_left,
                             pad_right, &win->w);
}

// MAX/AVERAGE_POOL_2D (fp32 and int8): the window of Pool2DOptions over x [N,H,W,C]; fails with the
// reason when the options are missing or out of range or no window fits.
inline Status pool_window(OpContext* ctx, const lite_fb::Pool2DOptions* o, const Shape& x, Window2D* win) {
  if (o == nullptr) return fail(ctx, Status::kInvalidModel, "needs Pool2DOptions (the kernel size)");
  if (o->kernel_h() < 1 || o->kernel_w() < 1 || o->stride_h() < 1 || o->stride_w() < 1 || o->dilation_h() < 1 ||
      o->dilation_w() < 1)
    return fail(ctx, Status::kInvalidModel, "kernel, strides and dilations must be >= 1");
  if (o->pad_top() < 0 || o->pad_left() < 0 || o->pad_bottom() < 0 || o->pad_right() < 0)
    return fail(ctx, Status::kInvalidModel, "pads must be >= 0");
  win->kernel_h = o->kernel_h();
  win->kernel_w = o->kernel_w();
  win->stride_h = o->stride_h();
  win->stride_w = o->stride_w();
  win->dilation_h = o->dilation_h();
  win->dilation_w = o->dilation_w();
  if (!slide_window(o->padding(), o->ceil_mode(), x, o->pad_top(), o->pad_left(), o->pad_bottom(), o->pad_right(), win))
    return fail(ctx, Status::kShapeError, "kernel %dx%d (dilated) does not fit the padded input %lldx%lld",
                o->kernel_h(), o->kernel_w(), static_cast<long long>(x.dims[1]), static_cast<long long>(x.dims[2]));
  return Status::kOk;
}

// The window fields of a kernel parameter struct (lite_conv2d_params, lite_conv_transpose2d_params,
// lite_pool2d_params name them alike): output size, kernel, strides, dilations, leading pads.
template <typename Params>
void fill_window_params(const Window2D& win, Params* p) {
  p->out_h = static_cast<size_t>(win.h.out);
  p->out_w = static_cast<size_t>(win.w.out);
  p->kernel_h = static_cast<size_t>(win.kernel_h);
  p->kernel_w = static_cast<size_t>(win.kernel_w);
  p->stride_h = static_cast<size_t>(win.stride_h);
  p->stride_w = static_cast<size_t>(win.stride_w);
  p->dilation_h = static_cast<size_t>(win.dilation_h);
  p->dilation_w = static_cast<size_t>(win.dilation_w);
  p->pad_top = static_cast<size_t>(win.h.pad_begin);
  p->pad_left = static_cast<size_t>(win.w.pad_begin);
}

// lite_conv2d_params or lite_conv_transpose2d_params of x [N,H,W,C] -> out_c channels over a computed
// window.
template <typename Params>
void fill_conv_params(const Shape& x, int64_t out_c, int64_t groups, const Window2D& win, Params* p) {
  p->batch = static_cast<size_t>(x.dims[0]);
  p->in_h = static_cast<size_t>(x.dims[1]);
  p->in_w = static_cast<size_t>(x.dims[2]);
  p->in_c = static_cast<size_t>(x.dims[3]);
  p->out_c = static_cast<size_t>(out_c);
  p->groups = static_cast<size_t>(groups);
  fill_window_params(win, p);
}

}  // namespace lite
