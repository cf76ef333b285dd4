// HARD_SWISH, HARD_SIGMOID, SIGMOID, TANH and SILU on int8 tensors: one 256-entry table per op,
// built at prepare in double precision from the fp32 function and the per-tensor input / output
// quantization (docs/INT8_OPS.md), then one lookup per element. slim/fake_quant.py builds the same
// table the same way (Python's math functions are the C library's), so the outputs match it.
// REQUANTIZE with a table input runs here too: the converter composes a chain of int8 maps of one
// tensor (a table activation, then ADD / MUL by a scalar constant...) into one table
// (lite_converter/passes/compose_tables_int8.py), so the chain costs one pass over memory.
#include <cmath>
#include <cstring>
#include <new>

#include "lite_kernels/cpu_features.h"
#include "lite_kernels/qs8_elementwise.h"
#include "lite_kernels/qs8_lookup.h"
#include "op_api.h"
#include "quant_params_int8.h"

namespace lite {
namespace {

struct LookupState {
  int8_t table[256];
  const lite_qs8_elementwise_kernels* kernels = nullptr;  // a byte gather (tbl / vpshufb), same bytes
};

// The real function of the op at x (double), or false for an op without a table.
bool apply(lite_fb::OpCode op, double alpha, double beta, double x, double* y) {
  using lite_fb::OpCode;
  switch (op) {
    case OpCode::HARD_SWISH: *y = x * std::fmax(0.0, std::fmin(1.0, x / 6.0 + 0.5)); return true;
    case OpCode::HARD_SIGMOID: *y = std::fmax(0.0, std::fmin(1.0, alpha * x + beta)); return true;
    case OpCode::SIGMOID: *y = 1.0 / (1.0 + std::exp(-x)); return true;
    case OpCode::TANH: *y = std::tanh(x); return true;
    case OpCode::SILU: *y = x / (1.0 + std::exp(-x)); return true;
    default: return false;
  }
}

// Once per model load: cold (optimized for size; the ARM library's budget).
[[gnu::cold]] Status prepare(OpContext* ctx) {
  const TensorRef* x = ctx->input(0);
  TensorRef* y = ctx->output(0);
  if (x == nullptr || y == nullptr) return fail(ctx, Status::kInvalidModel, "needs one input and one output");
  LookupState* st = new (std::nothrow) LookupState{};
  if (st == nullptr) return fail(ctx, Status::kOutOfMemory, "cannot allocate op state");
  ctx->state = st;
  QuantInt8 qx, qy;
  Status s = per_tensor_int8(ctx, x, "x", &qx);
  if (s == Status::kOk) s = per_tensor_int8(ctx, y, "y", &qy);
  if (s != Status::kOk) return s;
  const lite_fb::UnaryOptions* o = ctx->op->options_as_UnaryOptions();
  const double alpha = o != nullptr ? static_cast<double>(o->alpha()) : 0.0;
  const double beta = o != nullptr ? static_cast<double>(o->beta()) : 0.0;
  st->kernels = lite_qs8_elementwise_select(lite_cpu_features());
  for (int q = -128; q <= 127; ++q) {
    double real = 0.0;
    if (!apply(ctx->op->opcode(), alpha, beta, static_cast<double>(qx.scale) * (q - qx.zero_point), &real))
      return fail(ctx, Status::kUnsupported, "%s has no int8 lookup table", opcode_name(ctx->op->opcode()));
    double v = std::nearbyint(real / static_cast<double>(qy.scale)) + qy.zero_point;
    if (!(v >= -128.0)) v = -128.0;  // also NaN
    if (v > 127.0) v = 127.0;
    st->table[q + 128] = static_cast<int8_t>(v);
  }
  y->dtype = lite_fb::DType::INT8;
  y->shape = x->shape;
  return Status::kOk;
}

Status eval(OpContext* ctx) {
  const LookupState* st = static_cast<const LookupState*>(ctx->state);
  st->kernels->lookup(static_cast<size_t>(ctx->output(0)->shape.num_elements()), st->table,
                      static_cast<const int8_t*>(ctx->input(0)->data), static_cast<int8_t*>(ctx->output(0)->data));
  return Status::kOk;
}

void free_state(void* state) { delete static_cast<LookupState*>(state); }

// REQUANTIZE(x, table): y = table[x + 128], the table a constant int8 tensor of 256 elements.
[[gnu::cold]] Status table_prepare(OpContext* ctx) {
  const TensorRef* x = ctx->input(0);
  const TensorRef* table = ctx->num_inputs > 1 ? ctx->input(1) : nullptr;
  TensorRef* y = ctx->output(0);
  if (x == nullptr || y == nullptr) return fail(ctx, Status::kInvalidModel, "needs one input and one output");
  if (table == nullptr)
    return fail(ctx, Status::kUnsupported, "REQUANTIZE runs only with a table input (int8 [256])");
  if (x->dtype != lite_fb::DType::INT8 || table->dtype != lite_fb::DType::INT8 || !table->value_known ||
      table->data == nullptr || table->shape.num_elements() != 256)
    return fail(ctx, Status::kInvalidModel, "REQUANTIZE needs an INT8 input and a constant INT8 table of 256");
  LookupState* st = new (std::nothrow) LookupState{};
  if (st == nullptr) return fail(ctx, Status::kOutOfMemory, "cannot allocate op state");
  ctx->state = st;
  std::memcpy(st->table, table->data, sizeof st->table);
  st->kernels = lite_qs8_elementwise_select(lite_cpu_features());
  y->dtype = lite_fb::DType::INT8;
  y->shape = x->shape;
  return Status::kOk;
}

}  // namespace

OpKernel lookup_int8_op_kernel() {
  OpKernel k;
  k.prepare = prepare;
  k.eval = eval;
  k.free_state = free_state;
  return k;
}

OpKernel requantize_table_op_kernel() {
  OpKernel k;
  k.prepare = table_prepare;
  k.eval = eval;
  k.free_state = free_state;
  return k;
}

}  // namespace lite
