/* int8 GEMM microkernel (qs8_gemm_packed.h) for any ARMv8 NEON without the dot product (Cortex-A53,
 * A55 builds without it, A72, A73: Raspberry Pi 3 / 4): MR 36 (up to twelve 3-row tiles per call, the
 * panel's epilogue constants set up once), NR 8, KR 16, signed A (A_OFFSET 0).
 *
 * Per row, column and 16 k: smull (k 0-7) + smlal2 (k 8-15) leave eight int16 sums of two products,
 * sadalp folds them into four int32 partial sums: 16 multiply-adds in 3 instructions (smull +
 * sadalp per 8 k is 4). The int16 pair is exact while |w| <= 127: 2 * 128 * 127 = 32512 < 2^15.
 * Weights of -128 (imported models; our quantizer's weights are in [-127, 127]) could make a pair
 * 2 * 128 * 128 = 2^15, so a panel holding one runs smull + sadalp per 8 k instead (a flag of
 * the packed shift words; that path is C, two rows at a time). A pairwise-add tree reduces the four
 * partial sums once per tile.
 *
 * Packed shift words: lite_qs8_gemm_pack_shift_amounts's (the sqshl and srshl amounts and the
 * panel flags; register-operand sqshl and srshl read only the signed low byte of each lane: sqshl
 * takes the word as is, srshl the word shifted right by 8). */
#include <arm_neon.h>
#include <stddef.h>
#include <string.h>

#include "lite_kernels/qs8_gemm_packed.h"
#include "qs8_gemm_ukernels_arm.h"
#include "qs8_requantize_neon.h"

enum { MR = 36, NR = 8, KR = 16 };
/* Folding eight int16 sums into an accumulator: the first k step initializes it (saddlp). */
#define FOLD_INIT(acc, x) ((acc) = vpaddlq_s16(x))
#define FOLD_ADD(acc, x) ((acc) = vpadalq_s16((acc), (x)))

/* One 16-k step of rows a0x / a1x against the 8 columns at wp (16 bytes per column); with
 * pairs_fit (no -128 weight) two products share an int16 sum, else each is folded on its own. */
#define QS8_STEP(FOLD, a0x, a1x, wp, pairs_fit)                                                         \
  do {                                                                                                 \
    for (int j = 0; j < NR; ++j) {                                                                     \
      const int8x16_t wj = vld1q_s8((wp) + 16 * j);                                                    \
      const int16x8_t p0 = vmull_s8(vget_low_s8(a0x), vget_low_s8(wj));                                \
      const int16x8_t p1 = vmull_s8(vget_low_s8(a1x), vget_low_s8(wj));                                \
      if (pairs_fit) {                                                                                 \
        FOLD(acc0[j], vmlal_high_s8(p0, a0x, wj));                                                     \
        FOLD(acc1[j], vmlal_high_s8(p1, a1x, wj));                                                     \
      } else {                                                                                         \
        FOLD(acc0[j], p0);                                                                             \
        FOLD(acc1[j], p1);                                                                             \
        FOLD_ADD(acc0[j], vmull_high_s8(a0x, wj));                                                     \
        FOLD_ADD(acc1[j], vmull_high_s8(a1x, wj));                                                     \
      }                                                                                                \
    }                                                                                                  \
  } while (0)

/* Lane j = the sum of the four lanes of acc_j, j = 0..3. */
static inline int32x4_t reduce4(int32x4_t acc0, int32x4_t acc1, int32x4_t acc2, int32x4_t acc3) {
  return vpaddq_s32(vpaddq_s32(acc0, acc1), vpaddq_s32(acc2, acc3));
}

typedef struct {
  int32x4_t bias_lo, bias_hi, mult_lo, mult_hi, left_lo, left_hi, right_lo, right_hi;
  int16x8_t zero_point;
  int8x8_t act_min, act_max;
  int left; /* some u != 0: the sqshl runs */
} panel_epilogue;

