// SPLIT along one axis into len(outputs) parts: sizes from the optional input 1 (prepare-time
// value), otherwise equal parts with the last one smaller (ONNX Split-18).
#include <vector>

#include "lite_kernels/concat.h"
#include "op_helpers.h"
#include "tensor_ops.h"

namespace lite {
namespace {

Status split_sizes(OpContext* ctx, int axis, std::vector<int64_t>* sizes) {
  const int n = ctx->num_outputs;
  const int64_t dim = ctx->input(0)->shape.dims[axis];
  if (ctx->input(1) != nullptr) {
    Status s = read_shape_input(ctx, 1, "split sizes", sizes);
    if (s != Status::kOk) return s;
    if (static_cast<int>(sizes->size()) != n)
      return fail(ctx, Status::kInvalidModel, "%zu split sizes for %d outputs", sizes->size(), n);
    int64_t total = 0;
    for (int64_t v : *sizes) {
      if (v < 0) return fail(ctx, Status::kInvalidModel, "negative split size %lld", static_cast<long long>(v));
      if (v > dim || !checked_add_i64(total, v, &total) || total > dim)
        return fail(ctx, Status::kShapeError, "split sizes exceed axis %d of size %lld", axis,
                    static_cast<long long>(dim));
    }
    if (total != dim)
      return fail(ctx, Status::kShapeError, "split sizes add up to %lld, axis %d has %lld", static_cast<long long>(total),
                  axis, static_cast<long long>(dim));
    return Status::kOk;
  }
  const int64_t part = (dim + n - 1) / n;
  sizes->assign(static_cast<size_t>(n), 0);
  int64_t left = dim;
  for (int i = 0; i < n; ++i) {
    (*sizes)[static_cast<size_t>(i)] = left < part ? left : part;
    left -= (*sizes)[static_cast<size_t>(i)];
  }
  return Status::kOk;
}

Status split_prepare(OpContext* ctx) {
  Status s = check_arity(ctx, 1, 1);
  if (s != Status::kOk) return s;
  const lite_fb::SplitOptions* options = ctx->op->options_as_SplitOptions();
  const TensorRef* x = ctx->input(0);
  const int raw_axis = options != nullptr ? options->axis() : 0;
  int axis;
  if (!normalize_axis(raw_axis, x->shape.rank, &axis))
    return fail(ctx, Status::kInvalidModel, "axis %d is out of range for rank %d", raw_axis, x->shape.rank);
  std::vector<int64_t> sizes;
  s = split_sizes(ctx, axis, &sizes);
  if (s != Status::kOk) return s;
  for (int i = 0; i < ctx->num_outputs; ++i) {
    TensorRef* y = ctx->output(i);
    y->dtype = x->dtype;
    y->shape = x->shape;
    y->shape.dims[axis] = sizes[static_cast<size_t>(i)];
  }
  ctx->scratch_bytes_requested = static_cast<size_t>(ctx->num_outputs) * (sizeof(void*) + sizeof(size_t));
  return Status::kOk;
}

Status split_eval(OpContext* ctx) {
  const TensorRef* x = ctx->input(0);
  if (x->shape.num_elements() == 0) return Status::kOk;  // every output is empty too
  const lite_fb::SplitOptions* options = ctx->op->options_as_SplitOptions();
  int axis = 0;
  normalize_axis(options != nullptr ? options->axis() : 0, x->shape.rank, &axis);
  int64_t outer = 1, inner = 1;
  for (int d = 0; d < axis; ++d) outer *= x->shape.dims[d];
  for (int d = axis + 1; d < x->shape.rank; ++d) inner *= x->shape.dims[d];
  const int n = ctx->num_outputs;
  void** parts = static_cast<void**>(ctx->scratch);
  size_t* bytes = reinterpret_cast<size_t*>(parts + n);
  const size_t elem = dtype_size(x->dtype);
  for (int i = 0; i < n; ++i) {
    parts[i] = ctx->output(i)->data;
    bytes[i] = static_cast<size_t>(ctx->output(i)->shape.dims[axis] * inner) * elem;
  }
  lite_split_ref(static_cast<size_t>(outer), x->data, n, parts, bytes);
  return Status::kOk;
}

}  // namespace

OpKernel split_kernel() {
  OpKernel k;
  k.prepare = split_prepare;
  k.eval = split_eval;
  return k;
}

}  // namespace lite
