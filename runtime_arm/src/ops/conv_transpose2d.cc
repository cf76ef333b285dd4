// CONV_TRANSPOSE_2D: x [N,H,W,Ci], weight [Ci,KH,KW,Co/group], bias? [Co] -> [N,OH,OW,Co] with
// OH = stride * (H - 1) + output_padding + dilation * (KH - 1) + 1 - pad_top - pad_bottom.
// Groups 1 with a constant weight and bias runs as GEMMs (conv_transpose2d_gemm.h, packed at
// prepare), or, for kernel == stride with at most 4 output values per input pixel (a detection
// head's 24 -> 1 channel 2x2 upsampling), as one dot product per output value
// (f32_conv_transpose2d_dot.h) where a GEMM tile would be mostly padding; grouped or computed weights
// use the reference scatter kernel.
#include <cstdlib>
#include <new>

#include "conv_transpose2d_gemm.h"
#include "fused_activation_check.h"
#include "lite_kernels/conv_transpose2d.h"
#include "lite_kernels/cpu_features.h"
#include "lite_kernels/f32_conv_transpose2d_dot.h"
#include "lite_kernels/f32_vactivation.h"
#include "op_api.h"
#include "op_util.h"
#include "thread_pool.h"
#include "window_geometry.h"

namespace lite {
namespace {

struct ConvTransposeAttrs : ConvWindowAttrs {
  int64_t output_padding_h = 0, output_padding_w = 0;
};

ConvTransposeAttrs read_attrs(const OpContext* ctx) {
  const lite_fb::ConvTranspose2DOptions* o = ctx->op->options_as_ConvTranspose2DOptions();
  ConvTransposeAttrs a;
  static_cast<ConvWindowAttrs&>(a) = read_conv_window_attrs(o);
  if (o == nullptr) return a;
  a.output_padding_h = o->output_padding_h();
  a.output_padding_w = o->output_padding_w();
  return a;
}

Status conv_transpose_params(OpContext* ctx, lite_conv_transpose2d_params* p) {
  const TensorRef* x = ctx->input(0);
  const TensorRef* w = ctx->input(1);
  if (x == nullptr || w == nullptr) return fail(ctx, Status::kInvalidModel, "needs inputs x and weight");
  if (x->dtype != lite_fb::DType::FLOAT32 || w->dtype != lite_fb::DType::FLOAT32)
    return fail(ctx, Status::kUnsupported, "supports float32 x and weight, got %s and %s", dtype_name(x->dtype),
                dtype_name(w->dtype));
  if (x->shape.rank != 4 || w->shape.rank != 4)
    return fail(ctx, Status::kShapeError, "x must be [N,H,W,C] and weight [Ci,KH,KW,Co/group], got ranks %d and %d",
                x->shape.rank, w->shape.rank);
  const ConvTransposeAttrs a = read_attrs(ctx);
  Status s = check_conv_window_attrs(ctx, a);
  if (s != Status::kOk) return s;
  if (a.output_padding_h < 0 || a.output_padding_w < 0)
    return fail(ctx, Status::kInvalidModel, "output_padding must be >= 0");
  if (w->shape.dims[1] < 1 || w->shape.dims[2] < 1)
    return fail(ctx, Status::kShapeError, "weight kernel %lldx%lld must be at least 1x1",
                static_cast<long long>(w->shape.dims[1]), static_cast<long long>(w->shape.dims[2]));
  const int64_t ci = x->shape.dims[3];
  if (w->shape.dims[0] != ci)
    return fail(ctx, Status::kShapeError, "weight has %lld input channels, x has %lld",
                static_cast<long long>(w->shape.dims[0]), static_cast<long long>(ci));
  if (ci % a.group != 0)
    return fail(ctx, Status::kShapeError, "input channels %lld must be a multiple of group %lld",
                static_cast<long long>(ci), static_cast<long long>(a.group));
  const int64_t co = w->shape.dims[3] * a.group;
  const TensorRef* bias = ctx->input(2);
  if (bias != nullptr && (bias->dtype != lite_fb::DType::FLOAT32 || bias->shape.num_elements() != co))
    return fail(ctx, Status::kShapeError, "bias must be float32 with %lld values", static_cast<long long>(co));
  s = check_fused_activation(ctx, a.activation, -1, co);
  if (s != Status::kOk) return s;

  Window2D win = conv_window(a, w->shape.dims[1], w->shape.dims[2]);
  if (!transposed_window_axis(a.padding, x->shape.dims[1], win.kernel_h, a.stride_h, a.dilation_h, a.pad_top,
                              a.pad_bottom, a.output_padding_h, &win.h) ||
      !transposed_window_axis(a.padding, x->shape.dims[2], win.kernel_w, a.stride_w, a.dilation_w, a.pad_left,
                              a.pad_right, a.output_padding_w, &win.w))
    return fail(ctx, Status::kShapeError,
                "no valid output size for input %lldx%lld, kernel %lldx%lld, strides %lldx%lld, dilations %lldx%lld, "
                "pads %lld,%lld,%lld,%lld, output_padding %lldx%lld (empty, or too large)",
                static_cast<long long>(x->shape.dims[1]), static_cast<long long>(x->shape.dims[2]),
                static_cast<long long>(w->shape.dims[1]), static_cast<long long>(w->shape.dims[2]),
                static_cast<long long>(a.stride_h), static_cast<long long>(a.stride_w),
                static_cast<long long>(a.dilation_h), static_cast<long long>(a.dilation_w),
                static_cast<long long>(a.pad_top), static_cast<long long>(a.pad_left),
                static_cast<long long>(a.pad_bottom), static_cast<long long>(a.pad_right),
                static_cast<long long>(a.output_padding_h), static_cast<long long>(a.output_padding_w));
  if (win.h.out > kMaxOpDim || win.w.out > kMaxOpDim)
    return fail(ctx, Status::kShapeError, "output size %lldx%lld is too large", static_cast<long long>(win.h.out),
                static_cast<long long>(win.w.out));
  fill_conv_params(x->shape, co, a.group, win, p);
  return Status::kOk;
}

// Prepared form of a constant weight: exactly one of the two is set.
struct ConvTransposeState {
  ConvTransposeGemm* gemm = nullptr;
  lite_f32_conv_transpose2d_dot_fn dot = nullptr;
  float* dot_packed = nullptr;
};

void free_state(void* state) {
  ConvTransposeState* st = static_cast<ConvTransposeState*>(state);
  if (st == nullptr) return;
  conv_transpose_gemm_free(st->gemm);
  std::free(st->dot_packed);
  delete st;
}

// One task per input row: it writes the kernel_h output rows that row reaches, then their activation.
void run_dot(const ConvTransposeState& st, const lite_conv_transpose2d_params& p, ThreadPool* pool, const float* x,
             const lite_activation* act, float* y) {
  const size_t in_row = p.in_w * p.in_c, out_rows = p.kernel_h * p.out_w;
  parallel_for(pool, p.batch * p.in_h, [&](size_t r, int) {
    float* y_rows = y + r * out_rows * p.out_c;
    st.dot(&p, st.dot_packed, x + r * in_row, y_rows);
    lite_f32_activate(act, y_rows, out_rows, p.out_c);
  });
}

Status prepare(OpContext* ctx) {
  lite_conv_transpose2d_params p{};
  Status s = conv_transpose_params(ctx, &p);
  if (s != Status::kOk) return s;
  TensorRef* y = ctx->output(0);
  if (y == nullptr) return fail(ctx, Status::kInvalidModel, "needs one output");
  set_nhwc_output(y, lite_fb::DType::FLOAT32, p.batch, p.out_h, p.out_w, p.out_c);
  const TensorRef* w = ctx->input(1);
  const TensorRef* bias = ctx->input(2);
  if (!is_constant_or_absent(w) || !is_constant_or_absent(bias)) return Status::kOk;
  const float* weight = static_cast<const float*>(w->data);
  const float* bias_data = bias != nullptr ? static_cast<const float*>(bias->data) : nullptr;
  const lite_f32_conv_transpose2d_dot_fn dot = lite_f32_conv_transpose2d_dot_select(&p, lite_cpu_features());
  if (dot == nullptr && !conv_transpose_gemm_applies(p)) return Status::kOk;
  ConvTransposeState* st = new (std::nothrow) ConvTransposeState();
  if (st == nullptr) return fail(ctx, Status::kOutOfMemory, "cannot allocate the op state");
  ctx->state = st;
  if (dot != nullptr) {
    st->dot_packed = static_cast<float*>(
        op_allocate(ctx, lite_f32_conv_transpose2d_dot_packed_size(&p) * sizeof(float), "the packed weight"));
    if (st->dot_packed == nullptr) return Status::kOutOfMemory;
    lite_f32_conv_transpose2d_dot_pack(&p, weight, bias_data, st->dot_packed);
    st->dot = dot;
    return Status::kOk;
  }
  st->gemm = conv_transpose_gemm_create(ctx, p, weight, bias_data);
  if (st->gemm == nullptr) return Status::kOutOfMemory;
  ctx->scratch_bytes_requested = conv_transpose_gemm_scratch_bytes(*st->gemm, p, ctx->num_threads);
  return Status::kOk;
}

Status eval(OpContext* ctx) {
  lite_conv_transpose2d_params p{};
  Status s = conv_transpose_params(ctx, &p);
  if (s != Status::kOk) return s;
  if (ctx->output(0)->shape.num_elements() == 0) return Status::kOk;  // nothing to write (the loops would still run)
  const TensorRef* bias = ctx->input(2);
  const lite_activation act = to_kernel_activation(read_attrs(ctx).activation, nullptr);
  const ConvTransposeState* st = static_cast<const ConvTransposeState*>(ctx->state);
  if (st != nullptr && st->dot != nullptr) {
    run_dot(*st, p, ctx->pool, static_cast<const float*>(ctx->input(0)->data), &act,
            static_cast<float*>(ctx->output(0)->data));
    return Status::kOk;
  }
  if (st != nullptr && st->gemm != nullptr) {
    conv_transpose_gemm_run(*st->gemm, p, ctx->pool, static_cast<const float*>(ctx->input(0)->data), &act,
                            static_cast<float*>(ctx->output(0)->data), ctx->scratch);
    return Status::kOk;
  }
  lite_f32_conv_transpose2d_nhwc_ref(&p, static_cast<const float*>(ctx->input(0)->data),
                                     static_cast<const float*>(ctx->input(1)->data),
                                     bias != nullptr ? static_cast<const float*>(bias->data) : nullptr, &act,
                                     static_cast<float*>(ctx->output(0)->data));
  return Status::kOk;
}

}  // namespace

OpKernel conv_transpose2d_op_kernel() {
  OpKernel k;
  k.prepare = prepare;
  k.eval = eval;
  k.free_state = free_state;
  return k;
}

}  // namespace lite
