// TOP_K: x (float32, int32, int64), k (integer [1] known at prepare) -> values (x's dtype) and
// indices (int64), both with k along TopKOptions.axis. Always sorted best first (ties: lower index).
#include <vector>

#include "axis_split.h"
#include "lite_kernels/top_k.h"
#include "op_api.h"
#include "op_util.h"

namespace lite {
namespace {

Status resolve(OpContext* ctx, int* axis, int64_t* k) {
  const TensorRef* x = ctx->input(0);
  if (x == nullptr || ctx->input(1) == nullptr) return fail(ctx, Status::kInvalidModel, "needs inputs x and k");
  if (x->dtype != lite_fb::DType::FLOAT32 && x->dtype != lite_fb::DType::INT32 && x->dtype != lite_fb::DType::INT64)
    return fail(ctx, Status::kUnsupported, "supports float32, int32 and int64, got %s", dtype_name(x->dtype));
  const lite_fb::TopKOptions* o = ctx->op->options_as_TopKOptions();
  const int64_t requested = o != nullptr ? o->axis() : -1;
  if (!normalize_axis(requested, x->shape.rank, axis))
    return fail(ctx, Status::kInvalidModel, "axis %lld is out of range for rank %d", static_cast<long long>(requested),
                x->shape.rank);
  std::vector<int64_t> values;
  if (!read_int_values(ctx->input(1), &values) || values.size() != 1)
    return fail(ctx, Status::kUnsupported, "k must be one integer known at prepare time");
  *k = values[0];
  if (*k < 0 || *k > x->shape.dims[*axis])
    return fail(ctx, Status::kInvalidArgument, "k = %lld is outside [0, %lld]", static_cast<long long>(*k),
                static_cast<long long>(x->shape.dims[*axis]));
  return Status::kOk;
}

Status prepare(OpContext* ctx) {
  int axis = 0;
  int64_t k = 0;
  Status s = resolve(ctx, &axis, &k);
  if (s != Status::kOk) return s;
  TensorRef* values = ctx->output(0);
  TensorRef* indices = ctx->output(1);
  if (values == nullptr || indices == nullptr) return fail(ctx, Status::kInvalidModel, "needs outputs values and indices");
  values->dtype = ctx->input(0)->dtype;
  values->shape = ctx->input(0)->shape;
  values->shape.dims[axis] = k;
  indices->dtype = lite_fb::DType::INT64;
  indices->shape = values->shape;
  ctx->scratch_bytes_requested = static_cast<size_t>(k) * sizeof(int64_t);
  return Status::kOk;
}

Status eval(OpContext* ctx) {
  int axis = 0;
  int64_t k = 0;
  Status s = resolve(ctx, &axis, &k);
  if (s != Status::kOk) return s;
  if (ctx->output(0)->shape.num_elements() == 0) return Status::kOk;  // nothing to write (the loops would still run)
  const TensorRef* x = ctx->input(0);
  const AxisSplit v = split_at_axis(x->shape, axis);
  const lite_fb::TopKOptions* o = ctx->op->options_as_TopKOptions();
  const int largest = o == nullptr || o->largest() ? 1 : 0;
  const size_t kk = static_cast<size_t>(k);
  void* values = ctx->output(0)->data;
  int64_t* indices = static_cast<int64_t*>(ctx->output(1)->data);
  int64_t* heap = static_cast<int64_t*>(ctx->scratch);
  switch (x->dtype) {
    case lite_fb::DType::INT32:
      lite_s32_top_k_ref(v.outer, v.axis_len, v.inner, kk, largest, static_cast<const int32_t*>(x->data),
                         static_cast<int32_t*>(values), indices, heap);
      break;
    case lite_fb::DType::INT64:
      lite_s64_top_k_ref(v.outer, v.axis_len, v.inner, kk, largest, static_cast<const int64_t*>(x->data),
                         static_cast<int64_t*>(values), indices, heap);
      break;
    default:
      lite_f32_top_k_ref(v.outer, v.axis_len, v.inner, kk, largest, static_cast<const float*>(x->data),
                         static_cast<float*>(values), indices, heap);
      break;
  }
  return Status::kOk;
}

}  // namespace

OpKernel top_k_op_kernel() {
  OpKernel k;
  k.prepare = prepare;
  k.eval = eval;
  return k;
}

}  // namespace lite
