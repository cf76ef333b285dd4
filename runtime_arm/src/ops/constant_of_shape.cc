// CONSTANT_OF_SHAPE: a prepare-time int64 shape, filled with the option's value (one element of the
// output tensor's dtype, little endian; zeros when absent). The output keeps the model's dtype.
#include <vector>

#include "lite_kernels/fill.h"
#include "op_helpers.h"
#include "tensor_ops.h"

namespace lite {
namespace {

Status constant_of_shape_prepare(OpContext* ctx) {
  Status s = check_arity(ctx, 1, 1);
  if (s != Status::kOk) return s;
  std::vector<int64_t> dims;
  s = read_shape_input(ctx, 0, "shape", &dims);
  if (s != Status::kOk) return s;
  if (dims.size() > static_cast<size_t>(kMaxRank))
    return fail(ctx, Status::kUnsupported, "rank %zu exceeds %d", dims.size(), kMaxRank);
  TensorRef* y = ctx->output(0);
  y->shape.rank = static_cast<int>(dims.size());
  for (int i = 0; i < y->shape.rank; ++i) {
    if (dims[static_cast<size_t>(i)] < 0)
      return fail(ctx, Status::kInvalidModel, "negative dim %lld", static_cast<long long>(dims[static_cast<size_t>(i)]));
    y->shape.dims[i] = dims[static_cast<size_t>(i)];
  }
  if (!shape_within_limits(y->shape))
    return fail(ctx, Status::kShapeError, "shape %s has over %lld elements", ShapeText(y->shape).c_str(),
                static_cast<long long>(kMaxOpDim));
  const lite_fb::ConstantOfShapeOptions* options = ctx->op->options_as_ConstantOfShapeOptions();
  const auto* value = options != nullptr ? options->value() : nullptr;
  if (value != nullptr && value->size() != 0 && value->size() != dtype_size(y->dtype))
    return fail(ctx, Status::kInvalidModel, "value has %u bytes, the output dtype %s has %zu", value->size(),
                dtype_name(y->dtype), dtype_size(y->dtype));
  return Status::kOk;
}

Status constant_of_shape_eval(OpContext* ctx) {
  TensorRef* y = ctx->output(0);
  const lite_fb::ConstantOfShapeOptions* options = ctx->op->options_as_ConstantOfShapeOptions();
  const auto* value = options != nullptr ? options->value() : nullptr;
  const void* fill = value != nullptr && value->size() != 0 ? value->data() : nullptr;
  lite_fill_ref(dtype_size(y->dtype), fill, y->data, static_cast<size_t>(y->shape.num_elements()));
  return Status::kOk;
}

}  // namespace

OpKernel constant_of_shape_kernel() {
  OpKernel k;
  k.prepare = constant_of_shape_prepare;
  k.eval = constant_of_shape_eval;
  return k;
}

}  // namespace lite
