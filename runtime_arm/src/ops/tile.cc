// TILE (ONNX Tile): output dim d = x dim d * repeats[d]. Copied as a rank-2r strided view whose
// dims are (repeat_d, x_d) with stride 0 on every repeat dim.
#include <vector>

#include "lite_kernels/strided_copy.h"
#include "op_helpers.h"
#include "tensor_ops.h"

namespace lite {
namespace {

Status tile_prepare(OpContext* ctx) {
  Status s = check_arity(ctx, 2, 1);
  if (s != Status::kOk) return s;
  std::vector<int64_t> repeats;
  s = read_shape_input(ctx, 1, "repeats", &repeats);
  if (s != Status::kOk) return s;
  const TensorRef* x = ctx->input(0);
  if (static_cast<int>(repeats.size()) != x->shape.rank)
    return fail(ctx, Status::kInvalidModel, "%zu repeats for rank %d", repeats.size(), x->shape.rank);
  TensorRef* y = ctx->output(0);
  y->dtype = x->dtype;
  y->shape = x->shape;
  for (int d = 0; d < x->shape.rank; ++d) {
    const int64_t r = repeats[static_cast<size_t>(d)];
    if (r < 0) return fail(ctx, Status::kInvalidModel, "negative repeat %lld", static_cast<long long>(r));
    if (!checked_mul_i64(x->shape.dims[d], r, &y->shape.dims[d]) || y->shape.dims[d] > kMaxOpDim)
      return fail(ctx, Status::kShapeError, "repeat %lld of axis %d (size %lld) is too large",
                  static_cast<long long>(r), d, static_cast<long long>(x->shape.dims[d]));
  }
  if (!shape_within_limits(y->shape))
    return fail(ctx, Status::kShapeError, "tiling %s gives %s, over %lld elements", ShapeText(x->shape).c_str(),
                ShapeText(y->shape).c_str(), static_cast<long long>(kMaxOpDim));
  return Status::kOk;
}

Status tile_eval(OpContext* ctx) {
  const TensorRef* x = ctx->input(0);
  TensorRef* y = ctx->output(0);
  if (y->shape.num_elements() == 0) return Status::kOk;
  const int rank = x->shape.rank;
  int64_t in_strides[kMaxRank];
  contiguous_strides(x->shape, in_strides);
  int64_t dims[2 * kMaxRank], strides[2 * kMaxRank];
  for (int d = 0; d < rank; ++d) {
    dims[2 * d] = x->shape.dims[d] == 0 ? 0 : y->shape.dims[d] / x->shape.dims[d];
    strides[2 * d] = 0;
    dims[2 * d + 1] = x->shape.dims[d];
    strides[2 * d + 1] = in_strides[d];
  }
  lite_strided_copy_ref(dtype_size(x->dtype), 2 * rank, dims, x->data, strides, y->data);
  return Status::kOk;
}

}  // namespace

OpKernel tile_kernel() {
  OpKernel k;
  k.prepare = tile_prepare;
  k.eval = tile_eval;
  return k;
}

}  // namespace lite
