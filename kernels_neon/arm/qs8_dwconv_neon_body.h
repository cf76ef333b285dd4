/* Body of the NEON int8 depthwise convolution (qs8_dwconv.h), shared by the aarch64 and armv7
 * files: the includer defines QS8_DWCONV_NEON_FN (the function's name). Any kernel, stride,
 * dilation, padding; 16 channels per step on the shared packed layout (32-channel blocks).
 *
 * In that layout accumulator i of a block holds channel 8 * ((i % 16) / 4) + 4 * (i / 16) + i % 4,
 * so channels 16h..16h+15 are the accumulators 8h..8h+7 (channels 0-3 and 8-11 of the step) and
 * 16+8h..16+8h+7 (channels 4-7 and 12-15): uzp of the 16 input bytes as 32-bit words gives exactly
 * those two channel groups, vld2 of a tap pair's int16 weights splits them into the two taps, and
 * smlal (int16 x int16 -> int32) accumulates exactly. The requantization is the GEMM's
 * (qs8_requantize_neon.h). Tap pointers are computed once per PIXELS output pixels. 3x3 kernels with
 * stride 1 along W share input columns between adjacent pixels (qs8_dw3x3s1_pixels). */
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

/* Channels [0-3, 8-11] and [4-7, 12-15] of x, widened to int16 (the packed accumulator order). */
static inline void qs8_dw_split(int8x16_t x, int16x8_t* first, int16x8_t* second) {
  const int32x4x2_t words = vuzpq_s32(vreinterpretq_s32_s8(x), vreinterpretq_s32_s8(x));
  *first = vmovl_s8(vget_low_s8(vreinterpretq_s8_s32(words.val[0])));
  *second = vmovl_s8(vget_low_s8(vreinterpretq_s8_s32(words.val[1])));
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

/* The step's 16 (or `count`) channels of `pixels` output pixels. */
static inline __attribute__((always_inline)) void qs8_dw_pixels(
    size_t pixels, size_t pairs, size_t c, size_t count, size_t c0, const int8_t* (*ptrs)[LITE_QS8_DWCONV_MAX_TAPS + 1],
    const int* slots, const int16_t* weights, const int32_t* bias, const qs8_requant4_neon* ra,
    const qs8_requant4_neon* rb, const qs8_requant4_neon* rc, const qs8_requant4_neon* rd, int16x8_t zero_point,
    int8x8_t act_min, int8x8_t act_max, int8_t* out_row) {
  const size_t h = (c0 / STEP) % 2, ia = 8 * h, ib = 8 * h + 4, ic = 16 + 8 * h, id = 16 + 8 * h + 4;
  for (size_t px = 0; px < pixels; ++px) {
    int32x4_t acc_a = vld1q_s32(bias + ia), acc_b = vld1q_s32(bias + ib);
    int32x4_t acc_c = vld1q_s32(bias + ic), acc_d = vld1q_s32(bias + id);
    const int16_t* w = weights;
    for (size_t q = 0; q < pairs; ++q, w += BLOCK * 2) {
      int16x8_t x0_ab, x0_cd, x1_ab, x1_cd;
      qs8_dw_split(qs8_dw_load(ptrs[px][slots[2 * q]] + c0, count), &x0_ab, &x0_cd);
      qs8_dw_split(qs8_dw_load(ptrs[px][slots[2 * q + 1]] + c0, count), &x1_ab, &x1_cd);
      const int16x8x2_t w_ab = vld2q_s16(w + 2 * ia); /* val[0]: first tap, val[1]: second */
      const int16x8x2_t w_cd = vld2q_s16(w + 2 * ic);
      acc_a = vmlal_s16(acc_a, vget_low_s16(x0_ab), vget_low_s16(w_ab.val[0]));
      acc_a = vmlal_s16(acc_a, vget_low_s16(x1_ab), vget_low_s16(w_ab.val[1]));
      acc_b = vmlal_s16(acc_b, vget_high_s16(x0_ab), vget_high_s16(w_ab.val[0]));
      acc_b = vmlal_s16(acc_b, vget_high_s16(x1_ab), vget_high_s16(w_ab.val[1]));
      acc_c = vmlal_s16(acc_c, vget_low_s16(x0_cd), vget_low_s16(w_cd.val[0]));
      acc_c = vmlal_s16(acc_c, vget_low_s16(x1_cd), vget_low_s16(w_cd.val[1]));
      acc_d = vmlal_s16(acc_d, vget_high_s16(x0_cd), vget_high_s16(w_cd.val[0]));
      acc_d = vmlal_s16(acc_d, vget_high_s16(x1_cd), vget_high_s16(w_cd.val[1]));
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
        else if (count == STEP)
          qs8_dw_pixels(pixels, pairs, c, STEP, c0, ptrs, slots, weights, bias, &ra, &rb, &rc, &rd, zero_point, act_min,
                        act_max, out_row);
        else
          qs8_dw_pixels(pixels, pairs, c, count, c0, ptrs, slots, weights, bias, &ra, &rb, &rc, &rd, zero_point,
                        act_min, act_max, out_row);
      }
    }
  }
}
