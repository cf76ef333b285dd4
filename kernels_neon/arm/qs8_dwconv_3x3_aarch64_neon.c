/* int8 depthwise convolution, 3x3 kernels (any stride, dilation, padding), aarch64 NEON, on the
 * shared packed layout of qs8_dwconv.h; exactly lite_qs8_conv2d_nhwc_ref's bytes.
 *
 * Why not the shared body (qs8_dwconv_neon_body.h): it widens every input to int16 and keeps the
 * weights as int16, which needs more registers than aarch64 has for a 3x3 window (GCC spilled a
 * third of its instructions). Here one 16-channel step of one output row keeps its nine taps as
 * int8 in nine registers for the whole row: per output pixel, two taps' products are summed in
 * int16 (smull + smlal: |x * w| <= 128 * 127, so a pair stays inside int16) and widened once into
 * the int32 accumulators (saddw). A step whose weights contain -128 (a pair could reach 2^15)
 * widens every tap alone instead. The per-channel bias and requantization are read from a small
 * per-step table in channel order; the requantization is qs8_requantize_neon.h's.
 *
 * Pixels whose window lies inside the input along W take their tap addresses from three row
 * pointers stepped by stride_w * c (a padded row is the packed zero-point row, stepped by 0); the
 * border pixels compute each tap's address. */
#include <arm_neon.h>
#include <string.h>

#include "lite_kernels/qs8_dwconv.h"
#include "qs8_dwconv_3x3_geometry.h"
#include "qs8_dwconv_ukernels_arm.h"
#include "qs8_requantize_neon.h"

enum { BLOCK = 32, STEP = 16 };

/* One step's per-channel values in channel order (the sqshl / srshl amounts of qs8_requantize_neon.h:
 * left_shift u, neg_right_shift -t). The interior loop loads each array with one ld1 of four vectors. */
typedef struct {
  int32_t bias[16], multiplier[16], left_shift[16], neg_right_shift[16];
  uint32_t has_left; /* some left_shift != 0: the sqshl is needed (a real multiplier >= 1/2) */
} dw_step_table;

/* The per-tensor epilogue values, read by ld1r in the interior loop. */
typedef struct {
  int16_t zero_point;
  int8_t act_min, act_max;
} dw_output_params;

/* 16 channels at p, or `count` < 16 through a copy (the last pixel's channels may end the buffer). */
static inline int8x16_t dw_load(const int8_t* p, size_t count) {
  if (count == STEP) return vld1q_s8(p);
  int8_t bytes[STEP] = {0};
  memcpy(bytes, p, count);
  return vld1q_s8(bytes);
}

static inline void dw_store(int8_t* p, int8x16_t v, size_t count) {
  if (count == STEP) {
    vst1q_s8(p, v);
  } else {
    int8_t bytes[STEP];
    vst1q_s8(bytes, v);
    memcpy(p, bytes, count);
  }
}

/* Accumulates x0 * w0 + x1 * w1 (paired in int16) into the four int32 groups. */
#define DW_PAIR(x0, w0, x1, w1)                                                           \
  do {                                                                                    \
    int16x8_t lo = vmull_s8(vget_low_s8(x0), vget_low_s8(w0));                            \
    int16x8_t hi = vmull_high_s8(x0, w0);                                                 \
    lo = vmlal_s8(lo, vget_low_s8(x1), vget_low_s8(w1));                                  \
    hi = vmlal_high_s8(hi, x1, w1);                                                       \
    acc0 = vaddw_s16(acc0, vget_low_s16(lo));                                             \
    acc1 = vaddw_high_s16(acc1, lo);                                                      \
    acc2 = vaddw_s16(acc2, vget_low_s16(hi));                                             \
    acc3 = vaddw_high_s16(acc3, hi);                                                      \
  } while (0)

#define DW_SINGLE(x0, w0)                                                                 \
  do {                                                                                    \
    const int16x8_t lo = vmull_s8(vget_low_s8(x0), vget_low_s8(w0));                      \
    const int16x8_t hi = vmull_high_s8(x0, w0);                                           \
    acc0 = vaddw_s16(acc0, vget_low_s16(lo));                                             \
    acc1 = vaddw_high_s16(acc1, lo);                                                      \
    acc2 = vaddw_s16(acc2, vget_low_s16(hi));                                             \
    acc3 = vaddw_high_s16(acc3, hi);                                                      \
  } while (0)

