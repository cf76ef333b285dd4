// LAYER_NORM: x, scale?, bias? -> y (+ optional mean, inv_std_dev outputs as ONNX
// LayerNormalization), normalizing over dims [axis, rank). scale / bias broadcast to those dims;
// when they are not already full-sized they are expanded into scratch at eval. Rows run on the
// vectorized kernel for this CPU (lite_kernels/f32_layer_norm.h), in blocks on the thread pool.
#include <cstring>

#include "lite_kernels/cpu_features.h"
#include "lite_kernels/f32_layer_norm.h"
#include "op_api.h"
#include "op_util.h"
#include "thread_pool.h"

namespace lite {
namespace {

struct LayerNormGeometry {
  int axis = 0;
  size_t outer = 1, inner = 1;
  Shape normalized;  // x.shape[axis:]
};

// Whether `param` broadcasts unidirectionally to `target` (numpy rules, param never larger).
bool broadcasts_to(const Shape& param, const Shape& target) {
  if (param.rank > target.rank) return false;
  for (int i = 0; i < param.rank; ++i) {
    const int64_t d = param.dims[param.rank - 1 - i], t = target.dims[target.rank - 1 - i];
    if (d != t && d != 1) return false;
  }
  return true;
}

Status geometry(OpContext* ctx, LayerNormGeometry* g) {
  const TensorRef* x = ctx->input(0);
  if (x == nullptr) return fail(ctx, Status::kInvalidModel, "needs input x");
  if (x->dtype != lite_fb::DType::FLOAT32)
    return fail(ctx, Status::kUnsupported, "supports float32 x, got %s", dtype_name(x->dtype));
  const lite_fb::LayerNormOptions* o = ctx->op->options_as_LayerNormOptions();
  const int64_t requested = o != nullptr ? o->axis() : -1;
  if (!normalize_axis(requested, x->shape.rank, &g->axis))
    return fail(ctx, Status::kInvalidModel, "axis %lld is out of range for rank %d", static_cast<long long>(requested),
                x->shape.rank);
  g->normalized.rank = x->shape.rank - g->axis;
  for (int i = 0; i < x->shape.rank; ++i) {
    if (i < g->axis) {
      g->outer *= static_cast<size_t>(x->shape.dims[i]);
    } else {
      g->inner *= static_cast<size_t>(x->shape.dims[i]);
      g->normalized.dims[i - g->axis] = x->shape.dims[i];
    }
  }
  for (int i = 1; i <= 2; ++i) {
    const TensorRef* p = ctx->input(i);
    if (p == nullptr) continue;
    if (p->dtype != lite_fb::DType::FLOAT32)
      return fail(ctx, Status::kUnsupported, "%s must be float32, got %s", i == 1 ? "scale" : "bias",
                  dtype_name(p->dtype));
    if (!broadcasts_to(p->shape, g->normalized))
      return fail(ctx, Status::kShapeError, "%s does not broadcast to the normalized dims", i == 1 ? "scale" : "bias");
  }
  return Status::kOk;
}

[[gnu::cold]] Status prepare(OpContext* ctx) {
  LayerNormGeometry g;
  Status s = geometry(ctx, &g);
  if (s != Status::kOk) return s;
  const TensorRef* x = ctx->input(0);
  TensorRef* y = ctx->output(0);
  if (y == nullptr) return fail(ctx, Status::kInvalidModel, "needs output y");
  y->dtype = lite_fb::DType::FLOAT32;
  y->shape = x->shape;
  for (int o = 1; o <= 2; ++o) {  // mean and inv_std_dev: x.shape[:axis] + [1] * (rank - axis)
    TensorRef* stat = ctx->output(o);
    if (stat == nullptr) continue;
    stat->dtype = lite_fb::DType::FLOAT32;
    stat->shape = x->shape;
    for (int i = g.axis; i < x->shape.rank; ++i) stat->shape.dims[i] = 1;
  }
  size_t scratch_floats = 0;
  for (int i = 1; i <= 2; ++i) {
    const TensorRef* p = ctx->input(i);
    if (p != nullptr && static_cast<size_t>(p->shape.num_elements()) != g.inner) scratch_floats += g.inner;
  }
  ctx->scratch_bytes_requested = scratch_floats * sizeof(float);
  return Status::kOk;
}

// `param` as `inner` floats laid out like the normalized dims: in place when already full-sized,
// else expanded into `buffer` by broadcasting.
const float* full_sized(const TensorRef* param, const Shape& normalized, size_t inner, float* buffer) {
  if (param == nullptr) return nullptr;
  const float* src = static_cast<const float*>(param->data);
  if (static_cast<size_t>(param->shape.num_elements()) == inner) return src;
  for (size_t flat = 0; flat < inner; ++flat) {
    size_t rest = flat, index = 0, stride = 1;
    for (int i = normalized.rank - 1; i >= 0; --i) {
      const size_t coord = rest % static_cast<size_t>(normalized.dims[i]);
      rest /= static_cast<size_t>(normalized.dims[i]);
      const int pi = i - (normalized.rank - param->shape.rank);
      if (pi < 0) continue;
      const size_t pd = static_cast<size_t>(param->shape.dims[pi]);
      if (pd != 1) index += coord * stride;
      stride *= pd;
    }
    buffer[flat] = src[index];
  }
  return buffer;
}

Status eval(OpContext* ctx) {
  LayerNormGeometry g;
  Status s = geometry(ctx, &g);
  if (s != Status::kOk) return s;
  float* scratch = static_cast<float*>(ctx->scratch);
  const float* scale = full_sized(ctx->input(1), g.normalized, g.inner, scratch);
  if (scale == scratch && scratch != nullptr) scratch += g.inner;
  const float* bias = full_sized(ctx->input(2), g.normalized, g.inner, scratch);
  const lite_fb::LayerNormOptions* o = ctx->op->options_as_LayerNormOptions();
  const float epsilon = o != nullptr ? o->epsilon() : 1e-5f;
  float* mean = ctx->output(1) != nullptr ? static_cast<float*>(ctx->output(1)->data) : nullptr;
  float* inv_std = ctx->output(2) != nullptr ? static_cast<float*>(ctx->output(2)->data) : nullptr;
  const float* x = static_cast<const float*>(ctx->input(0)->data);
  float* y = static_cast<float*>(ctx->output(0)->data);
  const lite_f32_layer_norm_fn fn = lite_f32_layer_norm_select(lite_cpu_features());
  // Blocks of whole rows (>= ~16K values) on the pool; a row's values do not depend on the split.
  const size_t rows_per_task = g.inner >= 16384 ? 1 : 16384 / (g.inner > 0 ? g.inner : 1);
  parallel_for(ctx->pool, (g.outer + rows_per_task - 1) / rows_per_task, [&](size_t t, int) {
    const size_t first = t * rows_per_task, rows = g.outer - first < rows_per_task ? g.outer - first : rows_per_task;
    fn(rows, g.inner, x + first * g.inner, scale, bias, epsilon, y + first * g.inner,
       mean != nullptr ? mean + first : nullptr, inv_std != nullptr ? inv_std + first : nullptr);
  });
  return Status::kOk;
}

}  // namespace

OpKernel layer_norm_op_kernel() {
  OpKernel k;
  k.prepare = prepare;
  k.eval = eval;
  return k;
}

}  // namespace lite
