/* int8 GEMM microkernel (qs8_gemm_packed.h) for 32-bit ARM NEON (Cortex-A7, A53 / A72 running
 * 32-bit Raspberry Pi OS): MR 72 (up to 36 2-row tiles per call: the runtime's ~64-row tile in one
 * call, the panel's epilogue constants set up once), NR 4, KR 16, signed A (A_OFFSET 0). 8
 * accumulators: armv7 has 16 q registers.
 *
 * Per row, column and 16 k: vmull.s8 (k 0-7) + vmlal.s8 (k 8-15) leave eight int16 sums of two
 * products, vpadal.s16 folds them into four int32 partial sums: 16 multiply-adds in 3 instructions.
 * The int16 pair is exact while |w| <= 127 (2 * 128 * 127 < 2^15); a panel holding a -128 weight
 * (flagged by lite_qs8_gemm_pack_shift_amounts) folds every product on its own (vmull + vpadal per
 * 8 k). The packed shift words are that pack's sqshl / srshl amounts (qs8_requantize_neon.h).
 *
 * Whole 2-row tiles of full panels without -128 weights and k >= 16 run in one assembly block (k
 * loop, k % 16 tail, pairwise reduction, requantization and stores): GCC's allocation of the same
 * loop in intrinsics kept the column pointers on the stack (38 instructions per 16 k instead of
 * 30) and its epilogue took ~60 instructions per tile instead of ~30. The rest (a lone last row,
 * partial panels, k < 16, -128 weights) runs the intrinsics below. */
#include <arm_neon.h>
#include <stddef.h>
#include <string.h>

#include "lite_kernels/qs8_gemm_packed.h"
#include "qs8_gemm_ukernels_arm.h"
#include "qs8_requantize_neon.h"

enum { MR = 72, NR = 4, KR = 16 };

/* Folding eight int16 sums into an accumulator: the first k step initializes it (vpaddl). */
#define FOLD_INIT(acc, x) ((acc) = vpaddlq_s16(x))
#define FOLD_ADD(acc, x) ((acc) = vpadalq_s16((acc), (x)))

/* One 16-k step of rows a0x / a1x against the 4 columns at wp (16 bytes per column); with
 * pairs_fit (no -128 weight) two products share an int16 sum, else each is folded on its own. */
#define QS8_STEP(FOLD, a0x, a1x, wp, pairs_fit)                                                    \
  do {                                                                                            \
    for (int j = 0; j < NR; ++j) {                                                                \
      const int8x16_t wj = vld1q_s8((wp) + 16 * j);                                               \
      const int16x8_t p0 = vmull_s8(vget_low_s8(a0x), vget_low_s8(wj));                           \
      const int16x8_t p1 = vmull_s8(vget_low_s8(a1x), vget_low_s8(wj));                           \
      if (pairs_fit) {                                                                            \
        FOLD(acc0[j], vmlal_s8(p0, vget_high_s8(a0x), vget_high_s8(wj)));                         \
        FOLD(acc1[j], vmlal_s8(p1, vget_high_s8(a1x), vget_high_s8(wj)));                         \
      } else {                                                                                    \
        FOLD(acc0[j], p0);                                                                        \
        FOLD(acc1[j], p1);                                                                        \
        FOLD_ADD(acc0[j], vmull_s8(vget_high_s8(a0x), vget_high_s8(wj)));                         \
        FOLD_ADD(acc1[j], vmull_s8(vget_high_s8(a1x), vget_high_s8(wj)));                         \
      }                                                                                           \
    }                                                                                             \
  } while (0)

/* Lane j = the sum of the four lanes of acc[j]. */
static inline int32x4_t reduce4(const int32x4_t* acc) {
  const int32x2_t p0 = vpadd_s32(vget_low_s32(acc[0]), vget_high_s32(acc[0]));
  const int32x2_t p1 = vpadd_s32(vget_low_s32(acc[1]), vget_high_s32(acc[1]));
  const int32x2_t p2 = vpadd_s32(vget_low_s32(acc[2]), vget_high_s32(acc[2]));
  const int32x2_t p3 = vpadd_s32(vget_low_s32(acc[3]), vget_high_s32(acc[3]));
  return vcombine_s32(vpadd_s32(p0, p1), vpadd_s32(p2, p3));
}

