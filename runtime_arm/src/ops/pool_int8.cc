// Pools on int8 tensors, which keep the input's scale and zero point (the converter gives the output
// the same quantization): MAX_POOL_2D (no fused activation) and GLOBAL_AVERAGE_POOL (rounded mean).
#include <new>

#include "lite_kernels/cpu_features.h"
#include "lite_kernels/qs8_pool2d.h"
#include "op_api.h"
#include "op_util.h"
#include "quant_params_int8.h"
#include "thread_pool.h"
#include "window_geometry.h"

namespace lite {
namespace {

Status same_quantization(OpContext* ctx, QuantInt8* q) {
  QuantInt8 qy;
  Status s = per_tensor_int8(ctx, ctx->input(0), "x", q);
  if (s == Status::kOk) s = per_tensor_int8(ctx, ctx->output(0), "y", &qy);
  if (s != Status::kOk) return s;
  if (q->scale != qy.scale || q->zero_point != qy.zero_point)
    return fail(ctx, Status::kInvalidModel, "int8 pooling needs the same scale and zero point in and out");
  if (ctx->input(0)->shape.rank != 4) return fail(ctx, Status::kShapeError, "x must be [N,H,W,C]");
  return Status::kOk;
}

Status max_pool_geometry(OpContext* ctx, lite_conv2d_params* p) {
  const lite_fb::Pool2DOptions* o = ctx->op->options_as_Pool2DOptions();
  if (o != nullptr && o->activation() != nullptr && o->activation()->kind() != lite_fb::ActivationKind::NONE)
    return fail(ctx, Status::kUnsupported, "int8 MAX_POOL_2D has no fused activation");
  const Shape& x = ctx->input(0)->shape;
  Window2D win;
  const Status s = pool_window(ctx, o, x, &win);
  if (s != Status::kOk) return s;
  *p = lite_conv2d_params{};
  fill_conv_params(x, x.dims[3], 1, win, p);
  return Status::kOk;
}

[[gnu::cold]] Status max_pool_prepare(OpContext* ctx) {
  QuantInt8 q;
  Status s = same_quantization(ctx, &q);
  lite_conv2d_params p;
  if (s == Status::kOk) s = max_pool_geometry(ctx, &p);
  if (s != Status::kOk) return s;
  TensorRef* y = ctx->output(0);
  set_nhwc_output(y, lite_fb::DType::INT8, p.batch, p.out_h, p.out_w, p.out_c);
  return Status::kOk;
}

Status max_pool_eval(OpContext* ctx) {
  lite_conv2d_params p;
  Status s = max_pool_geometry(ctx, &p);
  if (s != Status::kOk) return s;
  const int8_t* x = static_cast<const int8_t*>(ctx->input(0)->data);
  int8_t* y = static_cast<int8_t*>(ctx->output(0)->data);
  const size_t rows = p.batch * p.out_h;
  const size_t tile = 1 + 4096 / (p.out_w * p.out_c + 1);  // output rows per task: about 4 KiB or more
  const lite_qs8_max_pool2d_fn max_pool = lite_qs8_max_pool2d_select(lite_cpu_features());
  parallel_for(ctx->pool, (rows + tile - 1) / tile, [&](size_t t, int) {
    const size_t r0 = t * tile, r1 = rows - r0 < tile ? rows : r0 + tile;
    max_pool(&p, x, y, r0, r1);
  });
  return Status::kOk;
}

[[gnu::cold]] Status global_average_prepare(OpContext* ctx) {
  QuantInt8 q;
  Status s = same_quantization(ctx, &q);
  if (s != Status::kOk) return s;
  TensorRef* y = ctx->output(0);
  const Shape& x = ctx->input(0)->shape;
  set_nhwc_output(y, lite_fb::DType::INT8, static_cast<size_t>(x.dims[0]), 1, 1, static_cast<size_t>(x.dims[3]));
  return Status::kOk;
}

Status global_average_eval(OpContext* ctx) {
  QuantInt8 q;
  Status s = per_tensor_int8(ctx, ctx->input(0), "x", &q);
  if (s != Status::kOk) return s;
  const Shape& x = ctx->input(0)->shape;
  lite_qs8_global_average_pool_select(lite_cpu_features())(
      static_cast<size_t>(x.dims[0]), static_cast<size_t>(x.dims[1] * x.dims[2]), static_cast<size_t>(x.dims[3]),
      q.zero_point, static_cast<const int8_t*>(ctx->input(0)->data), static_cast<int8_t*>(ctx->output(0)->data));
  return Status::kOk;
}

}  // namespace

OpKernel max_pool_int8_op_kernel() {
  OpKernel k;
  k.prepare = max_pool_prepare;
  k.eval = max_pool_eval;
  return k;
}

OpKernel global_average_pool_int8_op_kernel() {
  OpKernel k;
  k.prepare = global_average_prepare;
  k.eval = global_average_eval;
  return k;
}

}  // namespace lite
