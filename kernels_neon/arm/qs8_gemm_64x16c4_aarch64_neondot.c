/* int8 GEMM microkernel (qs8_gemm_packed.h) for aarch64 with the dot product extension (Cortex-A76 /
 * A78, Raspberry Pi 5): MR 64 (up to sixteen 4-row tiles per call: the runtime's ~64-row tile in one
 * call, the panel's epilogue constants set up once), NR 16, KR 4, signed A (A_OFFSET 0).
 *
 * One sdot (by element) adds four k of one A row to four columns: 16 accumulators (4 rows x 4 column
 * quads), per 16 k four A loads, four ld1 of the 4 x 64 weight bytes and 64 sdot (1024 multiply-adds
 * in 72 instructions). Whole 4-row tiles with k >= 16 run in one assembly block: the k loop, a k % 16
 * tail (the 16 bytes ending at the row's last byte moved down by tbl, so no byte past a row is read),
 * the bias loaded straight into the accumulators (ld1 of four registers), the requantization (its
 * constants read from the panel, the srshl amounts, zero point and clamp kept in registers for the
 * call) and the stores; a partial panel (nc < 16) is written to a scratch tile and copied; rows past
 * the last whole tile run as the tile of the last four rows. A panel of <= 8 columns (n = 24, 360)
 * with k % 16 == 0 runs 8x8 tiles instead (qs8_dot_tiles8). The same blocks read A rows made of
 * runs (qs8_gemm_packed_runs.h: a convolution's kernel rows in place, no im2col) with one more loop
 * over the runs; the plain GEMM is one run of k bytes. The rest (mr < 4, runs or k < 16) runs the
 * intrinsics version below. The packed shift words are lite_qs8_gemm_pack_shift_amounts's sqshl /
 * srshl amounts (qs8_requantize_neon.h). */
#include <arm_neon.h>
#include <stddef.h>
#include <string.h>

#include "lite_kernels/qs8_gemm_packed.h"
#include "qs8_gemm_ukernels_arm.h"
#include "qs8_requantize_neon.h"

enum { MR = 64, NR = 16, KR = 4, TILE = 4 };

/* One k group (lane L of the A vectors) against the 16 columns at wp. */
#define QS8_DOT_GROUP(L)                                           \
  do {                                                             \
    const int8x16_t w0 = vld1q_s8(wp), w1 = vld1q_s8(wp + 16);     \
    const int8x16_t w2 = vld1q_s8(wp + 32), w3 = vld1q_s8(wp + 48); \
    wp += NR * KR;                                                 \
    for (int i = 0; i < n_rows; ++i) {                             \
      acc[i][0] = vdotq_laneq_s32(acc[i][0], w0, va[i], L);        \
      acc[i][1] = vdotq_laneq_s32(acc[i][1], w1, va[i], L);        \
      acc[i][2] = vdotq_laneq_s32(acc[i][2], w2, va[i], L);        \
      acc[i][3] = vdotq_laneq_s32(acc[i][3], w3, va[i], L);        \
    }                                                              \
  } while (0)