static inline int32x4_t requant4(int32x4_t acc, int32x4_t mult, int32x4_t left, int32x4_t right, int has_left) {
  if (has_left) acc = vqshlq_s32(acc, left);
  return vrshlq_s32(vqdmulhq_s32(acc, mult), right);
}

static inline int8x8_t row_output(const int32x4_t* acc, const panel_epilogue* e) {
  const int32x4_t lo = vaddq_s32(e->bias_lo, reduce4(acc[0], acc[1], acc[2], acc[3]));
  const int32x4_t hi = vaddq_s32(e->bias_hi, reduce4(acc[4], acc[5], acc[6], acc[7]));
  return qs8_narrow8(requant4(lo, e->mult_lo, e->left_lo, e->right_lo, e->left),
                     requant4(hi, e->mult_hi, e->left_hi, e->right_hi, e->left), e->zero_point, e->act_min,
                     e->act_max);
}

/* Three rows against one panel without -128 weights: the whole k loop and the reduction of the
 * partial sums in one assembly block (the compiler's allocation of 24 accumulators, three A rows,
 * weights and products spilled a fifth of the loop). v0-v7 / v8-v15 / v16-v23 accumulate rows 0 /
 * 1 / 2 (column j in v[8 r + j]); per 16 k: three A loads (v24-v26), four ldp of two columns
 * (v27, v28), then per column and row smull + smlal2 (int16 pair sums in v29-v31) and sadalp (the
 * first step: saddlp, which initializes). A k % 16 tail (or k < 16) is read from `tail`: three
 * 16-byte rows zero-padded by the caller. The sums come out as lanes of v24-v29 (row r, columns
 * 0-3 / 4-7 in v[24 + 2 r] / v[25 + 2 r]). */
#define QS8_COL(r0, r1, r2, w, FOLD)                                                  \
  "smull v29.8h, v24.8b, " w ".8b\n"                                                  \
  "smull v30.8h, v25.8b, " w ".8b\n"                                                  \
  "smull v31.8h, v26.8b, " w ".8b\n"                                                  \
  "smlal2 v29.8h, v24.16b, " w ".16b\n"                                               \
  "smlal2 v30.8h, v25.16b, " w ".16b\n"                                               \
  "smlal2 v31.8h, v26.16b, " w ".16b\n"                                               \
  FOLD " " r0 ".4s, v29.8h\n" FOLD " " r1 ".4s, v30.8h\n" FOLD " " r2 ".4s, v31.8h\n"
/* A column of a tail step of at most 8 bytes: k 8-15 are zero, smull alone. */
#define QS8_COL_LOW(r0, r1, r2, w)                                                    \
  "smull v29.8h, v24.8b, " w ".8b\n"                                                  \
  "smull v30.8h, v25.8b, " w ".8b\n"                                                  \
  "smull v31.8h, v26.8b, " w ".8b\n"                                                  \
  "sadalp " r0 ".4s, v29.8h\n sadalp " r1 ".4s, v30.8h\n sadalp " r2 ".4s, v31.8h\n"
#define QS8_STEP3_LOW                                                                 \
  "ldp q27, q28, [%[wp]], #32\n"                                                      \
  QS8_COL_LOW("v0", "v8", "v16", "v27") QS8_COL_LOW("v1", "v9", "v17", "v28")         \
  "ldp q27, q28, [%[wp]], #32\n"                                                      \
  QS8_COL_LOW("v2", "v10", "v18", "v27") QS8_COL_LOW("v3", "v11", "v19", "v28")       \
  "ldp q27, q28, [%[wp]], #32\n"                                                      \
  QS8_COL_LOW("v4", "v12", "v20", "v27") QS8_COL_LOW("v5", "v13", "v21", "v28")       \
  "ldp q27, q28, [%[wp]], #32\n"                                                      \
  QS8_COL_LOW("v6", "v14", "v22", "v27") QS8_COL_LOW("v7", "v15", "v23", "v28")
#define QS8_LOAD_A3                                                                   \
  "ldr q24, [%[a0]], #16\n"                                                           \
  "ldr q25, [%[a1]], #16\n"                                                           \
  "ldr q26, [%[a2]], #16\n"
