// MAX_POOL_2D and AVERAGE_POOL_2D on x [N,H,W,C] -> [N,OH,OW,C] (Pool2DOptions: kernel, strides,
// dilations, pads or padding mode, ceil_mode, count_include_pad, fused activation).
#include "fused_activation_check.h"
#include "lite_kernels/cpu_features.h"
#include "lite_kernels/f32_pool2d.h"
#include "op_api.h"
#include "op_util.h"
#include "thread_pool.h"
#include "window_geometry.h"

namespace lite {
namespace {

Status pool_params(OpContext* ctx, lite_pool2d_params* p) {
  const TensorRef* x = ctx->input(0);
  if (x == nullptr) return fail(ctx, Status::kInvalidModel, "needs input x");
  if (x->dtype != lite_fb::DType::FLOAT32)
    return fail(ctx, Status::kUnsupported, "supports float32 x, got %s", dtype_name(x->dtype));
  if (x->shape.rank != 4) return fail(ctx, Status::kShapeError, "x must be [N,H,W,C], got rank %d", x->shape.rank);
  const lite_fb::Pool2DOptions* o = ctx->op->options_as_Pool2DOptions();
  Window2D win;
  Status s = pool_window(ctx, o, x->shape, &win);
  if (s != Status::kOk) return s;
  s = check_fused_activation(ctx, o->activation(), -1, x->shape.dims[3]);
  if (s != Status::kOk) return s;
  p->batch = static_cast<size_t>(x->shape.dims[0]);
  p->in_h = static_cast<size_t>(x->shape.dims[1]);
  p->in_w = static_cast<size_t>(x->shape.dims[2]);
  p->channels = static_cast<size_t>(x->shape.dims[3]);
  fill_window_params(win, p);
  p->pad_bottom = static_cast<size_t>(win.h.pad_end);
  p->pad_right = static_cast<size_t>(win.w.pad_end);
  p->count_include_pad = o->count_include_pad() ? 1 : 0;
  return Status::kOk;
}

[[gnu::cold]] Status prepare(OpContext* ctx) {
  lite_pool2d_params p{};
  Status s = pool_params(ctx, &p);
  if (s != Status::kOk) return s;
  TensorRef* y = ctx->output(0);
  if (y == nullptr) return fail(ctx, Status::kInvalidModel, "needs one output");
  set_nhwc_output(y, lite_fb::DType::FLOAT32, p.batch, p.out_h, p.out_w, p.channels);
  return Status::kOk;
}

Status eval(OpContext* ctx) {
  lite_pool2d_params p{};
  Status s = pool_params(ctx, &p);
  if (s != Status::kOk) return s;
  if (ctx->output(0)->shape.num_elements() == 0) return Status::kOk;  // nothing to write (the loops would still run)
  const lite_activation act = to_kernel_activation(ctx->op->options_as_Pool2DOptions()->activation(), nullptr);
  const float* x = static_cast<const float*>(ctx->input(0)->data);
  float* y = static_cast<float*>(ctx->output(0)->data);
  const lite_f32_pool2d_rows_fn pool_rows = ctx->op->opcode() == lite_fb::OpCode::MAX_POOL_2D
                                                ? lite_f32_max_pool2d_select(lite_cpu_features())
                                                : lite_f32_average_pool2d_select(lite_cpu_features());
  // Tasks of whole output rows, about 16K values each (any split gives the same values).
  const size_t rows = p.batch * p.out_h;
  const size_t row_values = p.out_w * p.channels;
  size_t per_task = 16384 / (row_values > 0 ? row_values : 1);
  if (per_task < 1) per_task = 1;
  parallel_for(ctx->pool, (rows + per_task - 1) / per_task, [&](size_t t, int) {
    const size_t begin = t * per_task, end = begin + per_task < rows ? begin + per_task : rows;
    pool_rows(&p, x, &act, y, begin, end);
  });
  return Status::kOk;
}

}  // namespace

OpKernel pool2d_op_kernel() {
  OpKernel k;
  k.prepare = prepare;
  k.eval = eval;
  return k;
}

}  // namespace lite
