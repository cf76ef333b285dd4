// PAD (ONNX Pad-18): pads (prepare-time ints, all begins then all ends, for every axis or for the
// optional `axes` input), constant value (optional scalar input), modes constant/reflect/edge/wrap.
#include <cstring>
#include <vector>

#include "lite_kernels/cast.h"
#include "lite_kernels/pad.h"
#include "op_helpers.h"
#include "tensor_ops.h"

namespace lite {
namespace {

struct PadAmounts {
  int64_t begin[kMaxRank] = {};
  int64_t end[kMaxRank] = {};
};

Status read_pads(OpContext* ctx, PadAmounts* pads) {
  const int rank = ctx->input(0)->shape.rank;
  std::vector<int64_t> values, axes;
  Status s = read_shape_input(ctx, 1, "pads", &values);
  if (s != Status::kOk) return s;
  if (ctx->input(3) != nullptr) {
    s = read_shape_input(ctx, 3, "axes", &axes);
    if (s != Status::kOk) return s;
  } else {
    for (int d = 0; d < rank; ++d) axes.push_back(d);
  }
  if (values.size() != 2 * axes.size())
    return fail(ctx, Status::kInvalidModel, "%zu pads for %zu axes (need two per axis)", values.size(), axes.size());
  const size_t n = axes.size();
  for (size_t i = 0; i < n; ++i) {
    int axis;
    if (!normalize_axis(axes[i], rank, &axis))
      return fail(ctx, Status::kInvalidModel, "axis %lld is out of range for rank %d", static_cast<long long>(axes[i]),
                  rank);
    const int64_t dim = ctx->input(0)->shape.dims[axis];
    for (int64_t pad : {values[i], values[n + i]}) {
      // A pad may crop at most the whole axis and add at most kMaxOpDim: beyond that the output
      // cannot exist, and the bound keeps dim + begin + end and the kernel's index math in range.
      if (pad < -dim || pad > kMaxOpDim)
        return fail(ctx, Status::kShapeError, "pad %lld on axis %d of size %lld is out of range [%lld, %lld]",
                    static_cast<long long>(pad), axis, static_cast<long long>(dim), static_cast<long long>(-dim),
                    static_cast<long long>(kMaxOpDim));
    }
    pads->begin[axis] = values[i];
    pads->end[axis] = values[n + i];
  }
  return Status::kOk;
}

Status pad_prepare(OpContext* ctx) {
  Status s = check_arity(ctx, 2, 1);
  if (s != Status::kOk) return s;
  const TensorRef* x = ctx->input(0);
  PadAmounts pads;
  s = read_pads(ctx, &pads);
  if (s != Status::kOk) return s;
  const lite_fb::PadOptions* options = ctx->op->options_as_PadOptions();
  const lite_fb::PadMode mode = options != nullptr ? options->mode() : lite_fb::PadMode::CONSTANT;
  TensorRef* y = ctx->output(0);
  y->dtype = x->dtype;
  y->shape = x->shape;
  for (int d = 0; d < x->shape.rank; ++d) {
    y->shape.dims[d] = x->shape.dims[d] + pads.begin[d] + pads.end[d];  // in range: read_pads bounds the pads
    if (y->shape.dims[d] < 0)
      return fail(ctx, Status::kShapeError, "pads crop axis %d of %s below zero", d, ShapeText(x->shape).c_str());
    if (y->shape.dims[d] > kMaxOpDim)
      return fail(ctx, Status::kShapeError, "pads make axis %d of %s larger than %lld", d, ShapeText(x->shape).c_str(),
                  static_cast<long long>(kMaxOpDim));
    if (mode != lite_fb::PadMode::CONSTANT && x->shape.dims[d] == 0 && y->shape.dims[d] > 0)
      return fail(ctx, Status::kShapeError, "%s padding of the empty axis %d", lite_fb::EnumNamePadMode(mode), d);
  }
  if (!shape_within_limits(y->shape))
    return fail(ctx, Status::kShapeError, "padding %s gives %s, over %lld elements", ShapeText(x->shape).c_str(),
                ShapeText(y->shape).c_str(), static_cast<long long>(kMaxOpDim));
  const TensorRef* value = ctx->input(2);
  if (value != nullptr && value->shape.num_elements() > 1)
    return fail(ctx, Status::kInvalidModel, "constant_value must be a scalar");
  if (value != nullptr && dtype_size(value->dtype) == 0)
    return fail(ctx, Status::kInvalidModel, "constant_value has an unknown dtype");
  return Status::kOk;
}

Status pad_eval(OpContext* ctx) {
  const TensorRef* x = ctx->input(0);
  TensorRef* y = ctx->output(0);
  if (y->shape.num_elements() == 0) return Status::kOk;
  PadAmounts pads;
  Status s = read_pads(ctx, &pads);
  if (s != Status::kOk) return s;
  const lite_fb::PadOptions* options = ctx->op->options_as_PadOptions();
  const int mode = static_cast<int>(options != nullptr ? options->mode() : lite_fb::PadMode::CONSTANT);
  // The constant, converted to x's dtype (ONNX requires the same dtype; converting costs nothing).
  uint64_t fill = 0;
  const TensorRef* value = ctx->input(2);
  if (value != nullptr && value->shape.num_elements() == 1)
    lite_cast_ref(static_cast<int>(value->dtype), static_cast<int>(x->dtype), value->data, &fill, 1);
  if (lite_pad_ref(dtype_size(x->dtype), x->shape.rank, x->shape.dims, pads.begin, pads.end, mode, &fill, x->data,
                   y->data) != 0)
    return fail(ctx, Status::kShapeError, "cannot pad shape %s in this mode", ShapeText(x->shape).c_str());
  return Status::kOk;
}

}  // namespace

OpKernel pad_kernel() {
  OpKernel k;
  k.prepare = pad_prepare;
  k.eval = pad_eval;
  return k;
}

}  // namespace lite
