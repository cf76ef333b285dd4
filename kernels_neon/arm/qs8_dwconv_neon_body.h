/* Body of the NEON int8 depthwise convolution (qs8_dwconv.h), shared by the aarch64 and armv7
 * files: the includer defines QS8_DWCONV_NEON_FN (the function's name). Any kernel, stride,
 * dilation, padding; 16 channels per step on the shared packed layout (32-channel blocks).
 *
 * In that layout accumulator i of a block holds channel 8 * ((i % 16) / 4) + 4 * (i / 16) + i % 4,
 * so channels 16h..16h+15 are the accumulators 8h..8h+7 (channels 0-3 and 8-11 of the step) and
 * 16+8h..16+8h+7 (channels 4-7 and 12-15). The generic path narrows a step's tap weights to int8
 * in channel order once per run of pixels (qs8_dw_weights8) and sums two taps' int8 products in
 * int16 (smull + smlal + saddw: 32 multiply-adds in 12 instructions with the loads, against 20 for
 * int16 smlal); the 3x3 stride-1 path widens the input and uses smlal (int16 x int16 -> int32). The
 * requantization is the GEMM's (qs8_requantize_neon.h). Tap pointers are computed once per PIXELS
 * output pixels. 3x3 kernels with stride 1 along W share input columns between adjacent pixels
 * (qs8_dw3x3s1_pixels). */
#include <arm_neon.h>
#include <string.h>

#include "../portable/qs8_dwconv_taps.h"
#include "lite_kernels/qs8_dwconv.h"
#include "qs8_requantize_neon.h"

enum { BLOCK = 32, STEP = 16, PIXELS = 8 };

/* acc + high halves of x * w: smlal2 on aarch64 (in the 3x3 path, naming the halves made GCC move
 * them out to d registers and spill them); armv7's d registers are the halves themselves. */
#if defined(__aarch64__)
#define QS8_MLAL_HIGH(acc, x, w) vmlal_high_s16(acc, x, w)
#else
#define QS8_MLAL_HIGH(acc, x, w) vmlal_s16(acc, vget_high_s16(x), vget_high_s16(w))
#endif

/* 16 channels, or `count` < 16 through a copy (the last pixel's channels may end the buffer). */
static inline int8x16_t qs8_dw_load(const int8_t* p, size_t count) {
  if (count == STEP) return vld1q_s8(p);
  int8_t bytes[STEP] = {0};
  memcpy(bytes, p, count);
  return vld1q_s8(bytes);
}

/* Requantizes the four accumulator groups (channels 0-3, 8-11, 4-7, 12-15 of the step) and stores
 * the step's `count` channels at out. */
static inline __attribute__((always_inline)) void qs8_dw_store(int8_t* out, const int32x4_t* acc,
                                                               const qs8_requant4_neon* ra, const qs8_requant4_neon* rb,
                                                               const qs8_requant4_neon* rc, const qs8_requant4_neon* rd,
                                                               int16x8_t zero_point, int8x8_t act_min, int8x8_t act_max,
                                                               size_t count) {
  const int8x8_t lo = qs8_narrow8(qs8_requant4_apply(acc[0], ra), qs8_requant4_apply(acc[2], rc), zero_point, act_min,
                                  act_max);
  const int8x8_t hi = qs8_narrow8(qs8_requant4_apply(acc[1], rb), qs8_requant4_apply(acc[3], rd), zero_point, act_min,
                                  act_max);
  if (count == STEP) {
    vst1q_s8(out, vcombine_s8(lo, hi));
  } else {
    int8_t bytes[STEP];
    vst1q_s8(bytes, vcombine_s8(lo, hi));
    memcpy(out, bytes, count);
  }
}

/* Accumulates one input column, widened in channel order (x_ac: channels 0-7 = groups a, c; x_bd:
 * channels 8-15 = groups b, d), with tap weights regrouped the same way, into the four groups of acc
 * (a, b, c, d). */
#define QS8_DW_TAP(acc, x_ac, x_bd, w_ac, w_bd)                                     \
  do {                                                                              \
    acc[0] = vmlal_s16(acc[0], vget_low_s16(x_ac), vget_low_s16(w_ac));              \
    acc[2] = QS8_MLAL_HIGH(acc[2], x_ac, w_ac);                                      \
    acc[1] = vmlal_s16(acc[1], vget_low_s16(x_bd), vget_low_s16(w_bd));              \
    acc[3] = QS8_MLAL_HIGH(acc[3], x_bd, w_bd);                                      \
  } while (0)

