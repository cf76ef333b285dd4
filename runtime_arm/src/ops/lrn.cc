// LRN_NHWC: x [N,H,W,C] -> same shape, ONNX LRN across channels (LrnOptions size, alpha, beta, bias).
#include "lite_kernels/f32_normalization.h"
#include "op_api.h"

namespace lite {
namespace {

Status prepare(OpContext* ctx) {
  const TensorRef* x = ctx->input(0);
  TensorRef* y = ctx->output(0);
  if (x == nullptr || y == nullptr) return fail(ctx, Status::kInvalidModel, "needs one input and one output");
  if (x->dtype != lite_fb::DType::FLOAT32)
    return fail(ctx, Status::kUnsupported, "supports float32 x, got %s", dtype_name(x->dtype));
  if (x->shape.rank != 4) return fail(ctx, Status::kShapeError, "x must be [N,H,W,C], got rank %d", x->shape.rank);
  const lite_fb::LrnOptions* o = ctx->op->options_as_LrnOptions();
  if (o == nullptr || o->size() < 1) return fail(ctx, Status::kInvalidModel, "needs LrnOptions with size >= 1");
  y->dtype = lite_fb::DType::FLOAT32;
  y->shape = x->shape;
  return Status::kOk;
}

Status eval(OpContext* ctx) {
  const Shape& s = ctx->input(0)->shape;
  if (ctx->output(0)->shape.num_elements() == 0) return Status::kOk;  // nothing to write (the loops would still run)
  const lite_fb::LrnOptions* o = ctx->op->options_as_LrnOptions();
  lite_f32_lrn_nhwc_ref(static_cast<size_t>(s.dims[0] * s.dims[1] * s.dims[2]), static_cast<size_t>(s.dims[3]),
                        static_cast<size_t>(o->size()), o->alpha(), o->beta(), o->bias(),
                        static_cast<const float*>(ctx->input(0)->data), static_cast<float*>(ctx->output(0)->data));
  return Status::kOk;
}

}  // namespace

OpKernel lrn_op_kernel() {
  OpKernel k;
  k.prepare = prepare;
  k.eval = eval;
  return k;
}

}  // namespace lite
