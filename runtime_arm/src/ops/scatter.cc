// SCATTER_ELEMENTS and SCATTER_ND (ONNX semantics with reduction none/add/mul/max/min): the output
// starts as a copy of data, then the kernels write the updates; bad indices fail the op.
#include <cstring>

#include "lite_kernels/scatter.h"
#include "op_helpers.h"
#include "tensor_ops.h"

namespace lite {
namespace {

Status scatter_common_prepare(OpContext* ctx) {
  Status s = check_arity(ctx, 3, 1);
  if (s != Status::kOk) return s;
  const TensorRef* data = ctx->input(0);
  if (!is_index_dtype(ctx->input(1)->dtype))
    return fail(ctx, Status::kInvalidModel, "indices must be INT32 or INT64, not %s", dtype_name(ctx->input(1)->dtype));
  if (ctx->input(2)->dtype != data->dtype)
    return fail(ctx, Status::kInvalidModel, "updates are %s, data is %s", dtype_name(ctx->input(2)->dtype),
                dtype_name(data->dtype));
  const lite_fb::ScatterOptions* options = ctx->op->options_as_ScatterOptions();
  const int reduction = options != nullptr ? options->reduction() : 0;
  if (!lite_scatter_supported(static_cast<int>(data->dtype), reduction))
    return fail(ctx, Status::kUnsupported, "reduction %d on %s is not supported", reduction, dtype_name(data->dtype));
  TensorRef* y = ctx->output(0);
  y->dtype = data->dtype;
  y->shape = data->shape;
  return Status::kOk;
}

bool same_shape(const Shape& a, const Shape& b) {
  return a.rank == b.rank && std::memcmp(a.dims, b.dims, sizeof(int64_t) * static_cast<size_t>(a.rank)) == 0;
}

Status scatter_elements_prepare(OpContext* ctx) {
  Status s = scatter_common_prepare(ctx);
  if (s != Status::kOk) return s;
  const TensorRef* data = ctx->input(0);
  const TensorRef* indices = ctx->input(1);
  const lite_fb::ScatterOptions* options = ctx->op->options_as_ScatterOptions();
  const int raw_axis = options != nullptr ? options->axis() : 0;
  int axis;
  if (!normalize_axis(raw_axis, data->shape.rank, &axis))
    return fail(ctx, Status::kInvalidModel, "axis %d is out of range for rank %d", raw_axis, data->shape.rank);
  if (!same_shape(indices->shape, ctx->input(2)->shape) || indices->shape.rank != data->shape.rank)
    return fail(ctx, Status::kShapeError, "indices %s and updates %s must have one shape of data's rank %d",
                ShapeText(indices->shape).c_str(), ShapeText(ctx->input(2)->shape).c_str(), data->shape.rank);
  for (int d = 0; d < data->shape.rank; ++d)
    if (d != axis && indices->shape.dims[d] > data->shape.dims[d])
      return fail(ctx, Status::kShapeError, "indices %s exceed data %s on axis %d", ShapeText(indices->shape).c_str(),
                  ShapeText(data->shape).c_str(), d);
  return Status::kOk;
}

Status scatter_nd_prepare(OpContext* ctx) {
  Status s = scatter_common_prepare(ctx);
  if (s != Status::kOk) return s;
  const Shape& data = ctx->input(0)->shape;
  const Shape& indices = ctx->input(1)->shape;
  const Shape& updates = ctx->input(2)->shape;
  if (indices.rank < 1) return fail(ctx, Status::kShapeError, "indices must have rank >= 1");
  const int64_t k = indices.dims[indices.rank - 1];
  if (k > data.rank) return fail(ctx, Status::kShapeError, "indices' last dim %lld exceeds data rank %d",
                                 static_cast<long long>(k), data.rank);
  Shape expected;
  expected.rank = indices.rank - 1 + data.rank - static_cast<int>(k);
  if (expected.rank > kMaxRank) return fail(ctx, Status::kUnsupported, "updates rank exceeds %d", kMaxRank);
  int o = 0;
  for (int d = 0; d < indices.rank - 1; ++d) expected.dims[o++] = indices.dims[d];
  for (int d = static_cast<int>(k); d < data.rank; ++d) expected.dims[o++] = data.dims[d];
  if (!same_shape(expected, updates))
    return fail(ctx, Status::kShapeError, "updates shape %s, expected %s", ShapeText(updates).c_str(),
                ShapeText(expected).c_str());
  return Status::kOk;
}

Status copy_data(OpContext* ctx) {
  const TensorRef* data = ctx->input(0);
  TensorRef* y = ctx->output(0);
  if (y->data != data->data && data->bytes() > 0) std::memcpy(y->data, data->data, data->bytes());
  return Status::kOk;
}

Status scatter_elements_eval(OpContext* ctx) {
  copy_data(ctx);
  const TensorRef* data = ctx->input(0);
  const TensorRef* indices = ctx->input(1);
  if (indices->shape.num_elements() == 0) return Status::kOk;
  const lite_fb::ScatterOptions* options = ctx->op->options_as_ScatterOptions();
  int axis = 0;
  normalize_axis(options != nullptr ? options->axis() : 0, data->shape.rank, &axis);
  int64_t bad = 0;
  if (lite_scatter_elements_ref(static_cast<int>(data->dtype), data->shape.rank, data->shape.dims, ctx->output(0)->data,
                                indices->shape.dims, indices->data, indices->dtype == lite_fb::DType::INT64,
                                ctx->input(2)->data, axis, options != nullptr ? options->reduction() : 0, &bad) != 0)
    return fail(ctx, Status::kInvalidArgument, "index %lld is out of range", static_cast<long long>(bad));
  return Status::kOk;
}

Status scatter_nd_eval(OpContext* ctx) {
  copy_data(ctx);
  const TensorRef* data = ctx->input(0);
  const TensorRef* indices = ctx->input(1);
  if (indices->shape.num_elements() == 0) return Status::kOk;
  const lite_fb::ScatterOptions* options = ctx->op->options_as_ScatterOptions();
  int64_t bad = 0;
  if (lite_scatter_nd_ref(static_cast<int>(data->dtype), data->shape.rank, data->shape.dims, ctx->output(0)->data,
                          indices->shape.rank, indices->shape.dims, indices->data,
                          indices->dtype == lite_fb::DType::INT64, ctx->input(2)->data,
                          options != nullptr ? options->reduction() : 0, &bad) != 0)
    return fail(ctx, Status::kInvalidArgument, "index %lld is out of range", static_cast<long long>(bad));
  return Status::kOk;
}

}  // namespace

OpKernel scatter_elements_kernel() {
  OpKernel k;
  k.prepare = scatter_elements_prepare;
  k.eval = scatter_elements_eval;
  return k;
}

OpKernel scatter_nd_kernel() {
  OpKernel k;
  k.prepare = scatter_nd_prepare;
  k.eval = scatter_nd_eval;
  return k;
}

}  // namespace lite
