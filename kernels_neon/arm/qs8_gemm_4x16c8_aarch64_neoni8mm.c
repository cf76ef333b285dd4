/* int8 GEMM microkernel (qs8_gemm_packed.h) for aarch64 with the int8 matrix multiply extension:
 * tiles of 4 x 16 (MR 16: up to four tiles per call), NR 16, KR 8, signed A (A_OFFSET 0). One
 * smmla multiplies a 2x8 block of A (two rows, eight k) by an 8x2 block of weights (two adjacent
 * columns: 16 contiguous packed bytes) into a 2x2 int32 block [r0c0 r0c1 r1c0 r1c1]: 16
 * accumulators hold 2 row pairs x 8 column pairs. A rows are loaded 16 bytes at a time and paired
 * by 64-bit zips (zip1: k 0-7, zip2: k 8-15).
 *
 * The whole tile is one assembly block: the compiler's allocation of 16 accumulators, 8 weight and
 * 8 A registers spilled, and a C epilogue after the loop cost ~300 instructions per tile; here the
 * bias (ld1r of column pairs), the k loop, the k % 16 tail and the requantization of
 * qs8_requantize_neon.h (zip to rows, sqshl / sqdmulh / srshl, saturating narrows, clamp, one
 * 16-byte store per row) run on the registers, ~120 instructions of epilogue per tile.
 *
 * Packed shift word: lite_qs8_gemm_pack_shift_amounts writes, instead of the shift s,
 * byte 0 = u = max(0, 32 - s), byte 1 = -t = -max(1, s - 31) (qs8_requantize_neon.h) and bit 16 set
 * on every column of a panel where some u != 0. Register-operand sqshl and srshl read only the
 * signed low byte of each lane: sqshl takes u directly, srshl takes the word shifted right by 8;
 * a panel without bit 16 (every real multiplier below 1/2, the usual case) skips the sqshl.
 *
 * The k % 16 tail: the 16 bytes ending at the row's last byte, moved down by tbl (indices past the
 * row select zero), so no byte past the row is read. Rows shorter than 16 bytes are first copied
 * to the end of a 16-byte stack row. Rows past mr re-read row mr - 1; a partial tile (rows or
 * columns) is stored to a scratch tile and its part copied out. */
#include <string.h>

#include <arm_neon.h>

#include "lite_kernels/qs8_gemm_packed.h"
#include "qs8_gemm_ukernels_arm.h"

enum { NR = 16, KR = 8 };

static inline int8x16_t zip_rows_lo(int8x16_t x, int8x16_t y) {
  return vreinterpretq_s8_s64(vzip1q_s64(vreinterpretq_s64_s8(x), vreinterpretq_s64_s8(y)));
}

static inline int8x16_t zip_rows_hi(int8x16_t x, int8x16_t y) {
  return vreinterpretq_s8_s64(vzip2q_s64(vreinterpretq_s64_s8(x), vreinterpretq_s64_s8(y)));
}

/* tbl indices of a k % 16 tail of `left` bytes: the 16 bytes at k_tail_index + 16 - left. */
static const uint8_t k_tail_index[32] = {0,   1,   2,   3,   4,   5,   6,   7,   8,   9,   10,
                                         11,  12,  13,  14,  15,  255, 255, 255, 255, 255, 255,
                                         255, 255, 255, 255, 255, 255, 255, 255, 255, 255};

