// INSTANCE_NORM_NHWC: x [N,H,W,C], scale [C], bias [C] -> [N,H,W,C] (InstanceNormOptions.epsilon).
#include "lite_kernels/f32_normalization.h"
#include "op_api.h"

namespace lite {
namespace {

Status prepare(OpContext* ctx) {
  const TensorRef* x = ctx->input(0);
  const TensorRef* scale = ctx->input(1);
  const TensorRef* bias = ctx->input(2);
  TensorRef* y = ctx->output(0);
  if (x == nullptr || scale == nullptr || bias == nullptr || y == nullptr)
    return fail(ctx, Status::kInvalidModel, "needs inputs x, scale, bias and one output");
  if (x->dtype != lite_fb::DType::FLOAT32 || scale->dtype != lite_fb::DType::FLOAT32 ||
      bias->dtype != lite_fb::DType::FLOAT32)
    return fail(ctx, Status::kUnsupported, "supports float32 only");
  if (x->shape.rank != 4) return fail(ctx, Status::kShapeError, "x must be [N,H,W,C], got rank %d", x->shape.rank);
  const int64_t c = x->shape.dims[3];
  if (scale->shape.num_elements() != c || bias->shape.num_elements() != c)
    return fail(ctx, Status::kShapeError, "scale and bias must have %lld values (one per channel)",
                static_cast<long long>(c));
  y->dtype = lite_fb::DType::FLOAT32;
  y->shape = x->shape;
  ctx->scratch_bytes_requested = 2 * static_cast<size_t>(c) * sizeof(double);
  return Status::kOk;
}

Status eval(OpContext* ctx) {
  const Shape& s = ctx->input(0)->shape;
  if (ctx->output(0)->shape.num_elements() == 0) return Status::kOk;  // nothing to write (the loops would still run)
  const lite_fb::InstanceNormOptions* o = ctx->op->options_as_InstanceNormOptions();
  lite_f32_instance_norm_nhwc_ref(static_cast<size_t>(s.dims[0]), static_cast<size_t>(s.dims[1] * s.dims[2]),
                                  static_cast<size_t>(s.dims[3]), static_cast<const float*>(ctx->input(0)->data),
                                  static_cast<const float*>(ctx->input(1)->data),
                                  static_cast<const float*>(ctx->input(2)->data),
                                  o != nullptr ? o->epsilon() : 1e-5f, static_cast<float*>(ctx->output(0)->data),
                                  static_cast<double*>(ctx->scratch));
  return Status::kOk;
}

}  // namespace

OpKernel instance_norm_op_kernel() {
  OpKernel k;
  k.prepare = prepare;
  k.eval = eval;
  return k;
}

}  // namespace lite
