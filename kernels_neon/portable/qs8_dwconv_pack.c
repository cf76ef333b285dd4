/* Packing of the fast int8 depthwise convolution (qs8_dwconv.h) and its applicability rule. */
#include <string.h>

#include "lite_kernels/qs8_dwconv.h"

enum { BLOCK = 32 };

static size_t tap_pairs(const lite_conv2d_params* p) {
  int slots[LITE_QS8_DWCONV_MAX_TAPS * 2];
  return lite_qs8_dwconv_pair_slots(p, slots);
}

static size_t block_bytes(const lite_conv2d_params* p) { return BLOCK * 12 + tap_pairs(p) * BLOCK * 4; }

/* The channel (within the block) held by accumulator position i (0..15: low half, 16..31: high). */
static size_t channel_of(size_t i) {
  const size_t half = i / 16, lane = (i % 16) / 4, r = i % 4;
  return lane * 8 + half * 4 + r;
}

int lite_qs8_dwconv_applies(const lite_conv2d_params* p, const int32_t* bias) {
  if (p->groups != p->in_c || p->out_c != p->in_c || p->in_c == 0) return 0;
  if (p->kernel_h * p->kernel_w > LITE_QS8_DWCONV_MAX_TAPS) return 0;
  return lite_qs8_gemm_is_exact(p->out_c, p->kernel_h * p->kernel_w, bias);
}

size_t lite_qs8_dwconv_packed_size(const lite_conv2d_params* p) {
  const size_t blocks = (p->out_c + BLOCK - 1) / BLOCK;
  return blocks * block_bytes(p) + blocks * BLOCK; /* + the zero-point row */
}

void lite_qs8_dwconv_pack(const lite_conv2d_params* p, const int8_t* weight, const int32_t* bias,
                          int32_t input_zero_point, const int32_t* multiplier, const int32_t* shift, void* packed) {
  const size_t c = p->out_c, taps = p->kernel_h * p->kernel_w;
  int slots[LITE_QS8_DWCONV_MAX_TAPS * 2];
  const size_t pairs = lite_qs8_dwconv_pair_slots(p, slots);
  const size_t blocks = (c + BLOCK - 1) / BLOCK;
  for (size_t b = 0; b < blocks; ++b) {
    uint8_t* block = (uint8_t*)packed + b * block_bytes(p);
    uint8_t* w = block + BLOCK * 4;
    uint8_t* requant = w + pairs * BLOCK * 4;
    for (size_t i = 0; i < BLOCK; ++i) {
      const size_t ch = b * BLOCK + channel_of(i);
      const int inside = ch < c;
      int64_t sum = 0;
      for (size_t q = 0; q < pairs; ++q)
        for (size_t t = 0; t < 2; ++t) {
          const int tap = slots[2 * q + t];
          const int16_t v = (int16_t)(inside && tap >= 0 ? weight[ch * taps + (size_t)tap] : 0);
          sum += v;
          /* pair q: 16 low accumulators' (t0, t1) int16 pairs, then the 16 high ones' */
          memcpy(w + q * BLOCK * 4 + (i * 2 + t) * sizeof(int16_t), &v, sizeof(v));
        }
      const int32_t b32 = (int32_t)((inside && bias != NULL ? bias[ch] : 0) - (int64_t)input_zero_point * sum);
      const int32_t m32 = inside ? multiplier[ch] : 0, s32 = inside ? shift[ch] : 1;
      memcpy(block + i * 4, &b32, 4);
      memcpy(requant + i * 4, &m32, 4);
      memcpy(requant + BLOCK * 4 + i * 4, &s32, 4);
    }
  }
  memset((uint8_t*)packed + blocks * block_bytes(p), (int)(int8_t)input_zero_point, blocks * BLOCK);
}