/* 16 int8 channels widened in channel order: 0-7 and 8-15. */
static inline void qs8_dw_widen(int8x16_t x, int16x8_t* first, int16x8_t* second) {
  *first = vmovl_s8(vget_low_s8(x));
  *second = vmovl_s8(vget_high_s8(x));
}

/* 3x3 kernels with stride and dilation 1 along W (the row-paired layout: pairs (kw0, kw1), (none,
 * kw2) per kernel row): two adjacent output pixels share their input columns, so input column j
 * (0..3) of kernel row r, tap j of the first pixel and tap j - 1 of the second, is loaded and widened
 * once; the nine taps' weights stay in registers for the whole run of pixels. An odd last pixel is
 * computed as both (its second copy reads valid pointers and is not stored). */
static inline __attribute__((always_inline)) void qs8_dw3x3s1_pixels(
    size_t pixels, size_t c, size_t count, size_t c0, const int8_t* (*ptrs)[LITE_QS8_DWCONV_MAX_TAPS + 1],
    const int16_t* weights, const int32_t* bias, const qs8_requant4_neon* ra, const qs8_requant4_neon* rb,
    const qs8_requant4_neon* rc, const qs8_requant4_neon* rd, int16x8_t zero_point, int8x8_t act_min,
    int8x8_t act_max, int8_t* out_row) {
  const size_t h = (c0 / STEP) % 2, ia = 8 * h, ib = 8 * h + 4, ic = 16 + 8 * h, id = 16 + 8 * h + 4;
  int16x8_t w_ac[9], w_bd[9]; /* tap weights regrouped in channel order (0-7, 8-15) */
#define QS8_DW_ROW_WEIGHTS(R)                                                                 \
  do {                                                                                        \
    const int16x8x2_t k01_ab = vld2q_s16(weights + (2 * R) * BLOCK * 2 + 2 * ia);             \
    const int16x8x2_t k01_cd = vld2q_s16(weights + (2 * R) * BLOCK * 2 + 2 * ic);             \
    const int16x8x2_t k2_ab = vld2q_s16(weights + (2 * R + 1) * BLOCK * 2 + 2 * ia);          \
    const int16x8x2_t k2_cd = vld2q_s16(weights + (2 * R + 1) * BLOCK * 2 + 2 * ic);          \
    w_ac[3 * R] = vcombine_s16(vget_low_s16(k01_ab.val[0]), vget_low_s16(k01_cd.val[0]));      \
    w_bd[3 * R] = vcombine_s16(vget_high_s16(k01_ab.val[0]), vget_high_s16(k01_cd.val[0]));    \
    w_ac[3 * R + 1] = vcombine_s16(vget_low_s16(k01_ab.val[1]), vget_low_s16(k01_cd.val[1]));  \
    w_bd[3 * R + 1] = vcombine_s16(vget_high_s16(k01_ab.val[1]), vget_high_s16(k01_cd.val[1])); \
    w_ac[3 * R + 2] = vcombine_s16(vget_low_s16(k2_ab.val[1]), vget_low_s16(k2_cd.val[1]));    \
    w_bd[3 * R + 2] = vcombine_s16(vget_high_s16(k2_ab.val[1]), vget_high_s16(k2_cd.val[1]));  \
  } while (0)
  QS8_DW_ROW_WEIGHTS(0);
  QS8_DW_ROW_WEIGHTS(1);
  QS8_DW_ROW_WEIGHTS(2);
#undef QS8_DW_ROW_WEIGHTS
  for (size_t px = 0; px < pixels; px += 2) {
    const size_t second = px + 1 < pixels ? px + 1 : px;
    int32x4_t acc0[4], acc1[4];
    acc0[0] = acc1[0] = vld1q_s32(bias + ia), acc0[1] = acc1[1] = vld1q_s32(bias + ib);
    acc0[2] = acc1[2] = vld1q_s32(bias + ic), acc0[3] = acc1[3] = vld1q_s32(bias + id);
#define QS8_DW_ROW(R)                                                                                     \
  do {                                                                                                    \
    int16x8_t x_ac, x_bd;                                                                                 \
    qs8_dw_widen(qs8_dw_load(ptrs[px][3 * R] + c0, count), &x_ac, &x_bd);                                 \
    QS8_DW_TAP(acc0, x_ac, x_bd, w_ac[3 * R], w_bd[3 * R]);                                               \
    qs8_dw_widen(qs8_dw_load(ptrs[px][3 * R + 1] + c0, count), &x_ac, &x_bd);                             \
    QS8_DW_TAP(acc0, x_ac, x_bd, w_ac[3 * R + 1], w_bd[3 * R + 1]);                                       \
    QS8_DW_TAP(acc1, x_ac, x_bd, w_ac[3 * R], w_bd[3 * R]);                                               \
    qs8_dw_widen(qs8_dw_load(ptrs[px][3 * R + 2] + c0, count), &x_ac, &x_bd);                             \
    QS8_DW_TAP(acc0, x_ac, x_bd, w_ac[3 * R + 2], w_bd[3 * R + 2]);                                       \
    QS8_DW_TAP(acc1, x_ac, x_bd, w_ac[3 * R + 1], w_bd[3 * R + 1]);                                       \
    qs8_dw_widen(qs8_dw_load(ptrs[second][3 * R + 2] + c0, count), &x_ac, &x_bd);                         \
    QS8_DW_TAP(acc1, x_ac, x_bd, w_ac[3 * R + 2], w_bd[3 * R + 2]);                                       \
  } while (0)
    QS8_DW_ROW(0);
    QS8_DW_ROW(1);
    QS8_DW_ROW(2);
#undef QS8_DW_ROW
    qs8_dw_store(out_row + px * c + c0, acc0, ra, rb, rc, rd, zero_point, act_min, act_max, count);
    if (second != px) qs8_dw_store(out_row + second * c + c0, acc1, ra, rb, rc, rd, zero_point, act_min, act_max, count);
  }
}

