// Prepare-time validation of an op's fused Activation (docs/OPS.md): a known kind, and for PRELU a
// float32 slope input with one value per output channel.
#pragma once

#include <cstdint>

#include "op_api.h"

namespace lite {

// slope_input: index of the op's prelu_slope input, or -1 when the op has none (PRELU refused).
inline Status check_fused_activation(OpContext* ctx, const lite_fb::Activation* act, int slope_input,
                                     int64_t channels) {
  if (act == nullptr) return Status::kOk;
  const int kind = static_cast<int>(act->kind());
  if (kind < 0 || kind > static_cast<int>(lite_fb::ActivationKind::MAX))
    return fail(ctx, Status::kInvalidModel, "unknown fused activation kind %d", kind);
  if (act->kind() != lite_fb::ActivationKind::PRELU) return Status::kOk;
  const TensorRef* slope = slope_input >= 0 ? ctx->input(slope_input) : nullptr;
  if (slope_input < 0) return fail(ctx, Status::kUnsupported, "fused PRELU is only supported on CONV_2D");
  if (slope == nullptr) return fail(ctx, Status::kInvalidModel, "fused PRELU needs the prelu_slope input");
  if (slope->dtype != lite_fb::DType::FLOAT32 || slope->shape.num_elements() != channels)
    return fail(ctx, Status::kInvalidModel, "prelu_slope must be float32 with %lld values (one per output channel)",
                static_cast<long long>(channels));
  return Status::kOk;
}

}  // namespace lite
