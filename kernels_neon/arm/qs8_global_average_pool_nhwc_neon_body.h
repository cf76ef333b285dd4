/* The int8 GLOBAL_AVERAGE_POOL for NEON (aarch64 and armv7 alike; the including file defines
 * LITE_GAP_NEON_ENTRY, the public name with lite_qs8_global_average_pool_fn's signature).
 *
 * Sixteen channels at a time: each pixel's bytes are added into int16 lanes (saddw), exact for runs of
 * up to 256 pixels (256 * -128 = -32768), and each run is folded into int32 channel sums. A tail of
 * 8 channels takes one 8-byte load, fewer run a scalar loop. The sums are the reference's exact
 * integers and the rounding divide is the reference's (qs8_global_average_finish.h), so the bytes are
 * its bytes. Smaller than the
 * portable body's autovectorized widths (about 4 KB of aarch64 code at -O3) and fewer instructions per
 * pixel (3 per 16 channels against about 7). */
#include <arm_neon.h>
#include <stdint.h>

#include "lite_kernels/qs8_pool2d.h"
#include "../portable/qs8_global_average_finish.h"

enum { LITE_GAP_NEON_RUN = 256 };

/* sums[0..16) += the 16 channels at `pixel` over `spatial` pixels `stride` bytes apart. */
static void gap_sum16(const int8_t* pixel, size_t stride, size_t spatial, int32_t* sums) {
  int32x4_t s0 = vld1q_s32(sums), s1 = vld1q_s32(sums + 4), s2 = vld1q_s32(sums + 8), s3 = vld1q_s32(sums + 12);
  for (size_t done = 0; done < spatial;) {
    const size_t run = spatial - done < LITE_GAP_NEON_RUN ? spatial - done : LITE_GAP_NEON_RUN;
    int16x8_t lo = vdupq_n_s16(0), hi = vdupq_n_s16(0);
    for (size_t i = 0; i < run; ++i, pixel += stride) {
      const int8x16_t v = vld1q_s8(pixel);
      lo = vaddw_s8(lo, vget_low_s8(v));
      hi = vaddw_s8(hi, vget_high_s8(v));
    }
    s0 = vaddw_s16(s0, vget_low_s16(lo));
    s1 = vaddw_s16(s1, vget_high_s16(lo));
    s2 = vaddw_s16(s2, vget_low_s16(hi));
    s3 = vaddw_s16(s3, vget_high_s16(hi));
    done += run;
  }
  vst1q_s32(sums, s0);
  vst1q_s32(sums + 4, s1);
  vst1q_s32(sums + 8, s2);
  vst1q_s32(sums + 12, s3);
}

/* sums[0..8) += the 8 channels at `pixel` over `spatial` pixels. */
static void gap_sum8(const int8_t* pixel, size_t stride, size_t spatial, int32_t* sums) {
  int32x4_t s0 = vld1q_s32(sums), s1 = vld1q_s32(sums + 4);
  for (size_t done = 0; done < spatial;) {
    const size_t run = spatial - done < LITE_GAP_NEON_RUN ? spatial - done : LITE_GAP_NEON_RUN;
    int16x8_t acc = vdupq_n_s16(0);
    for (size_t i = 0; i < run; ++i, pixel += stride) acc = vaddw_s8(acc, vld1_s8(pixel));
    s0 = vaddw_s16(s0, vget_low_s16(acc));
    s1 = vaddw_s16(s1, vget_high_s16(acc));
    done += run;
  }
  vst1q_s32(sums, s0);
  vst1q_s32(sums + 4, s1);
}

void LITE_GAP_NEON_ENTRY(size_t batch, size_t spatial, size_t channels, int32_t zero_point, const int8_t* input,
                         int8_t* output) {
  if (spatial > (size_t)INT32_MAX / 128) { /* int32 sums could overflow */
    lite_qs8_global_average_pool_nhwc_ref(batch, spatial, channels, zero_point, input, output);
    return;
  }
  const int64_t count = (int64_t)spatial;
  for (size_t n = 0; n < batch; ++n) {
    const int8_t* image = input + n * spatial * channels;
    for (size_t c0 = 0; c0 < channels; c0 += 16) {
      const size_t width = channels - c0 < 16 ? channels - c0 : 16;
      int32_t sums[16] = {0};
      size_t j = 0;
      if (width == 16) {
        gap_sum16(image + c0, channels, spatial, sums);
        j = 16;
      } else if (width >= 8) {
        gap_sum8(image + c0, channels, spatial, sums);
        j = 8;
      }
      for (; j < width; ++j) { /* fewer than 8 channels left */
        const int8_t* pixel = image + c0 + j;
        for (size_t s = 0; s < spatial; ++s, pixel += channels) sums[j] += *pixel;
      }
      qs8_global_average_finish(sums, width, count, zero_point, output + n * channels + c0);
    }
  }
}