#define QS8_STEP3(FOLD)                                                               \
  "ldp q27, q28, [%[wp]], #32\n"                                                      \
  QS8_COL("v0", "v8", "v16", "v27", FOLD) QS8_COL("v1", "v9", "v17", "v28", FOLD)     \
  "ldp q27, q28, [%[wp]], #32\n"                                                      \
  QS8_COL("v2", "v10", "v18", "v27", FOLD) QS8_COL("v3", "v11", "v19", "v28", FOLD)   \
  "ldp q27, q28, [%[wp]], #32\n"                                                      \
  QS8_COL("v4", "v12", "v20", "v27", FOLD) QS8_COL("v5", "v13", "v21", "v28", FOLD)   \
  "ldp q27, q28, [%[wp]], #32\n"                                                      \
  QS8_COL("v6", "v14", "v22", "v27", FOLD) QS8_COL("v7", "v15", "v23", "v28", FOLD)
/* out = the four column sums of acc a..d (3 addp). */
#define QS8_REDUCE4(out, a, b, c, d)                                                  \
  "addp v30.4s, " a ".4s, " b ".4s\n"                                                 \
  "addp v31.4s, " c ".4s, " d ".4s\n"                                                 \
  "addp " out ".4s, v30.4s, v31.4s\n"

/* The epilogue of row r: its sums in lo / hi (v[24 + 2 r], v[25 + 2 r]) plus the bias, sqshl when
 * some left shift is nonzero, then sqdmulh / srshl (qs8_requantize_neon.h), the zero point and the
 * clamp with the panel's constants in v0-v10; stored as the 8 bytes of dlo at d. */
#define QS8_ADD_BIAS(lo, hi)                                                          \
  "add " lo ".4s, " lo ".4s, v0.4s\n"                                                 \
  "add " hi ".4s, " hi ".4s, v1.4s\n"
#define QS8_LEFT_SHIFT(lo, hi)                                                        \
  "sqshl " lo ".4s, " lo ".4s, v4.4s\n"                                               \
  "sqshl " hi ".4s, " hi ".4s, v5.4s\n"
#define QS8_ROW_OUT(lo, hi, dlo, d)                                                   \
  "sqdmulh " lo ".4s, " lo ".4s, v2.4s\n"                                             \
  "sqdmulh " hi ".4s, " hi ".4s, v3.4s\n"                                             \
  "srshl " lo ".4s, " lo ".4s, v6.4s\n"                                               \
  "srshl " hi ".4s, " hi ".4s, v7.4s\n"                                               \
  "sqxtn " lo ".4h, " lo ".4s\n"                                                      \
  "sqxtn2 " lo ".8h, " hi ".4s\n"                                                     \
  "sqadd " lo ".8h, " lo ".8h, v8.8h\n"                                               \
  "sqxtn " lo ".8b, " lo ".8h\n"                                                      \
  "smax " lo ".8b, " lo ".8b, v9.8b\n"                                                \
  "smin " lo ".8b, " lo ".8b, v10.8b\n"                                               \
  "str " dlo ", [" d "]\n"

_Static_assert(offsetof(panel_epilogue, right_lo) == 96 && offsetof(panel_epilogue, zero_point) == 128 &&
                   offsetof(panel_epilogue, act_min) == 144 && offsetof(panel_epilogue, act_max) == 152,
               "the assembly epilogue reads panel_epilogue at these offsets");

/* tbl indices moving a k % 16 tail of `left` bytes down: the 16 at k_tail_index + 16 - left. */
static const uint8_t k_tail_index[32] = {0,   1,   2,   3,   4,   5,   6,   7,   8,   9,   10,
                                         11,  12,  13,  14,  15,  255, 255, 255, 255, 255, 255,
                                         255, 255, 255, 255, 255, 255, 255, 255, 255, 255};

/* `triples` whole 3-row tiles (rows a, a + a_stride, ...; 8 output bytes per row at c, c + c_stride,
 * ...) of a panel without -128 weights, k >= 16, in one assembly block. A k % 16 tail is the 16
 * bytes ending at the row's last byte (k >= 16: all inside the row), moved down by tbl with
 * indices past the row selecting zero, so no byte past the row is read; a tail of at most 8 bytes
 * skips the smlal2 of the zero half. */