/* Up to n_rows rows (mr <= n_rows <= 4; rows past mr re-read row mr - 1) of one panel in intrinsics. */
static inline __attribute__((always_inline)) void qs8_dot_rows_n(size_t mr, size_t nc, size_t runs,
                                                                 size_t run_bytes, const int8_t* const* a,
                                                                 size_t offset, size_t a_stride, const void* w, int8_t* c,
                                                                 size_t c_stride, const lite_qs8_gemm_params* params,
                                                                 const int n_rows) {
  const size_t k = runs * run_bytes;
  const int32_t* bias = (const int32_t*)w;
  const int8_t* wp = (const int8_t*)w + NR * sizeof(int32_t);
  int32x4_t acc[TILE][4];
  for (int i = 0; i < n_rows; ++i)
    for (int q = 0; q < 4; ++q) acc[i][q] = vld1q_s32(bias + 4 * q);
  for (size_t s = 0; s < runs; ++s) {
    /* Rows past mr re-read row mr - 1 (valid memory); their results are never stored. */
    const int8_t* rows[TILE];
    for (int i = 0; i < n_rows; ++i) rows[i] = a[s] + offset + ((size_t)i < mr ? (size_t)i : mr - 1) * a_stride;
    size_t left = run_bytes;
    for (; left >= 16; left -= 16) {
      int8x16_t va[TILE];
      for (int i = 0; i < n_rows; ++i) va[i] = vld1q_s8(rows[i]), rows[i] += 16;
      QS8_DOT_GROUP(0);
      QS8_DOT_GROUP(1);
      QS8_DOT_GROUP(2);
      QS8_DOT_GROUP(3);
    }
    if (left != 0) {
      /* The packed weights are zero past k (and a run's length is a multiple of KR), so the zero bytes
       * of the partial loads add nothing. */
      int8x16_t va[TILE];
      for (int i = 0; i < n_rows; ++i) va[i] = qs8_load_tail16(rows[i], left, run_bytes - left);
      QS8_DOT_GROUP(0);
      if (left > 4) QS8_DOT_GROUP(1);
      if (left > 8) QS8_DOT_GROUP(2);
      if (left > 12) QS8_DOT_GROUP(3);
    }
  }
  const int32_t* multiplier = (const int32_t*)((const int8_t*)w + NR * sizeof(int32_t) + NR * ((k + KR - 1) / KR * KR));
  const int32_t* words = multiplier + NR;
  const int16x8_t zero_point = vdupq_n_s16((int16_t)params->output_zero_point);
  const int8x8_t act_min = vdup_n_s8((int8_t)params->act_min), act_max = vdup_n_s8((int8_t)params->act_max);
  qs8_requant4_neon r[4];
  for (int q = 0; q < 4; ++q) {
    r[q].multiplier = vld1q_s32(multiplier + 4 * q);
    r[q].left_shift = vld1q_s32(words + 4 * q);
    r[q].neg_right_shift = vshrq_n_s32(r[q].left_shift, 8);
  }
  for (size_t i = 0; i < mr; ++i) {
    const int8x8_t lo = qs8_narrow8(qs8_requant4_apply(acc[i][0], &r[0]), qs8_requant4_apply(acc[i][1], &r[1]),
                                    zero_point, act_min, act_max);
    qs8_store_partial8(c + i * c_stride, lo, nc < 8 ? nc : 8);
    if (nc > 8) {
      const int8x8_t hi = qs8_narrow8(qs8_requant4_apply(acc[i][2], &r[2]), qs8_requant4_apply(acc[i][3], &r[3]),
                                      zero_point, act_min, act_max);
      qs8_store_partial8(c + i * c_stride + 8, hi, nc - 8);
    }
  }
}

/* mr < 4 rows: one row alone (the fully connected layer of a batch of one) or a padded 4-row tile. */
static void qs8_dot_rows(size_t mr, size_t nc, size_t runs, size_t run_bytes, const int8_t* const* a, size_t offset,
                         size_t a_stride, const void* w, int8_t* c, size_t c_stride, const lite_qs8_gemm_params* params) {
  if (mr == 1)
    qs8_dot_rows_n(1, nc, runs, run_bytes, a, offset, a_stride, w, c, c_stride, params, 1);
  else
    qs8_dot_rows_n(mr, nc, runs, run_bytes, a, offset, a_stride, w, c, c_stride, params, TILE);
}

/* tbl indices moving a k % 16 tail of `left` bytes down: the 16 at k_tail_index + 16 - left. */
static const uint8_t k_tail_index[32] = {0,   1,   2,   3,   4,   5,   6,   7,   8,   9,   10,
                                         11,  12,  13,  14,  15,  255, 255, 255, 255, 255, 255,
                                         255, 255, 255, 255, 255, 255, 255, 255, 255, 255};