/* Four rows (a0..a3, already clamped to valid rows) of one panel into c0..c3 (16 bytes each). */
static inline __attribute__((always_inline)) void qs8_i8mm_rows4(size_t k, const int8_t* a0, const int8_t* a1,
                                                                 const int8_t* a2, const int8_t* a3, const void* w,
                                                                 int8_t* c0, int8_t* c1, int8_t* c2, int8_t* c3,
                                                                 const lite_qs8_gemm_params* params) {
  size_t blocks = k / 16;
  const size_t left = k % 16;
  const size_t groups = left == 0 ? 0 : left <= 8 ? 1 : 2;
  const ptrdiff_t tail_offset = (ptrdiff_t)left - 16;
  const uint8_t* idx = k_tail_index + 16 - left;
  const int8_t* wp = (const int8_t*)w;
  uint64_t tmp; /* a 64-bit scratch register: the asm also uses it as an address */
  __asm__ volatile(
      "add %[tmp], %[w], #32\n"
      "ld4r {v8.2d, v9.2d, v10.2d, v11.2d}, [%[w]]\n"
      "ld4r {v12.2d, v13.2d, v14.2d, v15.2d}, [%[tmp]]\n"
      "ld4r {v0.2d, v1.2d, v2.2d, v3.2d}, [%[w]], #32\n"
      "ld4r {v4.2d, v5.2d, v6.2d, v7.2d}, [%[w]], #32\n"
      "cbz %[blocks], 2f\n"
      "1:\n"
      "ldr q16, [%[a0]], #16\n"
      "ldr q17, [%[a1]], #16\n"
      "ldr q18, [%[a2]], #16\n"
      "ldr q19, [%[a3]], #16\n"
      "ldp q24, q25, [%[w]], #32\n"
      "ldp q26, q27, [%[w]], #32\n"
      "zip1 v20.2d, v16.2d, v17.2d\n"
      "zip1 v21.2d, v18.2d, v19.2d\n"
      "ldp q28, q29, [%[w]], #32\n"
      "ldp q30, q31, [%[w]], #32\n"
      "smmla v0.4s, v20.16b, v24.16b\n"
      "smmla v8.4s, v21.16b, v24.16b\n"
      "smmla v1.4s, v20.16b, v25.16b\n"
      "smmla v9.4s, v21.16b, v25.16b\n"
      "smmla v2.4s, v20.16b, v26.16b\n"
      "smmla v10.4s, v21.16b, v26.16b\n"
      "smmla v3.4s, v20.16b, v27.16b\n"
      "smmla v11.4s, v21.16b, v27.16b\n"
      "zip2 v22.2d, v16.2d, v17.2d\n"
      "zip2 v23.2d, v18.2d, v19.2d\n"
      "smmla v4.4s, v20.16b, v28.16b\n"
      "smmla v12.4s, v21.16b, v28.16b\n"
      "smmla v5.4s, v20.16b, v29.16b\n"
      "smmla v13.4s, v21.16b, v29.16b\n"
      "smmla v6.4s, v20.16b, v30.16b\n"
      "smmla v14.4s, v21.16b, v30.16b\n"
      "smmla v7.4s, v20.16b, v31.16b\n"
      "smmla v15.4s, v21.16b, v31.16b\n"
      "ldp q24, q25, [%[w]], #32\n"
      "ldp q26, q27, [%[w]], #32\n"
      "smmla v0.4s, v22.16b, v24.16b\n"
      "smmla v8.4s, v23.16b, v24.16b\n"
      "smmla v1.4s, v22.16b, v25.16b\n"
      "smmla v9.4s, v23.16b, v25.16b\n"
      "smmla v2.4s, v22.16b, v26.16b\n"
      "smmla v10.4s, v23.16b, v26.16b\n"
      "smmla v3.4s, v22.16b, v27.16b\n"
      "smmla v11.4s, v23.16b, v27.16b\n"
      "ldp q28, q29, [%[w]], #32\n"
      "ldp q30, q31, [%[w]], #32\n"
      "smmla v4.4s, v22.16b, v28.16b\n"
      "smmla v12.4s, v23.16b, v28.16b\n"
      "smmla v5.4s, v22.16b, v29.16b\n"
      "smmla v13.4s, v23.16b, v29.16b\n"
      "smmla v6.4s, v22.16b, v30.16b\n"
      "smmla v14.4s, v23.16b, v30.16b\n"
      "smmla v7.4s, v22.16b, v31.16b\n"
      "smmla v15.4s, v23.16b, v31.16b\n"
      "subs %[blocks], %[blocks], #1\n"
      "b.ne 1b\n"
      "2:\n"
      "cbz %[groups], 4f\n"
      "ldr q24, [%[idx]]\n"
      "ldr q16, [%[a0], %[toff]]\n"
      "ldr q17, [%[a1], %[toff]]\n"
      "ldr q18, [%[a2], %[toff]]\n"
      "ldr q19, [%[a3], %[toff]]\n"
      "tbl v16.16b, {v16.16b}, v24.16b\n"
      "tbl v17.16b, {v17.16b}, v24.16b\n"
      "tbl v18.16b, {v18.16b}, v24.16b\n"
      "tbl v19.16b, {v19.16b}, v24.16b\n"
      "zip1 v20.2d, v16.2d, v17.2d\n"
      "zip1 v21.2d, v18.2d, v19.2d\n"
      "ldp q24, q25, [%[w]], #32\n"
      "ldp q26, q27, [%[w]], #32\n"
      "ldp q28, q29, [%[w]], #32\n"
      "ldp q30, q31, [%[w]], #32\n"
      "smmla v0.4s, v20.16b, v24.16b\n"
      "smmla v8.4s, v21.16b, v24.16b\n"
      "smmla v1.4s, v20.16b, v25.16b\n"
      "smmla v9.4s, v21.16b, v25.16b\n"
      "smmla v2.4s, v20.16b, v26.16b\n"
      "smmla v10.4s, v21.16b, v26.16b\n"
      "smmla v3.4s, v20.16b, v27.16b\n"
      "smmla v11.4s, v21.16b, v27.16b\n"
      "smmla v4.4s, v20.16b, v28.16b\n"
      "smmla v12.4s, v21.16b, v28.16b\n"
      "smmla v5.4s, v20.16b, v29.16b\n"
      "smmla v13.4s, v21.16b, v29.16b\n"
      "smmla v6.4s, v20.16b, v30.16b\n"
      "smmla v14.4s, v21.16b, v30.16b\n"
      "smmla v7.4s, v20.16b, v31.16b\n"
      "smmla v15.4s, v21.16b, v31.16b\n"
      "cmp %[groups], #1\n"
      "b.eq 4f\n"
      "zip2 v22.2d, v16.2d, v17.2d\n"
      "zip2 v23.2d, v18.2d, v19.2d\n"
      "ldp q24, q25, [%[w]], #32\n"
      "ldp q26, q27, [%[w]], #32\n"
      "ldp q28, q29, [%[w]], #32\n"
      "ldp q30, q31, [%[w]], #32\n"
      "smmla v0.4s, v22.16b, v24.16b\n"
      "smmla v8.4s, v23.16b, v24.16b\n"
      "smmla v1.4s, v22.16b, v25.16b\n"
      "smmla v9.4s, v23.16b, v25.16b\n"
      "smmla v2.4s, v22.16b, v26.16b\n"
      "smmla v10.4s, v23.16b, v26.16b\n"
      "smmla v3.4s, v22.16b, v27.16b\n"
      "smmla v11.4s, v23.16b, v27.16b\n"
      "smmla v4.4s, v22.16b, v28.16b\n"
      "smmla v12.4s, v23.16b, v28.16b\n"
      "smmla v5.4s, v22.16b, v29.16b\n"
      "smmla v13.4s, v23.16b, v29.16b\n"
      "smmla v6.4s, v22.16b, v30.16b\n"
      "smmla v14.4s, v23.16b, v30.16b\n"
      "smmla v7.4s, v22.16b, v31.16b\n"
      "smmla v15.4s, v23.16b, v31.16b\n"
      "4:\n"
      "ld1r {v29.8h}, [%[params]]\n"
      "ldr %w[tmp], [%[params], #4]\n"
      "dup v30.16b, %w[tmp]\n"
      "ldr %w[tmp], [%[params], #8]\n"
      "dup v31.16b, %w[tmp]\n"
      "ldr %w[tmp], [%[w], #64]\n"
      "ldr q26, [%[w], #0]\n"
      "ldr q27, [%[w], #64]\n"
      "sshr v28.4s, v27.4s, #8\n"
      "zip1 v16.2d, v0.2d, v1.2d\n"
      "zip2 v17.2d, v0.2d, v1.2d\n"
      "zip1 v18.2d, v8.2d, v9.2d\n"
      "zip2 v19.2d, v8.2d, v9.2d\n"
      "tbz %w[tmp], #16, 5f\n"
      "sqshl v16.4s, v16.4s, v27.4s\n"
      "sqshl v17.4s, v17.4s, v27.4s\n"
      "sqshl v18.4s, v18.4s, v27.4s\n"
      "sqshl v19.4s, v19.4s, v27.4s\n"
      "5:\n"
      "sqdmulh v16.4s, v16.4s, v26.4s\n"
      "sqdmulh v17.4s, v17.4s, v26.4s\n"
      "sqdmulh v18.4s, v18.4s, v26.4s\n"
      "sqdmulh v19.4s, v19.4s, v26.4s\n"
      "srshl v16.4s, v16.4s, v28.4s\n"
      "srshl v17.4s, v17.4s, v28.4s\n"
      "srshl v18.4s, v18.4s, v28.4s\n"
      "srshl v19.4s, v19.4s, v28.4s\n"
      "ldr q26, [%[w], #16]\n"
      "ldr q27, [%[w], #80]\n"
      "sshr v28.4s, v27.4s, #8\n"
      "zip1 v20.2d, v2.2d, v3.2d\n"
      "zip2 v21.2d, v2.2d, v3.2d\n"
      "zip1 v22.2d, v10.2d, v11.2d\n"
      "zip2 v23.2d, v10.2d, v11.2d\n"
      "tbz %w[tmp], #16, 5f\n"
      "sqshl v20.4s, v20.4s, v27.4s\n"
      "sqshl v21.4s, v21.4s, v27.4s\n"
      "sqshl v22.4s, v22.4s, v27.4s\n"
      "sqshl v23.4s, v23.4s, v27.4s\n"
      "5:\n"
      "sqdmulh v20.4s, v20.4s, v26.4s\n"
      "sqdmulh v21.4s, v21.4s, v26.4s\n"
      "sqdmulh v22.4s, v22.4s, v26.4s\n"
      "sqdmulh v23.4s, v23.4s, v26.4s\n"
      "srshl v20.4s, v20.4s, v28.4s\n"
      "srshl v21.4s, v21.4s, v28.4s\n"
      "srshl v22.4s, v22.4s, v28.4s\n"
      "srshl v23.4s, v23.4s, v28.4s\n"
      "sqxtn v0.4h, v16.4s\n"
      "sqxtn2 v0.8h, v20.4s\n"
      "sqxtn v1.4h, v17.4s\n"
      "sqxtn2 v1.8h, v21.4s\n"
      "sqxtn v2.4h, v18.4s\n"
      "sqxtn2 v2.8h, v22.4s\n"
      "sqxtn v3.4h, v19.4s\n"
      "sqxtn2 v3.8h, v23.4s\n"
      "ldr q26, [%[w], #32]\n"
      "ldr q27, [%[w], #96]\n"
      "sshr v28.4s, v27.4s, #8\n"
      "zip1 v16.2d, v4.2d, v5.2d\n"
      "zip2 v17.2d, v4.2d, v5.2d\n"
      "zip1 v18.2d, v12.2d, v13.2d\n"
      "zip2 v19.2d, v12.2d, v13.2d\n"
      "tbz %w[tmp], #16, 5f\n"
      "sqshl v16.4s, v16.4s, v27.4s\n"
      "sqshl v17.4s, v17.4s, v27.4s\n"
      "sqshl v18.4s, v18.4s, v27.4s\n"
      "sqshl v19.4s, v19.4s, v27.4s\n"
      "5:\n"
      "sqdmulh v16.4s, v16.4s, v26.4s\n"
      "sqdmulh v17.4s, v17.4s, v26.4s\n"
      "sqdmulh v18.4s, v18.4s, v26.4s\n"
      "sqdmulh v19.4s, v19.4s, v26.4s\n"
      "srshl v16.4s, v16.4s, v28.4s\n"
      "srshl v17.4s, v17.4s, v28.4s\n"
      "srshl v18.4s, v18.4s, v28.4s\n"
      "srshl v19.4s, v19.4s, v28.4s\n"
      "ldr q26, [%[w], #48]\n"
      "ldr q27, [%[w], #112]\n"
      "sshr v28.4s, v27.4s, #8\n"
      "zip1 v20.2d, v6.2d, v7.2d\n"
      "zip2 v21.2d, v6.2d, v7.2d\n"
      "zip1 v22.2d, v14.2d, v15.2d\n"
      "zip2 v23.2d, v14.2d, v15.2d\n"
      "tbz %w[tmp], #16, 5f\n"
      "sqshl v20.4s, v20.4s, v27.4s\n"
      "sqshl v21.4s, v21.4s, v27.4s\n"
      "sqshl v22.4s, v22.4s, v27.4s\n"
      "sqshl v23.4s, v23.4s, v27.4s\n"
      "5:\n"
      "sqdmulh v20.4s, v20.4s, v26.4s\n"
      "sqdmulh v21.4s, v21.4s, v26.4s\n"
      "sqdmulh v22.4s, v22.4s, v26.4s\n"
      "sqdmulh v23.4s, v23.4s, v26.4s\n"
      "srshl v20.4s, v20.4s, v28.4s\n"
      "srshl v21.4s, v21.4s, v28.4s\n"
      "srshl v22.4s, v22.4s, v28.4s\n"
      "srshl v23.4s, v23.4s, v28.4s\n"
      "sqxtn v4.4h, v16.4s\n"
      "sqxtn2 v4.8h, v20.4s\n"
      "sqxtn v5.4h, v17.4s\n"
      "sqxtn2 v5.8h, v21.4s\n"
      "sqxtn v6.4h, v18.4s\n"
      "sqxtn2 v6.8h, v22.4s\n"
      "sqxtn v7.4h, v19.4s\n"
      "sqxtn2 v7.8h, v23.4s\n"
      "sqadd v0.8h, v0.8h, v29.8h\n"
      "sqadd v4.8h, v4.8h, v29.8h\n"
      "sqxtn v16.8b, v0.8h\n"
      "sqxtn2 v16.16b, v4.8h\n"
      "smax v16.16b, v16.16b, v30.16b\n"
      "smin v16.16b, v16.16b, v31.16b\n"
      "str q16, [%[c0]]\n"
      "sqadd v1.8h, v1.8h, v29.8h\n"
      "sqadd v5.8h, v5.8h, v29.8h\n"
      "sqxtn v16.8b, v1.8h\n"
      "sqxtn2 v16.16b, v5.8h\n"
      "smax v16.16b, v16.16b, v30.16b\n"
      "smin v16.16b, v16.16b, v31.16b\n"
      "str q16, [%[c1]]\n"
      "sqadd v2.8h, v2.8h, v29.8h\n"
      "sqadd v6.8h, v6.8h, v29.8h\n"
      "sqxtn v16.8b, v2.8h\n"
      "sqxtn2 v16.16b, v6.8h\n"
      "smax v16.16b, v16.16b, v30.16b\n"
      "smin v16.16b, v16.16b, v31.16b\n"
      "str q16, [%[c2]]\n"
      "sqadd v3.8h, v3.8h, v29.8h\n"
      "sqadd v7.8h, v7.8h, v29.8h\n"
      "sqxtn v16.8b, v3.8h\n"
      "sqxtn2 v16.16b, v7.8h\n"
      "smax v16.16b, v16.16b, v30.16b\n"
      "smin v16.16b, v16.16b, v31.16b\n"
      "str q16, [%[c3]]\n"

      : [a0] "+r"(a0), [a1] "+r"(a1), [a2] "+r"(a2), [a3] "+r"(a3), [w] "+r"(wp), [blocks] "+r"(blocks),
        [tmp] "=&r"(tmp)
      : [groups] "r"(groups), [toff] "r"(tail_offset), [idx] "r"(idx), [params] "r"(params), [c0] "r"(c0),
        [c1] "r"(c1), [c2] "r"(c2), [c3] "r"(c3)
      : "cc", "memory", "v0", "v1", "v2", "v3", "v4", "v5", "v6", "v7", "v8", "v9", "v10", "v11", "v12", "v13",
        "v14", "v15", "v16", "v17", "v18", "v19", "v20", "v21", "v22", "v23", "v24", "v25", "v26", "v27", "v28",
        "v29", "v30", "v31");
}

