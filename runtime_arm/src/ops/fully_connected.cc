// FULLY_CONNECTED: x [..., K], weight [N, K], bias? [N] -> [..., N], y = x · weightᵀ + bias.
// A constant weight and bias are packed once at prepare for the CPU's GEMM microkernel (the op's
// state); a computed one is packed into scratch at every eval.
#include <cstdlib>

#include "fused_activation_check.h"
#include "lite_kernels/cpu_features.h"
#include "op_api.h"
#include "op_util.h"
#include "packed_gemm.h"

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

[[gnu::cold]] Status prepare(OpContext* ctx) {
  FcDims d;
  Status s = fc_dims(ctx, &d);
  if (s != Status::kOk) return s;
  const TensorRef* x = ctx->input(0);
  TensorRef* y = ctx->output(0);
  if (y == nullptr) return fail(ctx, Status::kInvalidModel, "needs one output");
  y->dtype = lite_fb::DType::FLOAT32;
  y->shape = x->shape;
  y->shape.dims[y->shape.rank - 1] = static_cast<int64_t>(d.n);
  const TensorRef* w = ctx->input(1);
  const TensorRef* bias = ctx->input(2);
  const bool constant = w->value_known && w->data != nullptr &&
                        (bias == nullptr || (bias->value_known && bias->data != nullptr));
  // Packed from the file's own weights by an earlier prepare: still right (keeps_constant_state).
  if (constant && packed_gemm_keep(ctx, d.n, d.k, *w, bias)) return Status::kOk;
  packed_gemm_free(static_cast<PackedGemm*>(ctx->state));
  ctx->state = nullptr;
  if (constant) {
    // [n, k] weight = B^T: B[p, j] = weight[j * k + p].
    PackedGemm* g = packed_gemm_create(ctx, d.n, d.k, static_cast<const float*>(w->data), 1, d.k,
                                       bias != nullptr ? static_cast<const float*>(bias->data) : nullptr);
    if (g == nullptr) return Status::kOutOfMemory;
    ctx->state = g;
  } else {
    const lite_f32_gemm_config* config = lite_f32_gemm_config_select(lite_cpu_features(), d.n);
    ctx->scratch_bytes_requested = lite_f32_gemm_packed_size(config, d.n, d.k) * sizeof(float);
  }
  return Status::kOk;
}

Status eval(OpContext* ctx) {
  FcDims d;
  Status s = fc_dims(ctx, &d);
  if (s != Status::kOk) return s;
  if (ctx->output(0)->shape.num_elements() == 0) return Status::kOk;  // nothing to write (the loops would still run)
  const TensorRef* bias = ctx->input(2);
  const lite_fb::FullyConnectedOptions* o = ctx->op->options_as_FullyConnectedOptions();
  const lite_activation act = to_kernel_activation(o != nullptr ? o->activation() : nullptr, nullptr);
  const PackedGemm* g = static_cast<const PackedGemm*>(ctx->state);
  if (g != nullptr) {
    packed_gemm_run(*g, ctx->pool, d.m, static_cast<const float*>(ctx->input(0)->data), d.k, &act,
                    static_cast<float*>(ctx->output(0)->data), d.n);
    return Status::kOk;
  }
  // Computed weight or bias (onnx-tf passes an If branch's weights in as arguments): packed into
  // scratch at every eval, as MATMUL packs a computed B, then the same GEMM / GEMV.
  PackedGemm packed;
  packed.config = lite_f32_gemm_config_select(lite_cpu_features(), d.n);
  packed.packed = static_cast<float*>(ctx->scratch);
  packed.n = d.n;
  packed.k = d.k;
  lite_f32_gemm_pack_b(packed.config, d.n, d.k, static_cast<const float*>(ctx->input(1)->data), 1, d.k,
                       bias != nullptr ? static_cast<const float*>(bias->data) : nullptr, packed.packed);
  packed_gemm_run(packed, ctx->pool, d.m, static_cast<const float*>(ctx->input(0)->data), d.k, &act,
                  static_cast<float*>(ctx->output(0)->data), d.n);
  return Status::kOk;
}

void free_state(void* state) { packed_gemm_free(static_cast<PackedGemm*>(state)); }

}  // namespace

OpKernel fully_connected_op_kernel() {
  OpKernel k;
  k.prepare = prepare;
  k.eval = eval;
  k.free_state = free_state;
  k.keeps_constant_state = true;
  return k;
}

}  // namespace lite