#define DOT_GROUP(L)                                                                  \
  "ld1 {v20.16b, v21.16b, v22.16b, v23.16b}, [%[wp]], #64\n"                          \
  "sdot v0.4s, v20.16b, v16.4b[" #L "]\n"                                             \
  "sdot v1.4s, v21.16b, v16.4b[" #L "]\n"                                             \
  "sdot v2.4s, v22.16b, v16.4b[" #L "]\n"                                             \
  "sdot v3.4s, v23.16b, v16.4b[" #L "]\n"                                             \
  "sdot v4.4s, v20.16b, v17.4b[" #L "]\n"                                             \
  "sdot v5.4s, v21.16b, v17.4b[" #L "]\n"                                             \
  "sdot v6.4s, v22.16b, v17.4b[" #L "]\n"                                             \
  "sdot v7.4s, v23.16b, v17.4b[" #L "]\n"                                             \
  "sdot v8.4s, v20.16b, v18.4b[" #L "]\n"                                             \
  "sdot v9.4s, v21.16b, v18.4b[" #L "]\n"                                             \
  "sdot v10.4s, v22.16b, v18.4b[" #L "]\n"                                            \
  "sdot v11.4s, v23.16b, v18.4b[" #L "]\n"                                            \
  "sdot v12.4s, v20.16b, v19.4b[" #L "]\n"                                            \
  "sdot v13.4s, v21.16b, v19.4b[" #L "]\n"                                            \
  "sdot v14.4s, v22.16b, v19.4b[" #L "]\n"                                            \
  "sdot v15.4s, v23.16b, v19.4b[" #L "]\n"
/* The loop over a tile's runs (label 6): rows 0-3 of run s at a[s] + offset + i * a_stride, k loop count. */
#define DOT_RUNS_BEGIN                                                                \
  "mov %[run], %[a]\n"                                                                \
  "mov %[run_count], %[runs]\n"                                                       \
  "6:\n"                                                                              \
  "ldr %[a0], [%[run]], #8\n"                                                         \
  "add %[a0], %[a0], %[offset]\n"                                                     \
  "add %[a1], %[a0], %[a_stride]\n"                                                   \
  "add %[a2], %[a1], %[a_stride]\n"                                                   \
  "add %[a3], %[a2], %[a_stride]\n"                                                   \
  "mov %[count], %[full]\n"
#define DOT_TAIL_LOAD(v, row)                                                         \
  "add %[t], " row ", %[left]\n"                                                      \
  "ldur " v ", [%[t], #-16]\n"
/* Row r's 16 outputs (accumulators a..d) to int8 at dst, which moves on to the next row: zero point
 * v24, clamp v25 / v26. */
#define DOT_ROW_OUT(a, b, c, d, dst)                                                  \
  "sqxtn v16.4h, " a ".4s\n"                                                          \
  "sqxtn2 v16.8h, " b ".4s\n"                                                         \
  "sqxtn v17.4h, " c ".4s\n"                                                          \
  "sqxtn2 v17.8h, " d ".4s\n"                                                         \
  "sqadd v16.8h, v16.8h, v24.8h\n"                                                    \
  "sqadd v17.8h, v17.8h, v24.8h\n"                                                    \
  "sqxtn v16.8b, v16.8h\n"                                                            \
  "sqxtn2 v16.16b, v17.8h\n"                                                          \
  "smax v16.16b, v16.16b, v25.16b\n"                                                  \
  "smin v16.16b, v16.16b, v26.16b\n"                                                  \
  "st1 {v16.16b}, [" dst "], %[c_stride]\n"
