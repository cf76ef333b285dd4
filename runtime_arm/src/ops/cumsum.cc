// CUMSUM: x (float32, int32, int64), axis (integer scalar known at prepare) -> running sums along
// the axis (CumSumOptions: exclusive, reverse).
#include <vector>

#include "axis_split.h"
#include "lite_kernels/cumsum.h"
#include "op_api.h"
#include "op_util.h"

namespace lite {
namespace {

Status resolve_axis(OpContext* ctx, int* axis) {
  const TensorRef* x = ctx->input(0);
  if (x == nullptr || ctx->input(1) == nullptr) return fail(ctx, Status::kInvalidModel, "needs inputs x and axis");
  if (x->dtype != lite_fb::DType::FLOAT32 && x->dtype != lite_fb::DType::INT32 && x->dtype != lite_fb::DType::INT64)
    return fail(ctx, Status::kUnsupported, "supports float32, int32 and int64, got %s", dtype_name(x->dtype));
  std::vector<int64_t> values;
  if (!read_int_values(ctx->input(1), &values) || values.size() != 1)
    return fail(ctx, Status::kUnsupported, "axis must be one integer known at prepare time");
  if (!normalize_axis(values[0], x->shape.rank, axis))
    return fail(ctx, Status::kInvalidArgument, "axis %lld is out of range for rank %d",
                static_cast<long long>(values[0]), x->shape.rank);
  return Status::kOk;
}

Status prepare(OpContext* ctx) {
  int axis = 0;
  Status s = resolve_axis(ctx, &axis);
  if (s != Status::kOk) return s;
  TensorRef* y = ctx->output(0);
  if (y == nullptr) return fail(ctx, Status::kInvalidModel, "needs one output");
  y->dtype = ctx->input(0)->dtype;
  y->shape = ctx->input(0)->shape;
  return Status::kOk;
}

Status eval(OpContext* ctx) {
  int axis = 0;
  Status s = resolve_axis(ctx, &axis);
  if (s != Status::kOk) return s;
  if (ctx->output(0)->shape.num_elements() == 0) return Status::kOk;  // nothing to write (the loops would still run)
  const TensorRef* x = ctx->input(0);
  const AxisSplit v = split_at_axis(x->shape, axis);
  const lite_fb::CumSumOptions* o = ctx->op->options_as_CumSumOptions();
  const int exclusive = o != nullptr && o->exclusive() ? 1 : 0, reverse = o != nullptr && o->reverse() ? 1 : 0;
  void* y = ctx->output(0)->data;
  switch (x->dtype) {
    case lite_fb::DType::INT32:
      lite_s32_cumsum_ref(v.outer, v.axis_len, v.inner, exclusive, reverse, static_cast<const int32_t*>(x->data),
                          static_cast<int32_t*>(y));
      break;
    case lite_fb::DType::INT64:
      lite_s64_cumsum_ref(v.outer, v.axis_len, v.inner, exclusive, reverse, static_cast<const int64_t*>(x->data),
                          static_cast<int64_t*>(y));
      break;
    default:
      lite_f32_cumsum_ref(v.outer, v.axis_len, v.inner, exclusive, reverse, static_cast<const float*>(x->data),
                          static_cast<float*>(y));
      break;
  }
  return Status::kOk;
}

}  // namespace

OpKernel cumsum_op_kernel() {
  OpKernel k;
  k.prepare = prepare;
  k.eval = eval;
  return k;
}

}  // namespace lite
