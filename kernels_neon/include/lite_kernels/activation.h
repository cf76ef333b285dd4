/* Fused activations, applied by a producing kernel to its fp32 result before the store.
 * Kind values equal lite_fb::ActivationKind in the schema, so the runtime passes them through. */
#ifndef LITE_KERNELS_ACTIVATION_H
#define LITE_KERNELS_ACTIVATION_H

#include <math.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum {
  LITE_ACT_NONE = 0,
  LITE_ACT_RELU = 1,
  LITE_ACT_CLIP = 2, /* min(max(x, alpha), beta) */
  LITE_ACT_SIGMOID = 3,
  LITE_ACT_TANH = 4,
  LITE_ACT_HARD_SIGMOID = 5, /* max(0, min(1, alpha * x + beta)) */
  LITE_ACT_HARD_SWISH = 6,   /* x * max(0, min(1, x / 6 + 0.5)) */
  LITE_ACT_LEAKY_RELU = 7,   /* x >= 0 ? x : alpha * x */
  LITE_ACT_SILU = 8,         /* x * sigmoid(x) */
  LITE_ACT_PRELU = 9         /* x >= 0 ? x : slope[channel] * x */
} lite_activation_kind;

typedef struct {
  int kind; /* lite_activation_kind */
  float alpha;
  float beta;
  const float* prelu_slope; /* LITE_ACT_PRELU only: one slope per channel (innermost dim) */
} lite_activation;

static inline float lite_sigmoidf(float x) { return 1.0f / (1.0f + expf(-x)); }

/* Applies `act` to one value of channel `channel` (the channel matters only for PRELU). */
static inline float lite_activate(const lite_activation* act, float x, size_t channel) {
  switch (act->kind) {
    case LITE_ACT_RELU: return x < 0.0f ? 0.0f : x; /* NaN stays NaN */
    case LITE_ACT_CLIP: return x < act->alpha ? act->alpha : (x > act->beta ? act->beta : x);
    case LITE_ACT_SIGMOID: return lite_sigmoidf(x);
    case LITE_ACT_TANH: return tanhf(x);
    case LITE_ACT_HARD_SIGMOID: {
      float y = act->alpha * x + act->beta;
      return y < 0.0f ? 0.0f : (y > 1.0f ? 1.0f : y);
    }
    case LITE_ACT_HARD_SWISH: {
      float y = x / 6.0f + 0.5f;
      return x * (y < 0.0f ? 0.0f : (y > 1.0f ? 1.0f : y));
    }
    case LITE_ACT_LEAKY_RELU: return x >= 0.0f ? x : act->alpha * x;
    case LITE_ACT_SILU: return x * lite_sigmoidf(x);
    case LITE_ACT_PRELU: return x >= 0.0f ? x : act->prelu_slope[channel] * x;
    default: return x;
  }
}

/* Applies `act` in place to `rows` rows of `channels` contiguous values (channels-last data). */
static inline void lite_activate_rows(const lite_activation* act, float* data, size_t rows,
                                      size_t channels) {
  if (act->kind == LITE_ACT_NONE) return;
  for (size_t r = 0; r < rows; ++r)
    for (size_t c = 0; c < channels; ++c) data[r * channels + c] = lite_activate(act, data[r * channels + c], c);
}

#ifdef __cplusplus
}
#endif

#endif
