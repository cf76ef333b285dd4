// QUANTIZE (FLOAT32 -> INT8 with the output's per-tensor scale / zero point) and DEQUANTIZE
// (INT8 -> FLOAT32 with the input's): the borders between the int8 and fp32 parts of a graph.
// Rounding and saturation: lite_qs8_quantize_f32_ref (docs/QUANTIZATION.md); the vector kernels of
// qs8_elementwise.h (selected per call: these ops keep no state) give its bytes.
// DEQUANTIZE also reads per-axis scales: that is how a constant int8 weight of an op that stays fp32
// becomes its fp32 weight (weight-only int8, docs/INT8_OPS.md). The core evaluates it once at
// prepare because its input is constant, so the fp32 op sees a constant weight and packs it as usual.
// DEQUANTIZE of a FLOAT16 tensor (no quantization) widens it: fp16 weights stay fp16 in the file
// (TFLite's float16 quantization, ONNX fp16 initializers; docs/IMPORT_INT8.md).
#include <cmath>

#include "lite_kernels/cast.h"
#include "lite_kernels/cpu_features.h"
#include "lite_kernels/qs8_elementwise.h"
#include "lite_kernels/qs8_quantize.h"
#include "op_api.h"
#include "quant_params_int8.h"

namespace lite {
namespace {

[[gnu::cold]] Status quantize_prepare(OpContext* ctx) {
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
  const lite_qs8_vquantize_fn quantize = lite_qs8_elementwise_select(lite_cpu_features())->quantize;
  quantize(static_cast<size_t>(ctx->input(0)->shape.num_elements()), q.scale, q.zero_point,
           static_cast<const float*>(ctx->input(0)->data), static_cast<int8_t*>(ctx->output(0)->data));
  return Status::kOk;
}

// The scales of a DEQUANTIZE input: one (per tensor) or one per index of `axis` (zero points per
// index too, absent = 0). Runs of `inner` contiguous elements share one scale.
struct DequantizeLayout {
  const lite_fb::Quantization* q = nullptr;
  int64_t outer = 1, channels = 1, inner = 1;
};

Status dequantize_layout(OpContext* ctx, const TensorRef* x, DequantizeLayout* layout) {
  const lite_fb::Quantization* q = x->quantization;
  if (x->dtype != lite_fb::DType::INT8 || q == nullptr || q->scale() == nullptr || q->scale()->size() == 0)
    return fail(ctx, Status::kInvalidModel, "DEQUANTIZE input '%s' must be INT8 with quantization", x->name);
  const size_t n = q->scale()->size();
  if (q->zero_point() != nullptr && q->zero_point()->size() != n)
    return fail(ctx, Status::kInvalidModel, "DEQUANTIZE input '%s': %zu scales but %u zero points", x->name, n,
                q->zero_point()->size());
  layout->q = q;
  layout->outer = x->shape.num_elements();
  if (q->axis() < 0 || n == 1) {
    if (n != 1) return fail(ctx, Status::kInvalidModel, "DEQUANTIZE input '%s': %zu scales, no axis", x->name, n);
    layout->outer = 1;
    layout->inner = x->shape.num_elements();
  } else {
    const int axis = q->axis();
    if (axis >= x->shape.rank || x->shape.dims[axis] != static_cast<int64_t>(n))
      return fail(ctx, Status::kInvalidModel, "DEQUANTIZE input '%s': %zu scales do not match axis %d", x->name, n,
                  axis);
    layout->outer = 1;
    layout->inner = 1;
    for (int d = 0; d < axis; ++d) layout->outer *= x->shape.dims[d];
    for (int d = axis + 1; d < x->shape.rank; ++d) layout->inner *= x->shape.dims[d];
    layout->channels = static_cast<int64_t>(n);
  }
  for (size_t c = 0; c < n; ++c) {
    const float scale = q->scale()->Get(static_cast<flatbuffers::uoffset_t>(c));
    const int64_t zp = q->zero_point() != nullptr ? q->zero_point()->Get(static_cast<flatbuffers::uoffset_t>(c)) : 0;
    if (!(scale > 0.0f) || !std::isfinite(scale) || zp < -128 || zp > 127)
      return fail(ctx, Status::kInvalidModel,
                  "DEQUANTIZE input '%s': scale must be positive and finite, zero point in [-128, 127]", x->name);
  }
  return Status::kOk;
}

[[gnu::cold]] Status dequantize_prepare(OpContext* ctx) {
  const TensorRef* x = ctx->input(0);
  TensorRef* y = ctx->output(0);
  if (x == nullptr || y == nullptr) return fail(ctx, Status::kInvalidModel, "needs one input and one output");
  y->dtype = lite_fb::DType::FLOAT32;
  y->shape = x->shape;
  if (x->dtype == lite_fb::DType::FLOAT16) return Status::kOk;
  DequantizeLayout layout;
  Status s = dequantize_layout(ctx, x, &layout);
  return s;
}

Status dequantize_eval(OpContext* ctx) {
  if (ctx->input(0)->dtype == lite_fb::DType::FLOAT16) {
    const uint16_t* h = static_cast<const uint16_t*>(ctx->input(0)->data);
    float* y = static_cast<float*>(ctx->output(0)->data);
    const int64_t n = ctx->input(0)->shape.num_elements();
    for (int64_t i = 0; i < n; ++i) y[i] = lite_f16_to_f32(h[i]);
    return Status::kOk;
  }
  DequantizeLayout layout;
  Status s = dequantize_layout(ctx, ctx->input(0), &layout);
  if (s != Status::kOk) return s;
  const int8_t* x = static_cast<const int8_t*>(ctx->input(0)->data);
  float* y = static_cast<float*>(ctx->output(0)->data);
  const auto* zero_points = layout.q->zero_point();
  const lite_qs8_vdequantize_fn dequantize = lite_qs8_elementwise_select(lite_cpu_features())->dequantize;
  for (int64_t o = 0; o < layout.outer; ++o) {
    for (int64_t c = 0; c < layout.channels; ++c) {
      const auto i = static_cast<flatbuffers::uoffset_t>(c);
      const int32_t zp = zero_points != nullptr ? static_cast<int32_t>(zero_points->Get(i)) : 0;
      const int64_t offset = (o * layout.channels + c) * layout.inner;
      dequantize(static_cast<size_t>(layout.inner), layout.q->scale()->Get(i), zp, x + offset,
                                  y + offset);
    }
  }
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