/* One output pixel of the step from its nine tap addresses (t[kh * 3 + kw], channel c0 included). */
static inline __attribute__((always_inline)) void dw_pixel(const int8_t* const* t, const int8x16_t* w,
                                                           const dw_step_table* table, size_t count, int paired,
                                                           int16x8_t zero_point, int8x16_t act_min, int8x16_t act_max,
                                                           int8_t* out) {
  int32x4_t acc0 = vld1q_s32(table->bias), acc1 = vld1q_s32(table->bias + 4);
  int32x4_t acc2 = vld1q_s32(table->bias + 8), acc3 = vld1q_s32(table->bias + 12);
  qs8_requant4_neon r[4];
  for (int g = 0; g < 4; ++g) {
    r[g].multiplier = vld1q_s32(table->multiplier + 4 * g);
    r[g].left_shift = vld1q_s32(table->left_shift + 4 * g);
    r[g].neg_right_shift = vld1q_s32(table->neg_right_shift + 4 * g);
  }
  const int8x16_t x0 = dw_load(t[0], count), x1 = dw_load(t[1], count), x2 = dw_load(t[2], count);
  const int8x16_t x3 = dw_load(t[3], count), x4 = dw_load(t[4], count), x5 = dw_load(t[5], count);
  const int8x16_t x6 = dw_load(t[6], count), x7 = dw_load(t[7], count), x8 = dw_load(t[8], count);
  if (paired) {
    DW_PAIR(x0, w[0], x1, w[1]);
    DW_PAIR(x2, w[2], x3, w[3]);
    DW_PAIR(x4, w[4], x5, w[5]);
    DW_PAIR(x6, w[6], x7, w[7]);
  } else {
    DW_SINGLE(x0, w[0]);
    DW_SINGLE(x1, w[1]);
    DW_SINGLE(x2, w[2]);
    DW_SINGLE(x3, w[3]);
    DW_SINGLE(x4, w[4]);
    DW_SINGLE(x5, w[5]);
    DW_SINGLE(x6, w[6]);
    DW_SINGLE(x7, w[7]);
  }
  DW_SINGLE(x8, w[8]);
  const int16x8_t lo = vqaddq_s16(vqmovn_high_s32(vqmovn_s32(qs8_requant4_apply(acc0, &r[0])),
                                                  qs8_requant4_apply(acc1, &r[1])),
                                  zero_point);
  const int16x8_t hi = vqaddq_s16(vqmovn_high_s32(vqmovn_s32(qs8_requant4_apply(acc2, &r[2])),
                                                  qs8_requant4_apply(acc3, &r[3])),
                                  zero_point);
  const int8x16_t v = vminq_s8(vmaxq_s8(vqmovn_high_s16(vqmovn_s16(lo), hi), act_min), act_max);
  dw_store(out, v, count);
}

/* `n` >= 1 interior pixels of a 16-channel step with every weight > -128, in assembly so that the
 * nine taps, the requantization and the epilogue constants stay in registers (28 of 32): tap
 * (k, j) of a pixel is at rows[k] + j * dil[k]; rows[k] steps by step[k], out by c. Every step is
 * the post-increment of a load or store (tap (k, 0) moves rows[k] on, so taps 1 and 2 are read at
 * j * dil[k] - step[k] from the moved pointer). */