/* `tiles` whole 4 x 16 tiles down a panel (rows a0 + 4t.., k >= 16, all 16 columns stored): the
 * row loop in the assembly too, so a tile costs no call or pointer setup. */
static void qs8_i8mm_full_tiles(size_t tiles, size_t k, const int8_t* a0, size_t a_stride, const void* w, int8_t* c,
                                size_t c_stride, const lite_qs8_gemm_params* params) {
  const size_t blocks = k / 16, left = k % 16;
  const size_t groups = left == 0 ? 0 : left <= 8 ? 1 : 2;
  const ptrdiff_t tail_offset = (ptrdiff_t)left - 16;
  const uint8_t* idx = k_tail_index + 16 - left;
  const int8_t *a1, *a2, *a3, *wk;
  size_t n, off;
  uint64_t tmp; /* a 64-bit scratch register: the asm also uses it as an address */
  __asm__ volatile(
      "0:\n"
      "add %[a1], %[a0], %[as]\n"
      "add %[a2], %[a1], %[as]\n"
      "add %[a3], %[a2], %[as]\n"
      "mov %[wk], %[w]\n"
      "mov %[n], %[blocks]\n"
      "mov %[off], #0\n"
      "add %[tmp], %[wk], #32\n"
      "ld4r {v8.2d, v9.2d, v10.2d, v11.2d}, [%[wk]]\n"
      "ld4r {v12.2d, v13.2d, v14.2d, v15.2d}, [%[tmp]]\n"
      "ld4r {v0.2d, v1.2d, v2.2d, v3.2d}, [%[wk]], #32\n"
      "ld4r {v4.2d, v5.2d, v6.2d, v7.2d}, [%[wk]], #32\n"
      "1:\n"
      "ldr q16, [%[a0], %[off]]\n"
      "ldr q17, [%[a1], %[off]]\n"
      "ldr q18, [%[a2], %[off]]\n"
      "ldr q19, [%[a3], %[off]]\n"
      "add %[off], %[off], #16\n"
      "ldp q24, q25, [%[wk]], #32\n"
      "ldp q26, q27, [%[wk]], #32\n"
      "zip1 v20.2d, v16.2d, v17.2d\n"
      "zip1 v21.2d, v18.2d, v19.2d\n"
      "ldp q28, q29, [%[wk]], #32\n"
      "ldp q30, q31, [%[wk]], #32\n"
      "smmla v0.4s, v20.16b, v24.16b\n"
      "smmla v8.4s, v21.16b, v24.16b\n"
      "smmla v1.4s, v20.16b, v25.16b\n"
      "smmla v9.4s, v21.16b, v25.16b\n"
      "smmla v2.4s, v20.16b, v26.16b\n"
      "smmla v10.4s, v21.16b, v26.16b\n"
      "smmla v3.4s, v20.16b, v27.16b\n"
      "smmla v11.4s, v21.16b, v27.16b\n"
      "zip2 v22.2d, v16.2d, v17.2d\n"
      "zip2 v23.2d, v18.2d, v19.2d\n"
      "smmla v4.4s, v20.16b, v28.16b\n"
      "smmla v12.4s, v21.16b, v28.16b\n"
      "smmla v5.4s, v20.16b, v29.16b\n"
      "smmla v13.4s, v21.16b, v29.16b\n"
      "smmla v6.4s, v20.16b, v30.16b\n"
      "smmla v14.4s, v21.16b, v30.16b\n"
      "smmla v7.4s, v20.16b, v31.16b\n"
      "smmla v15.4s, v21.16b, v31.16b\n"
      "ldp q24, q25, [%[wk]], #32\n"
      "ldp q26, q27, [%[wk]], #32\n"
      "smmla v0.4s, v22.16b, v24.16b\n"
      "smmla v8.4s, v23.16b, v24.16b\n"
      "smmla v1.4s, v22.16b, v25.16b\n"
      "smmla v9.4s, v23.16b, v25.16b\n"
      "smmla v2.4s, v22.16b, v26.16b\n"
      "smmla v10.4s, v23.16b, v26.16b\n"
      "smmla v3.4s, v22.16b, v27.16b\n"
      "smmla v11.4s, v23.16b, v27.16b\n"
      "ldp q28, q29, [%[wk]], #32\n"
      "ldp q30, q31, [%[wk]], #32\n"
      "smmla v4.4s, v22.16b, v28.16b\n"
      "smmla v12.4s, v23.16b, v28.16b\n"
      "smmla v5.4s, v22.16b, v29.16b\n"
      "smmla v13.4s, v23.16b, v29.16b\n"
      "smmla v6.4s, v22.16b, v30.16b\n"
      "smmla v14.4s, v23.16b, v30.16b\n"
      "smmla v7.4s, v22.16b, v31.16b\n"
      "smmla v15.4s, v23.16b, v31.16b\n"
      "subs %[n], %[n], #1\n"
      "b.ne 1b\n"
      "cbz %[groups], 4f\n"
      "add %[off], %[off], %[toff]\n"
      "ldr q24, [%[idx]]\n"
      "ldr q16, [%[a0], %[off]]\n"
      "ldr q17, [%[a1], %[off]]\n"
      "ldr q18, [%[a2], %[off]]\n"
      "ldr q19, [%[a3], %[off]]\n"
      "tbl v16.16b, {v16.16b}, v24.16b\n"
      "tbl v17.16b, {v17.16b}, v24.16b\n"
      "tbl v18.16b, {v18.16b}, v24.16b\n"
      "tbl v19.16b, {v19.16b}, v24.16b\n"
      "zip1 v20.2d, v16.2d, v17.2d\n"
      "zip1 v21.2d, v18.2d, v19.2d\n"
      "ldp q24, q25, [%[wk]], #32\n"
      "ldp q26, q27, [%[wk]], #32\n"
      "ldp q28, q29, [%[wk]], #32\n"
      "ldp q30, q31, [%[wk]], #32\n"
      "smmla v0.4s, v20.16b, v24.16b\n"
      "smmla v8.4s, v21.16b, v24.16b\n"
      "smmla v1.4s, v20.16b, v25.16b\n"
      "smmla v9.4s, v21.16b, v25.16b\n"
      "smmla v2.4s, v20.16b, v26.16b\n"
      "smmla v10.4s, v21.16b, v26.16b\n"
      "smmla v3.4s, v20.16b, v27.16b\n"
      "smmla v11.4s, v21.16b, v27.16b\n"
      "smmla v4.4s, v20.16b, v28.16b\n"
      "smmla v12.4s, v21.16b, v28.16b\n"
      "smmla v5.4s, v20.16b, v29.16b\n"
      "smmla v13.4s, v21.16b, v29.16b\n"
      "smmla v6.4s, v20.16b, v30.16b\n"
      "smmla v14.4s, v21.16b, v30.16b\n"
      "smmla v7.4s, v20.16b, v31.16b\n"
      "smmla v15.4s, v21.16b, v31.16b\n"
      "cmp %[groups], #1\n"
      "b.eq 4f\n"
      "zip2 v22.2d, v16.2d, v17.2d\n"
      "zip2 v23.2d, v18.2d, v19.2d\n"
      "ldp q24, q25, [%[wk]], #32\n"
      "ldp q26, q27, [%[wk]], #32\n"
      "ldp q28, q29, [%[wk]], #32\n"
      "ldp q30, q31, [%[wk]], #32\n"
      "smmla v0.4s, v22.16b, v24.16b\n"
      "smmla v8.4s, v23.16b, v24.16b\n"
      "smmla v1.4s, v22.16b, v25.16b\n"
      "smmla v9.4s, v23.16b, v25.16b\n"
      "smmla v2.4s, v22.16b, v26.16b\n"
      "smmla v10.4s, v23.16b, v26.16b\n"
      "smmla v3.4s, v22.16b, v27.16b\n"
      "smmla v11.4s, v23.16b, v27.16b\n"
      "smmla v4.4s, v22.16b, v28.16b\n"
      "smmla v12.4s, v23.16b, v28.16b\n"
      "smmla v5.4s, v22.16b, v29.16b\n"
      "smmla v13.4s, v23.16b, v29.16b\n"
      "smmla v6.4s, v22.16b, v30.16b\n"
      "smmla v14.4s, v23.16b, v30.16b\n"
      "smmla v7.4s, v22.16b, v31.16b\n"
      "smmla v15.4s, v23.16b, v31.16b\n"
      "4:\n"
      "ld1r {v29.8h}, [%[params]]\n"
      "ldr %w[tmp], [%[params], #4]\n"
      "dup v30.16b, %w[tmp]\n"
      "ldr %w[tmp], [%[params], #8]\n"
      "dup v31.16b, %w[tmp]\n"
      "ldr %w[tmp], [%[wk], #64]\n"
      "ldr q26, [%[wk], #0]\n"
      "ldr q27, [%[wk], #64]\n"
      "sshr v28.4s, v27.4s, #8\n"
      "zip1 v16.2d, v0.2d, v1.2d\n"
      "zip2 v17.2d, v0.2d, v1.2d\n"
      "zip1 v18.2d, v8.2d, v9.2d\n"
      "zip2 v19.2d, v8.2d, v9.2d\n"
      "tbz %w[tmp], #16, 5f\n"
      "sqshl v16.4s, v16.4s, v27.4s\n"
      "sqshl v17.4s, v17.4s, v27.4s\n"
      "sqshl v18.4s, v18.4s, v27.4s\n"
      "sqshl v19.4s, v19.4s, v27.4s\n"
      "5:\n"
      "sqdmulh v16.4s, v16.4s, v26.4s\n"
      "sqdmulh v17.4s, v17.4s, v26.4s\n"
      "sqdmulh v18.4s, v18.4s, v26.4s\n"
      "sqdmulh v19.4s, v19.4s, v26.4s\n"
      "srshl v16.4s, v16.4s, v28.4s\n"
      "srshl v17.4s, v17.4s, v28.4s\n"
      "srshl v18.4s, v18.4s, v28.4s\n"
      "srshl v19.4s, v19.4s, v28.4s\n"
      "ldr q26, [%[wk], #16]\n"
      "ldr q27, [%[wk], #80]\n"
      "sshr v28.4s, v27.4s, #8\n"
      "zip1 v20.2d, v2.2d, v3.2d\n"
      "zip2 v21.2d, v2.2d, v3.2d\n"
      "zip1 v22.2d, v10.2d, v11.2d\n"
      "zip2 v23.2d, v10.2d, v11.2d\n"
      "tbz %w[tmp], #16, 5f\n"
      "sqshl v20.4s, v20.4s, v27.4s\n"
      "sqshl v21.4s, v21.4s, v27.4s\n"
      "sqshl v22.4s, v22.4s, v27.4s\n"
      "sqshl v23.4s, v23.4s, v27.4s\n"
      "5:\n"
      "sqdmulh v20.4s, v20.4s, v26.4s\n"
      "sqdmulh v21.4s, v21.4s, v26.4s\n"
      "sqdmulh v22.4s, v22.4s, v26.4s\n"
      "sqdmulh v23.4s, v23.4s, v26.4s\n"
      "srshl v20.4s, v20.4s, v28.4s\n"
      "srshl v21.4s, v21.4s, v28.4s\n"
      "srshl v22.4s, v22.4s, v28.4s\n"
      "srshl v23.4s, v23.4s, v28.4s\n"
      "sqxtn v0.4h, v16.4s\n"
      "sqxtn2 v0.8h, v20.4s\n"
      "sqxtn v1.4h, v17.4s\n"
      "sqxtn2 v1.8h, v21.4s\n"
      "sqxtn v2.4h, v18.4s\n"
      "sqxtn2 v2.8h, v22.4s\n"
      "sqxtn v3.4h, v19.4s\n"
      "sqxtn2 v3.8h, v23.4s\n"
      "ldr q26, [%[wk], #32]\n"
      "ldr q27, [%[wk], #96]\n"
      "sshr v28.4s, v27.4s, #8\n"
      "zip1 v16.2d, v4.2d, v5.2d\n"
      "zip2 v17.2d, v4.2d, v5.2d\n"
      "zip1 v18.2d, v12.2d, v13.2d\n"
      "zip2 v19.2d, v12.2d, v13.2d\n"
      "tbz %w[tmp], #16, 5f\n"
      "sqshl v16.4s, v16.4s, v27.4s\n"
      "sqshl v17.4s, v17.4s, v27.4s\n"
      "sqshl v18.4s, v18.4s, v27.4s\n"
      "sqshl v19.4s, v19.4s, v27.4s\n"
      "5:\n"
      "sqdmulh v16.4s, v16.4s, v26.4s\n"
      "sqdmulh v17.4s, v17.4s, v26.4s\n"
      "sqdmulh v18.4s, v18.4s, v26.4s\n"
      "sqdmulh v19.4s, v19.4s, v26.4s\n"
      "srshl v16.4s, v16.4s, v28.4s\n"
      "srshl v17.4s, v17.4s, v28.4s\n"
      "srshl v18.4s, v18.4s, v28.4s\n"
      "srshl v19.4s, v19.4s, v28.4s\n"
      "ldr q26, [%[wk], #48]\n"
      "ldr q27, [%[wk], #112]\n"
      "sshr v28.4s, v27.4s, #8\n"
      "zip1 v20.2d, v6.2d, v7.2d\n"
      "zip2 v21.2d, v6.2d, v7.2d\n"
      "zip1 v22.2d, v14.2d, v15.2d\n"
      "zip2 v23.2d, v14.2d, v15.2d\n"
      "tbz %w[tmp], #16, 5f\n"
      "sqshl v20.4s, v20.4s, v27.4s\n"
      "sqshl v21.4s, v21.4s, v27.4s\n"
      "sqshl v22.4s, v22.4s, v27.4s\n"
      "sqshl v23.4s, v23.4s, v27.4s\n"
      "5:\n"
      "sqdmulh v20.4s, v20.4s, v26.4s\n"
      "sqdmulh v21.4s, v21.4s, v26.4s\n"
      "sqdmulh v22.4s, v22.4s, v26.4s\n"
      "sqdmulh v23.4s, v23.4s, v26.4s\n"
      "srshl v20.4s, v20.4s, v28.4s\n"
      "srshl v21.4s, v21.4s, v28.4s\n"
      "srshl v22.4s, v22.4s, v28.4s\n"
      "srshl v23.4s, v23.4s, v28.4s\n"
      "sqxtn v4.4h, v16.4s\n"
      "sqxtn2 v4.8h, v20.4s\n"
      "sqxtn v5.4h, v17.4s\n"
      "sqxtn2 v5.8h, v21.4s\n"
      "sqxtn v6.4h, v18.4s\n"
      "sqxtn2 v6.8h, v22.4s\n"
      "sqxtn v7.4h, v19.4s\n"
      "sqxtn2 v7.8h, v23.4s\n"
      "sqadd v0.8h, v0.8h, v29.8h\n"
      "sqadd v4.8h, v4.8h, v29.8h\n"
      "sqxtn v16.8b, v0.8h\n"
      "sqxtn2 v16.16b, v4.8h\n"
      "smax v16.16b, v16.16b, v30.16b\n"
      "smin v16.16b, v16.16b, v31.16b\n"
      "str q16, [%[c]]\n"
      "add %[c], %[c], %[cs]\n"
      "sqadd v1.8h, v1.8h, v29.8h\n"
      "sqadd v5.8h, v5.8h, v29.8h\n"
      "sqxtn v16.8b, v1.8h\n"
      "sqxtn2 v16.16b, v5.8h\n"
      "smax v16.16b, v16.16b, v30.16b\n"
      "smin v16.16b, v16.16b, v31.16b\n"
      "str q16, [%[c]]\n"
      "add %[c], %[c], %[cs]\n"
      "sqadd v2.8h, v2.8h, v29.8h\n"
      "sqadd v6.8h, v6.8h, v29.8h\n"
      "sqxtn v16.8b, v2.8h\n"
      "sqxtn2 v16.16b, v6.8h\n"
      "smax v16.16b, v16.16b, v30.16b\n"
      "smin v16.16b, v16.16b, v31.16b\n"
      "str q16, [%[c]]\n"
      "add %[c], %[c], %[cs]\n"
      "sqadd v3.8h, v3.8h, v29.8h\n"
      "sqadd v7.8h, v7.8h, v29.8h\n"
      "sqxtn v16.8b, v3.8h\n"
      "sqxtn2 v16.16b, v7.8h\n"
      "smax v16.16b, v16.16b, v30.16b\n"
      "smin v16.16b, v16.16b, v31.16b\n"
      "str q16, [%[c]]\n"
      "add %[c], %[c], %[cs]\n"
      "add %[a0], %[a3], %[as]\n"
      "subs %[tiles], %[tiles], #1\n"
      "b.ne 0b\n"
      : [tiles] "+r"(tiles), [a0] "+r"(a0), [c] "+r"(c), [a1] "=&r"(a1), [a2] "=&r"(a2), [a3] "=&r"(a3),
        [wk] "=&r"(wk), [n] "=&r"(n), [off] "=&r"(off), [tmp] "=&r"(tmp)
      : [as] "r"(a_stride), [cs] "r"(c_stride), [w] "r"(w), [blocks] "r"(blocks), [groups] "r"(groups),
        [toff] "r"(tail_offset), [idx] "r"(idx), [params] "r"(params)
      : "cc", "memory", "v0", "v1", "v2", "v3", "v4", "v5", "v6", "v7", "v8", "v9", "v10", "v11", "v12", "v13",
        "v14", "v15", "v16", "v17", "v18", "v19", "v20", "v21", "v22", "v23", "v24", "v25", "v26", "v27", "v28",
        "v29", "v30", "v31");
}

