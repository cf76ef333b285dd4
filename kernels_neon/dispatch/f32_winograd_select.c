/* Winograd F(m, 3): applicability, the cost rule, the weight transform + packing done at prepare,
 * scratch sizing and the run-time choice of the transform variant. */
#include <stdlib.h>

#include "../portable/f32_winograd_transforms.h"
#include "lite_kernels/cpu_features.h"
#include "lite_kernels/f32_winograd.h"

/* Widest vector of any variant: channel padding in the scratch is sized for it. */
#define WG_MAX_LANES 16

int lite_f32_winograd_applies(const lite_conv2d_params* p) {
  return p->groups == 1 && p->kernel_h == 3 && p->kernel_w == 3 && p->stride_h == p->stride_w &&
         (p->stride_h == 1 || p->stride_h == 2) && p->dilation_h == 1 && p->dilation_w == 1 && p->in_c > 0 &&
         p->out_c > 0;
}

static size_t round_lanes(size_t c) { return (c + WG_MAX_LANES - 1) / WG_MAX_LANES * WG_MAX_LANES; }

size_t lite_f32_winograd_gemm_k(int m, const lite_conv2d_params* p) {
  return m == 7 ? 4 * round_lanes(p->in_c) : p->in_c;
}

/* Operation counts per tile (from kernels_neon/tools/winograd_transforms.py, counting one add or
 * multiply-add per nonzero of B^T / A^T beyond the first of each row; the generated code shares
 * partial sums between point pairs and needs about two thirds of these, a margin the rule keeps):
 *   input transform  2 * alpha 1-D transforms: F(2,3) 32, F(4,3) 192, F(6,3) 576 ops per input channel
 *   output transform (alpha + m) 1-D transforms: F(2,3) 24, F(4,3) 140, F(6,3) 448 ops per output channel
 *   multiply         alpha^2 * in_c * out_c multiply-adds (16, 36 or 64), against 9 * m^2 for a direct
 *                    (or im2col + GEMM) convolution of the same tile.
 * Two effects of the GEMM that operation counts alone miss, both measured (kernels_neon tests'
 * shapes, AVX-512): rows (tiles, or pixels for the direct path) are computed in groups of the
 * microkernel height (8 on x86; 4 on ARM: the aarch64 product kernel and the armv7 GEMM), so a
 * count is rounded up to it; and every block of up to 16 tiles (64 pixels for im2col) streams the
 * whole packed weight (alpha^2 or 9 times in_c * out_c floats) from memory, counted as one
 * multiply-add per float. A transform op counts as one multiply-add (the transforms are vectorized
 * over channels). Below 8 channels the transforms run on partial vectors and the GEMMs are tiny:
 * the direct path. Partial tiles at the right and bottom edges count whole, which keeps small
 * images on the direct path. F(4,3) wins where F(6,3)'s partial tiles waste most: 7x7 and 14x14
 * maps (ResNet-18's last stages: 4 and 16 tiles against 4 and 9 of F(6,3), 36 products each
 * against 64). Checked by instruction counts (qemu-aarch64, ResNet-18): the rule's F(6,3) for the
 * 56x56 and 28x28 stages, where the counts above nearly tie, gave 270.8 M per inference against
 * 271.6 M with F(4,3) forced there. */
#if defined(__aarch64__) || defined(__arm__)
#define WG_GEMM_ROWS 4
#define WG_WITH_STRIDE2 1
/* Chosen by instruction counts (the ARM targets are measured under qemu, which has no memory
 * hierarchy): weights cost only the block term above. */
#define WG_WEIGHT_FLOAT_COST 0.0
#else
#define WG_GEMM_ROWS 8
/* x86 keeps im2col + GEMM for stride 2: F(7,2) timed 2026-11-26 on ResNet-18 slower (stage 2 conv1
 * 0.81-0.94 -> 1.13 ms at 1 thread, 0.42-0.47 -> 0.99 ms at 2 threads) */
