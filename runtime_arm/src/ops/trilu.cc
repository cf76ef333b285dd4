// TRILU (ONNX Trilu): keeps the upper or lower triangle of the last two dims; k is an optional
// int scalar input (read at eval, so it may be computed data).
#include "lite_kernels/trilu.h"
#include "op_helpers.h"
#include "tensor_ops.h"

namespace lite {
namespace {

Status trilu_prepare(OpContext* ctx) {
  Status s = check_arity(ctx, 1, 1);
  if (s != Status::kOk) return s;
  const TensorRef* x = ctx->input(0);
  if (x->shape.rank < 2) return fail(ctx, Status::kShapeError, "input rank %d < 2", x->shape.rank);
  const TensorRef* k = ctx->input(1);
  if (k != nullptr && (!is_index_dtype(k->dtype) || k->shape.num_elements() != 1))
    return fail(ctx, Status::kInvalidModel, "k must be an INT64 scalar");
  TensorRef* y = ctx->output(0);
  y->dtype = x->dtype;
  y->shape = x->shape;
  return Status::kOk;
}

Status trilu_eval(OpContext* ctx) {
  const TensorRef* x = ctx->input(0);
  const TensorRef* kt = ctx->input(1);
  int64_t k = 0;
  if (kt != nullptr)
    k = kt->dtype == lite_fb::DType::INT64 ? *static_cast<const int64_t*>(kt->data)
                                           : *static_cast<const int32_t*>(kt->data);
  const int r = x->shape.rank;
  const int64_t rows = x->shape.dims[r - 2], cols = x->shape.dims[r - 1];
  const int64_t batch = rows * cols == 0 ? 0 : x->shape.num_elements() / (rows * cols);
  const lite_fb::TriluOptions* options = ctx->op->options_as_TriluOptions();
  const int upper = options == nullptr || options->upper() ? 1 : 0;
  lite_trilu_ref(dtype_size(x->dtype), batch, rows, cols, k, upper, x->data, ctx->output(0)->data);
  return Status::kOk;
}

}  // namespace

OpKernel trilu_kernel() {
  OpKernel k;
  k.prepare = trilu_prepare;
  k.eval = trilu_eval;
  return k;
}

}  // namespace lite