#define DOT_APPLY16(op, r0, r1, r2, r3)                                               \
  op " v0.4s, v0.4s, " r0 ".4s\n" op " v1.4s, v1.4s, " r1 ".4s\n"                     \
  op " v2.4s, v2.4s, " r2 ".4s\n" op " v3.4s, v3.4s, " r3 ".4s\n"                     \
  op " v4.4s, v4.4s, " r0 ".4s\n" op " v5.4s, v5.4s, " r1 ".4s\n"                     \
  op " v6.4s, v6.4s, " r2 ".4s\n" op " v7.4s, v7.4s, " r3 ".4s\n"                     \
  op " v8.4s, v8.4s, " r0 ".4s\n" op " v9.4s, v9.4s, " r1 ".4s\n"                     \
  op " v10.4s, v10.4s, " r2 ".4s\n" op " v11.4s, v11.4s, " r3 ".4s\n"                 \
  op " v12.4s, v12.4s, " r0 ".4s\n" op " v13.4s, v13.4s, " r1 ".4s\n"                 \
  op " v14.4s, v14.4s, " r2 ".4s\n" op " v15.4s, v15.4s, " r3 ".4s\n"

/* `tiles` whole 4-row tiles, k >= 16 bytes per row in `runs` runs of run_bytes >= 16 (run s of row i
 * at a[s] + i * a_stride; one run of k bytes for a plain GEMM), 16 output bytes per row at c,
 * c + c_stride, ... (rows counted from byte `offset` of each run), from the panel at w (bias, weights, multipliers, shift words). The srshl amounts
 * (v28-v31), zero point and clamp (v24-v26) stay in registers for the call; the bias is loaded into
 * the accumulators and the multipliers (and, with a left shift, the sqshl words) per tile. */