static void dw_interior16(size_t n, const int8_t* r0, const int8_t* r1, const int8_t* r2, const ptrdiff_t* dil,
                          const ptrdiff_t* step, int8_t* out, size_t c, const int8x16_t* w, const dw_step_table* table,
                          const dw_output_params* out_params) {
  const ptrdiff_t s0 = step[0], s1 = step[1], s2 = step[2];
  const ptrdiff_t d0 = dil[0] - s0, d1 = dil[1] - s1, d2 = dil[2] - s2;
  const ptrdiff_t e0 = 2 * dil[0] - s0, e1 = 2 * dil[1] - s1, e2 = 2 * dil[2] - s2;
  const uint32_t has_left = table->has_left;
  const int8x16_t* wp = w;
  uintptr_t tmp;
  __asm__ volatile(
      "ld1 {v0.16b, v1.16b, v2.16b, v3.16b}, [%[w]], #64\n"
      "ld1 {v4.16b, v5.16b, v6.16b, v7.16b}, [%[w]], #64\n"
      "ld1 {v8.16b}, [%[w]]\n"
      "add %[tmp], %[table], #64\n"
      "ld1 {v9.4s, v10.4s, v11.4s, v12.4s}, [%[tmp]], #64\n"
      "ld1 {v13.4s, v14.4s, v15.4s, v16.4s}, [%[tmp]], #64\n"
      "ld1 {v17.4s, v18.4s, v19.4s, v20.4s}, [%[tmp]]\n"
      "ld1r {v21.8h}, [%[out_params]]\n"
      "add %[tmp], %[out_params], #2\n"
      "ld1r {v22.16b}, [%[tmp]]\n"
      "add %[tmp], %[out_params], #3\n"
      "ld1r {v23.16b}, [%[tmp]]\n"
      "1:\n"
      "ld1 {v24.4s, v25.4s, v26.4s, v27.4s}, [%[table]]\n"
      "ld1 {v28.16b}, [%[r0]], %[s0]\n"
      "ldr q29, [%[r0], %[d0]]\n"
      "smull v30.8h, v28.8b, v0.8b\n"
      "smull2 v31.8h, v28.16b, v0.16b\n"
      "smlal v30.8h, v29.8b, v1.8b\n"
      "smlal2 v31.8h, v29.16b, v1.16b\n"
      "saddw v24.4s, v24.4s, v30.4h\n"
      "saddw2 v25.4s, v25.4s, v30.8h\n"
      "saddw v26.4s, v26.4s, v31.4h\n"
      "saddw2 v27.4s, v27.4s, v31.8h\n"
      "ldr q28, [%[r0], %[e0]]\n"
      "ld1 {v29.16b}, [%[r1]], %[s1]\n"
      "smull v30.8h, v28.8b, v2.8b\n"
      "smull2 v31.8h, v28.16b, v2.16b\n"
      "smlal v30.8h, v29.8b, v3.8b\n"
      "smlal2 v31.8h, v29.16b, v3.16b\n"
      "saddw v24.4s, v24.4s, v30.4h\n"
      "saddw2 v25.4s, v25.4s, v30.8h\n"
      "saddw v26.4s, v26.4s, v31.4h\n"
      "saddw2 v27.4s, v27.4s, v31.8h\n"
      "ldr q28, [%[r1], %[d1]]\n"
      "ldr q29, [%[r1], %[e1]]\n"
      "smull v30.8h, v28.8b, v4.8b\n"
      "smull2 v31.8h, v28.16b, v4.16b\n"
      "smlal v30.8h, v29.8b, v5.8b\n"
      "smlal2 v31.8h, v29.16b, v5.16b\n"
      "saddw v24.4s, v24.4s, v30.4h\n"
      "saddw2 v25.4s, v25.4s, v30.8h\n"
      "saddw v26.4s, v26.4s, v31.4h\n"
      "saddw2 v27.4s, v27.4s, v31.8h\n"
      "ld1 {v28.16b}, [%[r2]], %[s2]\n"
      "ldr q29, [%[r2], %[d2]]\n"
      "smull v30.8h, v28.8b, v6.8b\n"
      "smull2 v31.8h, v28.16b, v6.16b\n"
      "smlal v30.8h, v29.8b, v7.8b\n"
      "smlal2 v31.8h, v29.16b, v7.16b\n"
      "saddw v24.4s, v24.4s, v30.4h\n"
      "saddw2 v25.4s, v25.4s, v30.8h\n"
      "saddw v26.4s, v26.4s, v31.4h\n"
      "saddw2 v27.4s, v27.4s, v31.8h\n"
      "ldr q28, [%[r2], %[e2]]\n"
      "smull v30.8h, v28.8b, v8.8b\n"
      "smull2 v31.8h, v28.16b, v8.16b\n"
      "saddw v24.4s, v24.4s, v30.4h\n"
      "saddw2 v25.4s, v25.4s, v30.8h\n"
      "saddw v26.4s, v26.4s, v31.4h\n"
      "saddw2 v27.4s, v27.4s, v31.8h\n"
      "cbz %w[has_left], 5f\n"
      "sqshl v24.4s, v24.4s, v13.4s\n"
      "sqshl v25.4s, v25.4s, v14.4s\n"
      "sqshl v26.4s, v26.4s, v15.4s\n"
      "sqshl v27.4s, v27.4s, v16.4s\n"
      "5:\n"
      "sqdmulh v24.4s, v24.4s, v9.4s\n"
      "sqdmulh v25.4s, v25.4s, v10.4s\n"
      "sqdmulh v26.4s, v26.4s, v11.4s\n"
      "sqdmulh v27.4s, v27.4s, v12.4s\n"
      "srshl v24.4s, v24.4s, v17.4s\n"
      "srshl v25.4s, v25.4s, v18.4s\n"
      "srshl v26.4s, v26.4s, v19.4s\n"
      "srshl v27.4s, v27.4s, v20.4s\n"
      "sqxtn v28.4h, v24.4s\n"
      "sqxtn2 v28.8h, v25.4s\n"
      "sqxtn v29.4h, v26.4s\n"
      "sqxtn2 v29.8h, v27.4s\n"
      "sqadd v28.8h, v28.8h, v21.8h\n"
      "sqadd v29.8h, v29.8h, v21.8h\n"
      "sqxtn v28.8b, v28.8h\n"
      "sqxtn2 v28.16b, v29.8h\n"
      "smax v28.16b, v28.16b, v22.16b\n"
      "smin v28.16b, v28.16b, v23.16b\n"
      "st1 {v28.16b}, [%[out]], %[c]\n"
      "subs %[n], %[n], #1\n"
      "b.ne 1b\n"

      : [n] "+r"(n), [r0] "+r"(r0), [r1] "+r"(r1), [r2] "+r"(r2), [out] "+r"(out), [w] "+r"(wp),
        [tmp] "=&r"(tmp)
      : [d0] "r"(d0), [d1] "r"(d1), [d2] "r"(d2), [e0] "r"(e0), [e1] "r"(e1), [e2] "r"(e2), [s0] "r"(s0),
        [s1] "r"(s1), [s2] "r"(s2), [c] "r"(c), [table] "r"(table), [out_params] "r"(out_params),
        [has_left] "r"(has_left)
      : "cc", "memory", "v0", "v1", "v2", "v3", "v4", "v5", "v6", "v7", "v8", "v9", "v10", "v11", "v12", "v13",
        "v14", "v15", "v16", "v17", "v18", "v19", "v20", "v21", "v22", "v23", "v24", "v25", "v26", "v27", "v28",
        "v29", "v30", "v31");
}

