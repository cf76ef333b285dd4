// SHAPE (ONNX Shape-15 start/end, plus `perm` to report the logical shape of a channels-last
// tensor) and SIZE. Both need only the input's shape, so the core evaluates them at prepare time.
#include "op_helpers.h"
#include "tensor_ops.h"

namespace lite {
namespace {

// The logical dims of x (physical dims read through perm when present) and the [start, end) range.
Status shape_range(OpContext* ctx, int64_t* dims, int* start, int* end) {
  const Shape& in = ctx->input(0)->shape;
  const lite_fb::ShapeOptions* options = ctx->op->options_as_ShapeOptions();
  const auto* perm = options != nullptr ? options->perm() : nullptr;
  const int rank = in.rank;
  if (perm != nullptr && perm->size() > 0) {
    if (static_cast<int>(perm->size()) != rank)
      return fail(ctx, Status::kInvalidModel, "perm has %u entries for rank %d", perm->size(), rank);
    for (int i = 0; i < rank; ++i) {
      const int32_t p = perm->Get(static_cast<flatbuffers::uoffset_t>(i));
      if (p < 0 || p >= rank) return fail(ctx, Status::kInvalidModel, "perm entry %d out of range", p);
      dims[i] = in.dims[p];
    }
  } else {
    for (int i = 0; i < rank; ++i) dims[i] = in.dims[i];
  }
  int64_t s = options != nullptr ? options->start() : 0;
  int64_t e = options != nullptr ? options->end() : rank;
  if (s < 0) s += rank;
  if (e < 0) e += rank;
  s = s < 0 ? 0 : (s > rank ? rank : s);
  e = e < 0 ? 0 : (e > rank ? rank : e);
  *start = static_cast<int>(s);
  *end = static_cast<int>(e > s ? e : s);
  return Status::kOk;
}

Status shape_prepare(OpContext* ctx) {
  Status s = check_arity(ctx, 1, 1);
  if (s != Status::kOk) return s;
  int64_t dims[kMaxRank];
  int start, end;
  s = shape_range(ctx, dims, &start, &end);
  if (s != Status::kOk) return s;
  TensorRef* y = ctx->output(0);
  y->dtype = lite_fb::DType::INT64;
  y->shape.rank = 1;
  y->shape.dims[0] = end - start;
  return Status::kOk;
}

Status shape_eval(OpContext* ctx) {
  int64_t dims[kMaxRank];
  int start, end;
  Status s = shape_range(ctx, dims, &start, &end);
  if (s != Status::kOk) return s;
  int64_t* out = static_cast<int64_t*>(ctx->output(0)->data);
  for (int i = start; i < end; ++i) out[i - start] = dims[i];
  return Status::kOk;
}

Status size_prepare(OpContext* ctx) {
  Status s = check_arity(ctx, 1, 1);
  if (s != Status::kOk) return s;
  TensorRef* y = ctx->output(0);
  y->dtype = lite_fb::DType::INT64;
  y->shape.rank = 0;
  return Status::kOk;
}

Status size_eval(OpContext* ctx) {
  *static_cast<int64_t*>(ctx->output(0)->data) = ctx->input(0)->shape.num_elements();
  return Status::kOk;
}

}  // namespace

OpKernel shape_kernel() {
  OpKernel k;
  k.prepare = shape_prepare;
  k.eval = shape_eval;
  return k;
}

OpKernel size_kernel() {
  OpKernel k;
  k.prepare = size_prepare;
  k.eval = size_eval;
  return k;
}

}  // namespace lite