#define WG_WITH_STRIDE2 0
/* The x86 host: one weight float first read from memory costs about 25 multiply-adds. A model's
 * weights do not stay cached from one inference to the next when other work runs between them
 * (always so in the interleaved benchmarks; 46 MB for ResNet-18, 1.8x that as F(2,3)), and one core
 * here streams ~15 GB/s (1.25 floats per cycle at ~3 GHz) while its two AVX-512 FMA units do 32
 * multiply-adds per cycle. Winograd's alpha^2 / 9 larger weight then decides the deep layers.
 * Measured (ResNet-18, 1 / 2 threads, interleaved with onnxruntime, ms per layer): 7x7 512 ch
 * F(2,3) 1.78 / 1.19, direct 2.4 / 1.2-1.38, F(4,3) 3.9 / 2.3; 14x14 256 ch F(2,3) 1.24-1.31 /
 * 0.80-0.84, F(4,3) 1.02-1.05 / 0.93-0.95 (memory-bound at 2 threads), direct 1.66-1.83 / 0.84-0.94;
 * 28x28 128 ch F(4,3) 0.66-0.70 / 0.55-0.59, F(2,3) 0.88-0.94, F(6,3) 1.08-1.1; 56x56 64 ch F(4,3)
 * 0.60-0.66 / 0.46-0.50, F(6,3) 0.71-0.93, F(2,3) 0.94-1.0. The rule picks F(4,3) for the first
 * two, F(2,3) for the last two. */
#define WG_WEIGHT_FLOAT_COST 25.0
#endif

static double round_rows(double x) {
  return (double)(((size_t)x + WG_GEMM_ROWS - 1) / WG_GEMM_ROWS * WG_GEMM_ROWS);
}

double lite_f32_winograd_cost(int m, size_t in_c, size_t out_c, size_t out_h, size_t out_w) {
  const double ci = (double)in_c, co = (double)out_c, pixels = (double)out_h * (double)out_w;
  if (m == 0)
    return round_rows(pixels) * 9.0 * ci * co + (double)(((size_t)pixels + 63) / 64) * 9.0 * ci * co +
           WG_WEIGHT_FLOAT_COST * 9.0 * ci * co;
  const size_t mm = (size_t)m;
  const double alpha = (double)m + 2.0, in_ops = m == 2 ? 32.0 : m == 4 ? 192.0 : 576.0,
               out_ops = m == 2 ? 24.0 : m == 4 ? 140.0 : 448.0;
  const size_t tiles = ((out_h + mm - 1) / mm) * ((out_w + mm - 1) / mm);
  const double blocks = (double)((tiles + 15) / 16);
  return round_rows((double)tiles) * alpha * alpha * ci * co + blocks * alpha * alpha * ci * co +
         (double)tiles * (in_ops * ci + out_ops * co) + WG_WEIGHT_FLOAT_COST * alpha * alpha * ci * co;
}

int lite_f32_winograd_choose(size_t in_c, size_t out_c, size_t out_h, size_t out_w) {
  if (in_c < 8 || out_c < 8) return 0;
  double best = lite_f32_winograd_cost(0, in_c, out_c, out_h, out_w);
  int best_m = 0;
  for (int m = 2; m <= 6; m += 2) {
    const double cost = lite_f32_winograd_cost(m, in_c, out_c, out_h, out_w);
    if (cost < best) {
      best = cost;
      best_m = m;
    }
  }
  return best_m;
}

/* The run-time weight transform (lite_f32_winograd_transform_weight) once per block of tiles for every
 * (in_c, out_c) pair, in the units above: measured under qemu (aarch64, ResNet-18's 3x3 layers, the
 * function compiled for size) 108, 174 and 252 instructions per pair for F(2,3), F(4,3), F(6,3), each
 * counted as 4 multiply-adds (the GEMM's lanes). */
