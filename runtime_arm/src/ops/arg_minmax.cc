// ARG_MAX, ARG_MIN: x (float32, int32, int64) -> int64 indices along ArgOptions.axis, with keepdims
// and select_last_index as ONNX.
#include "axis_split.h"
#include "lite_kernels/arg_minmax.h"
#include "op_api.h"
#include "op_util.h"

namespace lite {
namespace {

Status resolve_axis(OpContext* ctx, int* axis) {
  const TensorRef* x = ctx->input(0);
  if (x == nullptr) return fail(ctx, Status::kInvalidModel, "needs input x");
  if (x->dtype != lite_fb::DType::FLOAT32 && x->dtype != lite_fb::DType::INT32 && x->dtype != lite_fb::DType::INT64)
    return fail(ctx, Status::kUnsupported, "supports float32, int32 and int64, got %s", dtype_name(x->dtype));
  const lite_fb::ArgOptions* o = ctx->op->options_as_ArgOptions();
  const int64_t requested = o != nullptr ? o->axis() : 0;
  if (!normalize_axis(requested, x->shape.rank, axis))
    return fail(ctx, Status::kInvalidModel, "axis %lld is out of range for rank %d", static_cast<long long>(requested),
                x->shape.rank);
  if (x->shape.dims[*axis] == 0) return fail(ctx, Status::kShapeError, "cannot take the arg max/min of an empty axis");
  return Status::kOk;
}

Status prepare(OpContext* ctx) {
  int axis = 0;
  Status s = resolve_axis(ctx, &axis);
  if (s != Status::kOk) return s;
  const TensorRef* x = ctx->input(0);
  TensorRef* y = ctx->output(0);
  if (y == nullptr) return fail(ctx, Status::kInvalidModel, "needs one output");
  const lite_fb::ArgOptions* o = ctx->op->options_as_ArgOptions();
  const bool keepdims = o == nullptr || o->keepdims();
  y->dtype = lite_fb::DType::INT64;
  y->shape.rank = 0;
  for (int i = 0; i < x->shape.rank; ++i) {
    if (i != axis)
      y->shape.dims[y->shape.rank++] = x->shape.dims[i];
    else if (keepdims)
      y->shape.dims[y->shape.rank++] = 1;
  }
  return Status::kOk;
}

Status eval(OpContext* ctx) {
  int axis = 0;
  Status s = resolve_axis(ctx, &axis);
  if (s != Status::kOk) return s;
  if (ctx->output(0)->shape.num_elements() == 0) return Status::kOk;  // nothing to write (the loops would still run)
  const TensorRef* x = ctx->input(0);
  const AxisSplit v = split_at_axis(x->shape, axis);
  const lite_fb::ArgOptions* o = ctx->op->options_as_ArgOptions();
  const int is_min = ctx->op->opcode() == lite_fb::OpCode::ARG_MIN ? 1 : 0;
  const int last = o != nullptr && o->select_last_index() ? 1 : 0;
  int64_t* y = static_cast<int64_t*>(ctx->output(0)->data);
  switch (x->dtype) {
    case lite_fb::DType::INT32:
      lite_s32_arg_minmax_ref(v.outer, v.axis_len, v.inner, is_min, last, static_cast<const int32_t*>(x->data), y);
      break;
    case lite_fb::DType::INT64:
      lite_s64_arg_minmax_ref(v.outer, v.axis_len, v.inner, is_min, last, static_cast<const int64_t*>(x->data), y);
      break;
    default:
      lite_f32_arg_minmax_ref(v.outer, v.axis_len, v.inner, is_min, last, static_cast<const float*>(x->data), y);
      break;
  }
  return Status::kOk;
}

}  // namespace

OpKernel arg_minmax_op_kernel() {
  OpKernel k;
  k.prepare = prepare;
  k.eval = eval;
  return k;
}

}  // namespace lite
