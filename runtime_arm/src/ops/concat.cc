// CONCAT along one axis (negative allowed), any dtype. Scratch holds the per-input pointer and
// block-size arrays, so eval does not allocate.
#include "lite_kernels/concat.h"
#include "op_helpers.h"
#include "tensor_ops.h"
#include "thread_pool.h"

namespace lite {
namespace {

Status concat_prepare(OpContext* ctx) {
  if (ctx->num_inputs < 1 || ctx->num_outputs < 1) return fail(ctx, Status::kInvalidModel, "needs inputs and an output");
  const lite_fb::ConcatOptions* options = ctx->op->options_as_ConcatOptions();
  if (options == nullptr) return fail(ctx, Status::kInvalidModel, "missing ConcatOptions");
  const TensorRef* first = ctx->input(0);
  if (first == nullptr) return fail(ctx, Status::kInvalidModel, "input 0 is missing");
  int axis;
  if (!normalize_axis(options->axis(), first->shape.rank, &axis))
    return fail(ctx, Status::kInvalidModel, "axis %d is out of range for rank %d", options->axis(), first->shape.rank);
  Shape out = first->shape;
  out.dims[axis] = 0;
  for (int i = 0; i < ctx->num_inputs; ++i) {
    const TensorRef* t = ctx->input(i);
    if (t == nullptr) return fail(ctx, Status::kInvalidModel, "input %d is missing", i);
    if (t->dtype != first->dtype)
      return fail(ctx, Status::kInvalidModel, "input %d is %s, input 0 is %s", i, dtype_name(t->dtype),
                  dtype_name(first->dtype));
    bool compatible = t->shape.rank == first->shape.rank;
    for (int d = 0; compatible && d < out.rank; ++d)
      if (d != axis && t->shape.dims[d] != first->shape.dims[d]) compatible = false;
    if (!compatible)
      return fail(ctx, Status::kShapeError, "input %d shape %s does not match input 0 shape %s outside axis %d", i,
                  ShapeText(t->shape).c_str(), ShapeText(first->shape).c_str(), axis);
    out.dims[axis] += t->shape.dims[axis];
  }
  TensorRef* y = ctx->output(0);
  y->dtype = first->dtype;
  y->shape = out;
  ctx->scratch_bytes_requested = static_cast<size_t>(ctx->num_inputs) * (sizeof(const void*) + sizeof(size_t));
  return Status::kOk;
}

Status concat_eval(OpContext* ctx) {
  TensorRef* y = ctx->output(0);
  if (y->shape.num_elements() == 0) return Status::kOk;  // nothing to write (the loops would still run)
  int axis = 0;
  normalize_axis(ctx->op->options_as_ConcatOptions()->axis(), y->shape.rank, &axis);
  int64_t outer = 1, inner = 1;
  for (int d = 0; d < axis; ++d) outer *= y->shape.dims[d];
  for (int d = axis + 1; d < y->shape.rank; ++d) inner *= y->shape.dims[d];
  const int n = ctx->num_inputs;
  const void** parts = static_cast<const void**>(ctx->scratch);
  size_t* bytes = reinterpret_cast<size_t*>(parts + n);
  const size_t elem = dtype_size(y->dtype);
  for (int i = 0; i < n; ++i) {
    parts[i] = ctx->input(i)->data;
    bytes[i] = static_cast<size_t>(ctx->input(i)->shape.dims[axis] * inner) * elem;
  }
  // Blocks of outer rows (>= ~64 KB of output each) on the pool: NHWC channel concatenations copy every
  // pixel's parts, and at 2 threads each thread then copies the rows it wrote itself.
  constexpr int kMaxPartsOnStack = 32;
  size_t row_bytes = 0;
  for (int i = 0; i < n; ++i) row_bytes += bytes[i];
  size_t per_task = 65536 / (row_bytes > 0 ? row_bytes : 1);
  if (per_task < 1) per_task = 1;
  const size_t rows = static_cast<size_t>(outer);
  const size_t tasks = n <= kMaxPartsOnStack ? (rows + per_task - 1) / per_task : 1;
  if (tasks <= 1) {
    lite_concat_ref(rows, n, parts, bytes, y->data);
    return Status::kOk;
  }
  parallel_for(ctx->pool, tasks, [&](size_t t, int) {
    const size_t begin = t * per_task, count = (begin + per_task < rows ? begin + per_task : rows) - begin;
    const void* block_parts[kMaxPartsOnStack];
    for (int i = 0; i < n; ++i) block_parts[i] = static_cast<const char*>(parts[i]) + begin * bytes[i];
    lite_concat_ref(count, n, block_parts, bytes, static_cast<char*>(y->data) + begin * row_bytes);
  });
  return Status::kOk;
}

}  // namespace

OpKernel concat_kernel() {
  OpKernel k;
  k.prepare = concat_prepare;
  k.eval = concat_eval;
  return k;
}

}  // namespace lite