/* One border pixel of a 16-channel step with every weight > -128, from its nine tap addresses
 * t[kh * 3 + kw] (channel c0 included): the interior loop's body. */
static void dw_border16(const int8_t* const* t, int8_t* out, const int8x16_t* w, const dw_step_table* table,
                        const dw_output_params* out_params, uint32_t has_left) {
  const int8x16_t* wp = w;
  uintptr_t tmp;
  __asm__ volatile(
      "ld1 {v0.16b, v1.16b, v2.16b, v3.16b}, [%[w]], #64\n"
      "ld1 {v4.16b, v5.16b, v6.16b, v7.16b}, [%[w]], #64\n"
      "ld1 {v8.16b}, [%[w]]\n"
      "add %[tmp], %[table], #64\n"
      "ld1 {v9.4s, v10.4s, v11.4s, v12.4s}, [%[tmp]], #64\n"
      "ld1 {v13.4s, v14.4s, v15.4s, v16.4s}, [%[tmp]], #64\n"
      "ld1 {v17.4s, v18.4s, v19.4s, v20.4s}, [%[tmp]]\n"
      "ld1r {v21.8h}, [%[out_params]]\n"
      "add %[tmp], %[out_params], #2\n"
      "ld1r {v22.16b}, [%[tmp]]\n"
      "add %[tmp], %[out_params], #3\n"
      "ld1r {v23.16b}, [%[tmp]]\n"
      "ld1 {v24.4s, v25.4s, v26.4s, v27.4s}, [%[table]]\n"
      "ldr q28, [%[t0]]\n"
      "ldr q29, [%[t1]]\n"
      "smull v30.8h, v28.8b, v0.8b\n"
      "smull2 v31.8h, v28.16b, v0.16b\n"
      "smlal v30.8h, v29.8b, v1.8b\n"
      "smlal2 v31.8h, v29.16b, v1.16b\n"
      "saddw v24.4s, v24.4s, v30.4h\n"
      "saddw2 v25.4s, v25.4s, v30.8h\n"
      "saddw v26.4s, v26.4s, v31.4h\n"
      "saddw2 v27.4s, v27.4s, v31.8h\n"
      "ldr q28, [%[t2]]\n"
      "ldr q29, [%[t3]]\n"
      "smull v30.8h, v28.8b, v2.8b\n"
      "smull2 v31.8h, v28.16b, v2.16b\n"
      "smlal v30.8h, v29.8b, v3.8b\n"
      "smlal2 v31.8h, v29.16b, v3.16b\n"
      "saddw v24.4s, v24.4s, v30.4h\n"
      "saddw2 v25.4s, v25.4s, v30.8h\n"
      "saddw v26.4s, v26.4s, v31.4h\n"
      "saddw2 v27.4s, v27.4s, v31.8h\n"
      "ldr q28, [%[t4]]\n"
      "ldr q29, [%[t5]]\n"
      "smull v30.8h, v28.8b, v4.8b\n"
      "smull2 v31.8h, v28.16b, v4.16b\n"
      "smlal v30.8h, v29.8b, v5.8b\n"
      "smlal2 v31.8h, v29.16b, v5.16b\n"
      "saddw v24.4s, v24.4s, v30.4h\n"
      "saddw2 v25.4s, v25.4s, v30.8h\n"
      "saddw v26.4s, v26.4s, v31.4h\n"
      "saddw2 v27.4s, v27.4s, v31.8h\n"
      "ldr q28, [%[t6]]\n"
      "ldr q29, [%[t7]]\n"
      "smull v30.8h, v28.8b, v6.8b\n"
      "smull2 v31.8h, v28.16b, v6.16b\n"
      "smlal v30.8h, v29.8b, v7.8b\n"
      "smlal2 v31.8h, v29.16b, v7.16b\n"
      "saddw v24.4s, v24.4s, v30.4h\n"
      "saddw2 v25.4s, v25.4s, v30.8h\n"
      "saddw v26.4s, v26.4s, v31.4h\n"
      "saddw2 v27.4s, v27.4s, v31.8h\n"
      "ldr q28, [%[t8]]\n"
      "smull v30.8h, v28.8b, v8.8b\n"
      "smull2 v31.8h, v28.16b, v8.16b\n"
      "saddw v24.4s, v24.4s, v30.4h\n"
      "saddw2 v25.4s, v25.4s, v30.8h\n"
      "saddw v26.4s, v26.4s, v31.4h\n"
      "saddw2 v27.4s, v27.4s, v31.8h\n"
      "cbz %w[has_left], 5f\n"
      "sqshl v24.4s, v24.4s, v13.4s\n"
      "sqshl v25.4s, v25.4s, v14.4s\n"
      "sqshl v26.4s, v26.4s, v15.4s\n"
      "sqshl v27.4s, v27.4s, v16.4s\n"
      "5:\n"
      "sqdmulh v24.4s, v24.4s, v9.4s\n"
      "sqdmulh v25.4s, v25.4s, v10.4s\n"
      "sqdmulh v26.4s, v26.4s, v11.4s\n"
      "sqdmulh v27.4s, v27.4s, v12.4s\n"
      "srshl v24.4s, v24.4s, v17.4s\n"
      "srshl v25.4s, v25.4s, v18.4s\n"
      "srshl v26.4s, v26.4s, v19.4s\n"
      "srshl v27.4s, v27.4s, v20.4s\n"
      "sqxtn v28.4h, v24.4s\n"
      "sqxtn2 v28.8h, v25.4s\n"
      "sqxtn v29.4h, v26.4s\n"
      "sqxtn2 v29.8h, v27.4s\n"
      "sqadd v28.8h, v28.8h, v21.8h\n"
      "sqadd v29.8h, v29.8h, v21.8h\n"
      "sqxtn v28.8b, v28.8h\n"
      "sqxtn2 v28.16b, v29.8h\n"
      "smax v28.16b, v28.16b, v22.16b\n"
      "smin v28.16b, v28.16b, v23.16b\n"
      "str q28, [%[out]]\n"
      : [w] "+r"(wp), [tmp] "=&r"(tmp)
      : [t0] "r"(t[0]), [t1] "r"(t[1]), [t2] "r"(t[2]), [t3] "r"(t[3]), [t4] "r"(t[4]), [t5] "r"(t[5]),
        [t6] "r"(t[6]), [t7] "r"(t[7]), [t8] "r"(t[8]), [out] "r"(out), [table] "r"(table),
        [out_params] "r"(out_params), [has_left] "r"(has_left)
      : "cc", "memory", "v0", "v1", "v2", "v3", "v4", "v5", "v6", "v7", "v8", "v9", "v10", "v11", "v12", "v13",
        "v14", "v15", "v16", "v17", "v18", "v19", "v20", "v21", "v22", "v23", "v24", "v25", "v26", "v27", "v28",
        "v29", "v30", "v31");
}