/* MR 16 in the config: one call runs up to four 4-row tiles of a panel, so the call and the saved
 * registers are paid once per 16 rows; whole tiles loop inside one assembly block. */
void lite_qs8_gemm_ukernel_4x16c8_aarch64_neoni8mm(size_t mr, size_t nc, size_t k, const int8_t* a,
                                                   size_t a_stride, const void* w, int8_t* c, size_t c_stride,
                                                   const lite_qs8_gemm_params* params) {
  int8_t short_rows[4][16];
  int8_t scratch[4][NR];
  const int full_width = nc == NR;
  size_t i0 = 0;
  if (full_width && k >= 16 && mr >= 4) {
    qs8_i8mm_full_tiles(mr / 4, k, a, a_stride, w, c, c_stride, params);
    i0 = mr / 4 * 4;
  }
  for (; i0 < mr; i0 += 4) {
    const size_t rows = mr - i0 < 4 ? mr - i0 : 4;
    const int8_t* a0 = a + i0 * a_stride;
    const int8_t* a1 = rows > 1 ? a0 + a_stride : a0;
    const int8_t* a2 = rows > 2 ? a1 + a_stride : a1;
    const int8_t* a3 = rows > 3 ? a2 + a_stride : a2;
    if (k < 16) {
      memcpy(short_rows[0] + 16 - k, a0, k);
      memcpy(short_rows[1] + 16 - k, a1, k);
      memcpy(short_rows[2] + 16 - k, a2, k);
      memcpy(short_rows[3] + 16 - k, a3, k);
      a0 = short_rows[0] + 16 - k, a1 = short_rows[1] + 16 - k;
      a2 = short_rows[2] + 16 - k, a3 = short_rows[3] + 16 - k;
    }
    int8_t* row = c + i0 * c_stride;
    if (full_width && rows == 4) {
      qs8_i8mm_rows4(k, a0, a1, a2, a3, w, row, row + c_stride, row + 2 * c_stride, row + 3 * c_stride, params);
    } else {
      qs8_i8mm_rows4(k, a0, a1, a2, a3, w, scratch[0], scratch[1], scratch[2], scratch[3], params);
      for (size_t i = 0; i < rows; ++i) memcpy(row + i * c_stride, scratch[i], nc);
    }
  }
}

