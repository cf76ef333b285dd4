/* int8 depthwise convolution, 3x3 kernels (any stride, dilation, padding), armv7 NEON, on the shared
 * packed layout of qs8_dwconv.h; exactly lite_qs8_conv2d_nhwc_ref's bytes.
 *
 * Why not the shared body (qs8_dwconv_neon_body.h): it widens every input and weight to int16 (a
 * vmlal.s16 per 4 multiply-adds) and recomputes the tap pointers per pixel. Here, per 16-channel step,
 * two taps' products are summed in int16 (vmull.s8 + vmlal.s8: |x * w| <= 128 * 127, so a pair stays
 * inside int16) and widened once into the int32 accumulators (vaddw.s16): 16 multiply-adds per 3
 * instructions. A step whose weights contain -128 (a pair could reach 2^15) widens every tap alone.
 * The step's taps (int8, channel order), bias and requantization constants are unpacked once per call
 * into a table that the interior loop reads with vldm / vld1 (armv7 has 16 q registers: the taps do
 * not fit beside the accumulators and the epilogue constants).
 *
 * Interior pixels (all three input rows real, the window inside the row along W) run an assembly
 * loop with three row pointers stepped by post-incremented loads; border pixels the same body with
 * each tap's address loaded; a channel tail (< 16) and steps with -128 weights run the intrinsics
 * version. */
#include <arm_neon.h>
#include <stddef.h>
#include <string.h>

#include "lite_kernels/qs8_dwconv.h"
#include "qs8_dwconv_3x3_geometry.h"
#include "qs8_dwconv_ukernels_arm.h"
#include "qs8_requantize_neon.h"

enum { BLOCK = 32, STEP = 16 };

/* One 16-channel step in channel order; the assembly reads it at these offsets. */
typedef struct {
  int32_t bias[16];                                                       /* 0: d0-d7 */
  int8_t taps[9][16];                                                     /* 64 */
  int32_t multiplier_lo[8], left_shift_lo[8], neg_right_shift_lo[8];      /* 208: channels 0-7 */
  int32_t multiplier_hi[8], left_shift_hi[8], neg_right_shift_hi[8];      /* 304: channels 8-15 */
  int16_t zero_point[8];                                                  /* 400 */
  int8_t act_min[8], act_max[8];                                          /* 416, 424 */
} dw_step_table;

_Static_assert(offsetof(dw_step_table, taps) == 64 && offsetof(dw_step_table, multiplier_lo) == 208 &&
                   offsetof(dw_step_table, multiplier_hi) == 304 && offsetof(dw_step_table, zero_point) == 400 &&
                   offsetof(dw_step_table, act_min) == 416,
               "the assembly reads dw_step_table at these offsets");

/* 16 channels at p, or `count` < 16 through a copy (the last pixel's channels may end the buffer). */
static inline int8x16_t dw_load(const int8_t* p, size_t count) {
  if (count == STEP) return vld1q_s8(p);
  int8_t bytes[STEP] = {0};
  memcpy(bytes, p, count);
  return vld1q_s8(bytes);
}

/* acc[0..3] (channels 0-3, 4-7, 8-11, 12-15) += the int16 products lo (channels 0-7) / hi (8-15). */
#define DW_WIDEN_ADD(lo, hi)                            \
  do {                                                  \
    acc[0] = vaddw_s16(acc[0], vget_low_s16(lo));       \
    acc[1] = vaddw_s16(acc[1], vget_high_s16(lo));      \
    acc[2] = vaddw_s16(acc[2], vget_low_s16(hi));       \
    acc[3] = vaddw_s16(acc[3], vget_high_s16(hi));      \
  } while (0)