/* The step's nine taps (qs8_dw3x3_unpack_taps) and its bias / requantization table in channel order
 * from the packed block. Returns the smallest weight. */
static int dw_unpack_step(const uint8_t* block, size_t pairs, const int* slots, size_t h, int8x16_t* w,
                          dw_step_table* table) {
  const size_t ia = 8 * h, ib = 8 * h + 4, ic = 16 + 8 * h, id = 16 + 8 * h + 4;
  int8_t taps[9][16];
  const int smallest = qs8_dw3x3_unpack_taps(block, pairs, slots, h, taps);
  for (size_t t = 0; t < 9; ++t) w[t] = vld1q_s8(taps[t]);
  const int32_t* bias = (const int32_t*)block;
  const int32_t* multiplier = (const int32_t*)(block + BLOCK * 4 + pairs * BLOCK * 4);
  const int32_t* shift = multiplier + BLOCK;
  const size_t order[4] = {ia, ic, ib, id};
  for (size_t g = 0; g < 4; ++g) {
    const qs8_requant4_neon r = qs8_requant4_load(multiplier + order[g], shift + order[g]);
    vst1q_s32(table->bias + 4 * g, vld1q_s32(bias + order[g]));
    vst1q_s32(table->multiplier + 4 * g, r.multiplier);
    vst1q_s32(table->left_shift + 4 * g, r.left_shift);
    vst1q_s32(table->neg_right_shift + 4 * g, r.neg_right_shift);
  }
  const int32x4_t left = vorrq_s32(vorrq_s32(vld1q_s32(table->left_shift), vld1q_s32(table->left_shift + 4)),
                                   vorrq_s32(vld1q_s32(table->left_shift + 8), vld1q_s32(table->left_shift + 12)));
  table->has_left = vmaxvq_u32(vreinterpretq_u32_s32(left));
  return smallest;
}

