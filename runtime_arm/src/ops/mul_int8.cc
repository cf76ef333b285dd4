// MUL on int8 tensors (an SE gate times its feature map, or a tensor times a quantized constant):
// (a - za) * (b - zb) in 64 bits, one requantization by s_a * s_b / s_out, fused RELU / CLIP as the
// output clamp. b may broadcast against a in the forms of int8_broadcast.h; a has the output's shape.
// The vector kernels of qs8_elementwise.h give the reference's bytes (or call it); a b of one known
// value makes the op a 256-entry table (int8_scalar_table.h).
#include <new>

#include "int8_broadcast.h"
#include "int8_scalar_table.h"
#include "lite_kernels/cpu_features.h"
#include "lite_kernels/int8_binary.h"
#include "lite_kernels/qs8_elementwise.h"
#include "op_api.h"
#include "quant_params_int8.h"

namespace lite {
namespace {

struct MulInt8State {
  lite_qs8_mul_params params{};
  Int8Broadcast broadcast;
  lite_qs8_mul_plan plan{};
  const lite_qs8_elementwise_kernels* kernels = nullptr;
  bool use_table = false;  // b is one known value: y = table[a + 128]
  int8_t table[256];
};

Status prepare(OpContext* ctx) {
  const TensorRef* a = ctx->input(0);
  const TensorRef* b = ctx->input(1);
  TensorRef* y = ctx->output(0);
  if (a == nullptr || b == nullptr || y == nullptr) return fail(ctx, Status::kInvalidModel, "needs a, b and an output");
  MulInt8State* st = new (std::nothrow) MulInt8State{};
  if (st == nullptr) return fail(ctx, Status::kOutOfMemory, "cannot allocate op state");
  ctx->state = st;
  QuantInt8 qa, qb, qy;
  Status s = per_tensor_int8(ctx, a, "a", &qa);
  if (s == Status::kOk) s = per_tensor_int8(ctx, b, "b", &qb);
  if (s == Status::kOk) s = per_tensor_int8(ctx, y, "y", &qy);
  if (s != Status::kOk) return s;
  if (!int8_broadcast(a->shape, b->shape, &st->broadcast))
    return fail(ctx, Status::kUnsupported, "int8 MUL: b must have a's shape, or broadcast as a scalar / per channel");
  const double real = static_cast<double>(qa.scale) * static_cast<double>(qb.scale) / static_cast<double>(qy.scale);
  if (lite_quantize_multiplier(real, &st->params.multiplier, &st->params.shift) != 0)
    return fail(ctx, Status::kInvalidModel, "input / output scales give no usable multiplier");
  st->params.a_zero_point = qa.zero_point;
  st->params.b_zero_point = qb.zero_point;
  st->params.output_zero_point = qy.zero_point;
  const lite_fb::BinaryOptions* o = ctx->op->options_as_BinaryOptions();
  s = activation_range_int8(ctx, o != nullptr ? o->activation() : nullptr, qy, &st->params.act_min,
                            &st->params.act_max);
  if (s != Status::kOk) return s;
  lite_qs8_mul_plan_init(&st->params, &st->plan);
  st->use_table = is_known_scalar_int8(b);
  if (st->use_table)
    build_scalar_operand_table(lite_qs8_mul_ref, st->params, *static_cast<const int8_t*>(b->data), st->table);
  st->kernels = lite_qs8_elementwise_select(lite_cpu_features());
  y->dtype = lite_fb::DType::INT8;
  y->shape = a->shape;
  return Status::kOk;
}

Status eval(OpContext* ctx) {
  const MulInt8State* st = static_cast<const MulInt8State*>(ctx->state);
  const Int8Broadcast& bc = st->broadcast;
  const int8_t* a = static_cast<const int8_t*>(ctx->input(0)->data);
  const int8_t* b = static_cast<const int8_t*>(ctx->input(1)->data);
  int8_t* y = static_cast<int8_t*>(ctx->output(0)->data);
  if (st->use_table) {
    const Int8Broadcast all{1, bc.blocks * bc.run, bc.blocks * bc.run};
    int8_broadcast_chunks(ctx->pool, all, [&](int64_t offset, int64_t, int64_t, int64_t count) {
      st->kernels->lookup(static_cast<size_t>(count), st->table, a + offset, y + offset);
    });
    return Status::kOk;
  }
  int8_broadcast_chunks(ctx->pool, bc, [&](int64_t a_offset, int64_t b_offset, int64_t b_period, int64_t count) {
    st->kernels->mul(static_cast<size_t>(count), &st->plan, a + a_offset, b + b_offset, static_cast<size_t>(b_period),
                     y + a_offset);
  });
  return Status::kOk;
}

void free_state(void* state) { delete static_cast<MulInt8State*>(state); }

}  // namespace

OpKernel mul_int8_op_kernel() {
  OpKernel k;
  k.prepare = prepare;
  k.eval = eval;
  k.free_state = free_state;
  return k;
}

}  // namespace lite
