// SLICE (ONNX Slice-13): starts/ends/axes/steps are prepare-time int inputs; negative values count
// from the end, out-of-range values clamp, negative steps walk backwards. The result is a strided
// view of the input, copied with the strided-copy kernel.
#include <cstdint>
#include <vector>

#include "lite_kernels/strided_copy.h"
#include "op_helpers.h"
#include "slice_view.h"
#include "tensor_ops.h"

namespace lite {

Status slice_view(OpContext* ctx, SliceView* view) {
  const TensorRef* x = ctx->input(0);
  const int rank = x->shape.rank;
  std::vector<int64_t> starts, ends, axes, steps;
  Status s = read_shape_input(ctx, 1, "starts", &starts);
  if (s == Status::kOk) s = read_shape_input(ctx, 2, "ends", &ends);
  if (s == Status::kOk && ctx->input(3) != nullptr) s = read_shape_input(ctx, 3, "axes", &axes);
  if (s == Status::kOk && ctx->input(4) != nullptr) s = read_shape_input(ctx, 4, "steps", &steps);
  if (s != Status::kOk) return s;
  const size_t n = starts.size();
  if (ends.size() != n || (ctx->input(3) != nullptr && axes.size() != n) ||
      (ctx->input(4) != nullptr && steps.size() != n))
    return fail(ctx, Status::kInvalidModel, "starts, ends, axes and steps differ in length");

  int64_t in_strides[kMaxRank];
  contiguous_strides(x->shape, in_strides);
  view->out = x->shape;
  view->offset = 0;
  for (int d = 0; d < rank; ++d) view->strides[d] = in_strides[d];
  bool seen[kMaxRank] = {};
  for (size_t i = 0; i < n; ++i) {
    const int64_t raw_axis = axes.empty() ? static_cast<int64_t>(i) : axes[i];
    int axis;
    if (!normalize_axis(raw_axis, rank, &axis))
      return fail(ctx, Status::kInvalidModel, "axis %lld is out of range for rank %d", static_cast<long long>(raw_axis),
                  rank);
    if (seen[axis]) return fail(ctx, Status::kInvalidModel, "axis %d is repeated", axis);
    seen[axis] = true;
    const int64_t step = steps.empty() ? 1 : steps[i];
    if (step == 0) return fail(ctx, Status::kInvalidModel, "step 0 on axis %d", axis);
    const int64_t dim = x->shape.dims[axis];
    int64_t start = starts[i], end = ends[i];
    if (start < 0) start += dim;
    if (end < 0) end += dim;
    int64_t count;
    if (dim == 0) {
      count = 0;  // (the negative-step clamps below assume dim >= 1: [0, dim - 1] would be empty)
    } else if (step > 0) {
      start = start < 0 ? 0 : (start > dim ? dim : start);
      end = end < 0 ? 0 : (end > dim ? dim : end);
      count = end > start ? (end - start - 1) / step + 1 : 0;
    } else {
      start = start < 0 ? 0 : (start > dim - 1 ? dim - 1 : start);
      end = end < -1 ? -1 : (end > dim - 1 ? dim - 1 : end);
      const int64_t back = step == INT64_MIN ? INT64_MAX : -step;
      count = start > end ? (start - end - 1) / back + 1 : 0;
    }
    view->out.dims[axis] = count;
    if (count > 0) view->offset += start * in_strides[axis];
    view->strides[axis] = count > 1 ? in_strides[axis] * step : in_strides[axis];  // no overflow on huge steps
  }
  return Status::kOk;
}

namespace {

[[gnu::cold]] Status slice_prepare(OpContext* ctx) {
  Status s = check_arity(ctx, 3, 1);
  if (s != Status::kOk) return s;
  SliceView view;
  s = slice_view(ctx, &view);
  if (s != Status::kOk) return s;
  TensorRef* y = ctx->output(0);
  y->dtype = ctx->input(0)->dtype;
  y->shape = view.out;
  return Status::kOk;
}

Status slice_eval(OpContext* ctx) {
  SliceView view;
  Status s = slice_view(ctx, &view);
  if (s != Status::kOk) return s;
  const TensorRef* x = ctx->input(0);
  if (view.out.num_elements() == 0) return Status::kOk;
  const size_t elem = dtype_size(x->dtype);
  lite_strided_copy_ref(elem, view.out.rank, view.out.dims,
                        static_cast<const char*>(x->data) + static_cast<size_t>(view.offset) * elem, view.strides,
                        ctx->output(0)->data);
  return Status::kOk;
}

}  // namespace

OpKernel slice_kernel() {
  OpKernel k;
  k.prepare = slice_prepare;
  k.eval = slice_eval;
  return k;
}

}  // namespace lite