double lite_f32_winograd_transform_cost(int m, const lite_conv2d_params* p) {
  const size_t mm = (size_t)m, tiles_x = (p->out_w + mm - 1) / mm, block = lite_f32_winograd_block_tiles(m, p);
  const size_t rows = lite_f32_winograd_tile_rows(m, p), per_task = (block + tiles_x - 1) / tiles_x;
  const size_t blocks = (rows + per_task - 1) / per_task * ((per_task * tiles_x + block - 1) / block);
  return (double)blocks * (double)p->in_c * (double)p->out_c * 4.0 * (m == 2 ? 108.0 : m == 4 ? 174.0 : 252.0);
}

/* Stride 2 as F(7,2) over 4 * in_c phase channels (f32_winograd.h), by the same counts: the input
 * transform is F(6,3)'s per phase channel, the output transform 15 1-D transforms of 37 ops. The
 * direct cost is that of stride 1 (its im2col copies not counted). With few tiles the rounding to
 * the GEMM height decides: 7x7 outputs (1 tile) stay direct. */
int lite_f32_winograd_choose_stride2(size_t in_c, size_t out_c, size_t out_h, size_t out_w) {
  if (!WG_WITH_STRIDE2 || in_c < 8 || out_c < 8) return 0;
  const double ci = (double)in_c, co = (double)out_c, pixels = (double)out_h * (double)out_w;
  const double k = 4.0 * (double)round_lanes(in_c);
  const double direct = round_rows(pixels) * 9.0 * ci * co + (double)(((size_t)pixels + 63) / 64) * 9.0 * ci * co;
  const size_t tiles = ((out_h + 6) / 7) * ((out_w + 6) / 7);
  const double blocks = (double)((tiles + 15) / 16);
  const double cost = round_rows((double)tiles) * 64.0 * k * co + blocks * 64.0 * k * co +
                      (double)tiles * (576.0 * k + 555.0 * co);
  return cost < direct ? 7 : 0;
}

static size_t wg_alpha(int m) { return m == 7 ? 8 : (size_t)m + 2; }
static size_t alpha2(int m) { return wg_alpha(m) * wg_alpha(m); }

size_t lite_f32_winograd_packed_weight_size(const lite_f32_gemm_config* gemm, int m, const lite_conv2d_params* p) {
  return alpha2(m) * lite_f32_gemm_packed_size(gemm, p->out_c, lite_f32_winograd_gemm_k(m, p));
}

/* Stride 2: U_t[ph * cs + ci][co] = (G w_ph G^T)[i][j], w_ph the 2x2 sub-kernel of phase ph = (py, px)
 * (w_ph[a][b] = w[2a + py][2b + px], zero outside the 3x3); rows of channels past in_c are zero. */
static int pack_weight_stride2(const lite_f32_gemm_config* gemm, const lite_conv2d_params* p, const float* weight,
                               float* packed) {
  const size_t Ci = p->in_c, Co = p->out_c, K = lite_f32_winograd_gemm_k(7, p), cs = K / 4;
  const size_t per_t = lite_f32_gemm_packed_size(gemm, Co, K);
  float* u = calloc(K * Co + 1, sizeof(float));
  if (u == NULL) return 0;
  for (size_t i = 0; i < 8; ++i)
    for (size_t j = 0; j < 8; ++j) {
      for (size_t ph = 0; ph < 4; ++ph) {
        const size_t py = ph / 2, px = ph % 2;
        for (size_t co = 0; co < Co; ++co)
          for (size_t ci = 0; ci < Ci; ++ci) {
            double s = 0.0;
            for (size_t a = 0; 2 * a + py < 3; ++a)
              for (size_t b = 0; 2 * b + px < 3; ++b)
                s += lite_wino_f7r2_g[i][a] * (double)weight[((co * 3 + 2 * a + py) * 3 + 2 * b + px) * Ci + ci] *
                     lite_wino_f7r2_g[j][b];
            u[(ph * cs + ci) * Co + co] = (float)s;
          }
      }
      lite_f32_gemm_pack_b(gemm, Co, K, u, Co, 1, NULL, packed + (i * 8 + j) * per_t);
    }
  free(u);
  return 1;
}