static void qs8_dot_tiles(size_t tiles, size_t runs, size_t run_bytes, const int8_t* const* a, size_t offset,
                          size_t a_stride,
                          const void* w, const lite_qs8_gemm_params* params, int has_left, int8_t* c,
                          size_t c_stride) {
  const size_t full = run_bytes / 16, left = run_bytes % 16, kc = (runs * run_bytes + KR - 1) / KR * KR;
  const uint8_t* idx = k_tail_index + 16 - left;
  const int8_t* multiplier = (const int8_t*)w + NR * sizeof(int32_t) + NR * kc;
  const int8_t *a0, *a1, *a2, *a3, *wp;
  const int8_t* t;
  const int8_t* const* run;
  size_t count, run_count;
  __asm__ volatile(
      "add %[t], %[multiplier], #64\n"
      "ld1 {v28.4s, v29.4s, v30.4s, v31.4s}, [%[t]]\n"
      "sshr v28.4s, v28.4s, #8\n"
      "sshr v29.4s, v29.4s, #8\n"
      "sshr v30.4s, v30.4s, #8\n"
      "sshr v31.4s, v31.4s, #8\n"
      "ld1r {v24.8h}, [%[params]]\n"
      "add %[t], %[params], #4\n"
      "ld1r {v25.16b}, [%[t]]\n"
      "add %[t], %[params], #8\n"
      "ld1r {v26.16b}, [%[t]]\n"
      "5:\n"
      "add %[wp], %[bias], #64\n"
      "ld1 {v0.4s, v1.4s, v2.4s, v3.4s}, [%[bias]]\n"
      "ld1 {v4.4s, v5.4s, v6.4s, v7.4s}, [%[bias]]\n"
      "ld1 {v8.4s, v9.4s, v10.4s, v11.4s}, [%[bias]]\n"
      "ld1 {v12.4s, v13.4s, v14.4s, v15.4s}, [%[bias]]\n"
      DOT_RUNS_BEGIN
      "1:\n"
      "ldr q16, [%[a0]], #16\n"
      "ldr q17, [%[a1]], #16\n"
      "ldr q18, [%[a2]], #16\n"
      "ldr q19, [%[a3]], #16\n"
      DOT_GROUP(0) DOT_GROUP(1) DOT_GROUP(2) DOT_GROUP(3)
      "subs %[count], %[count], #1\n"
      "b.ne 1b\n"
      "cbz %[left], 3f\n"
      DOT_TAIL_LOAD("q16", "%[a0]") DOT_TAIL_LOAD("q17", "%[a1]")
      DOT_TAIL_LOAD("q18", "%[a2]") DOT_TAIL_LOAD("q19", "%[a3]")
      "ldr q20, [%[idx]]\n"
      "tbl v16.16b, {v16.16b}, v20.16b\n"
      "tbl v17.16b, {v17.16b}, v20.16b\n"
      "tbl v18.16b, {v18.16b}, v20.16b\n"
      "tbl v19.16b, {v19.16b}, v20.16b\n"
      DOT_GROUP(0)
      "cmp %[left], #4\n"
      "b.ls 3f\n"
      DOT_GROUP(1)
      "cmp %[left], #8\n"
      "b.ls 3f\n"
      DOT_GROUP(2)
      "cmp %[left], #12\n"
      "b.ls 3f\n"
      DOT_GROUP(3)
      "3:\n"
      "subs %[run_count], %[run_count], #1\n"
      "b.ne 6b\n"
      "cbz %w[has_left], 4f\n"
      "add %[t], %[multiplier], #64\n"
      "ld1 {v20.4s, v21.4s, v22.4s, v23.4s}, [%[t]]\n"
      DOT_APPLY16("sqshl", "v20", "v21", "v22", "v23")
      "4:\n"
      "ld1 {v20.4s, v21.4s, v22.4s, v23.4s}, [%[multiplier]]\n"
      DOT_APPLY16("sqdmulh", "v20", "v21", "v22", "v23")
      DOT_APPLY16("srshl", "v28", "v29", "v30", "v31")
      DOT_ROW_OUT("v0", "v1", "v2", "v3", "%[c]") DOT_ROW_OUT("v4", "v5", "v6", "v7", "%[c]")
      DOT_ROW_OUT("v8", "v9", "v10", "v11", "%[c]") DOT_ROW_OUT("v12", "v13", "v14", "v15", "%[c]")
      "add %[offset], %[offset], %[a_stride], lsl #2\n"
      "subs %[tiles], %[tiles], #1\n"
      "b.ne 5b\n"
      : [c] "+r"(c), [tiles] "+r"(tiles), [a0] "=&r"(a0), [a1] "=&r"(a1), [a2] "=&r"(a2), [a3] "=&r"(a3),
        [wp] "=&r"(wp), [t] "=&r"(t), [count] "=&r"(count), [offset] "+r"(offset), [run] "=&r"(run),
        [run_count] "=&r"(run_count)
      : [a] "r"(a), [runs] "r"(runs), [a_stride] "r"(a_stride), [c_stride] "r"(c_stride), [bias] "r"(w),
        [multiplier] "r"(multiplier), [params] "r"(params), [full] "r"(full), [left] "r"(left), [idx] "r"(idx),
        [has_left] "r"(has_left)
      : "v0", "v1", "v2", "v3", "v4", "v5", "v6", "v7", "v8", "v9", "v10", "v11", "v12", "v13", "v14", "v15",
        "v16", "v17", "v18", "v19", "v20", "v21", "v22", "v23", "v24", "v25", "v26", "v28", "v29", "v30", "v31",
        "cc", "memory");
}

/* A panel's first 8 columns only (nc <= 8: the last panel of n = 24, 40, 360, ...), whole 8-row tiles,
 * runs of a multiple of 16 bytes: 16 accumulators (8 rows x 2 column quads) against the 32 bytes of each 64-byte
 * weight group, so the zero columns 8-15 of the panel are never multiplied (the 4x16 tile spends half
 * its sdot on them). Per 16 k eight A loads, four ld1 and 64 sdot. Rows 4-7 are read at +4 a_stride
 * from rows 0-3's pointers. */
