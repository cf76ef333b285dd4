// FULLY_CONNECTED: x [..., K], weight [N, K], bias? [N] -> [..., N], y = x · weightᵀ + bias.
// The weight is transposed to [K, N] for the kernel: once at prepare when it is a constant (the
// op's state), else into scratch at every eval.
#include <cstdlib>

#include "fused_activation_check.h"
#include "lite_kernels/gemm.h"
#include "op_api.h"
#include "op_util.h"

namespace lite {
namespace {

struct FcDims {
  size_t m = 0, n = 0, k = 0;
};

Status fc_dims(OpContext* ctx, FcDims* d) {
  const TensorRef* x = ctx->input(0);
  const TensorRef* w = ctx->input(1);
  if (x == nullptr || w == nullptr) return fail(ctx, Status::kInvalidModel, "needs inputs x and weight");
  if (x->dtype != lite_fb::DType::FLOAT32 || w->dtype != lite_fb::DType::FLOAT32)
    return fail(ctx, Status::kUnsupported, "supports float32 x and weight, got %s and %s", dtype_name(x->dtype),
                dtype_name(w->dtype));
  if (x->shape.rank < 1 || w->shape.rank != 2)
    return fail(ctx, Status::kShapeError, "x must be [..., K] and weight [N, K], got ranks %d and %d", x->shape.rank,
                w->shape.rank);
  const int64_t k = x->shape.dims[x->shape.rank - 1];
  if (w->shape.dims[1] != k)
    return fail(ctx, Status::kShapeError, "weight is [%lld, %lld] but x has K = %lld",
                static_cast<long long>(w->shape.dims[0]), static_cast<long long>(w->shape.dims[1]),
                static_cast<long long>(k));
  const int64_t n = w->shape.dims[0];
  const TensorRef* bias = ctx->input(2);
  if (bias != nullptr && (bias->dtype != lite_fb::DType::FLOAT32 || bias->shape.num_elements() != n))
    return fail(ctx, Status::kShapeError, "bias must be float32 with %lld values", static_cast<long long>(n));
  const lite_fb::FullyConnectedOptions* o = ctx->op->options_as_FullyConnectedOptions();
  Status s = check_fused_activation(ctx, o != nullptr ? o->activation() : nullptr, -1, n);
  if (s != Status::kOk) return s;
  d->k = static_cast<size_t>(k);
  d->n = static_cast<size_t>(n);
  d->m = 1;  // rows: every dim but the last
  for (int i = 0; i + 1 < x->shape.rank; ++i) d->m *= static_cast<size_t>(x->shape.dims[i]);
  return Status::kOk;
}

Status prepare(OpContext* ctx) {
  FcDims d;
  Status s = fc_dims(ctx, &d);
  if (s != Status::kOk) return s;
  const TensorRef* x = ctx->input(0);
  TensorRef* y = ctx->output(0);
  if (y == nullptr) return fail(ctx, Status::kInvalidModel, "needs one output");
  y->dtype = lite_fb::DType::FLOAT32;
  y->shape = x->shape;
  y->shape.dims[y->shape.rank - 1] = static_cast<int64_t>(d.n);
  const size_t bytes = d.n * d.k * sizeof(float);
  const TensorRef* w = ctx->input(1);
  if (w->value_known && w->data != nullptr) {
    float* packed = static_cast<float*>(std::malloc(bytes > 0 ? bytes : 1));
    if (packed == nullptr) return fail(ctx, Status::kOutOfMemory, "cannot allocate %zu bytes of packed weight", bytes);
    lite_f32_transpose_2d_ref(d.n, d.k, static_cast<const float*>(w->data), packed);
    ctx->state = packed;
  } else {
    ctx->scratch_bytes_requested = bytes;
  }
  return Status::kOk;
}

Status eval(OpContext* ctx) {
  FcDims d;
  Status s = fc_dims(ctx, &d);
  if (s != Status::kOk) return s;
  const float* packed = static_cast<const float*>(ctx->state);
  if (packed == nullptr) {
    float* scratch = static_cast<float*>(ctx->scratch);
    lite_f32_transpose_2d_ref(d.n, d.k, static_cast<const float*>(ctx->input(1)->data), scratch);
    packed = scratch;
  }
  const TensorRef* bias = ctx->input(2);
  const lite_fb::FullyConnectedOptions* o = ctx->op->options_as_FullyConnectedOptions();
  const lite_activation act = to_kernel_activation(o != nullptr ? o->activation() : nullptr, nullptr);
  lite_f32_gemm_ref(d.m, d.n, d.k, static_cast<const float*>(ctx->input(0)->data), d.k, packed, d.n,
                    bias != nullptr ? static_cast<const float*>(bias->data) : nullptr, &act,
                    static_cast<float*>(ctx->output(0)->data), d.n);
  return Status::kOk;
}

void free_state(void* state) { std::free(state); }

}  // namespace

OpKernel fully_connected_op_kernel() {
  OpKernel k;
  k.prepare = prepare;
  k.eval = eval;
  k.free_state = free_state;
  return k;
}

}  // namespace lite