/* One output pixel of the step from its nine tap addresses (t[kh * 3 + kw], channel c0 included). */
static void dw_pixel(const int8_t* const* t, const dw_step_table* table, size_t count, int paired, int8_t* out) {
  int32x4_t acc[4];
  int8x16_t x[9], w[9];
  for (int g = 0; g < 4; ++g) acc[g] = vld1q_s32(table->bias + 4 * g);
  for (int k = 0; k < 9; ++k) x[k] = dw_load(t[k], count), w[k] = vld1q_s8(table->taps[k]);
  int k = 0;
  for (; paired && k + 1 < 9; k += 2) {
    const int16x8_t lo = vmlal_s8(vmull_s8(vget_low_s8(x[k]), vget_low_s8(w[k])), vget_low_s8(x[k + 1]),
                                  vget_low_s8(w[k + 1]));
    const int16x8_t hi = vmlal_s8(vmull_s8(vget_high_s8(x[k]), vget_high_s8(w[k])), vget_high_s8(x[k + 1]),
                                  vget_high_s8(w[k + 1]));
    DW_WIDEN_ADD(lo, hi);
  }
  for (; k < 9; ++k) {
    const int16x8_t lo = vmull_s8(vget_low_s8(x[k]), vget_low_s8(w[k]));
    const int16x8_t hi = vmull_s8(vget_high_s8(x[k]), vget_high_s8(w[k]));
    DW_WIDEN_ADD(lo, hi);
  }
  int32x4_t r[4];
  for (int g = 0; g < 4; ++g) {
    const int32_t* base = g < 2 ? table->multiplier_lo : table->multiplier_hi;
    const size_t o = 4 * (size_t)(g % 2);
    const qs8_requant4_neon q = {vld1q_s32(base + o), vld1q_s32(base + 8 + o), vld1q_s32(base + 16 + o)};
    r[g] = qs8_requant4_apply(acc[g], &q);
  }
  const int16x8_t zero_point = vld1q_s16(table->zero_point);
  const int8x8_t act_min = vld1_s8(table->act_min), act_max = vld1_s8(table->act_max);
  const int8x16_t v = vcombine_s8(qs8_narrow8(r[0], r[1], zero_point, act_min, act_max),
                                  qs8_narrow8(r[2], r[3], zero_point, act_min, act_max));
  if (count == STEP) {
    vst1q_s8(out, v);
  } else {
    int8_t bytes[STEP];
    vst1q_s8(bytes, v);
    memcpy(out, bytes, count);
  }
}

/* A pair of taps (x at two loads, weights at the table cursor) into q0-q3. */
#define DW7_PAIR(load0, load1)                          \
  "vld1.8 {d24-d27}, [%[t]]!\n"                         \
  load0 load1                                           \
  "vmull.s8 q10, d16, d24\n"                            \
  "vmull.s8 q11, d17, d25\n"                            \
  "vmlal.s8 q10, d18, d26\n"                            \
  "vmlal.s8 q11, d19, d27\n"                            \
  "vaddw.s16 q0, q0, d20\n"                             \
  "vaddw.s16 q1, q1, d21\n"                             \
  "vaddw.s16 q2, q2, d22\n"                             \
  "vaddw.s16 q3, q3, d23\n"
#define DW7_X0(row, inc) "vld1.8 {d16-d17}, [%[" row "]], %[" inc "]\n"
#define DW7_X1(row, inc) "vld1.8 {d18-d19}, [%[" row "]], %[" inc "]\n"
/* Requantizes q(a), q(b) with the constants of their eight channels (vldm from the cursor). */
#define DW7_REQUANT(a, b)                               \
  "vldm %[t]!, {d16-d27}\n"                             \
  "vqshl.s32 " a ", " a ", q10\n"                       \
  "vqshl.s32 " b ", " b ", q11\n"                       \
  "vqdmulh.s32 " a ", " a ", q8\n"                      \
  "vqdmulh.s32 " b ", " b ", q9\n"                      \
  "vrshl.s32 " a ", " a ", q12\n"                       \
  "vrshl.s32 " b ", " b ", q13\n"

/* The last tap (x loaded by `load8`), the requantization and the narrowing of q0-q3 into q0 (16
 * bytes): the part of a pixel after its four tap pairs. */
#define DW7_FINISH(load8)                               \
  "vld1.8 {d24-d25}, [%[t]]!\n"                         \
  load8                                                 \
  "vmull.s8 q10, d16, d24\n"                            \
  "vmull.s8 q11, d17, d25\n"                            \
  "vaddw.s16 q0, q0, d20\n"                             \
  "vaddw.s16 q1, q1, d21\n"                             \
  "vaddw.s16 q2, q2, d22\n"                             \
  "vaddw.s16 q3, q3, d23\n"                             \
  DW7_REQUANT("q0", "q1")                               \
  DW7_REQUANT("q2", "q3")                               \
  "vldm %[t], {d16-d19}\n"                              \
  "vqmovn.s32 d0, q0\n"                                 \
  "vqmovn.s32 d1, q1\n"                                 \
  "vqmovn.s32 d2, q2\n"                                 \
  "vqmovn.s32 d3, q3\n"                                 \
  "vqadd.s16 q0, q0, q8\n"                              \
  "vqadd.s16 q1, q1, q8\n"                              \
  "vqmovn.s16 d0, q0\n"                                 \
  "vqmovn.s16 d1, q1\n"                                 \
  "vmax.s8 d0, d0, d18\n"                               \
  "vmax.s8 d1, d1, d18\n"                               \
  "vmin.s8 d0, d0, d19\n"                               \
  "vmin.s8 d1, d1, d19\n"
