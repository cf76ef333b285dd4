/* Packed fp32 GEMM microkernel, 4 rows x 8 columns, armv7 NEON.
 * The loop takes 4 k at a time: one vld1 brings 4 consecutive k of an A row and VMLA by scalar
 * multiplies a B vector by one of its lanes, so per 4 k, 4 A loads + 4 B loads (one k of B, 8
 * floats, per vld1) feed 32 multiply-adds: ~6 FLOPs per instruction, against ~4 for one k per step
 * with vld1_dup broadcasts. Registers: 8 accumulators q8..q15, A in q0..q3, B in q4/q5. Inline
 * assembly because GCC rematerializes the B addresses (an add per load) from intrinsics.
 * armv7 has no fused multiply-add by scalar, so every step (main loop and the k % 4 leftovers)
 * uses the unfused VMLA: a product is rounded before the add (within the tests' tolerance of the
 * reference), and every element is still summed bias, k = 0, 1, ... in order by the same
 * instruction, whatever tile or thread computes it. */
#include <arm_neon.h>
#include <string.h>

#include "lite_kernels/f32_gemm_packed.h"

enum { MR = 4, NR = 8 };

/* HardSwish on one stored row of NR floats. armv7 NEON has no vector division: the reference's
 * x / 6 per lane. */
static void hard_swish_row(float* out) {
  for (size_t j = 0; j < NR; ++j) {
    float g = out[j] / 6.0f + 0.5f;
    g = g < 0.0f ? 0.0f : g;
    out[j] = out[j] * (g > 1.0f ? 1.0f : g);
  }
}

void lite_f32_gemm_ukernel_4x8_armv7_neon(size_t mr, size_t nc, size_t k, const float* a, size_t a_stride,
                                          const float* w, float* c, size_t c_stride,
                                          const lite_f32_minmax_params* params) {
  /* Rows past mr repeat the previous row (valid memory; their sums are dropped). */
  const float* a0 = a;
  const float* a1 = mr > 1 ? a0 + a_stride : a0;
  const float* a2 = mr > 2 ? a1 + a_stride : a1;
  const float* a3 = mr > 3 ? a2 + a_stride : a2;
  float acc[MR * NR];
  float* acc_out = acc;
  size_t k4 = k / 4, kr = k % 4;
  __asm__ volatile(
      "vld1.32 {d16-d19}, [%[w]]!\n"  /* row 0 = bias */
      "vmov q10, q8\nvmov q11, q9\nvmov q12, q8\nvmov q13, q9\nvmov q14, q8\nvmov q15, q9\n"
      "cmp %[k4], #0\nbeq 2f\n"
      "1:\n"  /* 4 k per iteration: d0..d7 = 4 k of rows 0..3, q4/q5 = one k of B */
      "vld1.32 {d0-d1}, [%[a0]]!\nvld1.32 {d2-d3}, [%[a1]]!\n"
      "vld1.32 {d4-d5}, [%[a2]]!\nvld1.32 {d6-d7}, [%[a3]]!\n"
      "vld1.32 {d8-d11}, [%[w]]!\n"
      "vmla.f32 q8, q4, d0[0]\nvmla.f32 q9, q5, d0[0]\nvmla.f32 q10, q4, d2[0]\nvmla.f32 q11, q5, d2[0]\n"
      "vmla.f32 q12, q4, d4[0]\nvmla.f32 q13, q5, d4[0]\nvmla.f32 q14, q4, d6[0]\nvmla.f32 q15, q5, d6[0]\n"
      "vld1.32 {d8-d11}, [%[w]]!\n"
      "vmla.f32 q8, q4, d0[1]\nvmla.f32 q9, q5, d0[1]\nvmla.f32 q10, q4, d2[1]\nvmla.f32 q11, q5, d2[1]\n"
      "vmla.f32 q12, q4, d4[1]\nvmla.f32 q13, q5, d4[1]\nvmla.f32 q14, q4, d6[1]\nvmla.f32 q15, q5, d6[1]\n"
      "vld1.32 {d8-d11}, [%[w]]!\n"
      "vmla.f32 q8, q4, d1[0]\nvmla.f32 q9, q5, d1[0]\nvmla.f32 q10, q4, d3[0]\nvmla.f32 q11, q5, d3[0]\n"
      "vmla.f32 q12, q4, d5[0]\nvmla.f32 q13, q5, d5[0]\nvmla.f32 q14, q4, d7[0]\nvmla.f32 q15, q5, d7[0]\n"
      "vld1.32 {d8-d11}, [%[w]]!\n"
      "vmla.f32 q8, q4, d1[1]\nvmla.f32 q9, q5, d1[1]\nvmla.f32 q10, q4, d3[1]\nvmla.f32 q11, q5, d3[1]\n"
      "vmla.f32 q12, q4, d5[1]\nvmla.f32 q13, q5, d5[1]\nvmla.f32 q14, q4, d7[1]\nvmla.f32 q15, q5, d7[1]\n"
      "subs %[k4], %[k4], #1\nbne 1b\n"
      "2:\n"
      "cmp %[kr], #0\nbeq 4f\n"
      "3:\n"  /* k % 4 leftovers, one k each */
      "vld1.32 {d0[]}, [%[a0]]!\nvld1.32 {d2[]}, [%[a1]]!\nvld1.32 {d4[]}, [%[a2]]!\nvld1.32 {d6[]}, [%[a3]]!\n"
      "vld1.32 {d8-d11}, [%[w]]!\n"
      "vmla.f32 q8, q4, d0[0]\nvmla.f32 q9, q5, d0[0]\nvmla.f32 q10, q4, d2[0]\nvmla.f32 q11, q5, d2[0]\n"
      "vmla.f32 q12, q4, d4[0]\nvmla.f32 q13, q5, d4[0]\nvmla.f32 q14, q4, d6[0]\nvmla.f32 q15, q5, d6[0]\n"
      "subs %[kr], %[kr], #1\nbne 3b\n"
      "4:\n"
      "vst1.32 {d16-d19}, [%[acc]]!\nvst1.32 {d20-d23}, [%[acc]]!\n"
      "vst1.32 {d24-d27}, [%[acc]]!\nvst1.32 {d28-d31}, [%[acc]]!\n"
      : [a0] "+r"(a0), [a1] "+r"(a1), [a2] "+r"(a2), [a3] "+r"(a3), [w] "+r"(w), [k4] "+r"(k4), [kr] "+r"(kr),
        [acc] "+r"(acc_out)
      :
      : "cc", "memory", "q0", "q1", "q2", "q3", "q4", "q5", "q8", "q9", "q10", "q11", "q12", "q13", "q14", "q15");
  const float32x4_t lo = vdupq_n_f32(params->min), hi = vdupq_n_f32(params->max);
  for (size_t i = 0; i < mr; ++i) {
    float tmp[NR];
    float* out = nc == NR ? c + i * c_stride : tmp;
    vst1q_f32(out, vminq_f32(vmaxq_f32(vld1q_f32(acc + i * NR), lo), hi));
    vst1q_f32(out + 4, vminq_f32(vmaxq_f32(vld1q_f32(acc + i * NR + 4), lo), hi));
    if (params->hard_swish) hard_swish_row(out);
    if (nc != NR) memcpy(c + i * c_stride, tmp, nc * sizeof(float));
  }
}