/* The int32 partial sums of rows a0 and a1 (a1 may repeat a0) against one panel's weights. */
static inline __attribute__((always_inline)) void qs8_rows2_sums(size_t k, const int8_t* a0, const int8_t* a1,
                                                                 const int8_t* weights, int pairs_fit,
                                                                 int32x4_t* acc0, int32x4_t* acc1) {
  const int8_t* wp = weights;
  size_t left = k;
  /* The packed weights are zero past k, so the zero bytes of a partial load add nothing. */
  if (left >= KR) {
    const int8x16_t va0 = vld1q_s8(a0), va1 = vld1q_s8(a1);
    QS8_STEP(FOLD_INIT, va0, va1, wp, pairs_fit);
    a0 += KR, a1 += KR, left -= KR, wp += NR * KR;
  } else {
    const int8x16_t va0 = qs8_load_tail16(a0, left, 0), va1 = qs8_load_tail16(a1, left, 0);
    QS8_STEP(FOLD_INIT, va0, va1, wp, pairs_fit);
    left = 0;
  }
  for (; left >= KR; left -= KR, wp += NR * KR) {
    const int8x16_t va0 = vld1q_s8(a0), va1 = vld1q_s8(a1);
    a0 += KR, a1 += KR;
    QS8_STEP(FOLD_ADD, va0, va1, wp, pairs_fit);
  }
  if (left != 0) {
    const int8x16_t va0 = qs8_load_tail16(a0, left, k - left), va1 = qs8_load_tail16(a1, left, k - left);
    QS8_STEP(FOLD_ADD, va0, va1, wp, pairs_fit);
  }
}

/* What the assembly tile loop reads, by fixed offsets (a pointer in one register: the loop keeps ten
 * others). The first 96 bytes are loaded by one vldm into q8-q13. */
typedef struct {
  int32_t bias[4], multiplier[4], left_shift[4], neg_right_shift[4]; /* q8 - q11 */
  int16_t zero_point[8];                                             /* q12 */
  int8_t act_min[8], act_max[8];                                     /* d26, d27 */
  int32_t more;                                                      /* 96: whole 16-k steps after the first */
  int32_t tail;                                                      /* 100: k % 16 */
  const uint8_t* tail_index;                                         /* 104: vtbl indices of the tail */
  const int8_t* weights;                                             /* 108 */
} tile_constants;

_Static_assert(offsetof(tile_constants, more) == 96 && offsetof(tile_constants, tail_index) == 104 &&
                   offsetof(tile_constants, weights) == 108,
               "the assembly reads tile_constants at these offsets");

/* vtbl indices moving a k % 16 tail of `tail` bytes down: the 16 at k_tail_index + 16 - tail (255: zero). */
static const uint8_t k_tail_index[32] = {0,   1,   2,   3,   4,   5,   6,   7,   8,   9,   10,
                                         11,  12,  13,  14,  15,  255, 255, 255, 255, 255, 255,
                                         255, 255, 255, 255, 255, 255, 255, 255, 255, 255};

/* Two columns (weights in d20-d23) of a 16-k step of rows q8 / q9: accumulators c0 / r0 (row 0 /
 * row 1 of the first column) and c1 / r1 (the second). */
#define V7_COLS2(FOLD, c0, r0, c1, r1)                                               \
  "vld1.8 {d20-d23}, [%[w]]!\n"                                                      \
  "vmull.s8 q12, d16, d20\n"                                                         \
  "vmull.s8 q13, d18, d20\n"                                                         \
  "vmull.s8 q14, d16, d22\n"                                                         \
  "vmull.s8 q15, d18, d22\n"                                                         \
  "vmlal.s8 q12, d17, d21\n"                                                         \
  "vmlal.s8 q13, d19, d21\n"                                                         \
  "vmlal.s8 q14, d17, d23\n"                                                         \
  "vmlal.s8 q15, d19, d23\n"                                                         \
  FOLD " " c0 ", q12\n" FOLD " " r0 ", q13\n" FOLD " " c1 ", q14\n" FOLD " " r1 ", q15\n"
#define V7_STEP(FOLD) V7_COLS2(FOLD, "q0", "q4", "q1", "q5") V7_COLS2(FOLD, "q2", "q6", "q3", "q7")
/* A tail of at most 8 bytes: k 8-15 are zero, vmull alone. */
#define V7_COLS2_LOW(c0, r0, c1, r1)                                                 \
  "vld1.8 {d20-d23}, [%[w]]!\n"                                                      \
  "vmull.s8 q12, d16, d20\n"                                                         \
  "vmull.s8 q13, d18, d20\n"                                                         \
  "vmull.s8 q14, d16, d22\n"                                                         \
  "vmull.s8 q15, d18, d22\n"                                                         \
  "vpadal.s16 " c0 ", q12\n vpadal.s16 " r0 ", q13\n"                                \
  "vpadal.s16 " c1 ", q14\n vpadal.s16 " r1 ", q15\n"
