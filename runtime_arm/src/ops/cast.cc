// CAST: dtype conversion with ONNX semantics (lite_kernels/cast.h).
#include "elementwise_ops.h"
#include "lite_kernels/cast.h"
#include "op_helpers.h"

namespace lite {
namespace {

Status cast_prepare(OpContext* ctx) {
  Status s = check_arity(ctx, 1, 1);
  if (s != Status::kOk) return s;
  const lite_fb::CastOptions* options = ctx->op->options_as_CastOptions();
  if (options == nullptr) return fail(ctx, Status::kInvalidModel, "missing CastOptions");
  const TensorRef* x = ctx->input(0);
  if (dtype_size(x->dtype) == 0 || dtype_size(options->to()) == 0)
    return fail(ctx, Status::kUnsupported, "cast from %s to %s is not supported", dtype_name(x->dtype),
                dtype_name(options->to()));
  TensorRef* y = ctx->output(0);
  y->dtype = options->to();
  y->shape = x->shape;
  return Status::kOk;
}

Status cast_eval(OpContext* ctx) {
  const TensorRef* x = ctx->input(0);
  TensorRef* y = ctx->output(0);
  if (lite_cast_ref(static_cast<int>(x->dtype), static_cast<int>(y->dtype), x->data, y->data,
                    static_cast<size_t>(x->shape.num_elements())) != 0)
    return fail(ctx, Status::kUnsupported, "cast from %s to %s is not supported", dtype_name(x->dtype),
                dtype_name(y->dtype));
  return Status::kOk;
}

}  // namespace

OpKernel cast_op_kernel() {
  OpKernel k;
  k.prepare = cast_prepare;
  k.eval = cast_eval;
  return k;
}

}  // namespace lite