/* The int8 products of the generic path: two taps' products of 8 channels summed in int16 (exact
 * while no weight is -128: 2 * 128 * 127 < 2^15), then widened into the int32 accumulators. */
#if defined(__aarch64__)
#define QS8_MULL_HIGH_S8(x, w) vmull_high_s8(x, w)
#define QS8_MLAL_HIGH_S8(acc, x, w) vmlal_high_s8(acc, x, w)
#define QS8_ADDW_HIGH_S16(acc, x) vaddw_high_s16(acc, x)
#else
#define QS8_MULL_HIGH_S8(x, w) vmull_s8(vget_high_s8(x), vget_high_s8(w))
#define QS8_MLAL_HIGH_S8(acc, x, w) vmlal_s8(acc, vget_high_s8(x), vget_high_s8(w))
#define QS8_ADDW_HIGH_S16(acc, x) vaddw_s16(acc, vget_high_s16(x))
#endif

/* The step's tap weights (pairs of the packed int16 layout) as int8 in channel order, 16 bytes per
 * tap slot, into w8; returns whether two products may share an int16 sum (no weight is -128). */
static int qs8_dw_weights8(size_t pairs, const int16_t* weights, size_t h, int8_t* w8) {
  const size_t ia = 8 * h, ic = 16 + 8 * h;
  uint8x16_t min_weight = vdupq_n_u8(0);
  for (size_t q = 0; q < pairs; ++q, weights += BLOCK * 2) {
    const int16x8x2_t ab = vld2q_s16(weights + 2 * ia); /* channels 0-3, 8-11 of the step */
    const int16x8x2_t cd = vld2q_s16(weights + 2 * ic); /* channels 4-7, 12-15 */
    for (int t = 0; t < 2; ++t) {
      const int32x2x2_t z =
          vzip_s32(vreinterpret_s32_s8(vmovn_s16(ab.val[t])), vreinterpret_s32_s8(vmovn_s16(cd.val[t])));
      const int8x16_t v = vcombine_s8(vreinterpret_s8_s32(z.val[0]), vreinterpret_s8_s32(z.val[1]));
      vst1q_s8(w8 + (2 * q + (size_t)t) * STEP, v);
      min_weight = vorrq_u8(min_weight, vceqq_s8(v, vdupq_n_s8(INT8_MIN)));
    }
  }
  const uint64x2_t any = vreinterpretq_u64_u8(min_weight);
  return (vgetq_lane_u64(any, 0) | vgetq_lane_u64(any, 1)) == 0;
}

