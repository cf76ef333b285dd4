/* Where the int8 F(2,3) Winograd convolution runs (qs8_winograd.h): the ISA's kernel and the cost
 * rule against the packed direct GEMM. */
#include "lite_kernels/cpu_features.h"
#include "lite_kernels/qs8_winograd.h"

/* Instructions, counted from the kernels (ARM NEON without dotprod):
 *   direct    the GEMM's smull + smlal2 + sadalp (vmull / vmlal / vpadal on armv7) do 16 multiply-adds in
 *             3 instructions: 3/16 per pixel, output channel and 9 * in_c depth (rounded to 16).
 *   Winograd  smlal by lane (vmlal by scalar) does 4 in 1, plus one 16-byte load of U per 8 of them and
 *             V's loads: 9/32 per point (16 per tile), input and output channel (rounded to 8, tiles to
 *             groups of 8); the input transform about 11 per tile and input channel, the output
 *             transform with requantization about 16 per tile and output channel.
 * With dotprod (sdot: 16 multiply-adds per instruction) or i8mm the direct GEMM needs fewer than
 * Winograd's products alone: never chosen there. */
int lite_qs8_winograd_pays(uint32_t features, const lite_conv2d_params* p) {
#if defined(__aarch64__) || defined(__arm__)
#define round_up(n, to) ((double)(((n) + (to) - 1) / (to) * (to)))
  if (!LITE_CPU_HAS_NEON(features) || (features & (LITE_CPU_ARM_DOTPROD | LITE_CPU_ARM_I8MM))) return 0;
  if (!lite_qs8_winograd_applies(p)) return 0;
  const size_t tiles = p->batch * ((p->out_h + 1) / 2) * ((p->out_w + 1) / 2);
  const double ci = round_up(p->in_c, 8), co = round_up(p->out_c, 8);
  const double pixels = (double)(p->batch * p->out_h * p->out_w);
  const double direct = pixels * round_up(9 * p->in_c, 16) * co * (3.0 / 16.0);
  const double winograd = round_up(tiles, 8) * 16.0 * ci * co * (9.0 / 32.0) + (double)tiles * (11.0 * ci + 16.0 * co);
  return winograd < direct;
#else
  (void)features;
  (void)p;
  return 0;
#endif
}

const lite_qs8_winograd_kernel* lite_qs8_winograd_select(uint32_t features) {
#if defined(__aarch64__)
  if (LITE_CPU_HAS_NEON(features)) return &lite_qs8_winograd_f23_aarch64_neon;
#elif defined(__arm__)
  if (features & LITE_CPU_ARM_NEON) return &lite_qs8_winograd_f23_armv7_neon;
#endif
  (void)features;
  return &lite_qs8_winograd_f23_portable;
}
