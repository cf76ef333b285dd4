// Reading int8 quantization parameters at prepare time and turning them into the kernels'
// fixed-point requantization (docs/QUANTIZATION.md; mirrored exactly by slim/fake_quant.py).
#pragma once

#include <cmath>
#include <cstdint>
#include <new>
#include <vector>

#include "lite_kernels/requantize.h"
#include "op_api.h"

namespace lite {

struct QuantInt8 {
  float scale = 1.0f;
  int32_t zero_point = 0;
};

// A per-tensor INT8 quantization (one positive finite scale, zero point in [-128, 127]).
inline Status per_tensor_int8(OpContext* ctx, const TensorRef* t, const char* what, QuantInt8* q) {
  const lite_fb::Quantization* fq = t != nullptr ? t->quantization : nullptr;
  if (t == nullptr || t->dtype != lite_fb::DType::INT8)
    return fail(ctx, Status::kInvalidModel, "%s must be an INT8 tensor", what);
  if (fq == nullptr || fq->scale() == nullptr || fq->zero_point() == nullptr || fq->scale()->size() != 1 ||
      fq->zero_point()->size() != 1)
    return fail(ctx, Status::kInvalidModel, "%s '%s' needs per-tensor quantization (one scale and zero point)", what,
                t->name);
  q->scale = fq->scale()->Get(0);
  const int64_t zp = fq->zero_point()->Get(0);
  if (!(q->scale > 0.0f) || !std::isfinite(q->scale) || zp < -128 || zp > 127)
    return fail(ctx, Status::kInvalidModel, "%s '%s': scale must be positive and finite, zero point in [-128, 127]",
                what, t->name);
  q->zero_point = static_cast<int32_t>(zp);
  return Status::kOk;
}

// One real value quantized exactly like lite_qs8_quantize_f32_ref (NaN -> the zero point: the
// conversion to int32 below must see a value in range).
inline int32_t quantize_value_int8(float x, const QuantInt8& q) {
  float r = std::nearbyint(x / q.scale) + static_cast<float>(q.zero_point);
  if (r != r) r = static_cast<float>(q.zero_point);
  if (r < -128.0f) r = -128.0f;
  if (r > 127.0f) r = 127.0f;
  return static_cast<int32_t>(r);
}

// The quantized clamp of a fused activation on an int8 output: NONE -> [-128, 127], RELU ->
// [q(0), 127], CLIP(a, b) -> [q(a), q(b)]. Other kinds cannot be applied on the int8 axis.
inline Status activation_range_int8(OpContext* ctx, const lite_fb::Activation* act, const QuantInt8& out,
                                    int32_t* lo, int32_t* hi) {
  *lo = -128;
  *hi = 127;
  if (act == nullptr || act->kind() == lite_fb::ActivationKind::NONE) return Status::kOk;
  if (act->kind() == lite_fb::ActivationKind::RELU) {
    *lo = quantize_value_int8(0.0f, out);
    return Status::kOk;
  }
  if (act->kind() == lite_fb::ActivationKind::CLIP) {  // a NaN bound (from the file) is no bound
    if (!std::isnan(act->alpha())) *lo = quantize_value_int8(act->alpha(), out);
    if (!std::isnan(act->beta())) *hi = quantize_value_int8(act->beta(), out);
    return Status::kOk;
  }
  return fail(ctx, Status::kUnsupported, "int8 supports fused RELU and CLIP only, got activation kind %d",
              static_cast<int>(act->kind()));
}

// Per-output-channel multipliers s_in * s_w[c] / s_out (double precision) for a symmetric INT8 weight
// quantized along `axis`, its output-channel axis (0 for CONV_2D / FULLY_CONNECTED [Co, ...], 3 for
// CONV_TRANSPOSE_2D [Ci, KH, KW, Co]), or per tensor: one scale for every channel.
inline Status channel_multipliers(OpContext* ctx, const TensorRef* w, int64_t channels, int axis,
                                  const QuantInt8& in, const QuantInt8& out, std::vector<int32_t>* multiplier,
                                  std::vector<int32_t>* shift) {
  const lite_fb::Quantization* fq = w->quantization;
  if (w->dtype != lite_fb::DType::INT8 || fq == nullptr || fq->scale() == nullptr)
    return fail(ctx, Status::kInvalidModel, "weight '%s' must be INT8 with quantization", w->name);
  const size_t n = fq->scale()->size();
  if (n != 1 && (n != static_cast<size_t>(channels) || fq->axis() != axis))
    return fail(ctx, Status::kInvalidModel, "weight '%s' needs one scale or one per output channel (axis %d)", w->name,
                axis);
  if (fq->zero_point() != nullptr)
    for (size_t i = 0; i < fq->zero_point()->size(); ++i)
      if (fq->zero_point()->Get(static_cast<unsigned>(i)) != 0)
        return fail(ctx, Status::kInvalidModel, "weight '%s' must be symmetric (zero point 0)", w->name);
  multiplier->assign(static_cast<size_t>(channels), 0);
  shift->assign(static_cast<size_t>(channels), 1);
  for (int64_t c = 0; c < channels; ++c) {
    const float sw = fq->scale()->Get(n == 1 ? 0u : static_cast<unsigned>(c));
    const double real = static_cast<double>(in.scale) * static_cast<double>(sw) / static_cast<double>(out.scale);
    int s = 1;
    if (!(sw > 0.0f) || lite_quantize_multiplier(real, &(*multiplier)[static_cast<size_t>(c)], &s) != 0)
      return fail(ctx, Status::kInvalidModel, "weight '%s' channel %lld: scale %g gives no usable multiplier", w->name,
                  static_cast<long long>(c), static_cast<double>(sw));
    (*shift)[static_cast<size_t>(c)] = s;
  }
  return Status::kOk;
}

// A kernel that runs `int8` when input 0 is a quantized INT8 tensor and `fp32` otherwise; the int8 paths live in
// their own files so the fp32 ops stay untouched (dtype_dispatch_int8.cc).
OpKernel int8_dispatch(lite_fb::OpCode opcode, const OpKernel& fp32, const OpKernel& int8);

}  // namespace lite