#define V7_STEP_LOW V7_COLS2_LOW("q0", "q4", "q1", "q5") V7_COLS2_LOW("q2", "q6", "q3", "q7")
#define V7_LOAD_A2                                                                   \
  "vld1.8 {d16-d17}, [%[a0]]!\n"                                                     \
  "vld1.8 {d18-d19}, [%[a1]]!\n"

/* `pairs` whole 2-row tiles (rows a, a + a_stride, ...; 4 output bytes per row at c, c + c_stride,
 * ...) of a panel without -128 weights, k >= 16. A k % 16 tail is the 16 bytes ending at the row's
 * last byte (inside the row as k >= 16) moved down by vtbl, indices past the row giving zero, so no
 * byte past a row is read. */
static void qs8_pairs_asm(size_t pairs, const int8_t* a, size_t a_stride, int8_t* c, size_t c_stride,
                          const tile_constants* e) {
  const int8_t *a0, *a1, *w;
  uintptr_t t, count;
  __asm__ volatile(
      "5:\n"
      "mov %[a0], %[a]\n"
      "add %[a1], %[a], %[as]\n"
      "ldr %[w], [%[e], #108]\n"
      V7_LOAD_A2 V7_STEP("vpaddl.s16")
      "ldr %[count], [%[e], #96]\n"
      "cmp %[count], #0\n"
      "beq 2f\n"
      "1:\n" V7_LOAD_A2 V7_STEP("vpadal.s16")
      "subs %[count], %[count], #1\n"
      "bne 1b\n"
      "2:\n"
      "ldr %[t], [%[e], #100]\n"
      "cmp %[t], #0\n"
      "beq 3f\n"
      "add %[a0], %[a0], %[t]\n"
      "add %[a1], %[a1], %[t]\n"
      "sub %[a0], %[a0], #16\n"
      "sub %[a1], %[a1], #16\n"
      "vld1.8 {d24-d25}, [%[a0]]\n"
      "vld1.8 {d26-d27}, [%[a1]]\n"
      "ldr %[count], [%[e], #104]\n"
      "vld1.8 {d28-d29}, [%[count]]\n"
      "vtbl.8 d16, {d24-d25}, d28\n"
      "vtbl.8 d17, {d24-d25}, d29\n"
      "vtbl.8 d18, {d26-d27}, d28\n"
      "vtbl.8 d19, {d26-d27}, d29\n"
      "cmp %[t], #8\n"
      "bls 6f\n"
      V7_STEP("vpadal.s16")
      "b 3f\n"
      "6:\n"
      V7_STEP_LOW
      "3:\n"
      /* row 0's four column sums into q0, row 1's into q1 */
      "vpadd.i32 d28, d0, d1\n"
      "vpadd.i32 d29, d2, d3\n"
      "vpadd.i32 d30, d4, d5\n"
      "vpadd.i32 d31, d6, d7\n"
      "vpadd.i32 d0, d28, d29\n"
      "vpadd.i32 d1, d30, d31\n"
      "vpadd.i32 d28, d8, d9\n"
      "vpadd.i32 d29, d10, d11\n"
      "vpadd.i32 d30, d12, d13\n"
      "vpadd.i32 d31, d14, d15\n"
      "vpadd.i32 d2, d28, d29\n"
      "vpadd.i32 d3, d30, d31\n"
      "vldm %[e], {d16-d27}\n"
      "vadd.i32 q0, q0, q8\n"
      "vadd.i32 q1, q1, q8\n"
      "vqshl.s32 q0, q0, q10\n"
      "vqshl.s32 q1, q1, q10\n"
      "vqdmulh.s32 q0, q0, q9\n"
      "vqdmulh.s32 q1, q1, q9\n"
      "vrshl.s32 q0, q0, q11\n"
      "vrshl.s32 q1, q1, q11\n"
      "vqmovn.s32 d0, q0\n"
      "vqmovn.s32 d1, q1\n"
      "vqadd.s16 q0, q0, q12\n"
      "vqmovn.s16 d0, q0\n"
      "vmax.s8 d0, d0, d26\n"
      "vmin.s8 d0, d0, d27\n"
      "vst1.32 {d0[0]}, [%[c]], %[cs]\n"
      "vst1.32 {d0[1]}, [%[c]], %[cs]\n"
      "add %[a], %[a], %[as], lsl #1\n"
      "subs %[pairs], %[pairs], #1\n"
      "bne 5b\n"
      : [a] "+r"(a), [c] "+r"(c), [pairs] "+r"(pairs), [a0] "=&r"(a0), [a1] "=&r"(a1), [w] "=&r"(w),
        [t] "=&r"(t), [count] "=&r"(count)
      : [e] "r"(e), [as] "r"(a_stride), [cs] "r"(c_stride)
      : "d0", "d1", "d2", "d3", "d4", "d5", "d6", "d7", "d8", "d9", "d10", "d11", "d12", "d13", "d14", "d15",
        "d16", "d17", "d18", "d19", "d20", "d21", "d22", "d23", "d24", "d25", "d26", "d27", "d28", "d29", "d30",
        "d31", "cc", "memory");
}