#define DW7_CLOBBERS                                                                                            \
  "cc", "memory", "d0", "d1", "d2", "d3", "d4", "d5", "d6", "d7", "d8", "d9", "d10", "d11", "d12", "d13", "d14", \
      "d15", "d16", "d17", "d18", "d19", "d20", "d21", "d22", "d23", "d24", "d25", "d26", "d27", "d28", "d29",   \
      "d30", "d31"

/* `n` >= 1 interior pixels of a 16-channel step with every weight > -128 and all three input rows
 * real: tap j of row k is at r_k + j * dil; after its third tap r_k moves on by back = stride - 2 dil,
 * so every pointer update is a post-increment of a load. A vqshl by 0 changes nothing: it always runs. */
static void dw_interior16(size_t n, const int8_t* r0, const int8_t* r1, const int8_t* r2, ptrdiff_t dil,
                          ptrdiff_t back, int8_t* out, size_t c, const dw_step_table* table) {
  const int8_t* t;
  __asm__ volatile(
      "1:\n"
      "mov %[t], %[table]\n"
      "vldm %[t]!, {d0-d7}\n"
      DW7_PAIR(DW7_X0("r0", "dil"), DW7_X1("r0", "dil"))
      DW7_PAIR(DW7_X0("r0", "back"), DW7_X1("r1", "dil"))
      DW7_PAIR(DW7_X0("r1", "dil"), DW7_X1("r1", "back"))
      DW7_PAIR(DW7_X0("r2", "dil"), DW7_X1("r2", "dil"))
      DW7_FINISH(DW7_X0("r2", "back"))
      "vst1.8 {d0-d1}, [%[out]], %[c]\n"
      "subs %[n], %[n], #1\n"
      "bne 1b\n"
      : [n] "+r"(n), [r0] "+r"(r0), [r1] "+r"(r1), [r2] "+r"(r2), [out] "+r"(out), [t] "=&r"(t)
      : [dil] "r"(dil), [back] "r"(back), [c] "r"(c), [table] "r"(table)
      : DW7_CLOBBERS);
}

/* One border pixel of a 16-channel step with every weight > -128, from its nine tap addresses
 * (taps[kh * 3 + kw], channel c0 included): the interior body with each tap's address loaded. */
#define DW7_XT0 "ldr %[p], [%[tp]], #4\n vld1.8 {d16-d17}, [%[p]]\n"
#define DW7_XT1 "ldr %[p], [%[tp]], #4\n vld1.8 {d18-d19}, [%[p]]\n"
static void dw_border16(const int8_t* const* taps, int8_t* out, const dw_step_table* table) {
  const int8_t* t;
  const int8_t* p;
  const int8_t* const* tp = taps;
  __asm__ volatile(
      "mov %[t], %[table]\n"
      "vldm %[t]!, {d0-d7}\n"
      DW7_PAIR(DW7_XT0, DW7_XT1) DW7_PAIR(DW7_XT0, DW7_XT1) DW7_PAIR(DW7_XT0, DW7_XT1) DW7_PAIR(DW7_XT0, DW7_XT1)
      DW7_FINISH(DW7_XT0)
      "vst1.8 {d0-d1}, [%[out]]\n"
      : [t] "=&r"(t), [p] "=&r"(p), [tp] "+r"(tp)
      : [out] "r"(out), [table] "r"(table)
      : DW7_CLOBBERS);
}

/* The step's taps (qs8_dw3x3_unpack_taps), bias and requantization constants in channel order from
 * the packed block. Returns the smallest weight. */
