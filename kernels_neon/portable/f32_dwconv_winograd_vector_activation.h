/* Fused bias + activation epilogue over one vector of consecutive channels, shared by the depthwise
 * and Winograd kernel bodies. The including file defines the vector abstraction first:
 *   LV_T (vector type), LV_W (lanes), LV_LOAD(p), LV_STORE(p, v), LV_SET1(x), LV_ADD(a, b),
 *   LV_SUB(a, b), LV_MUL(a, b), LV_FMA(acc, a, b) = acc + a * b, LV_MAX(a, b), LV_MIN(a, b).
 * Piecewise-linear activations are computed on the vector; sigmoid, tanh and SiLU need exp, which
 * has no vector form here. Sigmoid and SiLU are deferred (lv_defer_exp_activation): the kernel
 * stores its output without them and runs the vector activation variant over what it stored; Tanh
 * is applied by lite_activate to the stored lanes (lv_store_activated). So every activation of
 * activation.h is served. */
#ifndef LITE_F32_DWCONV_WINOGRAD_VECTOR_ACTIVATION_H
#define LITE_F32_DWCONV_WINOGRAD_VECTOR_ACTIVATION_H

#include <stddef.h>

#include "lite_kernels/activation.h"
#include "lite_kernels/f32_vactivation.h"

static inline int lv_activation_needs_scalar(const lite_activation* act) {
  return act != NULL &&
         (act->kind == LITE_ACT_SIGMOID || act->kind == LITE_ACT_TANH || act->kind == LITE_ACT_SILU);
}

/* Sigmoid and SiLU: returns the activation and sets *act to NULL, so that the kernel stores plain
 * sums and the caller runs lite_f32_activate_copy over them afterwards (one value at a time through
 * libm made EfficientNet-B0's depthwise layers 3-16 GFLOP/s); NULL (and *act kept) otherwise. */
static inline const lite_activation* lv_defer_exp_activation(const lite_activation** act) {
  const lite_activation* a = *act;
  if (!lv_activation_needs_scalar(a) || !lite_f32_vactivation_supports(a->kind)) return NULL;
  *act = NULL;
  return a;
}

/* The activation of `x`, the channels [c, c + LV_W) (c matters for PReLU only). Identity for
 * NONE and for the kinds lv_activation_needs_scalar reports. x >= 0 ? x : s * x is written
 * max(x, 0) + s * min(x, 0), which is exact and needs no compare/blend. */
static inline LV_T lv_activate(const lite_activation* act, LV_T x, size_t c) {
  if (act == NULL) return x;
  switch (act->kind) {
    case LITE_ACT_RELU: return LV_MAX(x, LV_SET1(0.0f));
    case LITE_ACT_CLIP: return LV_MIN(LV_MAX(x, LV_SET1(act->alpha)), LV_SET1(act->beta));
    case LITE_ACT_HARD_SIGMOID:
      return LV_MIN(LV_MAX(LV_FMA(LV_SET1(act->beta), x, LV_SET1(act->alpha)), LV_SET1(0.0f)), LV_SET1(1.0f));
    case LITE_ACT_HARD_SWISH: {
      const LV_T gate = LV_FMA(LV_SET1(0.5f), x, LV_SET1(1.0f / 6.0f));
      return LV_MUL(x, LV_MIN(LV_MAX(gate, LV_SET1(0.0f)), LV_SET1(1.0f)));
    }
    case LITE_ACT_LEAKY_RELU:
      return LV_FMA(LV_MAX(x, LV_SET1(0.0f)), LV_MIN(x, LV_SET1(0.0f)), LV_SET1(act->alpha));
    case LITE_ACT_PRELU:
      return LV_FMA(LV_MAX(x, LV_SET1(0.0f)), LV_MIN(x, LV_SET1(0.0f)), LV_LOAD(act->prelu_slope + c));
    default: return x;
  }
}

/* Stores act(x) to out[0 .. LV_W) (channels [c, c + LV_W)). */
static inline void lv_store_activated(const lite_activation* act, LV_T x, size_t c, float* out) {
  LV_STORE(out, lv_activate(act, x, c));
  if (lv_activation_needs_scalar(act))
    for (size_t i = 0; i < (size_t)LV_W; ++i) out[i] = lite_activate(act, out[i], c + i);
}

#endif
