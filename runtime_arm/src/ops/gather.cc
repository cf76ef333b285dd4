// GATHER, GATHER_ELEMENTS and GATHER_ND (ONNX semantics), any data dtype, INT32/INT64 indices.
// Indices are bounds-checked by the kernels: an out-of-range index fails the op with its value.
#include "lite_kernels/gather.h"
#include "op_helpers.h"
#include "tensor_ops.h"

namespace lite {
namespace {

const lite_fb::GatherOptions* gather_options(const OpContext* ctx) { return ctx->op->options_as_GatherOptions(); }

Status check_indices(OpContext* ctx) {
  Status s = check_arity(ctx, 2, 1);
  if (s != Status::kOk) return s;
  if (!is_index_dtype(ctx->input(1)->dtype))
    return fail(ctx, Status::kInvalidModel, "indices must be INT32 or INT64, not %s", dtype_name(ctx->input(1)->dtype));
  return Status::kOk;
}

Status bad_index(OpContext* ctx, int64_t index, const char* where) {
  return fail(ctx, Status::kInvalidArgument, "index %lld is out of range (%s)", static_cast<long long>(index), where);
}

// --- GATHER ---------------------------------------------------------------------------------------

Status gather_prepare(OpContext* ctx) {
  Status s = check_indices(ctx);
  if (s != Status::kOk) return s;
  const TensorRef* data = ctx->input(0);
  const TensorRef* indices = ctx->input(1);
  const int raw_axis = gather_options(ctx) != nullptr ? gather_options(ctx)->axis() : 0;
  int axis;
  if (!normalize_axis(raw_axis, data->shape.rank, &axis))
    return fail(ctx, Status::kInvalidModel, "axis %d is out of range for rank %d", raw_axis, data->shape.rank);
  const int rank = data->shape.rank - 1 + indices->shape.rank;
  if (rank > kMaxRank) return fail(ctx, Status::kUnsupported, "output rank %d exceeds %d", rank, kMaxRank);
  TensorRef* y = ctx->output(0);
  y->dtype = data->dtype;
  y->shape.rank = rank;
  int r = 0;
  for (int d = 0; d < axis; ++d) y->shape.dims[r++] = data->shape.dims[d];
  for (int d = 0; d < indices->shape.rank; ++d) y->shape.dims[r++] = indices->shape.dims[d];
  for (int d = axis + 1; d < data->shape.rank; ++d) y->shape.dims[r++] = data->shape.dims[d];
  return Status::kOk;
}

Status gather_eval(OpContext* ctx) {
  const TensorRef* data = ctx->input(0);
  const TensorRef* indices = ctx->input(1);
  int axis = 0;
  normalize_axis(gather_options(ctx) != nullptr ? gather_options(ctx)->axis() : 0, data->shape.rank, &axis);
  if (ctx->output(0)->shape.num_elements() == 0) return Status::kOk;  // nothing to write or check
  int64_t outer = 1, inner = 1;
  for (int d = 0; d < axis; ++d) outer *= data->shape.dims[d];
  for (int d = axis + 1; d < data->shape.rank; ++d) inner *= data->shape.dims[d];
  int64_t bad = 0;
  if (lite_gather_ref(dtype_size(data->dtype), data->data, outer, data->shape.dims[axis], inner, indices->data,
                      indices->dtype == lite_fb::DType::INT64, indices->shape.num_elements(), ctx->output(0)->data,
                      &bad) != 0)
    return bad_index(ctx, bad, "gather axis");
  return Status::kOk;
}

// --- GATHER_ELEMENTS ------------------------------------------------------------------------------

Status gather_elements_prepare(OpContext* ctx) {
  Status s = check_indices(ctx);
  if (s != Status::kOk) return s;
  const TensorRef* data = ctx->input(0);
  const TensorRef* indices = ctx->input(1);
  const int raw_axis = gather_options(ctx) != nullptr ? gather_options(ctx)->axis() : 0;
  int axis;
  if (!normalize_axis(raw_axis, data->shape.rank, &axis))
    return fail(ctx, Status::kInvalidModel, "axis %d is out of range for rank %d", raw_axis, data->shape.rank);
  if (indices->shape.rank != data->shape.rank)
    return fail(ctx, Status::kShapeError, "indices rank %d differs from data rank %d", indices->shape.rank,
                data->shape.rank);
  for (int d = 0; d < data->shape.rank; ++d)
    if (d != axis && indices->shape.dims[d] > data->shape.dims[d])
      return fail(ctx, Status::kShapeError, "indices %s exceed data %s on axis %d", ShapeText(indices->shape).c_str(),
                  ShapeText(data->shape).c_str(), d);
  TensorRef* y = ctx->output(0);
  y->dtype = data->dtype;
  y->shape = indices->shape;
  return Status::kOk;
}

Status gather_elements_eval(OpContext* ctx) {
  const TensorRef* data = ctx->input(0);
  const TensorRef* indices = ctx->input(1);
  if (indices->shape.num_elements() == 0) return Status::kOk;
  int axis = 0;
  normalize_axis(gather_options(ctx) != nullptr ? gather_options(ctx)->axis() : 0, data->shape.rank, &axis);
  int64_t bad = 0;
  if (lite_gather_elements_ref(dtype_size(data->dtype), data->shape.rank, data->shape.dims, data->data,
                               indices->shape.dims, indices->data, indices->dtype == lite_fb::DType::INT64, axis,
                               ctx->output(0)->data, &bad) != 0)
    return bad_index(ctx, bad, "gather_elements axis");
  return Status::kOk;
}

// --- GATHER_ND ------------------------------------------------------------------------------------

Status gather_nd_prepare(OpContext* ctx) {
  Status s = check_indices(ctx);
  if (s != Status::kOk) return s;
  const TensorRef* data = ctx->input(0);
  const TensorRef* indices = ctx->input(1);
  const int b = gather_options(ctx) != nullptr ? gather_options(ctx)->batch_dims() : 0;
  const int r = data->shape.rank, q = indices->shape.rank;
  if (r < 1 || q < 1 || b < 0 || b >= r || b >= q)
    return fail(ctx, Status::kInvalidModel, "batch_dims %d with data rank %d and indices rank %d", b, r, q);
  for (int d = 0; d < b; ++d)
    if (data->shape.dims[d] != indices->shape.dims[d])
      return fail(ctx, Status::kShapeError, "batch dims of data %s and indices %s differ",
                  ShapeText(data->shape).c_str(), ShapeText(indices->shape).c_str());
  const int64_t k = indices->shape.dims[q - 1];
  if (k < 1 || k > r - b)
    return fail(ctx, Status::kShapeError, "indices' last dim %lld must be in [1, %d]", static_cast<long long>(k), r - b);
  const int rank = q - 1 + r - b - static_cast<int>(k);
  TensorRef* y = ctx->output(0);
  y->dtype = data->dtype;
  y->shape.rank = rank;
  int o = 0;
  for (int d = 0; d < q - 1; ++d) y->shape.dims[o++] = indices->shape.dims[d];
  for (int d = b + static_cast<int>(k); d < r; ++d) y->shape.dims[o++] = data->shape.dims[d];
  return Status::kOk;
}

Status gather_nd_eval(OpContext* ctx) {
  const TensorRef* data = ctx->input(0);
  const TensorRef* indices = ctx->input(1);
  if (ctx->output(0)->shape.num_elements() == 0) return Status::kOk;
  const int b = gather_options(ctx) != nullptr ? gather_options(ctx)->batch_dims() : 0;
  int64_t bad = 0;
  if (lite_gather_nd_ref(dtype_size(data->dtype), data->shape.rank, data->shape.dims, data->data, indices->shape.rank,
                         indices->shape.dims, indices->data, indices->dtype == lite_fb::DType::INT64, b,
                         ctx->output(0)->data, &bad) != 0)
    return bad_index(ctx, bad, "gather_nd");
  return Status::kOk;
}

}  // namespace

OpKernel gather_kernel() {
  OpKernel k;
  k.prepare = gather_prepare;
  k.eval = gather_eval;
  return k;
}

OpKernel gather_elements_kernel() {
  OpKernel k;
  k.prepare = gather_elements_prepare;
  k.eval = gather_elements_eval;
  return k;
}

OpKernel gather_nd_kernel() {
  OpKernel k;
  k.prepare = gather_nd_prepare;
  k.eval = gather_nd_eval;
  return k;
}

}  // namespace lite
