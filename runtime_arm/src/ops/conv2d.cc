// CONV_2D: x [N,H,W,Ci], weight [Co,KH,KW,Ci/group], bias? [Co], prelu_slope? [Co] -> [N,OH,OW,Co].
// A constant weight is packed once at prepare into the kernel's layout (kept as the op's state);
// a computed weight is packed into scratch at every eval.
#include <cstdlib>

#include "fused_activation_check.h"
#include "lite_kernels/conv2d.h"
#include "op_api.h"
#include "op_util.h"
#include "window_geometry.h"

namespace lite {
namespace {

// Defaults of Conv2DOptions when the op has no options table.
struct ConvAttrs {
  int64_t stride_h = 1, stride_w = 1, dilation_h = 1, dilation_w = 1;
  int64_t pad_top = 0, pad_left = 0, pad_bottom = 0, pad_right = 0;
  lite_fb::Padding padding = lite_fb::Padding::EXPLICIT;
  int64_t group = 1;
  const lite_fb::Activation* activation = nullptr;
};

ConvAttrs read_attrs(const OpContext* ctx) {
  ConvAttrs a;
  const lite_fb::Conv2DOptions* o = ctx->op->options_as_Conv2DOptions();
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

// Fills the kernel parameters from the shapes and options; fails with a message when they do not fit.
Status conv_params(OpContext* ctx, lite_conv2d_params* p) {
  const TensorRef* x = ctx->input(0);
  const TensorRef* w = ctx->input(1);
  if (x == nullptr || w == nullptr) return fail(ctx, Status::kInvalidModel, "needs inputs x and weight");
  if (x->dtype != lite_fb::DType::FLOAT32 || w->dtype != lite_fb::DType::FLOAT32)
    return fail(ctx, Status::kUnsupported, "supports float32 x and weight, got %s and %s", dtype_name(x->dtype),
                dtype_name(w->dtype));
  if (x->shape.rank != 4 || w->shape.rank != 4)
    return fail(ctx, Status::kShapeError, "x must be [N,H,W,C] and weight [Co,KH,KW,Ci/group], got ranks %d and %d",
                x->shape.rank, w->shape.rank);
  const ConvAttrs a = read_attrs(ctx);
  if (a.stride_h < 1 || a.stride_w < 1 || a.dilation_h < 1 || a.dilation_w < 1 || a.group < 1)
    return fail(ctx, Status::kInvalidModel, "strides, dilations and group must be >= 1");
  if (a.pad_top < 0 || a.pad_left < 0 || a.pad_bottom < 0 || a.pad_right < 0)
    return fail(ctx, Status::kInvalidModel, "pads must be >= 0");
  const int64_t ci = x->shape.dims[3], co = w->shape.dims[0];
  if (ci % a.group != 0 || co % a.group != 0)
    return fail(ctx, Status::kShapeError, "input channels %lld and output channels %lld must be multiples of group %lld",
                static_cast<long long>(ci), static_cast<long long>(co), static_cast<long long>(a.group));
  if (w->shape.dims[3] != ci / a.group)
    return fail(ctx, Status::kShapeError, "weight has %lld input channels per group, x has %lld / group %lld",
                static_cast<long long>(w->shape.dims[3]), static_cast<long long>(ci), static_cast<long long>(a.group));
  const TensorRef* bias = ctx->input(2);
  if (bias != nullptr && (bias->dtype != lite_fb::DType::FLOAT32 || bias->shape.num_elements() != co))
    return fail(ctx, Status::kShapeError, "bias must be float32 with %lld values", static_cast<long long>(co));
  Status s = check_fused_activation(ctx, a.activation, 3, co);
  if (s != Status::kOk) return s;

  WindowAxis h, wa;
  if (!sliding_window_axis(a.padding, false, x->shape.dims[1], w->shape.dims[1], a.stride_h, a.dilation_h, a.pad_top,
                           a.pad_bottom, &h) ||
      !sliding_window_axis(a.padding, false, x->shape.dims[2], w->shape.dims[2], a.stride_w, a.dilation_w, a.pad_left,
                           a.pad_right, &wa))
    return fail(ctx, Status::kShapeError, "kernel %lldx%lld (dilated) does not fit the padded input %lldx%lld",
                static_cast<long long>(w->shape.dims[1]), static_cast<long long>(w->shape.dims[2]),
                static_cast<long long>(x->shape.dims[1]), static_cast<long long>(x->shape.dims[2]));
  p->batch = static_cast<size_t>(x->shape.dims[0]);
  p->in_h = static_cast<size_t>(x->shape.dims[1]);
  p->in_w = static_cast<size_t>(x->shape.dims[2]);
  p->in_c = static_cast<size_t>(ci);
  p->out_h = static_cast<size_t>(h.out);
  p->out_w = static_cast<size_t>(wa.out);
  p->out_c = static_cast<size_t>(co);
  p->kernel_h = static_cast<size_t>(w->shape.dims[1]);
  p->kernel_w = static_cast<size_t>(w->shape.dims[2]);
  p->stride_h = static_cast<size_t>(a.stride_h);
  p->stride_w = static_cast<size_t>(a.stride_w);
  p->dilation_h = static_cast<size_t>(a.dilation_h);
  p->dilation_w = static_cast<size_t>(a.dilation_w);
  p->pad_top = static_cast<size_t>(h.pad_begin);
  p->pad_left = static_cast<size_t>(wa.pad_begin);
  p->groups = static_cast<size_t>(a.group);
  return Status::kOk;
}

Status prepare(OpContext* ctx) {
  lite_conv2d_params p{};
  Status s = conv_params(ctx, &p);
  if (s != Status::kOk) return s;
  TensorRef* y = ctx->output(0);
  if (y == nullptr) return fail(ctx, Status::kInvalidModel, "needs one output");
  y->dtype = lite_fb::DType::FLOAT32;
  y->shape.rank = 4;
  y->shape.dims[0] = static_cast<int64_t>(p.batch);
  y->shape.dims[1] = static_cast<int64_t>(p.out_h);
  y->shape.dims[2] = static_cast<int64_t>(p.out_w);
  y->shape.dims[3] = static_cast<int64_t>(p.out_c);

  const size_t packed_bytes = lite_f32_conv2d_packed_weight_size(&p) * sizeof(float);
  const TensorRef* w = ctx->input(1);
  if (w->value_known && w->data != nullptr) {
    float* packed = static_cast<float*>(std::malloc(packed_bytes > 0 ? packed_bytes : 1));
    if (packed == nullptr) return fail(ctx, Status::kOutOfMemory, "cannot allocate %zu bytes of packed weight", packed_bytes);
    lite_f32_conv2d_pack_weight_ref(&p, static_cast<const float*>(w->data), packed);
    ctx->state = packed;
  } else {
    ctx->scratch_bytes_requested = packed_bytes;
  }
  return Status::kOk;
}

Status eval(OpContext* ctx) {
  lite_conv2d_params p{};
  Status s = conv_params(ctx, &p);
  if (s != Status::kOk) return s;
  const float* packed = static_cast<const float*>(ctx->state);
  if (packed == nullptr) {
    float* scratch = static_cast<float*>(ctx->scratch);
    lite_f32_conv2d_pack_weight_ref(&p, static_cast<const float*>(ctx->input(1)->data), scratch);
    packed = scratch;
  }
  const TensorRef* bias = ctx->input(2);
  const ConvAttrs a = read_attrs(ctx);
  const lite_activation act = to_kernel_activation(a.activation, ctx->input(3));
  lite_f32_conv2d_nhwc_ref(&p, static_cast<const float*>(ctx->input(0)->data), packed,
                           bias != nullptr ? static_cast<const float*>(bias->data) : nullptr, &act,
                           static_cast<float*>(ctx->output(0)->data));
  return Status::kOk;
}

void free_state(void* state) { std::free(state); }

}  // namespace

OpKernel conv2d_op_kernel() {
  OpKernel k;
  k.prepare = prepare;
  k.eval = eval;
  k.free_state = free_state;
  return k;
}

}  // namespace lite