/* U_t = G g G^T (F(7,2) above), by the function a run without a packed weight uses (same bits). */
int lite_f32_winograd_pack_weight(const lite_f32_gemm_config* gemm, int m, const lite_conv2d_params* p,
                                  const float* weight, float* packed) {
  if (m == 7) return pack_weight_stride2(gemm, p, weight, packed);
  lite_f32_winograd_transform_weight(gemm, m, p, weight, 0, p->out_c, packed,
                                     lite_f32_gemm_packed_size(gemm, p->out_c, p->in_c));
  return 1;
}

size_t lite_f32_winograd_tile_rows(int m, const lite_conv2d_params* p) {
  return p->batch * ((p->out_h + (size_t)m - 1) / (size_t)m);
}

/* Floats per tile and transform position of the transformed input (the row stride of V). */
static size_t v_row(int m, const lite_conv2d_params* p) {
  return m == 7 ? lite_f32_winograd_gemm_k(m, p) : round_lanes(p->in_c);
}

size_t lite_f32_winograd_block_tiles(int m, const lite_conv2d_params* p) {
  const size_t budget = 256 * 1024; /* floats (1 MiB) of transformed input + products */
  const size_t ci = v_row(m, p), co = round_lanes(p->out_c);
  size_t tb = budget / (alpha2(m) * (ci + co));
  if (tb < 16) tb = 16;
  if (tb > 128) tb = 128;
#if defined(__aarch64__)
  return (tb + 11) / 12 * 12; /* whole 6-row tiles (the aarch64 product kernel's best height) and 4-row ones */
#else
  return tb / 8 * 8; /* whole groups of rows for every microkernel height (4, 6 waste at most 2, 8) */
#endif
}

size_t lite_f32_winograd_scratch_size(int m, const lite_conv2d_params* p) {
  const size_t ci = v_row(m, p), co = round_lanes(p->out_c);
  return alpha2(m) * lite_f32_winograd_block_tiles(m, p) * (ci + co);
}

size_t lite_f32_winograd_scratch_size_unpacked(const lite_f32_gemm_config* gemm, int m,
                                               const lite_conv2d_params* p) {
  return lite_f32_winograd_scratch_size(m, p) + alpha2(m) * lite_f32_gemm_packed_size(gemm, gemm->nr, p->in_c);
}

lite_f32_winograd_fn lite_f32_winograd_select(void) {
  const uint32_t f = lite_cpu_features();
#if defined(__x86_64__)
  if (f & LITE_CPU_X86_AVX512) return lite_f32_winograd_nhwc_avx512;
  if (f & LITE_CPU_X86_AVX2) return lite_f32_winograd_nhwc_avx2;
#elif defined(__aarch64__)
  if (LITE_CPU_HAS_NEON(f)) return lite_f32_winograd_nhwc_aarch64_neonfma;
#elif defined(__arm__)
  if (f & LITE_CPU_ARM_NEON) return lite_f32_winograd_nhwc_armv7_neonfma;
#endif
  (void)f;
  return lite_f32_winograd_nhwc_portable;
}

const char* lite_f32_winograd_selected_name(void) {
  const lite_f32_winograd_fn fn = lite_f32_winograd_select();
#if defined(__x86_64__)
  if (fn == lite_f32_winograd_nhwc_avx512) return "avx512";
  if (fn == lite_f32_winograd_nhwc_avx2) return "avx2";
#elif defined(__aarch64__)
  if (fn == lite_f32_winograd_nhwc_aarch64_neonfma) return "neonfma";
#elif defined(__arm__)
  if (fn == lite_f32_winograd_nhwc_armv7_neonfma) return "neonfma";
#endif
  (void)fn;
  return "portable";
}
