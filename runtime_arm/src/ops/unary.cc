// Elementwise unary ops (RELU ... SHRINK); parameters come from UnaryOptions (docs/OPS.md).
// FLOAT16 inputs are computed in float32 through scratch and rounded back to half.
#include "elementwise_ops.h"
#include "lite_kernels/cast.h"
#include "lite_kernels/dtype.h"
#include "lite_kernels/elementwise_unary.h"
#include "lite_kernels/f32_vactivation.h"
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

bool is_half(const TensorRef* t) { return t->dtype == lite_fb::DType::FLOAT16; }

// The float32 unary ops that are activations with the same definition, NaN included (HARD_SIGMOID
// is not: its reference clamps with fmin/fmax, which turn NaN into 1): they run on the vectorized
// activation kernels. Returns false for every other op.
bool as_activation(int op, const lite_unary_params& p, lite_activation* act) {
  *act = lite_activation{LITE_ACT_NONE, p.alpha, p.beta, nullptr};
  switch (op) {
    case LITE_UN_RELU: act->kind = LITE_ACT_RELU; return true;
    case LITE_UN_RELU6: *act = lite_activation{LITE_ACT_CLIP, 0.0f, 6.0f, nullptr}; return true;
    case LITE_UN_CLIP: act->kind = LITE_ACT_CLIP; return true;
    case LITE_UN_SIGMOID: act->kind = LITE_ACT_SIGMOID; return true;
    case LITE_UN_HARD_SWISH: act->kind = LITE_ACT_HARD_SWISH; return true;
    case LITE_UN_LEAKY_RELU: act->kind = LITE_ACT_LEAKY_RELU; return true;
    case LITE_UN_SILU: act->kind = LITE_ACT_SILU; return true;
    default: return false;
  }
}

[[gnu::cold]] Status unary_prepare(OpContext* ctx) {
  Status s = check_arity(ctx, 1, 1);
  if (s != Status::kOk) return s;
  const TensorRef* x = ctx->input(0);
  const int op = static_cast<int>(ctx->op->opcode());
  const lite_fb::DType dtype = is_half(x) ? lite_fb::DType::FLOAT32 : x->dtype;
  if (!lite_unary_supported(op, static_cast<int>(dtype)))
    return fail(ctx, Status::kUnsupported, "%s input is not supported", dtype_name(x->dtype));
  TensorRef* y = ctx->output(0);
  y->dtype = lite_unary_outputs_bool(op) ? lite_fb::DType::BOOL : x->dtype;
  y->shape = x->shape;
  if (is_half(x)) ctx->scratch_bytes_requested = static_cast<size_t>(x->shape.num_elements()) * 2 * sizeof(float);
  return Status::kOk;
}

Status unary_eval(OpContext* ctx) {
  const TensorRef* x = ctx->input(0);
  TensorRef* y = ctx->output(0);
  const lite_unary_params p = unary_params(ctx);
  const int op = static_cast<int>(ctx->op->opcode());
  const size_t n = static_cast<size_t>(x->shape.num_elements());
  if (is_half(x)) {
    float* in = static_cast<float*>(ctx->scratch);
    float* out = in + n;
    lite_cast_ref(LITE_DT_F16, LITE_DT_F32, x->data, in, n);
    const bool to_bool = lite_unary_outputs_bool(op) != 0;
    if (lite_unary_ref(op, LITE_DT_F32, &p, in, to_bool ? y->data : out, n) != 0)
      return fail(ctx, Status::kUnsupported, "%s input is not supported", dtype_name(x->dtype));
    if (!to_bool) lite_cast_ref(LITE_DT_F32, LITE_DT_F16, out, y->data, n);
    return Status::kOk;
  }
  lite_activation act;
  if (x->dtype == lite_fb::DType::FLOAT32 && as_activation(op, p, &act) &&
      lite_f32_activate_copy(&act, static_cast<const float*>(x->data), static_cast<float*>(y->data), n))
    return Status::kOk;
  if (lite_unary_ref(op, static_cast<int>(x->dtype), &p, x->data, y->data, n) != 0)
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