/* ---- packed A (lite_kernels/qs8_gemm_packed_a.h) ----------------------------------------------
 * Per group of 4 rows, ceil(k / 16) blocks of 64 bytes: [r0 k0-7 | r1 k0-7] [r2 k0-7 | r3 k0-7]
 * [r0 k8-15 | r1 k8-15] [r2 k8-15 | r3 k8-15], zero past k; rows past m repeat row m - 1. One ld1
 * of four registers then feeds 32 smmla (the row loads and zips of the unpacked kernel are done once
 * per row group here instead of once per panel). */

size_t lite_qs8_gemm_i8mm_packed_a_bytes(size_t m, size_t k) { return (m + 3) / 4 * ((k + 15) / 16) * 64; }

void lite_qs8_gemm_i8mm_pack_a(size_t m, size_t k, const int8_t* a, size_t lda, int8_t* packed_a) {
  for (size_t i0 = 0; i0 < m; i0 += 4) {
    const size_t rows = m - i0 < 4 ? m - i0 : 4;
    const int8_t* r0 = a + i0 * lda;
    const int8_t* r1 = rows > 1 ? r0 + lda : r0;
    const int8_t* r2 = rows > 2 ? r1 + lda : r1;
    const int8_t* r3 = rows > 3 ? r2 + lda : r2;
    size_t p = 0;
    for (; p + 16 <= k; p += 16, packed_a += 64) {
      const int8x16_t x0 = vld1q_s8(r0 + p), x1 = vld1q_s8(r1 + p), x2 = vld1q_s8(r2 + p), x3 = vld1q_s8(r3 + p);
      vst1q_s8(packed_a, zip_rows_lo(x0, x1));
      vst1q_s8(packed_a + 16, zip_rows_lo(x2, x3));
      vst1q_s8(packed_a + 32, zip_rows_hi(x0, x1));
      vst1q_s8(packed_a + 48, zip_rows_hi(x2, x3));
    }
    if (p < k) { /* the last 1..15 bytes of each row, zero-extended */
      const size_t left = (k - p) & 15;
      int8x16_t x0, x1, x2, x3;
      if (k >= 16) { /* the 16 bytes ending the row, moved down by tbl (as the kernel's own tail) */
        const uint8x16_t idx = vld1q_u8(k_tail_index + 16 - left);
        x0 = vqtbl1q_s8(vld1q_s8(r0 + k - 16), idx), x1 = vqtbl1q_s8(vld1q_s8(r1 + k - 16), idx);
        x2 = vqtbl1q_s8(vld1q_s8(r2 + k - 16), idx), x3 = vqtbl1q_s8(vld1q_s8(r3 + k - 16), idx);
      } else {
        int8_t tail[4][16] = {{0}};
        memcpy(tail[0], r0, left);
        memcpy(tail[1], r1, left);
        memcpy(tail[2], r2, left);
        memcpy(tail[3], r3, left);
        x0 = vld1q_s8(tail[0]), x1 = vld1q_s8(tail[1]), x2 = vld1q_s8(tail[2]), x3 = vld1q_s8(tail[3]);
      }
      vst1q_s8(packed_a, zip_rows_lo(x0, x1));
      vst1q_s8(packed_a + 16, zip_rows_lo(x2, x3));
      vst1q_s8(packed_a + 32, zip_rows_hi(x0, x1));
      vst1q_s8(packed_a + 48, zip_rows_hi(x2, x3));
      packed_a += 64;
    }
  }
}

