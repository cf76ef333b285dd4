/* Where the int8 Winograd convolutions run (qs8_winograd.h): the ISA's kernel and the cost rule
 * among F(2,3), F(4,3) and the packed direct GEMM. */
#include "lite_kernels/cpu_features.h"
#include "lite_kernels/qs8_winograd.h"

/* Instructions, counted from the kernels (ARM NEON without dotprod):
 *   direct    the GEMM's smull + smlal2 + sadalp (vmull / vmlal / vpadal on armv7) do 16 multiply-adds in
 *             3 instructions: 3/16 per pixel, output channel and 9 * in_c depth (rounded to 16).
 *   F(m,3)    smlal by lane (vmlal by scalar) does 4 in 1, plus one 16-byte load of U per 8 of them and
 *             V's loads: 9/32 per point ((m + 2)^2 per tile), input and output channel (rounded to 8;
 *             tiles to groups of 8, or of 4 in a layer's last group); the input transform per tile and
 *             input channel and the output transform with requantization per tile and output channel:
 *             about 11 and 16 for F(2,3), 45 and 70 for F(4,3) (qemu counts of single convolutions).
 * With dotprod (sdot: 16 multiply-adds per instruction) or i8mm the direct GEMM needs fewer than
 * Winograd's products alone: never chosen there. */
#if defined(__aarch64__) || defined(__arm__)
static double round_up(size_t n, size_t to) { return (double)((n + to - 1) / to * to); }

static size_t winograd_tiles(const lite_conv2d_params* p, size_t m) {
  return p->batch * ((p->out_h + m - 1) / m) * ((p->out_w + m - 1) / m);
}

/* With `parts` input-channel parts, each part beyond the first transforms M once more: about half the
 * output transform. */
static double winograd_cost(const lite_conv2d_params* p, size_t m, size_t parts) {
  const size_t tiles = winograd_tiles(p, m);
  const double ci = round_up(p->in_c, 8), co = round_up(p->out_c, 8), points = (double)((m + 2) * (m + 2));
  const double in_cost = m == 4 ? 45.0 : 11.0, out_cost = m == 4 ? 70.0 : 16.0, part_cost = m == 4 ? 40.0 : 6.0;
  /* groups of 8 tiles; the last one does 4 when it has at most 4 */
  const double product_tiles = (double)(tiles / 8 * 8 + (tiles % 8 == 0 ? 0 : tiles % 8 <= 4 ? 4 : 8));
  return product_tiles * points * ci * co * (9.0 / 32.0) + (double)tiles * (in_cost * ci + out_cost * co) +
         (double)(parts - 1) * (double)tiles * part_cost * co;
}
#endif

size_t lite_qs8_winograd_choose(uint32_t features, const lite_conv2d_params* p, const int8_t* weight,
                                int32_t input_zero_point, double* saving) {
  if (saving != NULL) *saving = 0.0;
#if defined(__aarch64__) || defined(__arm__)
  if (!LITE_CPU_HAS_NEON(features) || (features & (LITE_CPU_ARM_DOTPROD | LITE_CPU_ARM_I8MM))) return 0;
  if (!lite_qs8_winograd_applies(p)) return 0;
  const double pixels = (double)(p->batch * p->out_h * p->out_w);
  const double direct = pixels * round_up(9 * p->in_c, 16) * round_up(p->out_c, 8) * (3.0 / 16.0);
  double best = direct;
  size_t choice = 0;
  const size_t tiles[2] = {4, 2};
  for (size_t i = 0; i < 2; ++i) {
    if (winograd_cost(p, tiles[i], 1) >= best) continue; /* not even in one part: no need to scan the weights */
    const size_t parts = lite_qs8_winograd_parts(p, weight, input_zero_point, tiles[i]);
    if (parts == 0) continue;
    const double cost = winograd_cost(p, tiles[i], parts);
    if (cost < best) {
      best = cost;
      choice = tiles[i];
    }
  }
  if (saving != NULL) *saving = direct - best;
  return choice;
#else
  (void)features;
  (void)p;
  (void)weight;
  (void)input_zero_point;
  return 0;
#endif
}

const lite_qs8_winograd_kernel* lite_qs8_winograd_select(uint32_t features, size_t tile) {
#if defined(__aarch64__)
  if (LITE_CPU_HAS_NEON(features)) return tile == 4 ? &lite_qs8_winograd_f43_aarch64_neon : &lite_qs8_winograd_f23_aarch64_neon;
#elif defined(__arm__)
  if (features & LITE_CPU_ARM_NEON) return tile == 4 ? &lite_qs8_winograd_f43_armv7_neon : &lite_qs8_winograd_f23_armv7_neon;
#endif
  (void)features;
  return tile == 4 ? &lite_qs8_winograd_f43_portable : &lite_qs8_winograd_f23_portable;
}
