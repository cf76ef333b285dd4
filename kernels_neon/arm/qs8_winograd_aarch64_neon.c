/* int8 Winograd F(2,3) and F(4,3) (qs8_winograd.h), aarch64 NEON without dotprod: the products as smlal /
 * smlal2 by lane, 8 tiles x 8 output channels in 16 int32 accumulators, 128 multiply-accumulates per 8
 * input channels and 6 multi-register loads (V 2 x 4 vectors, U 4 x 2); 4 tiles in a layer's last group
 * when it has at most 4. */
#include "qs8_winograd_f23_neon_transforms.h"
#include "qs8_winograd_f43_neon_transforms.h"

#define WG_TILE(acc_lo, acc_hi, x, c) \
  acc_lo = vmlal_laneq_s16(acc_lo, wl, x, c); \
  acc_hi = vmlal_high_laneq_s16(acc_hi, wv, x, c)

/* One U row (8 output channels, input channel c) against 4 tiles' V: 8 smlal. */
#define WG_QUAD(v, c, t0, t1, t2, t3)       \
  WG_TILE(t0##l, t0##h, (v).val[0], c);     \
  WG_TILE(t1##l, t1##h, (v).val[1], c);     \
  WG_TILE(t2##l, t2##h, (v).val[2], c);     \
  WG_TILE(t3##l, t3##h, (v).val[3], c)

#define WG_STEP4(w, c)                     \
  do {                                     \
    const int16x8_t wv = (w);              \
    const int16x4_t wl = vget_low_s16(wv); \
    WG_QUAD(x, c, a0, a1, a2, a3);         \
  } while (0)

#define WG_STEP(w, c)                      \
  do {                                     \
    const int16x8_t wv = (w);              \
    const int16x4_t wl = vget_low_s16(wv); \
    WG_QUAD(x, c, a0, a1, a2, a3);         \
    WG_QUAD(y, c, a4, a5, a6, a7);         \
  } while (0)

static void product4_aarch64(size_t points, size_t stride, size_t cb, const int16_t* v, const int16_t* u, int32_t* m) {
  for (size_t t = 0; t < points; ++t) {
    const int16_t* vb = v + t * stride * 64;
    const int16_t* ub = u + t * stride * 64;
    int32x4_t a0l = vdupq_n_s32(0), a0h = a0l, a1l = a0l, a1h = a0l, a2l = a0l, a2h = a0l, a3l = a0l, a3h = a0l;
    for (const int16_t* const v_end = vb + cb * 64; vb != v_end; vb += 64, ub += 64) {
      const int16x8x4_t x = vld1q_s16_x4(vb);
      for (size_t c = 0; c < 8; c += 4) {
        const int16x8x4_t w = vld1q_s16_x4(ub + c * 8);
        WG_STEP4(w.val[0], c + 0);
        WG_STEP4(w.val[1], c + 1);
        WG_STEP4(w.val[2], c + 2);
        WG_STEP4(w.val[3], c + 3);
      }
    }
    int32_t* mt = m + t * 64;
    vst1q_s32(mt + 0, a0l), vst1q_s32(mt + 4, a0h), vst1q_s32(mt + 8, a1l), vst1q_s32(mt + 12, a1h);
    vst1q_s32(mt + 16, a2l), vst1q_s32(mt + 20, a2h), vst1q_s32(mt + 24, a3l), vst1q_s32(mt + 28, a3h);
  }
}

static void product_aarch64(size_t points, size_t tiles, size_t stride, size_t cb, const int16_t* v, const int16_t* u, int32_t* m) {
  if (tiles <= 4) {
    product4_aarch64(points, stride, cb, v, u, m);
    return;
  }
  for (size_t t = 0; t < points; ++t) {
    const int16_t* vb = v + t * stride * 64;
    const int16_t* ub = u + t * stride * 64;
    int32x4_t a0l = vdupq_n_s32(0), a0h = a0l, a1l = a0l, a1h = a0l, a2l = a0l, a2h = a0l, a3l = a0l, a3h = a0l;
    int32x4_t a4l = a0l, a4h = a0l, a5l = a0l, a5h = a0l, a6l = a0l, a6h = a0l, a7l = a0l, a7h = a0l;
    /* pointer bounds, not a count: fewer loop instructions per 128 smlal */
    for (const int16_t* const v_end = vb + cb * 64; vb != v_end; vb += 64, ub += 64) {
      const int16x8x4_t x = vld1q_s16_x4(vb), y = vld1q_s16_x4(vb + 32); /* tiles 0-3, 4-7 */
      WG_STEP(vld1q_s16(ub + 0), 0);
      WG_STEP(vld1q_s16(ub + 8), 1);
      WG_STEP(vld1q_s16(ub + 16), 2);
      WG_STEP(vld1q_s16(ub + 24), 3);
      WG_STEP(vld1q_s16(ub + 32), 4);
      WG_STEP(vld1q_s16(ub + 40), 5);
      WG_STEP(vld1q_s16(ub + 48), 6);
      WG_STEP(vld1q_s16(ub + 56), 7);
    }
    int32_t* mt = m + t * 64;
    vst1q_s32(mt + 0, a0l), vst1q_s32(mt + 4, a0h), vst1q_s32(mt + 8, a1l), vst1q_s32(mt + 12, a1h);
    vst1q_s32(mt + 16, a2l), vst1q_s32(mt + 20, a2h), vst1q_s32(mt + 24, a3l), vst1q_s32(mt + 28, a3h);
    vst1q_s32(mt + 32, a4l), vst1q_s32(mt + 36, a4h), vst1q_s32(mt + 40, a5l), vst1q_s32(mt + 44, a5h);
    vst1q_s32(mt + 48, a6l), vst1q_s32(mt + 52, a6h), vst1q_s32(mt + 56, a7l), vst1q_s32(mt + 60, a7h);
  }
}

const lite_qs8_winograd_kernel lite_qs8_winograd_f23_aarch64_neon = {qs8_wg_input_neon, product_aarch64, qs8_wg_output_neon, 2,
                                                                   "qs8_winograd_f23_aarch64_neon"};
const lite_qs8_winograd_kernel lite_qs8_winograd_f43_aarch64_neon = {qs8_wg43_input_neon, product_aarch64, qs8_wg43_output_neon, 4,
                                                                   "qs8_winograd_f43_aarch64_neon"};