#define DOT8_GROUP(L)                                                                 \
  "ld1 {v24.16b, v25.16b}, [%[wp]], %[group]\n"                                       \
  "sdot v0.4s, v24.16b, v16.4b[" #L "]\n" "sdot v1.4s, v25.16b, v16.4b[" #L "]\n"     \
  "sdot v2.4s, v24.16b, v17.4b[" #L "]\n" "sdot v3.4s, v25.16b, v17.4b[" #L "]\n"     \
  "sdot v4.4s, v24.16b, v18.4b[" #L "]\n" "sdot v5.4s, v25.16b, v18.4b[" #L "]\n"     \
  "sdot v6.4s, v24.16b, v19.4b[" #L "]\n" "sdot v7.4s, v25.16b, v19.4b[" #L "]\n"     \
  "sdot v8.4s, v24.16b, v20.4b[" #L "]\n" "sdot v9.4s, v25.16b, v20.4b[" #L "]\n"     \
  "sdot v10.4s, v24.16b, v21.4b[" #L "]\n" "sdot v11.4s, v25.16b, v21.4b[" #L "]\n"   \
  "sdot v12.4s, v24.16b, v22.4b[" #L "]\n" "sdot v13.4s, v25.16b, v22.4b[" #L "]\n"   \
  "sdot v14.4s, v24.16b, v23.4b[" #L "]\n" "sdot v15.4s, v25.16b, v23.4b[" #L "]\n"
#define DOT8_APPLY(op, r0, r1)                                                        \
  op " v0.4s, v0.4s, " r0 ".4s\n" op " v1.4s, v1.4s, " r1 ".4s\n"                     \
  op " v2.4s, v2.4s, " r0 ".4s\n" op " v3.4s, v3.4s, " r1 ".4s\n"                     \
  op " v4.4s, v4.4s, " r0 ".4s\n" op " v5.4s, v5.4s, " r1 ".4s\n"                     \
  op " v6.4s, v6.4s, " r0 ".4s\n" op " v7.4s, v7.4s, " r1 ".4s\n"                     \
  op " v8.4s, v8.4s, " r0 ".4s\n" op " v9.4s, v9.4s, " r1 ".4s\n"                     \
  op " v10.4s, v10.4s, " r0 ".4s\n" op " v11.4s, v11.4s, " r1 ".4s\n"                 \
  op " v12.4s, v12.4s, " r0 ".4s\n" op " v13.4s, v13.4s, " r1 ".4s\n"                 \
  op " v14.4s, v14.4s, " r0 ".4s\n" op " v15.4s, v15.4s, " r1 ".4s\n"
/* Two rows (accumulators a, b then c, d) to int8, 8 bytes each at c and c + c_stride. */
#define DOT8_ROWS_OUT(a, b, c, d)                                                     \
  "sqxtn v16.4h, " a ".4s\n" "sqxtn2 v16.8h, " b ".4s\n"                              \
  "sqxtn v17.4h, " c ".4s\n" "sqxtn2 v17.8h, " d ".4s\n"                              \
  "sqadd v16.8h, v16.8h, v26.8h\n" "sqadd v17.8h, v17.8h, v26.8h\n"                   \
  "sqxtn v16.8b, v16.8h\n" "sqxtn2 v16.16b, v17.8h\n"                                 \
  "smax v16.16b, v16.16b, v27.16b\n" "smin v16.16b, v16.16b, v28.16b\n"               \
  "st1 {v16.d}[0], [%[c]], %[c_stride]\n" "st1 {v16.d}[1], [%[c]], %[c_stride]\n"