/* The step's 16 (or `count`) channels of `pixels` output pixels; w8 from qs8_dw_weights8. */
static inline __attribute__((always_inline)) void qs8_dw_pixels(
    size_t pixels, size_t pairs, size_t c, size_t count, size_t c0, const int8_t* (*ptrs)[LITE_QS8_DWCONV_MAX_TAPS + 1],
    const int* slots, const int8_t* w8, int pairs_fit, const int32_t* bias, const qs8_requant4_neon* ra,
    const qs8_requant4_neon* rb, const qs8_requant4_neon* rc, const qs8_requant4_neon* rd, int16x8_t zero_point,
    int8x8_t act_min, int8x8_t act_max, int8_t* out_row) {
  const size_t h = (c0 / STEP) % 2, ia = 8 * h, ib = 8 * h + 4, ic = 16 + 8 * h, id = 16 + 8 * h + 4;
  for (size_t px = 0; px < pixels; ++px) {
    /* a: channels 0-3, c: 4-7, b: 8-11, d: 12-15 of the step */
    int32x4_t acc_a = vld1q_s32(bias + ia), acc_b = vld1q_s32(bias + ib);
    int32x4_t acc_c = vld1q_s32(bias + ic), acc_d = vld1q_s32(bias + id);
    const int8_t* w = w8;
    for (size_t q = 0; q < pairs; ++q, w += 2 * STEP) {
      const int8x16_t x0 = qs8_dw_load(ptrs[px][slots[2 * q]] + c0, count);
      const int8x16_t x1 = qs8_dw_load(ptrs[px][slots[2 * q + 1]] + c0, count);
      const int8x16_t w0 = vld1q_s8(w), w1 = vld1q_s8(w + STEP);
      int16x8_t lo = vmull_s8(vget_low_s8(x0), vget_low_s8(w0)), hi = QS8_MULL_HIGH_S8(x0, w0);
      if (pairs_fit) {
        lo = vmlal_s8(lo, vget_low_s8(x1), vget_low_s8(w1));
        hi = QS8_MLAL_HIGH_S8(hi, x1, w1);
      } else {
        acc_a = vaddw_s16(acc_a, vget_low_s16(lo)), acc_c = QS8_ADDW_HIGH_S16(acc_c, lo);
        acc_b = vaddw_s16(acc_b, vget_low_s16(hi)), acc_d = QS8_ADDW_HIGH_S16(acc_d, hi);
        lo = vmull_s8(vget_low_s8(x1), vget_low_s8(w1)), hi = QS8_MULL_HIGH_S8(x1, w1);
      }
      acc_a = vaddw_s16(acc_a, vget_low_s16(lo)), acc_c = QS8_ADDW_HIGH_S16(acc_c, lo);
      acc_b = vaddw_s16(acc_b, vget_low_s16(hi)), acc_d = QS8_ADDW_HIGH_S16(acc_d, hi);
    }
    const int8x8_t lo = qs8_narrow8(qs8_requant4_apply(acc_a, ra), qs8_requant4_apply(acc_c, rc), zero_point,
                                    act_min, act_max);
    const int8x8_t hi = qs8_narrow8(qs8_requant4_apply(acc_b, rb), qs8_requant4_apply(acc_d, rd), zero_point,
                                    act_min, act_max);
    int8_t* out = out_row + px * c + c0;
    if (count == STEP) {
      vst1q_s8(out, vcombine_s8(lo, hi));
    } else {
      int8_t bytes[STEP];
      vst1q_s8(bytes, vcombine_s8(lo, hi));
      memcpy(out, bytes, count);
    }
  }
}

