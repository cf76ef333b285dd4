// ADD on int8 tensors, each input with its own per-tensor scale: both are rescaled to the output
// scale with multipliers sharing one shift (lite_quantize_multiplier_pair), summed in 64 bits,
// rounded once. Fused RELU / CLIP are the output clamp. b may broadcast against a in the forms of
// int8_broadcast.h (a scalar, a per-channel vector); a has the output's shape. The vector kernels of
// qs8_elementwise.h give the reference's bytes (they fall back to it where their int32 split does not apply).
// A b of one known value (PP-LCNet's affine blocks) makes the op a 256-entry table (int8_scalar_table.h).
#include <new>

#include "int8_broadcast.h"
#include "int8_scalar_table.h"
#include "lite_kernels/int8_binary.h"
#include "lite_kernels/cpu_features.h"
#include "lite_kernels/qs8_elementwise.h"
#include "lite_kernels/qs8_kernels.h"
#include "op_api.h"
#include "quant_params_int8.h"

namespace lite {
namespace {

struct AddInt8State {
  lite_qs8_add_params params{};
  Int8Broadcast broadcast;
  lite_qs8_add_plan plan{};
  const lite_qs8_elementwise_kernels* kernels = nullptr;
  bool use_table = false;  // b is one known value: y = table[a + 128]
  int8_t table[256];
};

Status prepare(OpContext* ctx) {
  const TensorRef* a = ctx->input(0);
  const TensorRef* b = ctx->input(1);
  TensorRef* y = ctx->output(0);
  if (a == nullptr || b == nullptr || y == nullptr) return fail(ctx, Status::kInvalidModel, "needs a, b and an output");
  AddInt8State* state = new (std::nothrow) AddInt8State{};
  lite_qs8_add_params* st = state != nullptr ? &state->params : nullptr;
  if (st == nullptr) return fail(ctx, Status::kOutOfMemory, "cannot allocate op state");
  ctx->state = state;
  QuantInt8 qa, qb, qy;
  Status s = per_tensor_int8(ctx, a, "a", &qa);
  if (s == Status::kOk) s = per_tensor_int8(ctx, b, "b", &qb);
  if (s == Status::kOk) s = per_tensor_int8(ctx, y, "y", &qy);
  if (s != Status::kOk) return s;
  if (!int8_broadcast(a->shape, b->shape, &state->broadcast))
    return fail(ctx, Status::kUnsupported, "int8 ADD: b must have a's shape, or broadcast as a scalar / per channel");
  const double real_a = static_cast<double>(qa.scale) / static_cast<double>(qy.scale);
  const double real_b = static_cast<double>(qb.scale) / static_cast<double>(qy.scale);
  if (lite_quantize_multiplier_pair(real_a, real_b, &st->a_multiplier, &st->b_multiplier, &st->shift) != 0)
    return fail(ctx, Status::kInvalidModel, "input / output scales give no usable multiplier");
  st->a_zero_point = qa.zero_point;
  st->b_zero_point = qb.zero_point;
  st->output_zero_point = qy.zero_point;
  const lite_fb::BinaryOptions* o = ctx->op->options_as_BinaryOptions();
  s = activation_range_int8(ctx, o != nullptr ? o->activation() : nullptr, qy, &st->act_min, &st->act_max);
  if (s != Status::kOk) return s;
  lite_qs8_add_plan_init(st, &state->plan);
  state->use_table = is_known_scalar_int8(b);
  if (state->use_table)
    build_scalar_operand_table(lite_qs8_add_periodic_ref, *st, *static_cast<const int8_t*>(b->data), state->table);
  state->kernels = lite_qs8_elementwise_select(lite_cpu_features());
  y->dtype = lite_fb::DType::INT8;
  y->shape = a->shape;
  return Status::kOk;
}

Status eval(OpContext* ctx) {
  const AddInt8State* st = static_cast<const AddInt8State*>(ctx->state);
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
    st->kernels->add(static_cast<size_t>(count), &st->plan, a + a_offset, b + b_offset, static_cast<size_t>(b_period),
                     y + a_offset);
  });
  return Status::kOk;
}

void free_state(void* state) { delete static_cast<AddInt8State*>(state); }

}  // namespace

OpKernel add_int8_op_kernel() {
  OpKernel k;
  k.prepare = prepare;
  k.eval = eval;
  k.free_state = free_state;
  return k;
}

}  // namespace lite
