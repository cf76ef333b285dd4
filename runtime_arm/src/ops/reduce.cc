// REDUCE_SUM, _MEAN, _MAX, _MIN, _PROD, _L1, _L2, _SUM_SQUARE, _LOG_SUM, _LOG_SUM_EXP with ONNX
// semantics (ReduceOptions: physical axes, keepdims, noop_with_empty_axes). float32 for all;
// int32 / int64 for SUM, MEAN, MAX, MIN, PROD, L1, SUM_SQUARE.
#include <cstring>

#include "../byte_copy.h"
#include "lite_kernels/reduce.h"
#include "op_api.h"
#include "op_util.h"

namespace lite {
namespace {

int reduce_kind(const OpContext* ctx) {
  return static_cast<int>(ctx->op->opcode()) - static_cast<int>(lite_fb::OpCode::REDUCE_SUM);
}

bool has_integer_form(int kind) {
  return kind != LITE_REDUCE_L2 && kind != LITE_REDUCE_LOG_SUM && kind != LITE_REDUCE_LOG_SUM_EXP;
}

// Which axes are reduced; *identity when the op is a no-op (empty axes + noop_with_empty_axes).
Status reduced_axes(OpContext* ctx, unsigned char* reduced, bool* identity) {
  const TensorRef* x = ctx->input(0);
  if (x == nullptr) return fail(ctx, Status::kInvalidModel, "needs input x");
  const int kind = reduce_kind(ctx);
  const bool is_int = x->dtype == lite_fb::DType::INT32 || x->dtype == lite_fb::DType::INT64;
  if (x->dtype != lite_fb::DType::FLOAT32 && !(is_int && has_integer_form(kind)))
    return fail(ctx, Status::kUnsupported, "does not support %s input", dtype_name(x->dtype));
  const lite_fb::ReduceOptions* o = ctx->op->options_as_ReduceOptions();
  const auto* axes = o != nullptr ? o->axes() : nullptr;
  const bool no_axes = axes == nullptr || axes->size() == 0;
  *identity = no_axes && o != nullptr && o->noop_with_empty_axes();
  for (int i = 0; i < x->shape.rank; ++i) reduced[i] = no_axes && !*identity ? 1 : 0;
  if (no_axes) return Status::kOk;
  for (flatbuffers::uoffset_t i = 0; i < axes->size(); ++i) {
    int axis;
    if (!normalize_axis(axes->Get(i), x->shape.rank, &axis))
      return fail(ctx, Status::kInvalidModel, "axis %d is out of range for rank %d", axes->Get(i), x->shape.rank);
    reduced[axis] = 1;
  }
  return Status::kOk;
}

void make_plan(const Shape& shape, const unsigned char* reduced, lite_reduce_plan* plan) {
  size_t dims[kMaxRank];
  for (int i = 0; i < shape.rank; ++i) dims[i] = static_cast<size_t>(shape.dims[i]);
  lite_reduce_make_plan(static_cast<size_t>(shape.rank), dims, reduced, plan);
}

Status prepare(OpContext* ctx) {
  unsigned char reduced[kMaxRank] = {};
  bool identity = false;
  Status s = reduced_axes(ctx, reduced, &identity);
  if (s != Status::kOk) return s;
  const TensorRef* x = ctx->input(0);
  TensorRef* y = ctx->output(0);
  if (y == nullptr) return fail(ctx, Status::kInvalidModel, "needs one output");
  y->dtype = x->dtype;
  if (identity) {
    y->shape = x->shape;
    return Status::kOk;
  }
  const lite_fb::ReduceOptions* o = ctx->op->options_as_ReduceOptions();
  const bool keepdims = o == nullptr || o->keepdims();
  y->shape.rank = 0;
  for (int i = 0; i < x->shape.rank; ++i) {
    if (!reduced[i])
      y->shape.dims[y->shape.rank++] = x->shape.dims[i];
    else if (keepdims)
      y->shape.dims[y->shape.rank++] = 1;
  }
  lite_reduce_plan plan{};
  make_plan(x->shape, reduced, &plan);
  const size_t per_output = x->dtype == lite_fb::DType::FLOAT32 ? 2 * sizeof(double) : sizeof(int64_t);
  ctx->scratch_bytes_requested = plan.out_count * per_output;
  return Status::kOk;
}

Status eval(OpContext* ctx) {
  unsigned char reduced[kMaxRank] = {};
  bool identity = false;
  Status s = reduced_axes(ctx, reduced, &identity);
  if (s != Status::kOk) return s;
  const TensorRef* x = ctx->input(0);
  TensorRef* y = ctx->output(0);
  if (identity) {
    if (y->data != x->data) copy_bytes(y->data, x->data, x->bytes());
    return Status::kOk;
  }
  lite_reduce_plan plan{};
  make_plan(x->shape, reduced, &plan);
  const int kind = reduce_kind(ctx);
  switch (x->dtype) {
    case lite_fb::DType::INT32:
      lite_s32_reduce_ref(kind, &plan, static_cast<const int32_t*>(x->data), static_cast<int32_t*>(y->data),
                          static_cast<int64_t*>(ctx->scratch));
      break;
    case lite_fb::DType::INT64:
      lite_s64_reduce_ref(kind, &plan, static_cast<const int64_t*>(x->data), static_cast<int64_t*>(y->data),
                          static_cast<int64_t*>(ctx->scratch));
      break;
    default:
      lite_f32_reduce_ref(kind, &plan, static_cast<const float*>(x->data), static_cast<float*>(y->data),
                          static_cast<double*>(ctx->scratch));
      break;
  }
  return Status::kOk;
}

}  // namespace

OpKernel reduce_op_kernel() {
  OpKernel k;
  k.prepare = prepare;
  k.eval = eval;
  return k;
}

}  // namespace lite
