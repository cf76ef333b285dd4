// ADD and MUL on int8 tensors, each input with its own per-tensor scale, one op like fp32 binary.cc:
// ADD rescales both inputs to the output scale with multipliers sharing one shift
// (lite_quantize_multiplier_pair), sums in 64 bits and rounds once; MUL multiplies (a - za) * (b - zb)
// in 64 bits and requantizes once by s_a * s_b / s_out. Fused RELU / CLIP are the output clamp. b may
// broadcast against a in the forms of int8_broadcast.h (a scalar, a per-channel vector); a has the
// output's shape. The vector kernels of qs8_elementwise.h give the reference's bytes (they fall back
// to it where their int32 split does not apply). A b of one known value (PP-LCNet's affine blocks, a
// tensor times a quantized constant) makes the op a 256-entry table (int8_scalar_table.h).
#include <new>

#include "int8_broadcast.h"
#include "int8_scalar_table.h"
#include "lite_kernels/cpu_features.h"
#include "lite_kernels/qs8_binary.h"
#include "lite_kernels/qs8_elementwise.h"
#include "op_api.h"
#include "quant_params_int8.h"

namespace lite {
namespace {

struct BinaryInt8State {
  bool is_mul = false;
  lite_qs8_add_params add{};
  lite_qs8_add_plan add_plan{};
  lite_qs8_mul_params mul{};
  lite_qs8_mul_plan mul_plan{};
  Int8Broadcast broadcast;
  const lite_qs8_elementwise_kernels* kernels = nullptr;
  bool use_table = false;  // b is one known value: y = table[a + 128]
  int8_t table[256];
};

// The zero points and the fused activation's clamp: fields both parameter structs name alike.
template <typename Params>
Status fill_zero_points_and_clamp(OpContext* ctx, const QuantInt8& qa, const QuantInt8& qb, const QuantInt8& qy,
                                  Params* p) {
  p->a_zero_point = qa.zero_point;
  p->b_zero_point = qb.zero_point;
  p->output_zero_point = qy.zero_point;
  const lite_fb::BinaryOptions* o = ctx->op->options_as_BinaryOptions();
  return activation_range_int8(ctx, o != nullptr ? o->activation() : nullptr, qy, &p->act_min, &p->act_max);
}

Status prepare_add(OpContext* ctx, const QuantInt8& qa, const QuantInt8& qb, const QuantInt8& qy,
                   BinaryInt8State* st) {
  const double real_a = static_cast<double>(qa.scale) / static_cast<double>(qy.scale);
  const double real_b = static_cast<double>(qb.scale) / static_cast<double>(qy.scale);
  lite_qs8_add_params* p = &st->add;
  if (lite_quantize_multiplier_pair(real_a, real_b, &p->a_multiplier, &p->b_multiplier, &p->shift) != 0)
    return fail(ctx, Status::kInvalidModel, "input / output scales give no usable multiplier");
  const Status s = fill_zero_points_and_clamp(ctx, qa, qb, qy, p);
  if (s != Status::kOk) return s;
  lite_qs8_add_plan_init(p, &st->add_plan);
  if (st->use_table)
    build_scalar_operand_table(lite_qs8_add_periodic_ref, *p, *static_cast<const int8_t*>(ctx->input(1)->data),
                               st->table);
  return Status::kOk;
}

Status prepare_mul(OpContext* ctx, const QuantInt8& qa, const QuantInt8& qb, const QuantInt8& qy,
                   BinaryInt8State* st) {
  const double real = static_cast<double>(qa.scale) * static_cast<double>(qb.scale) / static_cast<double>(qy.scale);
  lite_qs8_mul_params* p = &st->mul;
  if (lite_quantize_multiplier(real, &p->multiplier, &p->shift) != 0)
    return fail(ctx, Status::kInvalidModel, "input / output scales give no usable multiplier");
  const Status s = fill_zero_points_and_clamp(ctx, qa, qb, qy, p);
  if (s != Status::kOk) return s;
  lite_qs8_mul_plan_init(p, &st->mul_plan);
  if (st->use_table)
    build_scalar_operand_table(lite_qs8_mul_ref, *p, *static_cast<const int8_t*>(ctx->input(1)->data), st->table);
  return Status::kOk;
}

// Once per model load: cold (optimized for size; the ARM library's budget).
[[gnu::cold]] Status prepare(OpContext* ctx) {
  const TensorRef* a = ctx->input(0);
  const TensorRef* b = ctx->input(1);
  TensorRef* y = ctx->output(0);
  if (a == nullptr || b == nullptr || y == nullptr) return fail(ctx, Status::kInvalidModel, "needs a, b and an output");
  BinaryInt8State* st = new (std::nothrow) BinaryInt8State{};
  if (st == nullptr) return fail(ctx, Status::kOutOfMemory, "cannot allocate op state");
  ctx->state = st;
  st->is_mul = ctx->op->opcode() == lite_fb::OpCode::MUL;
  QuantInt8 qa, qb, qy;
  Status s = per_tensor_int8(ctx, a, "a", &qa);
  if (s == Status::kOk) s = per_tensor_int8(ctx, b, "b", &qb);
  if (s == Status::kOk) s = per_tensor_int8(ctx, y, "y", &qy);
  if (s != Status::kOk) return s;
  if (!int8_broadcast(a->shape, b->shape, &st->broadcast))
    return fail(ctx, Status::kUnsupported, "int8 %s: b must have a's shape, or broadcast as a scalar / per channel",
                st->is_mul ? "MUL" : "ADD");
  st->use_table = is_known_scalar_int8(b);
  s = st->is_mul ? prepare_mul(ctx, qa, qb, qy, st) : prepare_add(ctx, qa, qb, qy, st);
  if (s != Status::kOk) return s;
  st->kernels = lite_qs8_elementwise_select(lite_cpu_features());
  y->dtype = lite_fb::DType::INT8;
  y->shape = a->shape;
  return Status::kOk;
}

Status eval(OpContext* ctx) {
  const BinaryInt8State* st = static_cast<const BinaryInt8State*>(ctx->state);
  const Int8Broadcast& bc = st->broadcast;
  const int8_t* a = static_cast<const int8_t*>(ctx->input(0)->data);
  const int8_t* b = static_cast<const int8_t*>(ctx->input(1)->data);
  int8_t* y = static_cast<int8_t*>(ctx->output(0)->data);
  if (st->use_table) {
    const Int8Broadcast all{1, bc.blocks * bc.run, bc.blocks * bc.run};
    int8_broadcast_chunks(ctx->pool, all, [&](int64_t offset, int64_t, int64_t, int64_t count) {
      st->kernels->lookup(static_cast<size_t>(count), st->table, a + offset, y + offset);
    });
  } else if (st->is_mul) {
    int8_broadcast_chunks(ctx->pool, bc, [&](int64_t a_offset, int64_t b_offset, int64_t b_period, int64_t count) {
      st->kernels->mul(static_cast<size_t>(count), &st->mul_plan, a + a_offset, b + b_offset,
                       static_cast<size_t>(b_period), y + a_offset);
    });
  } else {
    int8_broadcast_chunks(ctx->pool, bc, [&](int64_t a_offset, int64_t b_offset, int64_t b_period, int64_t count) {
      st->kernels->add(static_cast<size_t>(count), &st->add_plan, a + a_offset, b + b_offset,
                       static_cast<size_t>(b_period), y + a_offset);
    });
  }
  return Status::kOk;
}

void free_state(void* state) { delete static_cast<BinaryInt8State*>(state); }

}  // namespace

OpKernel binary_int8_op_kernel() {
  OpKernel k;
  k.prepare = prepare;
  k.eval = eval;
  k.free_state = free_state;
  return k;
}

}  // namespace lite