void lite_qs8_gemm_ukernel_72x4c16_armv7_neon(size_t mr, size_t nc, size_t k, const int8_t* a, size_t a_stride,
                                             const void* w, int8_t* c, size_t c_stride,
                                             const lite_qs8_gemm_params* params) {
  const size_t kc = (k + KR - 1) / KR * KR;
  const int8_t* weights = (const int8_t*)w + NR * sizeof(int32_t);
  const int32_t* multiplier = (const int32_t*)(weights + NR * kc);
  const int32_t* words = multiplier + NR;
  uint32_t flags;
  memcpy(&flags, words, sizeof(flags));
  const int32x4_t bias = vld1q_s32((const int32_t*)w), mult = vld1q_s32(multiplier);
  const int32x4_t left_shift = vld1q_s32(words), right_shift = vshrq_n_s32(left_shift, 8);
  const int has_left = (flags & LITE_QS8_PANEL_LEFT_SHIFT) != 0;
  const int16x8_t zero_point = vdupq_n_s16((int16_t)params->output_zero_point);
  const int8x8_t act_min = vdup_n_s8((int8_t)params->act_min), act_max = vdup_n_s8((int8_t)params->act_max);

  size_t i0 = 0;
  if ((flags & LITE_QS8_PANEL_WEIGHT_MIN) == 0 && k >= KR && nc == NR && mr >= 2) {
    tile_constants e;
    vst1q_s32(e.bias, bias), vst1q_s32(e.multiplier, mult);
    vst1q_s32(e.left_shift, left_shift), vst1q_s32(e.neg_right_shift, right_shift);
    vst1q_s16(e.zero_point, zero_point), vst1_s8(e.act_min, act_min), vst1_s8(e.act_max, act_max);
    e.more = (int32_t)(k / KR - 1), e.tail = (int32_t)(k % KR), e.tail_index = k_tail_index + KR - k % KR;
    e.weights = weights; /* a vqshl by 0 (no left shift) changes nothing: the assembly always runs it */
    const size_t pairs = mr / 2;
    qs8_pairs_asm(pairs, a, a_stride, c, c_stride, &e);
    i0 = 2 * pairs;
  }
  for (; i0 < mr; i0 += 2) {
    const int8_t* a0 = a + i0 * a_stride;
    const int8_t* a1 = i0 + 1 < mr ? a0 + a_stride : a0; /* a lone last row is read twice */
    int32x4_t acc0[NR], acc1[NR];
    if ((flags & LITE_QS8_PANEL_WEIGHT_MIN) == 0) {
      qs8_rows2_sums(k, a0, a1, weights, 1, acc0, acc1);
    } else {
      qs8_rows2_sums(k, a0, a1, weights, 0, acc0, acc1);
    }
    int32x4_t row0 = vaddq_s32(bias, reduce4(acc0)), row1 = vaddq_s32(bias, reduce4(acc1));
    if (has_left) row0 = vqshlq_s32(row0, left_shift), row1 = vqshlq_s32(row1, left_shift);
    row0 = vrshlq_s32(vqdmulhq_s32(row0, mult), right_shift);
    row1 = vrshlq_s32(vqdmulhq_s32(row1, mult), right_shift);
    /* Both rows narrowed at once: bytes 0-3 are row 0, bytes 4-7 row 1. */
    const uint32x2_t out = vreinterpret_u32_s8(qs8_narrow8(row0, row1, zero_point, act_min, act_max));
    int8_t* c0 = c + i0 * c_stride;
    if (nc == NR) { /* fixed-size copies of a lane: one (unaligned) str each, no memcpy call */
      const uint32_t out0 = vget_lane_u32(out, 0), out1 = vget_lane_u32(out, 1);
      memcpy(c0, &out0, sizeof(out0));
      if (i0 + 1 < mr) memcpy(c0 + c_stride, &out1, sizeof(out1));
    } else {
      int8_t bytes[8];
      vst1_u8((uint8_t*)bytes, vreinterpret_u8_u32(out));
      memcpy(c0, bytes, nc);
      if (i0 + 1 < mr) memcpy(c0 + c_stride, bytes + 4, nc);
    }
  }
}
