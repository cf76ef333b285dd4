// Elementwise unary ops (RELU ... SHRINK); parameters come from UnaryOptions (docs/OPS.md).
#include "elementwise_ops.h"
#include "lite_kernels/elementwise_unary.h"
#include "op_helpers.h"

namespace lite {
namespace {

lite_unary_params unary_params(const OpContext* ctx) {
  lite_unary_params p{0.0f, 0.0f, 0.0f, 0};
  if (const lite_fb::UnaryOptions* o = ctx->op->options_as_UnaryOptions()) {
    p.alpha = o->alpha();
    p.beta = o->beta();
    p.gamma = o->gamma();
    p.approximate_tanh = o->approximate_tanh() ? 1 : 0;
  }
  return p;
}

Status unary_prepare(OpContext* ctx) {
  Status s = check_arity(ctx, 1, 1);
  if (s != Status::kOk) return s;
  const TensorRef* x = ctx->input(0);
  const int op = static_cast<int>(ctx->op->opcode());
  if (!lite_unary_supported(op, static_cast<int>(x->dtype)))
    return fail(ctx, Status::kUnsupported, "%s input is not supported", dtype_name(x->dtype));
  TensorRef* y = ctx->output(0);
  y->dtype = lite_unary_outputs_bool(op) ? lite_fb::DType::BOOL : x->dtype;
  y->shape = x->shape;
  return Status::kOk;
}

Status unary_eval(OpContext* ctx) {
  const TensorRef* x = ctx->input(0);
  const lite_unary_params p = unary_params(ctx);
  if (lite_unary_ref(static_cast<int>(ctx->op->opcode()), static_cast<int>(x->dtype), &p, x->data,
                     ctx->output(0)->data, static_cast<size_t>(x->shape.num_elements())) != 0)
    return fail(ctx, Status::kUnsupported, "%s input is not supported", dtype_name(x->dtype));
  return Status::kOk;
}

}  // namespace

OpKernel unary_op_kernel() {
  OpKernel k;
  k.prepare = unary_prepare;
  k.eval = unary_eval;
  return k;
}

}  // namespace lite
