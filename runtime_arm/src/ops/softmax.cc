// SOFTMAX, LOG_SOFTMAX, HARDMAX along one axis (SoftmaxOptions.axis, physical, may be negative);
// float32, output shaped like the input.
#include <cmath>

#include "axis_split.h"
#include "lite_kernels/cpu_features.h"
#include "lite_kernels/f32_softmax.h"
#include "lite_kernels/f32_vactivation.h"
#include "op_api.h"
#include "op_util.h"
#include "thread_pool.h"

namespace lite {
namespace {

Status resolve_axis(OpContext* ctx, int* axis) {
  const TensorRef* x = ctx->input(0);
  if (x == nullptr) return fail(ctx, Status::kInvalidModel, "needs input x");
  if (x->dtype != lite_fb::DType::FLOAT32)
    return fail(ctx, Status::kUnsupported, "supports float32 x, got %s", dtype_name(x->dtype));
  const lite_fb::SoftmaxOptions* o = ctx->op->options_as_SoftmaxOptions();
  const int64_t requested = o != nullptr ? o->axis() : -1;
  if (x->shape.rank == 0) {  // a scalar is a one-element slice
    *axis = 0;
    return Status::kOk;
  }
  if (!normalize_axis(requested, x->shape.rank, axis))
    return fail(ctx, Status::kInvalidModel, "axis %lld is out of range for rank %d", static_cast<long long>(requested),
                x->shape.rank);
  return Status::kOk;
}

// SOFTMAX over the innermost axis (the usual case: classifier and attention rows): the row maximum,
// exp and sum, then the division, all vectorized (lite_f32_vsoftmax_row; the reference's steps; the
// scalar maximum loop alone took most of PP-OCRv4 rec's 6625-class softmax). Rows in blocks of at
// least ~16K values on the pool (each row is computed alone, so any split gives the same values).
void softmax_rows(ThreadPool* pool, size_t rows, size_t len, const float* x, float* y) {
  const lite_f32_vsoftmax_row_fn softmax_row = lite_f32_vsoftmax_row_select(lite_cpu_features());
  size_t per_task = 16384 / (len > 0 ? len : 1);
  if (per_task < 1) per_task = 1;
  parallel_for(pool, (rows + per_task - 1) / per_task, [&](size_t t, int) {
    const size_t end = (t + 1) * per_task < rows ? (t + 1) * per_task : rows;
    for (size_t r = t * per_task; r < end; ++r) softmax_row(x + r * len, y + r * len, len);
  });
}

[[gnu::cold]] Status prepare(OpContext* ctx) {
  int axis = 0;
  Status s = resolve_axis(ctx, &axis);
  if (s != Status::kOk) return s;
  TensorRef* y = ctx->output(0);
  if (y == nullptr) return fail(ctx, Status::kInvalidModel, "needs one output");
  y->dtype = lite_fb::DType::FLOAT32;
  y->shape = ctx->input(0)->shape;
  return Status::kOk;
}

Status eval(OpContext* ctx) {
  int axis = 0;
  Status s = resolve_axis(ctx, &axis);
  if (s != Status::kOk) return s;
  if (ctx->output(0)->shape.num_elements() == 0) return Status::kOk;  // nothing to write (the loops would still run)
  const AxisSplit v = split_at_axis(ctx->input(0)->shape, axis);
  const float* x = static_cast<const float*>(ctx->input(0)->data);
  float* y = static_cast<float*>(ctx->output(0)->data);
  switch (ctx->op->opcode()) {
    case lite_fb::OpCode::LOG_SOFTMAX: lite_f32_log_softmax_ref(v.outer, v.axis_len, v.inner, x, y); break;
    case lite_fb::OpCode::HARDMAX: lite_f32_hardmax_ref(v.outer, v.axis_len, v.inner, x, y); break;
    default:
      if (v.inner == 1)
        softmax_rows(ctx->pool, v.outer, v.axis_len, x, y);
      else
        lite_f32_softmax_ref(v.outer, v.axis_len, v.inner, x, y);
      break;
  }
  return Status::kOk;
}

}  // namespace

OpKernel softmax_op_kernel() {
  OpKernel k;
  k.prepare = prepare;
  k.eval = eval;
  return k;
}

}  // namespace lite
