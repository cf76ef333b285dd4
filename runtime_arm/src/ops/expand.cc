// EXPAND (ONNX Expand): bidirectional broadcast of x with a prepare-time shape; the copy is a
// strided view of x with stride 0 on broadcast dims.
#include <vector>

#include "lite_kernels/strided_copy.h"
#include "op_helpers.h"
#include "tensor_ops.h"

namespace lite {
namespace {

Status expand_prepare(OpContext* ctx) {
  Status s = check_arity(ctx, 2, 1);
  if (s != Status::kOk) return s;
  std::vector<int64_t> dims;
  s = read_shape_input(ctx, 1, "shape", &dims);
  if (s != Status::kOk) return s;
  if (dims.size() > static_cast<size_t>(kMaxRank))
    return fail(ctx, Status::kUnsupported, "shape rank %zu exceeds %d", dims.size(), kMaxRank);
  Shape target;
  target.rank = static_cast<int>(dims.size());
  for (int i = 0; i < target.rank; ++i) {
    target.dims[i] = dims[static_cast<size_t>(i)];
    if (target.dims[i] < 0)
      return fail(ctx, Status::kInvalidModel, "negative dim %lld in the shape", static_cast<long long>(target.dims[i]));
  }
  const TensorRef* x = ctx->input(0);
  TensorRef* y = ctx->output(0);
  if (!broadcast_shapes(x->shape, target, &y->shape))
    return fail(ctx, Status::kShapeError, "shape %s does not broadcast with %s", ShapeText(x->shape).c_str(),
                ShapeText(target).c_str());
  if (!shape_within_limits(y->shape))
    return fail(ctx, Status::kShapeError, "expanding %s to %s gives over %lld elements", ShapeText(x->shape).c_str(),
                ShapeText(target).c_str(), static_cast<long long>(kMaxOpDim));
  y->dtype = x->dtype;
  return Status::kOk;
}

Status expand_eval(OpContext* ctx) {
  const TensorRef* x = ctx->input(0);
  TensorRef* y = ctx->output(0);
  if (y->shape.num_elements() == 0) return Status::kOk;
  int64_t in_strides[kMaxRank], strides[kMaxRank];
  contiguous_strides(x->shape, in_strides);
  const int lead = y->shape.rank - x->shape.rank;
  for (int d = 0; d < y->shape.rank; ++d) {
    const int i = d - lead;
    strides[d] = (i < 0 || x->shape.dims[i] == 1) ? 0 : in_strides[i];
  }
  lite_strided_copy_ref(dtype_size(x->dtype), y->shape.rank, y->shape.dims, x->data, strides, y->data);
  return Status::kOk;
}

}  // namespace

OpKernel expand_kernel() {
  OpKernel k;
  k.prepare = expand_prepare;
  k.eval = expand_eval;
  return k;
}

}  // namespace lite
