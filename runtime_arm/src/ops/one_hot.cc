// ONE_HOT (ONNX OneHot): indices (any numeric dtype), depth (a numeric scalar known at prepare
// time), values = [off, on]; the one-hot axis is inserted at `axis` of the output.
#include <cmath>

#include "lite_kernels/one_hot.h"
#include "op_helpers.h"
#include "tensor_ops.h"

namespace lite {
namespace {

Status read_depth(OpContext* ctx, int64_t* depth) {
  const TensorRef* t = ctx->input(1);
  double value;
  if (!t->value_known)
    return fail(ctx, Status::kUnsupported, "depth ('%s') must have a value at prepare time", t->name);
  if (!read_scalar_as_double(t, &value) || !(value >= 0.0 && value < 9.0e15))
    return fail(ctx, Status::kInvalidModel, "depth must be a non-negative numeric scalar");
  *depth = static_cast<int64_t>(value);
  return Status::kOk;
}

Status one_hot_prepare(OpContext* ctx) {
  Status s = check_arity(ctx, 3, 1);
  if (s != Status::kOk) return s;
  const TensorRef* indices = ctx->input(0);
  const TensorRef* values = ctx->input(2);
  int64_t depth = 0;
  s = read_depth(ctx, &depth);
  if (s != Status::kOk) return s;
  if (values->shape.num_elements() != 2) return fail(ctx, Status::kInvalidModel, "values must hold [off, on]");
  const int rank = indices->shape.rank + 1;
  if (rank > kMaxRank) return fail(ctx, Status::kUnsupported, "output rank %d exceeds %d", rank, kMaxRank);
  const lite_fb::OneHotOptions* options = ctx->op->options_as_OneHotOptions();
  const int raw_axis = options != nullptr ? options->axis() : -1;
  int axis;
  if (!normalize_axis(raw_axis, rank, &axis))
    return fail(ctx, Status::kInvalidModel, "axis %d is out of range for output rank %d", raw_axis, rank);
  TensorRef* y = ctx->output(0);
  y->dtype = values->dtype;
  y->shape.rank = rank;
  for (int d = 0, j = 0; d < rank; ++d) y->shape.dims[d] = d == axis ? depth : indices->shape.dims[j++];
  if (!shape_within_limits(y->shape))
    return fail(ctx, Status::kShapeError, "depth %lld makes the output %s too large", static_cast<long long>(depth),
                ShapeText(y->shape).c_str());
  return Status::kOk;
}

Status one_hot_eval(OpContext* ctx) {
  const TensorRef* indices = ctx->input(0);
  const TensorRef* values = ctx->input(2);
  TensorRef* y = ctx->output(0);
  const lite_fb::OneHotOptions* options = ctx->op->options_as_OneHotOptions();
  int axis = 0;
  normalize_axis(options != nullptr ? options->axis() : -1, y->shape.rank, &axis);
  int64_t outer = 1, inner = 1;
  for (int d = 0; d < indices->shape.rank; ++d) (d < axis ? outer : inner) *= indices->shape.dims[d];
  const size_t elem = dtype_size(values->dtype);
  const char* v = static_cast<const char*>(values->data);
  if (lite_one_hot_ref(static_cast<int>(indices->dtype), indices->data, outer, inner, y->shape.dims[axis], elem, v,
                       v + elem, y->data) != 0)
    return fail(ctx, Status::kUnsupported, "indices of dtype %s are not supported", dtype_name(indices->dtype));
  return Status::kOk;
}

}  // namespace

OpKernel one_hot_kernel() {
  OpKernel k;
  k.prepare = one_hot_prepare;
  k.eval = one_hot_eval;
  return k;
}

}  // namespace lite
