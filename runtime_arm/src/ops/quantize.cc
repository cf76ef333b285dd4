// QUANTIZE (FLOAT32 -> INT8 with the output's per-tensor scale / zero point) and DEQUANTIZE
// (INT8 -> FLOAT32 with the input's): the borders between the int8 and fp32 parts of a graph.
// Rounding and saturation: lite_qs8_quantize_f32_ref (docs/QUANTIZATION.md).
#include "lite_kernels/qs8_kernels.h"
#include "op_api.h"
#include "quant_params_int8.h"

namespace lite {
namespace {

Status quantize_prepare(OpContext* ctx) {
  const TensorRef* x = ctx->input(0);
  TensorRef* y = ctx->output(0);
  if (x == nullptr || y == nullptr) return fail(ctx, Status::kInvalidModel, "needs one input and one output");
  if (x->dtype != lite_fb::DType::FLOAT32) return fail(ctx, Status::kUnsupported, "QUANTIZE reads FLOAT32");
  y->dtype = lite_fb::DType::INT8;
  QuantInt8 q;
  Status s = per_tensor_int8(ctx, y, "y", &q);
  if (s != Status::kOk) return s;
  y->shape = x->shape;
  return Status::kOk;
}

Status quantize_eval(OpContext* ctx) {
  QuantInt8 q;
  Status s = per_tensor_int8(ctx, ctx->output(0), "y", &q);
  if (s != Status::kOk) return s;
  lite_qs8_quantize_f32_ref(static_cast<size_t>(ctx->input(0)->shape.num_elements()), q.scale, q.zero_point,
                            static_cast<const float*>(ctx->input(0)->data), static_cast<int8_t*>(ctx->output(0)->data));
  return Status::kOk;
}

Status dequantize_prepare(OpContext* ctx) {
  const TensorRef* x = ctx->input(0);
  TensorRef* y = ctx->output(0);
  if (x == nullptr || y == nullptr) return fail(ctx, Status::kInvalidModel, "needs one input and one output");
  QuantInt8 q;
  Status s = per_tensor_int8(ctx, x, "x", &q);
  if (s != Status::kOk) return s;
  y->dtype = lite_fb::DType::FLOAT32;
  y->shape = x->shape;
  return Status::kOk;
}

Status dequantize_eval(OpContext* ctx) {
  QuantInt8 q;
  Status s = per_tensor_int8(ctx, ctx->input(0), "x", &q);
  if (s != Status::kOk) return s;
  lite_qs8_dequantize_f32_ref(static_cast<size_t>(ctx->input(0)->shape.num_elements()), q.scale, q.zero_point,
                              static_cast<const int8_t*>(ctx->input(0)->data), static_cast<float*>(ctx->output(0)->data));
  return Status::kOk;
}

}  // namespace

OpKernel quantize_op_kernel() {
  OpKernel k;
  k.prepare = quantize_prepare;
  k.eval = quantize_eval;
  return k;
}

OpKernel dequantize_op_kernel() {
  OpKernel k;
  k.prepare = dequantize_prepare;
  k.eval = dequantize_eval;
  return k;
}

}  // namespace lite
