/* int8 Winograd F(2,3) and F(4,3) (qs8_winograd.h), armv7 NEON: the products as vmlal.s16 by scalar, the group's 8
 * tiles in two halves of 4 tiles x 8 output channels (8 of the 16 q registers accumulate; V's four
 * vectors sit in d0-d7, where a 16-bit scalar operand must be). */
#include "qs8_winograd_f23_neon_transforms.h"
#include "qs8_winograd_f43_neon_transforms.h"

#define WG_TILE(acc_lo, acc_hi, xd, lane)                           \
  acc_lo = vmlal_lane_s16(acc_lo, vget_low_s16(w), xd, lane); \
  acc_hi = vmlal_lane_s16(acc_hi, vget_high_s16(w), xd, lane)

#define WG_STEP(c, half, lane)                           \
  do {                                                   \
    const int16x8_t w = vld1q_s16(ub + (c) * 8);         \
    WG_TILE(a0l, a0h, vget_##half##_s16(x0), lane);      \
    WG_TILE(a1l, a1h, vget_##half##_s16(x1), lane);      \
    WG_TILE(a2l, a2h, vget_##half##_s16(x2), lane);      \
    WG_TILE(a3l, a3h, vget_##half##_s16(x3), lane);      \
  } while (0)

static void product_armv7(size_t points, size_t tiles, size_t stride, size_t cb, const int16_t* v, const int16_t* u, int32_t* m) {
  for (size_t t = 0; t < points; ++t)
    for (size_t half = 0; half < (tiles > 4 ? 2u : 1u); ++half) { /* <= 4 live tiles: one half */
      const int16_t* vb = v + t * stride * 64 + half * 32;
      const int16_t* ub = u + t * stride * 64;
      int32x4_t a0l = vdupq_n_s32(0), a0h = a0l, a1l = a0l, a1h = a0l, a2l = a0l, a2h = a0l, a3l = a0l, a3h = a0l;
      for (size_t b = 0; b < cb; ++b, vb += 64, ub += 64) {
        const int16x8_t x0 = vld1q_s16(vb), x1 = vld1q_s16(vb + 8), x2 = vld1q_s16(vb + 16), x3 = vld1q_s16(vb + 24);
        WG_STEP(0, low, 0);
        WG_STEP(1, low, 1);
        WG_STEP(2, low, 2);
        WG_STEP(3, low, 3);
        WG_STEP(4, high, 0);
        WG_STEP(5, high, 1);
        WG_STEP(6, high, 2);
        WG_STEP(7, high, 3);
      }
      int32_t* mt = m + t * 64 + half * 32;
      vst1q_s32(mt + 0, a0l), vst1q_s32(mt + 4, a0h), vst1q_s32(mt + 8, a1l), vst1q_s32(mt + 12, a1h);
      vst1q_s32(mt + 16, a2l), vst1q_s32(mt + 20, a2h), vst1q_s32(mt + 24, a3l), vst1q_s32(mt + 28, a3h);
    }
}

const lite_qs8_winograd_kernel lite_qs8_winograd_f23_armv7_neon = {qs8_wg_input_neon, product_armv7, qs8_wg_output_neon, 2,
                                                                   "qs8_winograd_f23_armv7_neon"};
const lite_qs8_winograd_kernel lite_qs8_winograd_f43_armv7_neon = {qs8_wg43_input_neon, product_armv7, qs8_wg43_output_neon, 4,
                                                                   "qs8_winograd_f43_armv7_neon"};
