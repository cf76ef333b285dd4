// RESHAPE, FLATTEN, SQUEEZE, UNSQUEEZE and IDENTITY: the data is unchanged, only the shape differs,
// so the output may share the input's memory (output_aliases_input0). Eval copies only when the
// core gave the output its own buffer.
#include <cstring>
#include <vector>

#include "op_helpers.h"
#include "tensor_ops.h"

namespace lite {
namespace {

Status alias_eval(OpContext* ctx) {
  const TensorRef* x = ctx->input(0);
  TensorRef* y = ctx->output(0);
  if (y->data != x->data && x->bytes() > 0) std::memcpy(y->data, x->data, x->bytes());
  return Status::kOk;
}

Status set_output(OpContext* ctx, const Shape& shape) {
  const TensorRef* x = ctx->input(0);
  if (shape.num_elements() != x->shape.num_elements())
    return fail(ctx, Status::kShapeError, "cannot turn shape %s into %s", ShapeText(x->shape).c_str(),
                ShapeText(shape).c_str());
  TensorRef* y = ctx->output(0);
  y->dtype = x->dtype;
  y->shape = shape;
  return Status::kOk;
}

Status reshape_prepare(OpContext* ctx) {
  Status s = check_arity(ctx, 2, 1);
  if (s != Status::kOk) return s;
  std::vector<int64_t> target;
  s = read_shape_input(ctx, 1, "shape", &target);
  if (s != Status::kOk) return s;
  const lite_fb::ReshapeOptions* options = ctx->op->options_as_ReshapeOptions();
  const bool allowzero = options != nullptr && options->allowzero();
  const Shape& in = ctx->input(0)->shape;
  if (target.size() > static_cast<size_t>(kMaxRank))
    return fail(ctx, Status::kUnsupported, "target rank %zu exceeds %d", target.size(), kMaxRank);
  Shape out;
  out.rank = static_cast<int>(target.size());
  int infer = -1;
  int64_t known = 1;  // product of the non-zero target dims, at most kMaxOpDim
  bool has_zero = false;
  for (int i = 0; i < out.rank; ++i) {
    int64_t d = target[static_cast<size_t>(i)];
    if (d == 0 && !allowzero) {
      if (i >= in.rank) return fail(ctx, Status::kShapeError, "shape entry %d is 0 but the input has rank %d", i, in.rank);
      d = in.dims[i];
    }
    if (d == -1) {
      if (infer >= 0) return fail(ctx, Status::kInvalidModel, "more than one -1 in the target shape");
      infer = i;
      out.dims[i] = 1;
      continue;
    }
    if (d < 0) return fail(ctx, Status::kInvalidModel, "invalid target dim %lld", static_cast<long long>(d));
    out.dims[i] = d;
    if (d == 0) {
      has_zero = true;
    } else if (!checked_mul_i64(known, d, &known) || known > kMaxOpDim) {
      return fail(ctx, Status::kShapeError,
                  "target dim %lld at position %d makes the shape too large (over %lld elements)",
                  static_cast<long long>(d), i, static_cast<long long>(kMaxOpDim));
    }
  }
  if (has_zero) known = 0;
  if (infer >= 0) {
    const int64_t total = in.num_elements();
    if (known == 0 || total % known != 0)
      return fail(ctx, Status::kShapeError, "cannot infer the -1 dim: %lld elements into a multiple of %lld",
                  static_cast<long long>(total), static_cast<long long>(known));
    out.dims[infer] = total / known;
  }
  return set_output(ctx, out);
}

Status flatten_prepare(OpContext* ctx) {
  Status s = check_arity(ctx, 1, 1);
  if (s != Status::kOk) return s;
  const lite_fb::FlattenOptions* options = ctx->op->options_as_FlattenOptions();
  const Shape& in = ctx->input(0)->shape;
  int64_t axis = options != nullptr ? options->axis() : 1;
  if (axis < 0) axis += in.rank;
  if (axis < 0 || axis > in.rank)
    return fail(ctx, Status::kInvalidModel, "axis %d is out of range for rank %d", options ? options->axis() : 1,
                in.rank);
  Shape out;
  out.rank = 2;
  out.dims[0] = 1;
  out.dims[1] = 1;
  for (int d = 0; d < in.rank; ++d) out.dims[d < axis ? 0 : 1] *= in.dims[d];
  return set_output(ctx, out);
}

Status squeeze_prepare(OpContext* ctx) {
  Status s = check_arity(ctx, 1, 1);
  if (s != Status::kOk) return s;
  const lite_fb::SqueezeOptions* options = ctx->op->options_as_SqueezeOptions();
  const Shape& in = ctx->input(0)->shape;
  bool drop[kMaxRank] = {};
  if (options != nullptr && options->axes() != nullptr && options->axes()->size() > 0) {
    for (int32_t a : *options->axes()) {
      int axis;
      if (!normalize_axis(a, in.rank, &axis))
        return fail(ctx, Status::kInvalidModel, "axis %d is out of range for rank %d", a, in.rank);
      if (in.dims[axis] != 1)
        return fail(ctx, Status::kShapeError, "cannot squeeze axis %d of shape %s (not 1)", axis,
                    ShapeText(in).c_str());
      drop[axis] = true;
    }
  } else {
    for (int d = 0; d < in.rank; ++d) drop[d] = in.dims[d] == 1;
  }
  Shape out;
  for (int d = 0; d < in.rank; ++d)
    if (!drop[d]) out.dims[out.rank++] = in.dims[d];
  return set_output(ctx, out);
}

Status unsqueeze_prepare(OpContext* ctx) {
  Status s = check_arity(ctx, 1, 1);
  if (s != Status::kOk) return s;
  const lite_fb::SqueezeOptions* options = ctx->op->options_as_SqueezeOptions();
  const Shape& in = ctx->input(0)->shape;
  const int added = options != nullptr && options->axes() != nullptr ? static_cast<int>(options->axes()->size()) : 0;
  const int rank = in.rank + added;
  if (rank > kMaxRank) return fail(ctx, Status::kUnsupported, "output rank %d exceeds %d", rank, kMaxRank);
  bool inserted[kMaxRank] = {};
  for (int i = 0; i < added; ++i) {
    const int32_t a = options->axes()->Get(static_cast<flatbuffers::uoffset_t>(i));
    int axis;
    if (!normalize_axis(a, rank, &axis))
      return fail(ctx, Status::kInvalidModel, "axis %d is out of range for output rank %d", a, rank);
    if (inserted[axis]) return fail(ctx, Status::kInvalidModel, "axis %d is repeated", axis);
    inserted[axis] = true;
  }
  Shape out;
  out.rank = rank;
  for (int d = 0, j = 0; d < rank; ++d) out.dims[d] = inserted[d] ? 1 : in.dims[j++];
  return set_output(ctx, out);
}

Status identity_prepare(OpContext* ctx) {
  Status s = check_arity(ctx, 1, 1);
  if (s != Status::kOk) return s;
  return set_output(ctx, ctx->input(0)->shape);
}

OpKernel alias_kernel(Status (*prepare)(OpContext*)) {
  OpKernel k;
  k.prepare = prepare;
  k.eval = alias_eval;
  k.output_aliases_input0 = true;
  return k;
}

}  // namespace

OpKernel reshape_kernel() { return alias_kernel(reshape_prepare); }
OpKernel flatten_kernel() { return alias_kernel(flatten_prepare); }
OpKernel squeeze_kernel() { return alias_kernel(squeeze_prepare); }
OpKernel unsqueeze_kernel() { return alias_kernel(unsqueeze_prepare); }
OpKernel identity_kernel() { return alias_kernel(identity_prepare); }

}  // namespace lite