static inline __attribute__((always_inline)) void qs8_triples_pairs(size_t triples, size_t k, const int8_t* a,
                                                                    size_t a_stride, const int8_t* weights,
                                                                    const panel_epilogue* e, int8_t* c,
                                                                    size_t c_stride) {
  const size_t more = k / KR - 1, left = k % KR; /* full steps after the first; tail bytes */
  const uint8_t* idx = k_tail_index + KR - left;
  const int8_t *a0, *a1, *a2, *wp;
  int8_t* t;
  size_t count;
  __asm__ volatile(
      "5:\n"
      "mov %[a0], %[a]\n"
      "add %[a1], %[a], %[a_stride]\n"
      "add %[a2], %[a1], %[a_stride]\n"
      "mov %[wp], %[weights]\n"
      QS8_LOAD_A3 QS8_STEP3("saddlp")
      "cbz %[more], 2f\n"
      "mov %[count], %[more]\n"
      "1:\n" QS8_LOAD_A3 QS8_STEP3("sadalp")
      "subs %[count], %[count], #1\n"
      "b.ne 1b\n"
      "2:\n"
      "cbz %[left], 3f\n"
      "add %[t], %[a0], %[left]\n"
      "ldur q24, [%[t], #-16]\n"
      "add %[t], %[a1], %[left]\n"
      "ldur q25, [%[t], #-16]\n"
      "add %[t], %[a2], %[left]\n"
      "ldur q26, [%[t], #-16]\n"
      "ldr q29, [%[idx]]\n"
      "tbl v24.16b, {v24.16b}, v29.16b\n"
      "tbl v25.16b, {v25.16b}, v29.16b\n"
      "tbl v26.16b, {v26.16b}, v29.16b\n"
      "cmp %[left], #8\n"
      "b.ls 6f\n"
      QS8_STEP3("sadalp")
      "b 3f\n"
      "6:\n"
      QS8_STEP3_LOW
      "3:\n"
      QS8_REDUCE4("v24", "v0", "v1", "v2", "v3") QS8_REDUCE4("v25", "v4", "v5", "v6", "v7")
      QS8_REDUCE4("v26", "v8", "v9", "v10", "v11") QS8_REDUCE4("v27", "v12", "v13", "v14", "v15")
      QS8_REDUCE4("v28", "v16", "v17", "v18", "v19") QS8_REDUCE4("v29", "v20", "v21", "v22", "v23")
      "ldp q0, q1, [%[e]]\n"
      "ldp q2, q3, [%[e], #32]\n"
      "ldp q6, q7, [%[e], #96]\n"
      "ldr q8, [%[e], #128]\n"
      "ldp d9, d10, [%[e], #144]\n"
      QS8_ADD_BIAS("v24", "v25") QS8_ADD_BIAS("v26", "v27") QS8_ADD_BIAS("v28", "v29")
      "cbz %w[has_left], 4f\n"
      "ldp q4, q5, [%[e], #64]\n"
      QS8_LEFT_SHIFT("v24", "v25") QS8_LEFT_SHIFT("v26", "v27") QS8_LEFT_SHIFT("v28", "v29")
      "4:\n"
      QS8_ROW_OUT("v24", "v25", "d24", "%[c]")
      "add %[t], %[c], %[c_stride]\n"
      QS8_ROW_OUT("v26", "v27", "d26", "%[t]")
      "add %[t], %[t], %[c_stride]\n"
      QS8_ROW_OUT("v28", "v29", "d28", "%[t]")
      "add %[c], %[t], %[c_stride]\n"
      "add %[a], %[a2], %[a_stride]\n"
      "sub %[a], %[a], %[k]\n"
      "subs %[triples], %[triples], #1\n"
      "b.ne 5b\n"
      : [a] "+r"(a), [c] "+r"(c), [triples] "+r"(triples), [a0] "=&r"(a0), [a1] "=&r"(a1), [a2] "=&r"(a2),
        [wp] "=&r"(wp), [t] "=&r"(t), [count] "=&r"(count)
      : [a_stride] "r"(a_stride), [c_stride] "r"(c_stride), [weights] "r"(weights), [more] "r"(more),
        [left] "r"(left), [k] "r"(k - left), [idx] "r"(idx), [e] "r"(e), [has_left] "r"(e->left)
      : "v0", "v1", "v2", "v3", "v4", "v5", "v6", "v7", "v8", "v9", "v10", "v11", "v12", "v13", "v14", "v15",
        "v16", "v17", "v18", "v19", "v20", "v21", "v22", "v23", "v24", "v25", "v26", "v27", "v28", "v29", "v30",
        "v31", "cc", "memory");
}