void QS8_DWCONV_NEON_FN(const lite_conv2d_params* p, const void* packed, const lite_qs8_gemm_params* params,
                        const int8_t* input, int8_t* output, size_t row_begin, size_t row_end) {
  const size_t c = p->out_c, taps = p->kernel_h * p->kernel_w;
  int slots[LITE_QS8_DWCONV_MAX_TAPS * 2];
  const size_t pairs = lite_qs8_dwconv_pair_slots(p, slots);
  const int row_paired = p->kernel_h == 3 && p->kernel_w == 3 && p->stride_w == 1 && p->dilation_w == 1;
  for (size_t i = 0; i < 2 * pairs; ++i)
    if (slots[i] < 0) slots[i] = (int)taps; /* ptrs[taps] is the zero row */
  const size_t blocks = (c + BLOCK - 1) / BLOCK, block_bytes = BLOCK * 12 + pairs * BLOCK * 4;
  const int8_t* zero_row = (const int8_t*)packed + blocks * block_bytes;
  const int16x8_t zero_point = vdupq_n_s16((int16_t)params->output_zero_point);
  const int8x8_t act_min = vdup_n_s8((int8_t)params->act_min), act_max = vdup_n_s8((int8_t)params->act_max);
  size_t tap_offset[LITE_QS8_DWCONV_MAX_TAPS];
  lite_qs8_dwconv_tap_offsets(p, tap_offset);
  const int8_t* ptrs[PIXELS][LITE_QS8_DWCONV_MAX_TAPS + 1];
  int8_t w8[LITE_QS8_DWCONV_MAX_TAPS * 2 * STEP];
  for (size_t row = row_begin; row < row_end; ++row) {
    const size_t b = row / p->out_h, oh = row % p->out_h;
    for (size_t ow0 = 0; ow0 < p->out_w; ow0 += PIXELS) {
      const size_t pixels = p->out_w - ow0 < PIXELS ? p->out_w - ow0 : PIXELS;
      for (size_t px = 0; px < pixels; ++px) {
        lite_qs8_dwconv_tap_pointers(p, input, zero_row, tap_offset, b, oh, ow0 + px, ptrs[px]);
        ptrs[px][taps] = zero_row;
      }
      int8_t* out_row = output + ((b * p->out_h + oh) * p->out_w + ow0) * c;
      for (size_t c0 = 0; c0 < c; c0 += STEP) {
        const size_t count = c - c0 < STEP ? c - c0 : STEP, h = (c0 / STEP) % 2;
        const uint8_t* block = (const uint8_t*)packed + (c0 / BLOCK) * block_bytes;
        const int16_t* weights = (const int16_t*)(block + BLOCK * 4);
        const int32_t* bias = (const int32_t*)block;
        const int32_t* multiplier = (const int32_t*)(block + BLOCK * 4 + pairs * BLOCK * 4);
        const int32_t* shift = multiplier + BLOCK;
        /* accumulator groups: a = channels 0-3, b = 8-11, c = 4-7, d = 12-15 of the step */
        const size_t ia = 8 * h, ib = 8 * h + 4, ic = 16 + 8 * h, id = 16 + 8 * h + 4;
        const qs8_requant4_neon ra = qs8_requant4_load(multiplier + ia, shift + ia);
        const qs8_requant4_neon rb = qs8_requant4_load(multiplier + ib, shift + ib);
        const qs8_requant4_neon rc = qs8_requant4_load(multiplier + ic, shift + ic);
        const qs8_requant4_neon rd = qs8_requant4_load(multiplier + id, shift + id);
        /* two copies each: count is the constant STEP in the first, so its loads and stores are plain */
        if (row_paired && count == STEP)
          qs8_dw3x3s1_pixels(pixels, c, STEP, c0, ptrs, weights, bias, &ra, &rb, &rc, &rd, zero_point, act_min,
                             act_max, out_row);
        else if (row_paired)
          qs8_dw3x3s1_pixels(pixels, c, count, c0, ptrs, weights, bias, &ra, &rb, &rc, &rd, zero_point, act_min,
                             act_max, out_row);
        else {
          const int pairs_fit = qs8_dw_weights8(pairs, weights, h, w8);
          if (count == STEP)
            qs8_dw_pixels(pixels, pairs, c, STEP, c0, ptrs, slots, w8, pairs_fit, bias, &ra, &rb, &rc, &rd, zero_point,
                          act_min, act_max, out_row);
          else
            qs8_dw_pixels(pixels, pairs, c, count, c0, ptrs, slots, w8, pairs_fit, bias, &ra, &rb, &rc, &rd,
                          zero_point, act_min, act_max, out_row);
        }
      }
    }
  }
}
