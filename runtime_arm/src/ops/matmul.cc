// MATMUL: ONNX MatMul (numpy matmul): a 1-D operand gets a dim of 1 prepended (a) or appended (b)
// which is removed from the result; the batch dims (all but the last two) broadcast.
// float32 (with fused activation), int32, int64. A constant float32 B without batch dims of its own
// is packed once at prepare for the CPU's GEMM microkernel; a computed or batched float32 B (the
// attention products of PP-OCR rec) is packed into scratch per batch at eval, which costs k * n
// copies against m * k * n multiply-adds; int32 / int64 run the reference GEMM.
#include "fused_activation_check.h"
#include "lite_kernels/cpu_features.h"
#include "lite_kernels/gemm.h"
#include "op_api.h"
#include "op_util.h"
#include "packed_gemm.h"

namespace lite {
namespace {

// The product as a batch of [m, k] x [k, n] matrices, with the batch shape and each operand's
// batch shape right-aligned to it (1 where broadcast).
struct MatMulGeometry {
  size_t m = 1, n = 1, k = 1;
  Shape batch, a_batch, b_batch;
};

Status geometry(OpContext* ctx, MatMulGeometry* g, Shape* out_shape) {
  const TensorRef* a = ctx->input(0);
  const TensorRef* b = ctx->input(1);
  if (a == nullptr || b == nullptr) return fail(ctx, Status::kInvalidModel, "needs inputs a and b");
  if (a->dtype != b->dtype) return fail(ctx, Status::kInvalidModel, "a is %s but b is %s", dtype_name(a->dtype), dtype_name(b->dtype));
  if (a->dtype != lite_fb::DType::FLOAT32 && a->dtype != lite_fb::DType::INT32 && a->dtype != lite_fb::DType::INT64)
    return fail(ctx, Status::kUnsupported, "supports float32, int32 and int64, got %s", dtype_name(a->dtype));
  if (a->shape.rank < 1 || b->shape.rank < 1) return fail(ctx, Status::kShapeError, "operands must have rank >= 1");
  const Shape& as = a->shape;
  const Shape& bs = b->shape;
  const bool a_vector = as.rank == 1, b_vector = bs.rank == 1;
  const int64_t m = a_vector ? 1 : as.dims[as.rank - 2];
  const int64_t ka = as.dims[as.rank - 1];
  const int64_t kb = b_vector ? bs.dims[0] : bs.dims[bs.rank - 2];
  const int64_t n = b_vector ? 1 : bs.dims[bs.rank - 1];
  if (ka != kb)
    return fail(ctx, Status::kShapeError, "inner dimensions differ: a has K = %lld, b has K = %lld",
                static_cast<long long>(ka), static_cast<long long>(kb));
  Shape a_batch, b_batch;
  a_batch.rank = a_vector ? 0 : as.rank - 2;
  b_batch.rank = b_vector ? 0 : bs.rank - 2;
  for (int i = 0; i < a_batch.rank; ++i) a_batch.dims[i] = as.dims[i];
  for (int i = 0; i < b_batch.rank; ++i) b_batch.dims[i] = bs.dims[i];
  if (!broadcast_shapes(a_batch, b_batch, &g->batch))
    return fail(ctx, Status::kShapeError, "batch dimensions of a and b do not broadcast");
  // Right-align both batch shapes to the broadcast rank.
  g->a_batch.rank = g->b_batch.rank = g->batch.rank;
  for (int i = 0; i < g->batch.rank; ++i) {
    const int ia = i - (g->batch.rank - a_batch.rank), ib = i - (g->batch.rank - b_batch.rank);
    g->a_batch.dims[i] = ia >= 0 ? a_batch.dims[ia] : 1;
    g->b_batch.dims[i] = ib >= 0 ? b_batch.dims[ib] : 1;
  }
  g->m = static_cast<size_t>(m);
  g->n = static_cast<size_t>(n);
  g->k = static_cast<size_t>(ka);
  *out_shape = g->batch;
  if (!a_vector) out_shape->dims[out_shape->rank++] = m;
  if (!b_vector) out_shape->dims[out_shape->rank++] = n;
  const lite_fb::MatMulOptions* o = ctx->op->options_as_MatMulOptions();
  const lite_fb::Activation* act = o != nullptr ? o->activation() : nullptr;
  if (act != nullptr && act->kind() != lite_fb::ActivationKind::NONE && a->dtype != lite_fb::DType::FLOAT32)
    return fail(ctx, Status::kUnsupported, "fused activation needs float32");
  return check_fused_activation(ctx, act, -1, n);
}

[[gnu::cold]] Status prepare(OpContext* ctx) {
  MatMulGeometry g;
  Shape out_shape;
  Status s = geometry(ctx, &g, &out_shape);
  if (s != Status::kOk) return s;
  TensorRef* y = ctx->output(0);
  if (y == nullptr) return fail(ctx, Status::kInvalidModel, "needs one output");
  y->dtype = ctx->input(0)->dtype;
  y->shape = out_shape;
  // float32 with a constant B shared by every batch: one GEMM over all rows of A, B packed once.
  const TensorRef* b = ctx->input(1);
  const bool constant_b =
      b->dtype == lite_fb::DType::FLOAT32 && b->value_known && b->data != nullptr && g.b_batch.num_elements() == 1;
  // Packed from the file's own B by an earlier prepare: still right (keeps_constant_state).
  if (constant_b && packed_gemm_keep(ctx, g.n, g.k, *b, nullptr)) return Status::kOk;
  packed_gemm_free(static_cast<PackedGemm*>(ctx->state));
  ctx->state = nullptr;
  if (constant_b) {
    PackedGemm* packed = packed_gemm_create(ctx, g.n, g.k, static_cast<const float*>(b->data), g.n, 1, nullptr);
    if (packed == nullptr) return Status::kOutOfMemory;
    packed->value_version = b->value_version;
    ctx->state = packed;
  } else if (b->dtype == lite_fb::DType::FLOAT32) {
    const lite_f32_gemm_config* config = lite_f32_gemm_config_select(lite_cpu_features(), g.n);
    ctx->scratch_bytes_requested = lite_f32_gemm_packed_size(config, g.n, g.k) * sizeof(float);
  }
  return Status::kOk;
}

void free_state(void* state) { packed_gemm_free(static_cast<PackedGemm*>(state)); }

// Index of batch element `flat` of the broadcast batch shape within an operand's batch shape.
size_t operand_batch_index(const MatMulGeometry& g, const Shape& operand, size_t flat) {
  size_t index = 0, stride = 1;
  for (int i = g.batch.rank - 1; i >= 0; --i) {
    const size_t full = static_cast<size_t>(g.batch.dims[i]);
    const size_t coord = flat % full;
    flat /= full;
    if (operand.dims[i] != 1) index += coord * stride;
    stride *= static_cast<size_t>(operand.dims[i]);
  }
  return index;
}

Status eval(OpContext* ctx) {
  MatMulGeometry g;
  Shape out_shape;
  Status s = geometry(ctx, &g, &out_shape);
  if (s != Status::kOk) return s;
  if (ctx->output(0)->shape.num_elements() == 0) return Status::kOk;  // nothing to write (the loops would still run)
  const TensorRef* a = ctx->input(0);
  const TensorRef* b = ctx->input(1);
  const size_t batches = static_cast<size_t>(g.batch.num_elements());
  const size_t a_size = g.m * g.k, b_size = g.k * g.n, c_size = g.m * g.n;
  const lite_fb::MatMulOptions* o = ctx->op->options_as_MatMulOptions();
  const lite_activation act = to_kernel_activation(o != nullptr ? o->activation() : nullptr, nullptr);
  if (ctx->state != nullptr) {  // B unbatched: A's batches are consecutive rows of one [batches * m, k] matrix
    packed_gemm_run(*static_cast<const PackedGemm*>(ctx->state), ctx->pool, batches * g.m,
                    static_cast<const float*>(a->data), g.k, &act, static_cast<float*>(ctx->output(0)->data), g.n);
    return Status::kOk;
  }
  if (a->dtype == lite_fb::DType::FLOAT32) {  // computed or batched B: packed into scratch per batch
    PackedGemm packed;
    packed.config = lite_f32_gemm_config_select(lite_cpu_features(), g.n);
    packed.packed = static_cast<float*>(ctx->scratch);
    packed.n = g.n;
    packed.k = g.k;
    size_t packed_index = batches;  // the B batch now in scratch (none yet)
    for (size_t i = 0; i < batches; ++i) {
      const size_t bi = operand_batch_index(g, g.b_batch, i);
      if (bi != packed_index) {
        lite_f32_gemm_pack_b(packed.config, g.n, g.k, static_cast<const float*>(b->data) + bi * b_size, g.n, 1,
                             nullptr, packed.packed);
        packed_index = bi;
      }
      const float* ai = static_cast<const float*>(a->data) + operand_batch_index(g, g.a_batch, i) * a_size;
      packed_gemm_run(packed, ctx->pool, g.m, ai, g.k, &act, static_cast<float*>(ctx->output(0)->data) + i * c_size,
                      g.n);
    }
    return Status::kOk;
  }
  for (size_t i = 0; i < batches; ++i) {
    const size_t ai = operand_batch_index(g, g.a_batch, i) * a_size;
    const size_t bi = operand_batch_index(g, g.b_batch, i) * b_size;
    switch (a->dtype) {
      case lite_fb::DType::INT32:
        lite_s32_gemm_ref(g.m, g.n, g.k, static_cast<const int32_t*>(a->data) + ai, g.k,
                          static_cast<const int32_t*>(b->data) + bi, g.n,
                          static_cast<int32_t*>(ctx->output(0)->data) + i * c_size, g.n);
        break;
      case lite_fb::DType::INT64:
        lite_s64_gemm_ref(g.m, g.n, g.k, static_cast<const int64_t*>(a->data) + ai, g.k,
                          static_cast<const int64_t*>(b->data) + bi, g.n,
                          static_cast<int64_t*>(ctx->output(0)->data) + i * c_size, g.n);
        break;
      default:
        return fail(ctx, Status::kInternal, "unexpected dtype %s", dtype_name(a->dtype));
    }
  }
  return Status::kOk;
}

}  // namespace

OpKernel matmul_op_kernel() {
  OpKernel k;
  k.prepare = prepare;
  k.eval = eval;
  k.free_state = free_state;
  k.keeps_constant_state = true;
  return k;
}

}  // namespace lite