/* Output pixels [ow_begin, ow_end) of one row and step: border pixels (checked taps) or interior. */
static inline __attribute__((always_inline)) void dw_row_step(
    const lite_conv2d_params* p, const int8_t* const* rows, const int8_t* zero_row, size_t c0, size_t count,
    int paired, const int8x16_t* w, const dw_step_table* table, const dw_output_params* out_params,
    int16x8_t zero_point, int8x16_t act_min, int8x16_t act_max, size_t interior_begin, size_t interior_end,
    int8_t* out_row) {
  const size_t c = p->in_c;
  const ptrdiff_t sw = (ptrdiff_t)p->stride_w, dw = (ptrdiff_t)p->dilation_w, pl = (ptrdiff_t)p->pad_left;
  for (size_t ow = 0; ow < p->out_w; ++ow) {
    if (ow == interior_begin && interior_begin < interior_end) {
      /* the interior: three row pointers, each tap a fixed offset from its row's */
      const int8_t* r[3];
      ptrdiff_t step[3], dil[3];
      for (int k = 0; k < 3; ++k) {
        const int real = rows[k] != NULL;
        r[k] = real ? rows[k] + ((ptrdiff_t)ow * sw - pl) * (ptrdiff_t)c + c0 : zero_row + c0;
        step[k] = real ? sw * (ptrdiff_t)c : 0;
        dil[k] = real ? dw * (ptrdiff_t)c : 0;
      }
      int8_t* out = out_row + ow * c + c0;
      if (count == STEP && paired) {
        dw_interior16(interior_end - ow, r[0], r[1], r[2], dil, step, out, c, w, table, out_params);
        ow = interior_end;
      }
      for (; ow < interior_end; ++ow, out += c) {
        const int8_t* t[9] = {r[0], r[0] + dil[0], r[0] + 2 * dil[0], r[1], r[1] + dil[1],
                              r[1] + 2 * dil[1], r[2], r[2] + dil[2], r[2] + 2 * dil[2]};
        dw_pixel(t, w, table, count, paired, zero_point, act_min, act_max, out);
        r[0] += step[0], r[1] += step[1], r[2] += step[2];
      }
      if (ow == p->out_w) break;
    }
    /* a border pixel: each tap's column checked (rows[k] is NULL for a row in the padding) */
    const int8_t* t[9];
    qs8_dw3x3_border_taps(p, rows, zero_row, ow, c0, t);
    if (count == STEP && paired)
      dw_border16(t, out_row + ow * c + c0, w, table, out_params, table->has_left);
    else
      dw_pixel(t, w, table, count, paired, zero_point, act_min, act_max, out_row + ow * c + c0);
  }
}