/* What the panel loop reads from memory once per tile (armv7 has too few registers to hold it). */
typedef struct {
  const float* w; /* the panel: bias, then k rows of 8 */
  size_t k4, kr;  /* k / 4, k % 4 */
  size_t a_next;  /* bytes from a row pointer after its k floats to the same row of the next tile */
} panel_args;

void lite_f32_gemm_panel_4x8_armv7_neon(size_t tiles, size_t k, const float* a, size_t a_stride, const float* w,
                                        float* c, size_t c_stride, const lite_f32_minmax_params* params) {
  if (tiles == 0) return;
  float* const c_first = c;
  const size_t rows_total = tiles * MR;
  const int hard_swish = params->hard_swish;
  const float* a0 = a;
  const float* a1 = a0 + a_stride;
  const float* a2 = a1 + a_stride;
  const float* a3 = a2 + a_stride;
  const panel_args args = {w, k / 4, k % 4, (4 * a_stride - k) * sizeof(float)};
  const size_t c_step = c_stride * sizeof(float);
  size_t k4, kr;
  /* The clamp always runs (with -inf / +inf it changes nothing, NaN included), as in the
   * per-tile kernel, so both give identical results. */
  __asm__ volatile(
      "vld1.32 {d12[], d13[]}, [%[minmax]]!\n"  /* q6 = min, q7 = max */
      "vld1.32 {d14[], d15[]}, [%[minmax]]\n"
      "0:\n"  /* per tile: B from the panel start, fresh k counters */
      "ldr %[w], [%[args]]\nldr %[k4], [%[args], #4]\nldr %[kr], [%[args], #8]\n"
      "vld1.32 {d16-d19}, [%[w]]!\n"  /* row 0 = bias */
      "vmov q10, q8\nvmov q11, q9\nvmov q12, q8\nvmov q13, q9\nvmov q14, q8\nvmov q15, q9\n"
      "cmp %[k4], #0\nbeq 2f\n"
      "1:\n"  /* 4 k per iteration: d0..d7 = 4 k of rows 0..3, q4/q5 = one k of B */
      "vld1.32 {d0-d1}, [%[a0]]!\nvld1.32 {d2-d3}, [%[a1]]!\n"
      "vld1.32 {d4-d5}, [%[a2]]!\nvld1.32 {d6-d7}, [%[a3]]!\n"
      "vld1.32 {d8-d11}, [%[w]]!\n"
      "vmla.f32 q8, q4, d0[0]\nvmla.f32 q9, q5, d0[0]\nvmla.f32 q10, q4, d2[0]\nvmla.f32 q11, q5, d2[0]\n"
      "vmla.f32 q12, q4, d4[0]\nvmla.f32 q13, q5, d4[0]\nvmla.f32 q14, q4, d6[0]\nvmla.f32 q15, q5, d6[0]\n"
      "vld1.32 {d8-d11}, [%[w]]!\n"
      "vmla.f32 q8, q4, d0[1]\nvmla.f32 q9, q5, d0[1]\nvmla.f32 q10, q4, d2[1]\nvmla.f32 q11, q5, d2[1]\n"
      "vmla.f32 q12, q4, d4[1]\nvmla.f32 q13, q5, d4[1]\nvmla.f32 q14, q4, d6[1]\nvmla.f32 q15, q5, d6[1]\n"
      "vld1.32 {d8-d11}, [%[w]]!\n"
      "vmla.f32 q8, q4, d1[0]\nvmla.f32 q9, q5, d1[0]\nvmla.f32 q10, q4, d3[0]\nvmla.f32 q11, q5, d3[0]\n"
      "vmla.f32 q12, q4, d5[0]\nvmla.f32 q13, q5, d5[0]\nvmla.f32 q14, q4, d7[0]\nvmla.f32 q15, q5, d7[0]\n"
      "vld1.32 {d8-d11}, [%[w]]!\n"
      "vmla.f32 q8, q4, d1[1]\nvmla.f32 q9, q5, d1[1]\nvmla.f32 q10, q4, d3[1]\nvmla.f32 q11, q5, d3[1]\n"
      "vmla.f32 q12, q4, d5[1]\nvmla.f32 q13, q5, d5[1]\nvmla.f32 q14, q4, d7[1]\nvmla.f32 q15, q5, d7[1]\n"
      "subs %[k4], %[k4], #1\nbne 1b\n"
      "2:\n"
      "cmp %[kr], #0\nbeq 4f\n"
      "3:\n"  /* k % 4 leftovers, one k each */
      "vld1.32 {d0[]}, [%[a0]]!\nvld1.32 {d2[]}, [%[a1]]!\nvld1.32 {d4[]}, [%[a2]]!\nvld1.32 {d6[]}, [%[a3]]!\n"
      "vld1.32 {d8-d11}, [%[w]]!\n"
      "vmla.f32 q8, q4, d0[0]\nvmla.f32 q9, q5, d0[0]\nvmla.f32 q10, q4, d2[0]\nvmla.f32 q11, q5, d2[0]\n"
      "vmla.f32 q12, q4, d4[0]\nvmla.f32 q13, q5, d4[0]\nvmla.f32 q14, q4, d6[0]\nvmla.f32 q15, q5, d6[0]\n"
      "subs %[kr], %[kr], #1\nbne 3b\n"
      "4:\n"
      "vmax.f32 q8, q8, q6\nvmax.f32 q9, q9, q6\nvmax.f32 q10, q10, q6\nvmax.f32 q11, q11, q6\n"
      "vmax.f32 q12, q12, q6\nvmax.f32 q13, q13, q6\nvmax.f32 q14, q14, q6\nvmax.f32 q15, q15, q6\n"
      "vmin.f32 q8, q8, q7\nvmin.f32 q9, q9, q7\nvmin.f32 q10, q10, q7\nvmin.f32 q11, q11, q7\n"
      "vmin.f32 q12, q12, q7\nvmin.f32 q13, q13, q7\nvmin.f32 q14, q14, q7\nvmin.f32 q15, q15, q7\n"
      "vst1.32 {d16-d19}, [%[c]], %[c_step]\nvst1.32 {d20-d23}, [%[c]], %[c_step]\n"  /* c ends 4 rows down */
      "vst1.32 {d24-d27}, [%[c]], %[c_step]\nvst1.32 {d28-d31}, [%[c]], %[c_step]\n"
      "ldr %[k4], [%[args], #12]\n"  /* a_next */
      "add %[a0], %[a0], %[k4]\nadd %[a1], %[a1], %[k4]\nadd %[a2], %[a2], %[k4]\nadd %[a3], %[a3], %[k4]\n"
      "subs %[tiles], %[tiles], #1\nbne 0b\n"
      : [a0] "+r"(a0), [a1] "+r"(a1), [a2] "+r"(a2), [a3] "+r"(a3), [w] "+r"(w), [k4] "=&r"(k4), [kr] "=&r"(kr),
        [c] "+r"(c), [tiles] "+r"(tiles), [minmax] "+r"(params)
      : [args] "r"(&args), [c_step] "r"(c_step)
      : "cc", "memory", "q0", "q1", "q2", "q3", "q4", "q5", "q6", "q7", "q8", "q9", "q10", "q11", "q12", "q13",
        "q14", "q15");
  if (hard_swish) { /* the per-tile kernel's formula on the stored rows: identical results */
    for (size_t i = 0; i < rows_total; ++i) hard_swish_row(c_first + i * c_stride);
  }
}
