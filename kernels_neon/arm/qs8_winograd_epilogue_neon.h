/* The end of both int8 Winograd output transforms (qs8_winograd.h) in NEON: bias added to the exact
 * direct sums (saturating, as the reference's int32 clamp), requantized, narrowed and clamped like
 * every int8 kernel (qs8_requantize_neon.h). */
#ifndef LITE_KERNELS_ARM_QS8_WINOGRAD_EPILOGUE_NEON_H
#define LITE_KERNELS_ARM_QS8_WINOGRAD_EPILOGUE_NEON_H

#include <arm_neon.h>

#include "lite_kernels/qs8_gemm_packed.h"
#include "qs8_requantize_neon.h"

/* One block of 8 output channels' bias, multipliers, shifts and the output's zero point and clamp. */
typedef struct {
  qs8_requant4_neon r0, r1;
  int32x4_t bias0, bias1;
  int16x8_t zero_point;
  int8x8_t act_min, act_max;
} qs8_wg_epilogue_neon;

/* epilogue: the block's bias[8], multiplier[8], shift[8] at stride co_pad (the packed weight's tail). */
static inline qs8_wg_epilogue_neon qs8_wg_epilogue_load(const int32_t* epilogue, size_t co_pad,
                                                        const lite_qs8_gemm_params* params) {
  qs8_wg_epilogue_neon e;
  e.r0 = qs8_requant4_load(epilogue + co_pad, epilogue + 2 * co_pad);
  e.r1 = qs8_requant4_load(epilogue + co_pad + 4, epilogue + 2 * co_pad + 4);
  e.bias0 = vld1q_s32(epilogue);
  e.bias1 = vld1q_s32(epilogue + 4);
  e.zero_point = vdupq_n_s16((int16_t)params->output_zero_point);
  e.act_min = vdup_n_s8((int8_t)params->act_min);
  e.act_max = vdup_n_s8((int8_t)params->act_max);
  return e;
}

/* The exact sums of channels 0-3 (y0) and 4-7 (y1) of one pixel to int8; the first nc stored at dst. */
static inline void qs8_wg_store8(const qs8_wg_epilogue_neon* e, int32x4_t y0, int32x4_t y1, int8_t* dst, size_t nc) {
  const int32x4_t a0 = qs8_requant4_apply(vqaddq_s32(y0, e->bias0), &e->r0);
  const int32x4_t a1 = qs8_requant4_apply(vqaddq_s32(y1, e->bias1), &e->r1);
  qs8_store_partial8(dst, qs8_narrow8(a0, a1, e->zero_point, e->act_min, e->act_max), nc);
}

#endif