void lite_qs8_dwconv_3x3_aarch64_neon(const lite_conv2d_params* p, const void* packed,
                                      const lite_qs8_gemm_params* params, const int8_t* input, int8_t* output,
                                      size_t row_begin, size_t row_end) {
  const size_t c = p->out_c;
  int slots[LITE_QS8_DWCONV_MAX_TAPS * 2];
  const size_t pairs = lite_qs8_dwconv_pair_slots(p, slots);
  const size_t blocks = (c + BLOCK - 1) / BLOCK, block_bytes = BLOCK * 12 + pairs * BLOCK * 4;
  const int8_t* zero_row = (const int8_t*)packed + blocks * block_bytes;
  const int16x8_t zero_point = vdupq_n_s16((int16_t)params->output_zero_point);
  const int8x16_t act_min = vdupq_n_s8((int8_t)params->act_min), act_max = vdupq_n_s8((int8_t)params->act_max);
  const dw_output_params out_params = {(int16_t)params->output_zero_point, (int8_t)params->act_min,
                                       (int8_t)params->act_max};
  size_t interior_begin, interior_end;
  qs8_dw3x3_interior(p, &interior_begin, &interior_end);
  for (size_t c0 = 0; c0 < c; c0 += STEP) {
    /* steps outside, rows inside: a step's taps and table are unpacked once per call */
    const size_t count = c - c0 < STEP ? c - c0 : STEP;
    int8x16_t w[9];
    dw_step_table table;
    const int smallest = dw_unpack_step((const uint8_t*)packed + (c0 / BLOCK) * block_bytes, pairs, slots,
                                        (c0 / STEP) % 2, w, &table);
    for (size_t row = row_begin; row < row_end; ++row) {
      const int8_t* rows[3];
      qs8_dw3x3_input_rows(p, input, row, rows);
      int8_t* out_row = output + row * p->out_w * c;
      /* three copies: the common one has every count test and the pairing decided at compile time */
      if (count == STEP && smallest > -128)
        dw_row_step(p, rows, zero_row, c0, STEP, 1, w, &table, &out_params, zero_point, act_min, act_max,
                    interior_begin, interior_end, out_row);
      else if (smallest > -128)
        dw_row_step(p, rows, zero_row, c0, count, 1, w, &table, &out_params, zero_point, act_min, act_max,
                    interior_begin, interior_end, out_row);
      else
        dw_row_step(p, rows, zero_row, c0, count, 0, w, &table, &out_params, zero_point, act_min, act_max,
                    interior_begin, interior_end, out_row);
    }
  }
}
