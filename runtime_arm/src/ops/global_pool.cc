// GLOBAL_AVERAGE_POOL and GLOBAL_MAX_POOL: x [N,H,W,C] -> [N,1,1,C].
#include "lite_kernels/f32_pool2d.h"
#include "op_api.h"
#include "op_util.h"
#include "thread_pool.h"

namespace lite {
namespace {

[[gnu::cold]] Status prepare(OpContext* ctx) {
  const TensorRef* x = ctx->input(0);
  TensorRef* y = ctx->output(0);
  if (x == nullptr || y == nullptr) return fail(ctx, Status::kInvalidModel, "needs one input and one output");
  if (x->dtype != lite_fb::DType::FLOAT32)
    return fail(ctx, Status::kUnsupported, "supports float32 x, got %s", dtype_name(x->dtype));
  if (x->shape.rank != 4) return fail(ctx, Status::kShapeError, "x must be [N,H,W,C], got rank %d", x->shape.rank);
  set_nhwc_output(y, lite_fb::DType::FLOAT32, static_cast<size_t>(x->shape.dims[0]), 1, 1,
                  static_cast<size_t>(x->shape.dims[3]));
  return Status::kOk;
}

Status eval(OpContext* ctx) {
  const Shape& s = ctx->input(0)->shape;
  const size_t batch = static_cast<size_t>(s.dims[0]), pixels = static_cast<size_t>(s.dims[1] * s.dims[2]),
               channels = static_cast<size_t>(s.dims[3]);
  const float* x = static_cast<const float*>(ctx->input(0)->data);
  float* y = static_cast<float*>(ctx->output(0)->data);
  const bool max = ctx->op->opcode() == lite_fb::OpCode::GLOBAL_MAX_POOL;
  // Blocks of 16 channels (the kernels' accumulator width) over all pixels, as tasks on the pool
  // when the map is large: each channel is reduced in the same order whatever the split.
  const size_t blocks = (channels + 15) / 16;
  const size_t tasks = batch * pixels * channels >= 65536 ? blocks : 1;
  parallel_for(ctx->pool, tasks, [&](size_t t, int) {
    const size_t c_begin = tasks == 1 ? 0 : t * 16;
    const size_t c_end = tasks == 1 || c_begin + 16 > channels ? channels : c_begin + 16;
    if (max)
      lite_f32_global_max_pool_nhwc_range(batch, pixels, channels, c_begin, c_end, x, y);
    else
      lite_f32_global_average_pool_nhwc_range(batch, pixels, channels, c_begin, c_end, x, y);
  });
  return Status::kOk;
}

}  // namespace

OpKernel global_pool_op_kernel() {
  OpKernel k;
  k.prepare = prepare;
  k.eval = eval;
  return k;
}

}  // namespace lite
