// ADD on int8 tensors of the same shape, each input with its own per-tensor scale: both are
// rescaled to the output scale with multipliers sharing one shift (lite_quantize_multiplier_pair),
// summed in 64 bits, rounded once. Fused RELU / CLIP are the output clamp. (Broadcasting int8 ADD
// is not produced by the converter yet.)
#include <new>

#include "lite_kernels/qs8_kernels.h"
#include "op_api.h"
#include "quant_params_int8.h"

namespace lite {
namespace {

Status prepare(OpContext* ctx) {
  const TensorRef* a = ctx->input(0);
  const TensorRef* b = ctx->input(1);
  TensorRef* y = ctx->output(0);
  if (a == nullptr || b == nullptr || y == nullptr) return fail(ctx, Status::kInvalidModel, "needs a, b and an output");
  lite_qs8_add_params* st = new (std::nothrow) lite_qs8_add_params{};
  if (st == nullptr) return fail(ctx, Status::kOutOfMemory, "cannot allocate op state");
  ctx->state = st;
  QuantInt8 qa, qb, qy;
  Status s = per_tensor_int8(ctx, a, "a", &qa);
  if (s == Status::kOk) s = per_tensor_int8(ctx, b, "b", &qb);
  if (s == Status::kOk) s = per_tensor_int8(ctx, y, "y", &qy);
  if (s != Status::kOk) return s;
  if (a->shape.rank != b->shape.rank) return fail(ctx, Status::kUnsupported, "int8 ADD needs equal shapes");
  for (int i = 0; i < a->shape.rank; ++i)
    if (a->shape.dims[i] != b->shape.dims[i]) return fail(ctx, Status::kUnsupported, "int8 ADD needs equal shapes");
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
  y->dtype = lite_fb::DType::INT8;
  y->shape = a->shape;
  return Status::kOk;
}

Status eval(OpContext* ctx) {
  const lite_qs8_add_params* st = static_cast<const lite_qs8_add_params*>(ctx->state);
  lite_qs8_add_ref(static_cast<size_t>(ctx->output(0)->shape.num_elements()), st,
                   static_cast<const int8_t*>(ctx->input(0)->data), nullptr,
                   static_cast<const int8_t*>(ctx->input(1)->data), nullptr, static_cast<int8_t*>(ctx->output(0)->data));
  return Status::kOk;
}

void free_state(void* state) { delete static_cast<lite_qs8_add_params*>(state); }

}  // namespace

OpKernel add_int8_op_kernel() {
  OpKernel k;
  k.prepare = prepare;
  k.eval = eval;
  k.free_state = free_state;
  return k;
}

}  // namespace lite
