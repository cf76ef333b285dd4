// FULLY_CONNECTED on int8 tensors: x INT8 [..., K] (per tensor), weight INT8 [N, K] (symmetric, per
// output feature), bias INT32 [N] optional, y INT8 [..., N]; fused RELU / CLIP are the output clamp.
// A constant weight and bias run the packed int8 GEMM (conv_gemm_int8.h), which gives the reference
// kernel's bytes.
#include <new>
#include <vector>

#include "conv_gemm_int8.h"
#include "lite_kernels/qs8_conv2d_fully_connected.h"
#include "op_api.h"
#include "op_util.h"
#include "quant_params_int8.h"

namespace lite {
namespace {

struct FcInt8State {
  QuantInt8 in, out;
  int32_t act_min = -128, act_max = 127;
  std::vector<int32_t> multiplier, shift;
  PackedGemmInt8* gemm = nullptr;  // null: the reference kernel runs
};

// Once per model load: cold (optimized for size; the ARM library's budget).
[[gnu::cold]] Status prepare(OpContext* ctx) {
  const TensorRef* x = ctx->input(0);
  const TensorRef* w = ctx->input(1);
  TensorRef* y = ctx->output(0);
  if (x == nullptr || w == nullptr || y == nullptr) return fail(ctx, Status::kInvalidModel, "needs x, weight, output");
  FcInt8State* st = new (std::nothrow) FcInt8State;
  if (st == nullptr) return fail(ctx, Status::kOutOfMemory, "cannot allocate op state");
  ctx->state = st;
  Status s = per_tensor_int8(ctx, x, "x", &st->in);
  if (s == Status::kOk) s = per_tensor_int8(ctx, y, "y", &st->out);
  if (s != Status::kOk) return s;
  if (x->shape.rank < 1 || w->shape.rank != 2 || x->shape.dims[x->shape.rank - 1] != w->shape.dims[1])
    return fail(ctx, Status::kShapeError, "x [..., K] and weight [N, K] do not match");
  const int64_t n = w->shape.dims[0];
  const TensorRef* bias = ctx->input(2);
  if (bias != nullptr && (bias->dtype != lite_fb::DType::INT32 || bias->shape.num_elements() != n))
    return fail(ctx, Status::kInvalidModel, "int8 FULLY_CONNECTED bias must be INT32 with %lld values",
                static_cast<long long>(n));
  s = channel_multipliers(ctx, w, n, 0, st->in, st->out, &st->multiplier, &st->shift);
  const lite_fb::FullyConnectedOptions* o = ctx->op->options_as_FullyConnectedOptions();
  if (s == Status::kOk)
    s = activation_range_int8(ctx, o != nullptr ? o->activation() : nullptr, st->out, &st->act_min, &st->act_max);
  if (s != Status::kOk) return s;
  const size_t k = static_cast<size_t>(w->shape.dims[1]);
  const int32_t* bias_data = bias != nullptr ? static_cast<const int32_t*>(bias->data) : nullptr;
  if (is_constant_or_absent(w) && is_constant_or_absent(bias) && n > 0 && k > 0 &&
      lite_qs8_gemm_is_exact(static_cast<size_t>(n), k, bias_data)) {
    st->gemm = packed_gemm_int8_create(ctx, static_cast<size_t>(n), k, static_cast<const int8_t*>(w->data), 1, k, bias_data,
                                       st->in.zero_point, st->multiplier.data(), st->shift.data(),
                                       lite_qs8_gemm_params{st->out.zero_point, st->act_min, st->act_max});
    if (st->gemm == nullptr) return Status::kOutOfMemory;
  }
  y->dtype = lite_fb::DType::INT8;
  y->shape = x->shape;
  y->shape.dims[x->shape.rank - 1] = n;
  return Status::kOk;
}

Status eval(OpContext* ctx) {
  const FcInt8State* st = static_cast<const FcInt8State*>(ctx->state);
  const TensorRef* x = ctx->input(0);
  const TensorRef* w = ctx->input(1);
  const TensorRef* bias = ctx->input(2);
  const size_t depth = static_cast<size_t>(w->shape.dims[1]);
  const size_t rows = depth == 0 ? 0 : static_cast<size_t>(x->shape.num_elements()) / depth;
  if (st->gemm != nullptr) {
    if (rows > 0)
      packed_gemm_int8_run(*st->gemm, ctx->pool, rows, static_cast<const int8_t*>(x->data), depth,
                           static_cast<int8_t*>(ctx->output(0)->data), static_cast<size_t>(w->shape.dims[0]));
    return Status::kOk;
  }
  lite_qs8_requant_params rq{st->in.zero_point, st->out.zero_point, st->act_min, st->act_max, st->multiplier.data(),
                             st->shift.data()};
  lite_qs8_fully_connected_ref(rows, depth, static_cast<size_t>(w->shape.dims[0]), &rq,
                               static_cast<const int8_t*>(x->data), static_cast<const int8_t*>(w->data),
                               bias != nullptr ? static_cast<const int32_t*>(bias->data) : nullptr,
                               static_cast<int8_t*>(ctx->output(0)->data));
  return Status::kOk;
}

void free_state(void* state) {
  FcInt8State* st = static_cast<FcInt8State*>(state);
  if (st != nullptr) packed_gemm_int8_free(st->gemm);
  delete st;
}

}  // namespace

OpKernel fully_connected_int8_op_kernel() {
  OpKernel k;
  k.prepare = prepare;
  k.eval = eval;
  k.free_state = free_state;
  return k;
}

}  // namespace lite