static int dw_unpack_step(const uint8_t* block, size_t pairs, const int* slots, size_t h,
                          const lite_qs8_gemm_params* params, dw_step_table* table) {
  const size_t ia = 8 * h, ib = 8 * h + 4, ic = 16 + 8 * h, id = 16 + 8 * h + 4;
  const int smallest = qs8_dw3x3_unpack_taps(block, pairs, slots, h, table->taps);
  const int32_t* bias = (const int32_t*)block;
  const int32_t* multiplier = (const int32_t*)(block + BLOCK * 4 + pairs * BLOCK * 4);
  const int32_t* shift = multiplier + BLOCK;
  const size_t order[4] = {ia, ic, ib, id};
  for (size_t g = 0; g < 4; ++g) {
    const qs8_requant4_neon r = qs8_requant4_load(multiplier + order[g], shift + order[g]);
    int32_t* base = g < 2 ? table->multiplier_lo : table->multiplier_hi;
    const size_t o = 4 * (g % 2);
    vst1q_s32(table->bias + 4 * g, vld1q_s32(bias + order[g]));
    vst1q_s32(base + o, r.multiplier);
    vst1q_s32(base + 8 + o, r.left_shift);
    vst1q_s32(base + 16 + o, r.neg_right_shift);
  }
  vst1q_s16(table->zero_point, vdupq_n_s16((int16_t)params->output_zero_point));
  vst1_s8(table->act_min, vdup_n_s8((int8_t)params->act_min));
  vst1_s8(table->act_max, vdup_n_s8((int8_t)params->act_max));
  return smallest;
}

/* Output pixels of one row and step: border pixels (checked taps) or interior. */
static void dw_row_step(const lite_conv2d_params* p, const int8_t* const* rows, const int8_t* zero_row, size_t c0,
                        size_t count, int paired, const dw_step_table* table, size_t interior_begin,
                        size_t interior_end, int8_t* out_row) {
  const size_t c = p->in_c;
  const ptrdiff_t sw = (ptrdiff_t)p->stride_w, dw = (ptrdiff_t)p->dilation_w, pl = (ptrdiff_t)p->pad_left;
  const int rows_real = rows[0] != NULL && rows[1] != NULL && rows[2] != NULL;
  for (size_t ow = 0; ow < p->out_w; ++ow) {
    if (ow == interior_begin && interior_begin < interior_end && rows_real && count == STEP && paired) {
      const ptrdiff_t offset = ((ptrdiff_t)ow * sw - pl) * (ptrdiff_t)c + (ptrdiff_t)c0;
      const ptrdiff_t dil = dw * (ptrdiff_t)c, back = sw * (ptrdiff_t)c - 2 * dil;
      dw_interior16(interior_end - ow, rows[0] + offset, rows[1] + offset, rows[2] + offset, dil, back,
                    out_row + ow * c + c0, c, table);
      ow = interior_end - 1;
      continue;
    }
    const int8_t* t[9];
    qs8_dw3x3_border_taps(p, rows, zero_row, ow, c0, t);
    if (count == STEP && paired)
      dw_border16(t, out_row + ow * c + c0, table);
    else
      dw_pixel(t, table, count, paired, out_row + ow * c + c0);
  }
}

void lite_qs8_dwconv_3x3_armv7_neon(const lite_conv2d_params* p, const void* packed, const lite_qs8_gemm_params* params,
                                    const int8_t* input, int8_t* output, size_t row_begin, size_t row_end) {
  const size_t c = p->out_c;
  int slots[LITE_QS8_DWCONV_MAX_TAPS * 2];
  const size_t pairs = lite_qs8_dwconv_pair_slots(p, slots);
  const size_t blocks = (c + BLOCK - 1) / BLOCK, block_bytes = BLOCK * 12 + pairs * BLOCK * 4;
  const int8_t* zero_row = (const int8_t*)packed + blocks * block_bytes;
  size_t interior_begin, interior_end;
  qs8_dw3x3_interior(p, &interior_begin, &interior_end);
  for (size_t c0 = 0; c0 < c; c0 += STEP) {
    /* steps outside, rows inside: a step's table is unpacked once per call */
    const size_t count = c - c0 < STEP ? c - c0 : STEP;
    dw_step_table table __attribute__((aligned(16)));
    const int smallest = dw_unpack_step((const uint8_t*)packed + (c0 / BLOCK) * block_bytes, pairs, slots,
                                        (c0 / STEP) % 2, params, &table);
    for (size_t row = row_begin; row < row_end; ++row) {
      const int8_t* rows[3];
      qs8_dw3x3_input_rows(p, input, row, rows);
      dw_row_step(p, rows, zero_row, c0, count, smallest > -128, &table, interior_begin, interior_end,
                  output + row * p->out_w * c);
    }
  }
}
