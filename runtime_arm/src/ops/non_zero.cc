// NON_ZERO (ONNX NonZero): int64 [rank, count] coordinates. The output shape depends on the data,
// so the input's value must be known at prepare time (a scalar counts as rank 1, like numpy).
#include "lite_kernels/nonzero.h"
#include "op_helpers.h"
#include "tensor_ops.h"

namespace lite {
namespace {

Status non_zero_prepare(OpContext* ctx) {
  Status s = check_arity(ctx, 1, 1);
  if (s != Status::kOk) return s;
  const TensorRef* x = ctx->input(0);
  if (!x->value_known)
    return fail(ctx, Status::kUnsupported,
                "its output shape depends on the values of '%s', which are only known when the model runs; "
                "NON_ZERO needs an input known at prepare time",
                x->name);
  const int64_t count = lite_nonzero_count(static_cast<int>(x->dtype), x->data, x->shape.num_elements());
  if (count < 0) return fail(ctx, Status::kUnsupported, "dtype %s is not supported", dtype_name(x->dtype));
  TensorRef* y = ctx->output(0);
  y->dtype = lite_fb::DType::INT64;
  y->shape.rank = 2;
  y->shape.dims[0] = x->shape.rank > 0 ? x->shape.rank : 1;
  y->shape.dims[1] = count;
  return Status::kOk;
}

Status non_zero_eval(OpContext* ctx) {
  const TensorRef* x = ctx->input(0);
  TensorRef* y = ctx->output(0);
  const int64_t one = 1;
  const int rank = x->shape.rank > 0 ? x->shape.rank : 1;
  const int64_t* dims = x->shape.rank > 0 ? x->shape.dims : &one;
  if (lite_nonzero_ref(static_cast<int>(x->dtype), rank, dims, x->data, y->shape.dims[1],
                       static_cast<int64_t*>(y->data)) != 0)
    return fail(ctx, Status::kUnsupported, "dtype %s is not supported", dtype_name(x->dtype));
  return Status::kOk;
}

}  // namespace

OpKernel non_zero_kernel() {
  OpKernel k;
  k.prepare = non_zero_prepare;
  k.eval = non_zero_eval;
  return k;
}

}  // namespace lite