/* `tiles` 4 x 16 tiles of one panel from consecutive packed row groups at pa, rows stored at c,
 * c + c_stride, ... (16 bytes each). */
static void qs8_i8mm_packed_a_tiles(size_t tiles, size_t k, const int8_t* pa, const void* w, int8_t* c,
                                    size_t c_stride, const lite_qs8_gemm_params* params) {
  const size_t blocks = k / 16, left = k % 16;
  const size_t groups = left == 0 ? 0 : left <= 8 ? 1 : 2;
  const int8_t* wk;
  size_t n;
  uint64_t tmp; /* a 64-bit scratch register: the asm also uses it as an address */
  __asm__ volatile(
      "0:\n"
      "mov %[wk], %[w]\n"
      "add %[tmp], %[wk], #32\n"
      "ld4r {v8.2d, v9.2d, v10.2d, v11.2d}, [%[wk]]\n"
      "ld4r {v12.2d, v13.2d, v14.2d, v15.2d}, [%[tmp]]\n"
      "ld4r {v0.2d, v1.2d, v2.2d, v3.2d}, [%[wk]], #32\n"
      "ld4r {v4.2d, v5.2d, v6.2d, v7.2d}, [%[wk]], #32\n"
      "cbz %[blocks], 2f\n"
      "mov %[n], %[blocks]\n"
      "1:\n"
      "ld1 {v20.16b, v21.16b, v22.16b, v23.16b}, [%[pa]], #64\n"
      "ldp q24, q25, [%[wk]], #32\n"
      "ldp q26, q27, [%[wk]], #32\n"
      "ldp q28, q29, [%[wk]], #32\n"
      "ldp q30, q31, [%[wk]], #32\n"
      "smmla v0.4s, v20.16b, v24.16b\n"
      "smmla v8.4s, v21.16b, v24.16b\n"
      "smmla v1.4s, v20.16b, v25.16b\n"
      "smmla v9.4s, v21.16b, v25.16b\n"
      "smmla v2.4s, v20.16b, v26.16b\n"
      "smmla v10.4s, v21.16b, v26.16b\n"
      "smmla v3.4s, v20.16b, v27.16b\n"
      "smmla v11.4s, v21.16b, v27.16b\n"
      "smmla v4.4s, v20.16b, v28.16b\n"
      "smmla v12.4s, v21.16b, v28.16b\n"
      "smmla v5.4s, v20.16b, v29.16b\n"
      "smmla v13.4s, v21.16b, v29.16b\n"
      "smmla v6.4s, v20.16b, v30.16b\n"
      "smmla v14.4s, v21.16b, v30.16b\n"
      "smmla v7.4s, v20.16b, v31.16b\n"
      "smmla v15.4s, v21.16b, v31.16b\n"
      "ldp q24, q25, [%[wk]], #32\n"
      "ldp q26, q27, [%[wk]], #32\n"
      "smmla v0.4s, v22.16b, v24.16b\n"
      "smmla v8.4s, v23.16b, v24.16b\n"
      "smmla v1.4s, v22.16b, v25.16b\n"
      "smmla v9.4s, v23.16b, v25.16b\n"
      "smmla v2.4s, v22.16b, v26.16b\n"
      "smmla v10.4s, v23.16b, v26.16b\n"
      "smmla v3.4s, v22.16b, v27.16b\n"
      "smmla v11.4s, v23.16b, v27.16b\n"
      "ldp q28, q29, [%[wk]], #32\n"
      "ldp q30, q31, [%[wk]], #32\n"
      "smmla v4.4s, v22.16b, v28.16b\n"
      "smmla v12.4s, v23.16b, v28.16b\n"
      "smmla v5.4s, v22.16b, v29.16b\n"
      "smmla v13.4s, v23.16b, v29.16b\n"
      "smmla v6.4s, v22.16b, v30.16b\n"
      "smmla v14.4s, v23.16b, v30.16b\n"
      "smmla v7.4s, v22.16b, v31.16b\n"
      "smmla v15.4s, v23.16b, v31.16b\n"
      "subs %[n], %[n], #1\n"
      "b.ne 1b\n"
      "2:\n"
      "cbz %[groups], 4f\n"
      "ld1 {v20.16b, v21.16b, v22.16b, v23.16b}, [%[pa]], #64\n"
      "ldp q24, q25, [%[wk]], #32\n"
      "ldp q26, q27, [%[wk]], #32\n"
      "ldp q28, q29, [%[wk]], #32\n"
      "ldp q30, q31, [%[wk]], #32\n"
      "smmla v0.4s, v20.16b, v24.16b\n"
      "smmla v8.4s, v21.16b, v24.16b\n"
      "smmla v1.4s, v20.16b, v25.16b\n"
      "smmla v9.4s, v21.16b, v25.16b\n"
      "smmla v2.4s, v20.16b, v26.16b\n"
      "smmla v10.4s, v21.16b, v26.16b\n"
      "smmla v3.4s, v20.16b, v27.16b\n"
      "smmla v11.4s, v21.16b, v27.16b\n"
      "smmla v4.4s, v20.16b, v28.16b\n"
      "smmla v12.4s, v21.16b, v28.16b\n"
      "smmla v5.4s, v20.16b, v29.16b\n"
      "smmla v13.4s, v21.16b, v29.16b\n"
      "smmla v6.4s, v20.16b, v30.16b\n"
      "smmla v14.4s, v21.16b, v30.16b\n"
      "smmla v7.4s, v20.16b, v31.16b\n"
      "smmla v15.4s, v21.16b, v31.16b\n"
      "cmp %[groups], #1\n"
      "b.eq 4f\n"
      "ldp q24, q25, [%[wk]], #32\n"
      "ldp q26, q27, [%[wk]], #32\n"
      "ldp q28, q29, [%[wk]], #32\n"
      "ldp q30, q31, [%[wk]], #32\n"
      "smmla v0.4s, v22.16b, v24.16b\n"
      "smmla v8.4s, v23.16b, v24.16b\n"
      "smmla v1.4s, v22.16b, v25.16b\n"
      "smmla v9.4s, v23.16b, v25.16b\n"
      "smmla v2.4s, v22.16b, v26.16b\n"
      "smmla v10.4s, v23.16b, v26.16b\n"
      "smmla v3.4s, v22.16b, v27.16b\n"
      "smmla v11.4s, v23.16b, v27.16b\n"
      "smmla v4.4s, v22.16b, v28.16b\n"
      "smmla v12.4s, v23.16b, v28.16b\n"
      "smmla v5.4s, v22.16b, v29.16b\n"
      "smmla v13.4s, v23.16b, v29.16b\n"
      "smmla v6.4s, v22.16b, v30.16b\n"
      "smmla v14.4s, v23.16b, v30.16b\n"
      "smmla v7.4s, v22.16b, v31.16b\n"
      "smmla v15.4s, v23.16b, v31.16b\n"
      "4:\n"
      "ld1r {v29.8h}, [%[params]]\n"
      "ldr %w[tmp], [%[params], #4]\n"
      "dup v30.16b, %w[tmp]\n"
      "ldr %w[tmp], [%[params], #8]\n"
      "dup v31.16b, %w[tmp]\n"
      "ldr %w[tmp], [%[wk], #64]\n"
      "ldr q26, [%[wk], #0]\n"
      "ldr q27, [%[wk], #64]\n"
      "sshr v28.4s, v27.4s, #8\n"
      "zip1 v16.2d, v0.2d, v1.2d\n"
      "zip2 v17.2d, v0.2d, v1.2d\n"
      "zip1 v18.2d, v8.2d, v9.2d\n"
      "zip2 v19.2d, v8.2d, v9.2d\n"
      "tbz %w[tmp], #16, 5f\n"
      "sqshl v16.4s, v16.4s, v27.4s\n"
      "sqshl v17.4s, v17.4s, v27.4s\n"
      "sqshl v18.4s, v18.4s, v27.4s\n"
      "sqshl v19.4s, v19.4s, v27.4s\n"
      "5:\n"
      "sqdmulh v16.4s, v16.4s, v26.4s\n"
      "sqdmulh v17.4s, v17.4s, v26.4s\n"
      "sqdmulh v18.4s, v18.4s, v26.4s\n"
      "sqdmulh v19.4s, v19.4s, v26.4s\n"
      "srshl v16.4s, v16.4s, v28.4s\n"
      "srshl v17.4s, v17.4s, v28.4s\n"
      "srshl v18.4s, v18.4s, v28.4s\n"
      "srshl v19.4s, v19.4s, v28.4s\n"
      "ldr q26, [%[wk], #16]\n"
      "ldr q27, [%[wk], #80]\n"
      "sshr v28.4s, v27.4s, #8\n"
      "zip1 v20.2d, v2.2d, v3.2d\n"
      "zip2 v21.2d, v2.2d, v3.2d\n"
      "zip1 v22.2d, v10.2d, v11.2d\n"
      "zip2 v23.2d, v10.2d, v11.2d\n"
      "tbz %w[tmp], #16, 5f\n"
      "sqshl v20.4s, v20.4s, v27.4s\n"
      "sqshl v21.4s, v21.4s, v27.4s\n"
      "sqshl v22.4s, v22.4s, v27.4s\n"
      "sqshl v23.4s, v23.4s, v27.4s\n"
      "5:\n"
      "sqdmulh v20.4s, v20.4s, v26.4s\n"
      "sqdmulh v21.4s, v21.4s, v26.4s\n"
      "sqdmulh v22.4s, v22.4s, v26.4s\n"
      "sqdmulh v23.4s, v23.4s, v26.4s\n"
      "srshl v20.4s, v20.4s, v28.4s\n"
      "srshl v21.4s, v21.4s, v28.4s\n"
      "srshl v22.4s, v22.4s, v28.4s\n"
      "srshl v23.4s, v23.4s, v28.4s\n"
      "sqxtn v0.4h, v16.4s\n"
      "sqxtn2 v0.8h, v20.4s\n"
      "sqxtn v1.4h, v17.4s\n"
      "sqxtn2 v1.8h, v21.4s\n"
      "sqxtn v2.4h, v18.4s\n"
      "sqxtn2 v2.8h, v22.4s\n"
      "sqxtn v3.4h, v19.4s\n"
      "sqxtn2 v3.8h, v23.4s\n"
      "ldr q26, [%[wk], #32]\n"
      "ldr q27, [%[wk], #96]\n"
      "sshr v28.4s, v27.4s, #8\n"
      "zip1 v16.2d, v4.2d, v5.2d\n"
      "zip2 v17.2d, v4.2d, v5.2d\n"
      "zip1 v18.2d, v12.2d, v13.2d\n"
      "zip2 v19.2d, v12.2d, v13.2d\n"
      "tbz %w[tmp], #16, 5f\n"
      "sqshl v16.4s, v16.4s, v27.4s\n"
      "sqshl v17.4s, v17.4s, v27.4s\n"
      "sqshl v18.4s, v18.4s, v27.4s\n"
      "sqshl v19.4s, v19.4s, v27.4s\n"
      "5:\n"
      "sqdmulh v16.4s, v16.4s, v26.4s\n"
      "sqdmulh v17.4s, v17.4s, v26.4s\n"
      "sqdmulh v18.4s, v18.4s, v26.4s\n"
      "sqdmulh v19.4s, v19.4s, v26.4s\n"
      "srshl v16.4s, v16.4s, v28.4s\n"
      "srshl v17.4s, v17.4s, v28.4s\n"
      "srshl v18.4s, v18.4s, v28.4s\n"
      "srshl v19.4s, v19.4s, v28.4s\n"
      "ldr q26, [%[wk], #48]\n"
      "ldr q27, [%[wk], #112]\n"
      "sshr v28.4s, v27.4s, #8\n"
      "zip1 v20.2d, v6.2d, v7.2d\n"
      "zip2 v21.2d, v6.2d, v7.2d\n"
      "zip1 v22.2d, v14.2d, v15.2d\n"
      "zip2 v23.2d, v14.2d, v15.2d\n"
      "tbz %w[tmp], #16, 5f\n"
      "sqshl v20.4s, v20.4s, v27.4s\n"
      "sqshl v21.4s, v21.4s, v27.4s\n"
      "sqshl v22.4s, v22.4s, v27.4s\n"
      "sqshl v23.4s, v23.4s, v27.4s\n"
      "5:\n"
      "sqdmulh v20.4s, v20.4s, v26.4s\n"
      "sqdmulh v21.4s, v21.4s, v26.4s\n"
      "sqdmulh v22.4s, v22.4s, v26.4s\n"
      "sqdmulh v23.4s, v23.4s, v26.4s\n"
      "srshl v20.4s, v20.4s, v28.4s\n"
      "srshl v21.4s, v21.4s, v28.4s\n"
      "srshl v22.4s, v22.4s, v28.4s\n"
      "srshl v23.4s, v23.4s, v28.4s\n"
      "sqxtn v4.4h, v16.4s\n"
      "sqxtn2 v4.8h, v20.4s\n"
      "sqxtn v5.4h, v17.4s\n"
      "sqxtn2 v5.8h, v21.4s\n"
      "sqxtn v6.4h, v18.4s\n"
      "sqxtn2 v6.8h, v22.4s\n"
      "sqxtn v7.4h, v19.4s\n"
      "sqxtn2 v7.8h, v23.4s\n"
      "sqadd v0.8h, v0.8h, v29.8h\n"
      "sqadd v4.8h, v4.8h, v29.8h\n"
      "sqxtn v16.8b, v0.8h\n"
      "sqxtn2 v16.16b, v4.8h\n"
      "smax v16.16b, v16.16b, v30.16b\n"
      "smin v16.16b, v16.16b, v31.16b\n"
      "str q16, [%[c]]\n"
      "add %[c], %[c], %[cs]\n"
      "sqadd v1.8h, v1.8h, v29.8h\n"
      "sqadd v5.8h, v5.8h, v29.8h\n"
      "sqxtn v16.8b, v1.8h\n"
      "sqxtn2 v16.16b, v5.8h\n"
      "smax v16.16b, v16.16b, v30.16b\n"
      "smin v16.16b, v16.16b, v31.16b\n"
      "str q16, [%[c]]\n"
      "add %[c], %[c], %[cs]\n"
      "sqadd v2.8h, v2.8h, v29.8h\n"
      "sqadd v6.8h, v6.8h, v29.8h\n"
      "sqxtn v16.8b, v2.8h\n"
      "sqxtn2 v16.16b, v6.8h\n"
      "smax v16.16b, v16.16b, v30.16b\n"
      "smin v16.16b, v16.16b, v31.16b\n"
      "str q16, [%[c]]\n"
      "add %[c], %[c], %[cs]\n"
      "sqadd v3.8h, v3.8h, v29.8h\n"
      "sqadd v7.8h, v7.8h, v29.8h\n"
      "sqxtn v16.8b, v3.8h\n"
      "sqxtn2 v16.16b, v7.8h\n"
      "smax v16.16b, v16.16b, v30.16b\n"
      "smin v16.16b, v16.16b, v31.16b\n"
      "str q16, [%[c]]\n"
      "add %[c], %[c], %[cs]\n"
      "subs %[tiles], %[tiles], #1\n"
      "b.ne 0b\n"
      : [tiles] "+r"(tiles), [pa] "+r"(pa), [c] "+r"(c), [wk] "=&r"(wk), [n] "=&r"(n), [tmp] "=&r"(tmp)
      : [cs] "r"(c_stride), [w] "r"(w), [blocks] "r"(blocks), [groups] "r"(groups), [params] "r"(params)
      : "cc", "memory", "v0", "v1", "v2", "v3", "v4", "v5", "v6", "v7", "v8", "v9", "v10", "v11", "v12", "v13",
        "v14", "v15", "v16", "v17", "v18", "v19", "v20", "v21", "v22", "v23", "v24", "v25", "v26", "v27", "v28",
        "v29", "v30", "v31");
}