static void qs8_dot_tiles8(size_t tiles, size_t runs, size_t run_bytes, const int8_t* const* a, size_t offset,
                           size_t a_stride, const void* w, const lite_qs8_gemm_params* params, int has_left, int8_t* c,
                           size_t c_stride) {
  const int8_t* multiplier = (const int8_t*)w + NR * sizeof(int32_t) + NR * runs * run_bytes;
  const size_t full = run_bytes / 16, a_stride4 = 4 * a_stride, group = NR * KR;
  const int8_t *a0, *a1, *a2, *a3, *wp;
  const int8_t* const* run;
  size_t count, run_count;
  __asm__ volatile(
      "add %[wp], %[multiplier], #64\n"
      "ld1 {v29.4s, v30.4s}, [%[wp]]\n"
      "sshr v29.4s, v29.4s, #8\n"
      "sshr v30.4s, v30.4s, #8\n"
      "ld1r {v26.8h}, [%[params]]\n"
      "add %[wp], %[params], #4\n"
      "ld1r {v27.16b}, [%[wp]]\n"
      "add %[wp], %[params], #8\n"
      "ld1r {v28.16b}, [%[wp]]\n"
      "5:\n"
      "add %[wp], %[bias], #64\n"
      "ld1 {v0.4s, v1.4s}, [%[bias]]\n"
      "ld1 {v2.4s, v3.4s}, [%[bias]]\n"
      "ld1 {v4.4s, v5.4s}, [%[bias]]\n"
      "ld1 {v6.4s, v7.4s}, [%[bias]]\n"
      "ld1 {v8.4s, v9.4s}, [%[bias]]\n"
      "ld1 {v10.4s, v11.4s}, [%[bias]]\n"
      "ld1 {v12.4s, v13.4s}, [%[bias]]\n"
      "ld1 {v14.4s, v15.4s}, [%[bias]]\n"
      DOT_RUNS_BEGIN
      "1:\n"
      "ldr q20, [%[a0], %[a_stride4]]\n"
      "ldr q16, [%[a0]], #16\n"
      "ldr q21, [%[a1], %[a_stride4]]\n"
      "ldr q17, [%[a1]], #16\n"
      "ldr q22, [%[a2], %[a_stride4]]\n"
      "ldr q18, [%[a2]], #16\n"
      "ldr q23, [%[a3], %[a_stride4]]\n"
      "ldr q19, [%[a3]], #16\n"
      DOT8_GROUP(0) DOT8_GROUP(1) DOT8_GROUP(2) DOT8_GROUP(3)
      "subs %[count], %[count], #1\n"
      "b.ne 1b\n"
      "subs %[run_count], %[run_count], #1\n"
      "b.ne 6b\n"
      "cbz %w[has_left], 4f\n"
      "add %[wp], %[multiplier], #64\n"
      "ld1 {v16.4s, v17.4s}, [%[wp]]\n"
      DOT8_APPLY("sqshl", "v16", "v17")
      "4:\n"
      "ld1 {v16.4s, v17.4s}, [%[multiplier]]\n"
      DOT8_APPLY("sqdmulh", "v16", "v17")
      DOT8_APPLY("srshl", "v29", "v30")
      DOT8_ROWS_OUT("v0", "v1", "v2", "v3") DOT8_ROWS_OUT("v4", "v5", "v6", "v7")
      DOT8_ROWS_OUT("v8", "v9", "v10", "v11") DOT8_ROWS_OUT("v12", "v13", "v14", "v15")
      "add %[offset], %[offset], %[a_stride4], lsl #1\n"
      "subs %[tiles], %[tiles], #1\n"
      "b.ne 5b\n"
      : [c] "+r"(c), [tiles] "+r"(tiles), [a0] "=&r"(a0), [a1] "=&r"(a1), [a2] "=&r"(a2), [a3] "=&r"(a3),
        [wp] "=&r"(wp), [count] "=&r"(count), [offset] "+r"(offset), [run] "=&r"(run), [run_count] "=&r"(run_count)
      : [a] "r"(a), [runs] "r"(runs), [a_stride] "r"(a_stride), [a_stride4] "r"(a_stride4), [c_stride] "r"(c_stride), [bias] "r"(w),
        [multiplier] "r"(multiplier), [params] "r"(params), [full] "r"(full), [group] "r"(group),
        [has_left] "r"(has_left)
      : "v0", "v1", "v2", "v3", "v4", "v5", "v6", "v7", "v8", "v9", "v10", "v11", "v12", "v13", "v14", "v15",
        "v16", "v17", "v18", "v19", "v20", "v21", "v22", "v23", "v24", "v25", "v26", "v27", "v28", "v29", "v30",
        "cc", "memory");
}