/* Rows a0 and a1 (a1 may repeat a0) into c0 and, when c1 is not NULL, c1. */
static inline __attribute__((always_inline)) void qs8_rows2(size_t k, const int8_t* a0, const int8_t* a1,
                                                            const int8_t* weights, int pairs_fit,
                                                            const panel_epilogue* e, size_t nc, int8_t* c0,
                                                            int8_t* c1) {
  const int8_t* wp = weights;
  int32x4_t acc0[NR], acc1[NR];
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
  qs8_store_partial8(c0, row_output(acc0, e), nc);
  if (c1 != NULL) qs8_store_partial8(c1, row_output(acc1, e), nc);
}

void lite_qs8_gemm_ukernel_36x8c16_aarch64_neon(size_t mr, size_t nc, size_t k, const int8_t* a, size_t a_stride,
                                               const void* w, int8_t* c, size_t c_stride,
                                               const lite_qs8_gemm_params* params) {
  const size_t kc = (k + KR - 1) / KR * KR;
  const int32_t* bias = (const int32_t*)w;
  const int8_t* weights = (const int8_t*)w + NR * sizeof(int32_t);
  const int32_t* multiplier = (const int32_t*)(weights + NR * kc);
  const int32_t* words = multiplier + NR;
  uint32_t flags;
  memcpy(&flags, words, sizeof(flags));
  panel_epilogue e;
  e.bias_lo = vld1q_s32(bias), e.bias_hi = vld1q_s32(bias + 4);
  e.mult_lo = vld1q_s32(multiplier), e.mult_hi = vld1q_s32(multiplier + 4);
  e.left_lo = vld1q_s32(words), e.left_hi = vld1q_s32(words + 4);
  e.right_lo = vshrq_n_s32(e.left_lo, 8), e.right_hi = vshrq_n_s32(e.left_hi, 8);
  e.zero_point = vdupq_n_s16((int16_t)params->output_zero_point);
  e.act_min = vdup_n_s8((int8_t)params->act_min), e.act_max = vdup_n_s8((int8_t)params->act_max);
  e.left = (flags & LITE_QS8_PANEL_LEFT_SHIFT) != 0;
  const int pairs_fit = (flags & LITE_QS8_PANEL_WEIGHT_MIN) == 0;
  size_t i0 = 0;
  if (pairs_fit && k >= KR && nc == NR && mr >= 3) {
    const size_t triples = mr / 3;
    qs8_triples_pairs(triples, k, a, a_stride, weights, &e, c, c_stride);
    i0 = 3 * triples;
  }
  /* The rest (rows past the last whole 3-row tile, partial columns, k < 16, -128 weights) in C. */
  for (; i0 < mr; i0 += 2) {
    const int8_t* a0 = a + i0 * a_stride;
    const int8_t* a1 = i0 + 1 < mr ? a0 + a_stride : a0; /* a lone last row is read twice */
    int8_t* c0 = c + i0 * c_stride;
    int8_t* c1 = i0 + 1 < mr ? c0 + c_stride : NULL;
    if (pairs_fit) {
      qs8_rows2(k, a0, a1, weights, 1, &e, nc, c0, c1);
    } else {
      qs8_rows2(k, a0, a1, weights, 0, &e, nc, c0, c1);
    }
  }
}