void lite_qs8_gemm_i8mm_packed_a_compute(const lite_qs8_gemm_config* config, size_t m, size_t n, size_t k,
                                         const int8_t* packed_a, const void* packed_w,
                                         const lite_qs8_gemm_params* params, int8_t* c, size_t ldc) {
  const size_t panel_bytes = lite_qs8_gemm_panel_bytes(config, k), group_bytes = (k + 15) / 16 * 64;
  const size_t full_groups = m / 4, all_groups = (m + 3) / 4;
  int8_t scratch[4][NR];
  for (size_t j0 = 0; j0 < n; j0 += NR) {
    const size_t nc = n - j0 < NR ? n - j0 : NR;
    const void* panel = (const uint8_t*)packed_w + (j0 / NR) * panel_bytes;
    size_t g = 0;
    if (nc == NR && full_groups > 0) {
      qs8_i8mm_packed_a_tiles(full_groups, k, packed_a, panel, c + j0, ldc, params);
      g = full_groups;
    }
    for (; g < all_groups; ++g) { /* partial tiles: through the scratch tile */
      qs8_i8mm_packed_a_tiles(1, k, packed_a + g * group_bytes, panel, scratch[0], NR, params);
      const size_t rows = m - 4 * g < 4 ? m - 4 * g : 4;
      for (size_t i = 0; i < rows; ++i) memcpy(c + (4 * g + i) * ldc + j0, scratch[i], nc);
    }
  }
}
