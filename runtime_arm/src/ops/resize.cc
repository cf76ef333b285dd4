// RESIZE: x [N,H,W,C], scales? (float32 [2] = h, w), sizes? (int64 [2] = h, w) -> [N,OH,OW,C] with
// ONNX Resize semantics on H and W. Scales / sizes are shape inputs: known at prepare time.
// Nearest works on any dtype (it only moves elements); linear and cubic need float32.
#include <cmath>
#include <vector>

#include "lite_kernels/resize.h"
#include "op_api.h"
#include "thread_pool.h"
#include "op_util.h"

namespace lite {
namespace {

const TensorRef* present(const TensorRef* t) { return t != nullptr && t->shape.num_elements() > 0 ? t : nullptr; }

Status resize_params(OpContext* ctx, lite_resize_params* p) {
  const TensorRef* x = ctx->input(0);
  if (x == nullptr) return fail(ctx, Status::kInvalidModel, "needs input x");
  if (x->shape.rank != 4) return fail(ctx, Status::kShapeError, "x must be [N,H,W,C], got rank %d", x->shape.rank);
  const lite_fb::ResizeOptions* o = ctx->op->options_as_ResizeOptions();
  p->mode = o != nullptr ? static_cast<int>(o->mode()) : LITE_RESIZE_NEAREST;
  p->coordinate_mode = o != nullptr ? static_cast<int>(o->coordinate_mode()) : LITE_RESIZE_HALF_PIXEL;
  p->nearest_mode = o != nullptr ? static_cast<int>(o->nearest_mode()) : LITE_RESIZE_ROUND_PREFER_FLOOR;
  p->cubic_coeff_a = o != nullptr ? o->cubic_coeff_a() : -0.75f;
  p->exclude_outside = o != nullptr && o->exclude_outside() ? 1 : 0;
  if (p->mode < LITE_RESIZE_NEAREST || p->mode > LITE_RESIZE_CUBIC)
    return fail(ctx, Status::kInvalidModel, "unknown resize mode %d", p->mode);
  if (p->coordinate_mode < LITE_RESIZE_HALF_PIXEL || p->coordinate_mode > LITE_RESIZE_HALF_PIXEL_SYMMETRIC)
    return fail(ctx, Status::kInvalidModel, "unknown coordinate transformation mode %d", p->coordinate_mode);
  if (p->nearest_mode < LITE_RESIZE_ROUND_PREFER_FLOOR || p->nearest_mode > LITE_RESIZE_CEIL)
    return fail(ctx, Status::kInvalidModel, "unknown nearest mode %d", p->nearest_mode);
  if (p->mode != LITE_RESIZE_NEAREST && x->dtype != lite_fb::DType::FLOAT32)
    return fail(ctx, Status::kUnsupported, "linear and cubic resize support float32 x, got %s", dtype_name(x->dtype));

  const int64_t in_h = x->shape.dims[1], in_w = x->shape.dims[2];
  const TensorRef* scales = present(ctx->input(1));
  const TensorRef* sizes = present(ctx->input(2));
  if ((scales == nullptr) == (sizes == nullptr))
    return fail(ctx, Status::kInvalidModel, "needs exactly one of scales and sizes");
  int64_t out_h, out_w;
  if (scales != nullptr) {
    if (scales->dtype != lite_fb::DType::FLOAT32 || scales->shape.num_elements() != 2)
      return fail(ctx, Status::kInvalidModel, "scales must be float32 [2] (h, w)");
    if (!scales->value_known || scales->data == nullptr)
      return fail(ctx, Status::kUnsupported, "scales must be known at prepare time (a constant or a shape computation)");
    const float* s = static_cast<const float*>(scales->data);
    if (!(s[0] > 0.0f) || !(s[1] > 0.0f) || !std::isfinite(s[0]) || !std::isfinite(s[1]))
      return fail(ctx, Status::kInvalidArgument, "scales must be finite and > 0, got %g and %g",
                  static_cast<double>(s[0]), static_cast<double>(s[1]));
    p->scale_h = s[0];
    p->scale_w = s[1];
    // Checked in double before the conversion to int64 (undefined for values out of range).
    const double h = std::floor(static_cast<double>(in_h) * p->scale_h);
    const double w = std::floor(static_cast<double>(in_w) * p->scale_w);
    if (!(h <= static_cast<double>(kMaxOpDim)) || !(w <= static_cast<double>(kMaxOpDim)))
      return fail(ctx, Status::kShapeError, "scales %g x %g make the %lldx%lld input too large",
                  static_cast<double>(s[0]), static_cast<double>(s[1]), static_cast<long long>(in_h),
                  static_cast<long long>(in_w));
    out_h = static_cast<int64_t>(h);
    out_w = static_cast<int64_t>(w);
  } else {
    std::vector<int64_t> v;
    if (sizes->shape.num_elements() != 2)
      return fail(ctx, Status::kInvalidModel, "sizes must have 2 values (h, w), got %lld",
                  static_cast<long long>(sizes->shape.num_elements()));
    if (!read_int_values(sizes, &v))
      return fail(ctx, Status::kUnsupported, "sizes must be an integer tensor known at prepare time");
    if (v.size() != 2) return fail(ctx, Status::kInvalidModel, "sizes must have 2 values (h, w), got %zu", v.size());
    if (v[0] < 0 || v[1] < 0) return fail(ctx, Status::kInvalidArgument, "sizes must be >= 0");
    if (v[0] > kMaxOpDim || v[1] > kMaxOpDim)
      return fail(ctx, Status::kShapeError, "sizes %lld x %lld are too large", static_cast<long long>(v[0]),
                  static_cast<long long>(v[1]));
    out_h = v[0];
    out_w = v[1];
    if ((in_h == 0 && out_h > 0) || (in_w == 0 && out_w > 0))
      return fail(ctx, Status::kShapeError, "cannot resize an empty input to a non-empty output");
    p->scale_h = in_h > 0 ? static_cast<double>(out_h) / static_cast<double>(in_h) : 1.0;
    p->scale_w = in_w > 0 ? static_cast<double>(out_w) / static_cast<double>(in_w) : 1.0;
  }
  p->batch = static_cast<size_t>(x->shape.dims[0]);
  p->in_h = static_cast<size_t>(in_h);
  p->in_w = static_cast<size_t>(in_w);
  p->channels = static_cast<size_t>(x->shape.dims[3]);
  p->out_h = static_cast<size_t>(out_h);
  p->out_w = static_cast<size_t>(out_w);
  return Status::kOk;
}

Status prepare(OpContext* ctx) {
  lite_resize_params p{};
  Status s = resize_params(ctx, &p);
  if (s != Status::kOk) return s;
  TensorRef* y = ctx->output(0);
  if (y == nullptr) return fail(ctx, Status::kInvalidModel, "needs one output");
  set_nhwc_output(y, ctx->input(0)->dtype, p.batch, p.out_h, p.out_w, p.channels);
  return Status::kOk;
}

Status eval(OpContext* ctx) {
  lite_resize_params p{};
  Status s = resize_params(ctx, &p);
  if (s != Status::kOk) return s;
  if (ctx->output(0)->shape.num_elements() == 0) return Status::kOk;  // nothing to write (the loops would still run)
  const TensorRef* x = ctx->input(0);
  void* y = ctx->output(0)->data;
  if (p.mode == LITE_RESIZE_CUBIC) {
    lite_f32_resize_cubic_nhwc_ref(&p, static_cast<const float*>(x->data), static_cast<float*>(y));
    return Status::kOk;
  }
  // Nearest and bilinear: blocks of output rows (>= ~16K values) on the pool.
  const size_t rows = p.batch * p.out_h, row_values = p.out_w * p.channels;
  size_t per_task = 16384 / (row_values > 0 ? row_values : 1);
  if (per_task < 1) per_task = 1;
  const size_t element_size = dtype_size(x->dtype);
  parallel_for(ctx->pool, (rows + per_task - 1) / per_task, [&](size_t t, int) {
    const size_t begin = t * per_task, end = begin + per_task < rows ? begin + per_task : rows;
    if (p.mode == LITE_RESIZE_LINEAR)
      lite_f32_resize_linear_nhwc_rows(&p, static_cast<const float*>(x->data), static_cast<float*>(y), begin, end);
    else
      lite_resize_nearest_nhwc_rows(&p, element_size, x->data, y, begin, end);
  });
  return Status::kOk;
}

}  // namespace

OpKernel resize_op_kernel() {
  OpKernel k;
  k.prepare = prepare;
  k.eval = eval;
  return k;
}

}  // namespace lite
