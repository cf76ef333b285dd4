// REVERSE_SEQUENCE (ONNX ReverseSequence): reverses the first sequence_lens[b] steps of each batch entry
// along the time axis. The lengths are data (read at eval) and must lie in [0, time].
#include "lite_kernels/reverse_sequence.h"
#include "op_helpers.h"
#include "tensor_ops.h"

namespace lite {
namespace {

struct Axes {
  int batch = 1;
  int time = 0;
};

Axes axes_of(const OpContext* ctx) {
  const lite_fb::ReverseSequenceOptions* options = ctx->op->options_as_ReverseSequenceOptions();
  Axes axes;
  if (options != nullptr) {
    axes.batch = options->batch_axis();
    axes.time = options->time_axis();
  }
  return axes;
}

Status reverse_sequence_prepare(OpContext* ctx) {
  Status s = check_arity(ctx, 2, 1);
  if (s != Status::kOk) return s;
  const TensorRef* x = ctx->input(0);
  const TensorRef* lens = ctx->input(1);
  const Axes axes = axes_of(ctx);
  if (!((axes.batch == 0 && axes.time == 1) || (axes.batch == 1 && axes.time == 0)))
    return fail(ctx, Status::kInvalidModel, "batch_axis %d and time_axis %d must be 0 and 1, one each", axes.batch,
                axes.time);
  if (x->shape.rank < 2) return fail(ctx, Status::kShapeError, "input rank %d < 2", x->shape.rank);
  const int64_t batch = x->shape.dims[axes.batch];
  if (lens->dtype != lite_fb::DType::INT64 || lens->shape.rank != 1 || lens->shape.dims[0] != batch)
    return fail(ctx, Status::kInvalidModel, "sequence_lens must be INT64 [%lld] (the batch size), not %s %s",
                static_cast<long long>(batch), dtype_name(lens->dtype), ShapeText(lens->shape).c_str());
  TensorRef* y = ctx->output(0);
  y->dtype = x->dtype;
  y->shape = x->shape;
  return Status::kOk;
}

Status reverse_sequence_eval(OpContext* ctx) {
  const TensorRef* x = ctx->input(0);
  const int64_t* lens = static_cast<const int64_t*>(ctx->input(1)->data);
  const Axes axes = axes_of(ctx);
  const int64_t time = x->shape.dims[axes.time], batch = x->shape.dims[axes.batch];
  for (int64_t b = 0; b < batch; ++b)
    if (lens[b] < 0 || lens[b] > time)
      return fail(ctx, Status::kInvalidArgument, "sequence_lens[%lld] = %lld is outside [0, %lld]",
                  static_cast<long long>(b), static_cast<long long>(lens[b]), static_cast<long long>(time));
  const int64_t inner = time * batch == 0 ? 0 : x->shape.num_elements() / (time * batch);
  lite_reverse_sequence_ref(dtype_size(x->dtype), time, batch, inner, axes.time == 0 ? 1 : 0, lens, x->data,
                            ctx->output(0)->data);
  return Status::kOk;
}

}  // namespace

OpKernel reverse_sequence_kernel() {
  OpKernel k;
  k.prepare = reverse_sequence_prepare;
  k.eval = reverse_sequence_eval;
  return k;
}

}  // namespace lite
