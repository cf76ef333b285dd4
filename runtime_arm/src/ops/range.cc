// RANGE (ONNX Range): start, limit, delta are scalars known at prepare time; output dtype = start's.
#include "lite_kernels/range.h"
#include "op_helpers.h"
#include "tensor_ops.h"

namespace lite {
namespace {

Status range_prepare(OpContext* ctx) {
  Status s = check_arity(ctx, 3, 1);
  if (s != Status::kOk) return s;
  const TensorRef* start = ctx->input(0);
  for (int i = 0; i < 3; ++i) {
    const TensorRef* t = ctx->input(i);
    if (t->dtype != start->dtype)
      return fail(ctx, Status::kInvalidModel, "operand %d is %s, start is %s", i, dtype_name(t->dtype),
                  dtype_name(start->dtype));
    if (t->shape.num_elements() != 1) return fail(ctx, Status::kInvalidModel, "operand %d is not a scalar", i);
    if (!t->value_known)
      return fail(ctx, Status::kUnsupported, "operand %d ('%s') must have a value at prepare time, but it depends on "
                  "tensor data", i, t->name);
  }
  const int64_t n = lite_range_count(static_cast<int>(start->dtype), start->data, ctx->input(1)->data,
                                     ctx->input(2)->data);
  if (n < 0) return fail(ctx, Status::kInvalidModel, "delta is 0, the count is too large or the dtype %s is unsupported",
                         dtype_name(start->dtype));
  if (n > kMaxOpDim)
    return fail(ctx, Status::kShapeError, "the range has %lld elements (at most %lld)", static_cast<long long>(n),
                static_cast<long long>(kMaxOpDim));
  TensorRef* y = ctx->output(0);
  y->dtype = start->dtype;
  y->shape.rank = 1;
  y->shape.dims[0] = n;
  return Status::kOk;
}

Status range_eval(OpContext* ctx) {
  TensorRef* y = ctx->output(0);
  if (lite_range_ref(static_cast<int>(y->dtype), ctx->input(0)->data, ctx->input(2)->data, y->data,
                     y->shape.dims[0]) != 0)
    return fail(ctx, Status::kUnsupported, "dtype %s is not supported", dtype_name(y->dtype));
  return Status::kOk;
}

}  // namespace

OpKernel range_kernel() {
  OpKernel k;
  k.prepare = range_prepare;
  k.eval = range_eval;
  return k;
}

}  // namespace lite