/* Both entry points: rows in runs (one run of k bytes for the plain GEMM). */
__attribute__((noipa)) static void qs8_dot_compute(size_t mr, size_t nc, size_t runs, size_t run_bytes, const int8_t* const* a, size_t a_stride,
                            const void* w, int8_t* c, size_t c_stride, const lite_qs8_gemm_params* params) {
  const size_t k = runs * run_bytes;
  size_t i0 = 0;
  if (run_bytes >= 16 && mr >= TILE) {
    uint32_t flags;
    memcpy(&flags, (const int8_t*)w + NR * sizeof(int32_t) + NR * ((k + KR - 1) / KR * KR) + NR * sizeof(int32_t),
           sizeof(flags));
    const int has_left = (flags & LITE_QS8_PANEL_LEFT_SHIFT) != 0;
    /* whole tiles, then the last rows as one more tile ending at row mr - 1 when mr is not a whole
     * number of tiles (its first rows are written again with the same bytes); a partial panel goes
     * through a scratch tile. A panel of <= 8 columns runs 8-row tiles over its first 8 columns. */
    const int narrow = nc <= 8 && mr >= 8 && run_bytes % 16 == 0;
    const size_t tile = narrow ? 8 : TILE, width = narrow ? 8 : NR, last = mr - tile;
    int8_t scratch[MR * NR];
    int8_t* out = nc == width ? c : scratch;
    const size_t out_stride = nc == width ? c_stride : width;
    if (narrow) {
      qs8_dot_tiles8(mr / 8, runs, run_bytes, a, 0, a_stride, w, params, has_left, out, out_stride);
      if (mr % 8 != 0)
        qs8_dot_tiles8(1, runs, run_bytes, a, last * a_stride, a_stride, w, params, has_left, out + last * out_stride,
                       out_stride);
    } else {
      qs8_dot_tiles(mr / TILE, runs, run_bytes, a, 0, a_stride, w, params, has_left, out, out_stride);
      if (mr % TILE != 0)
        qs8_dot_tiles(1, runs, run_bytes, a, last * a_stride, a_stride, w, params, has_left, out + last * out_stride,
                      out_stride);
    }
    if (out == scratch)
      for (size_t i = 0; i < mr; ++i) memcpy(c + i * c_stride, scratch + i * width, nc);
    i0 = mr;
  }
  /* the rest (mr < 4, runs shorter than 16 bytes) in intrinsics */
  for (; i0 < mr; i0 += TILE)
    qs8_dot_rows(mr - i0 < TILE ? mr - i0 : TILE, nc, runs, run_bytes, a, i0 * a_stride, a_stride, w, c + i0 * c_stride,
                 c_stride, params);
}

void lite_qs8_gemm_ukernel_64x16c4_aarch64_neondot(size_t mr, size_t nc, size_t k, const int8_t* a, size_t a_stride,
                                                   const void* w, int8_t* c, size_t c_stride,
                                                   const lite_qs8_gemm_params* params) {
  qs8_dot_compute(mr, nc, 1, k, &a, a_stride, w, c, c_stride, params);
}

void lite_qs8_gemm_runs_ukernel_64x16c4_aarch64_neondot(size_t mr, size_t nc, size_t runs, size_t run_bytes,
                                                        const int8_t* const* a, size_t a_stride, const void* w,
                                                        int8_t* c, size_t c_stride,
                                                        const lite_qs8_gemm_params* params) {
  qs8_dot_compute(mr, nc, runs, run_bytes, a, a_stride, w, c, c_stride, params);
}
