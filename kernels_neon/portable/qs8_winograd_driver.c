/* The int8 Winograd F(2,3) / F(4,3) convolution (qs8_winograd.h): applicability, the exactness bound,
 * weight packing and the tile loop shared by every ISA (the ISA supplies input / product / output). */
#include <stdint.h>
#include <string.h>

#include "lite_kernels/qs8_winograd.h"
#include "qs8_winograd_matrices.h"

#define WG_G LITE_QS8_WINOGRAD_GROUP
#define WG_HEADER 64 /* bytes before the first U block */

static size_t round8(size_t n) { return (n + WG_G - 1) / WG_G * WG_G; }
static size_t min_size(size_t a, size_t b) { return a < b ? a : b; }

int lite_qs8_winograd_applies(const lite_conv2d_params* p) {
  return p->groups == 1 && p->kernel_h == 3 && p->kernel_w == 3 && p->stride_h == 1 && p->stride_w == 1 &&
         p->dilation_h == 1 && p->dilation_w == 1 && p->in_c > 0 && p->out_c > 0 && p->out_h > 0 && p->out_w > 0;
}

/* Input block `b` of `cb` belongs to part b * parts / cb: part k covers [k cb / parts, (k + 1) cb / parts). */
static size_t part_begin(size_t k, size_t parts, size_t cb) { return k * cb / parts; }

size_t lite_qs8_winograd_parts(const lite_conv2d_params* p, const int8_t* weight, int32_t input_zero_point,
                               size_t tile) {
  const int64_t bound = (int64_t)1 << qs8_winograd_matrices_for(tile)->bound_log2;
  /* the largest |x - zp| over int8 x */
  const int64_t d = input_zero_point >= 0 ? (int64_t)input_zero_point + 128 : 127 - (int64_t)input_zero_point;
  const size_t cb = round8(p->in_c) / WG_G;
  for (size_t parts = 1; parts <= LITE_QS8_WINOGRAD_MAX_PARTS && parts <= cb; ++parts) {
    int fits = 1;
    for (size_t co = 0; co < p->out_c && fits; ++co)
      for (size_t k = 0; k < parts && fits; ++k) {
        int64_t s = 0;
        const size_t c_end = min_size(part_begin(k + 1, parts, cb) * WG_G, p->in_c);
        for (size_t tap = 0; tap < 9; ++tap)
          for (size_t c = part_begin(k, parts, cb) * WG_G; c < c_end; ++c) {
            const int8_t w = weight[(co * 9 + tap) * p->in_c + c];
            s += w < 0 ? -(int64_t)w : w;
          }
        fits = s * d < bound;
      }
    if (fits) return parts;
  }
  return 0;
}

static size_t points(size_t tile) { return (tile + 2) * (tile + 2); }
static size_t u_block_elems(const lite_conv2d_params* p, size_t tile) { return points(tile) * round8(p->in_c) * WG_G; }

size_t lite_qs8_winograd_packed_size(const lite_conv2d_params* p, size_t tile) {
  const size_t blocks = round8(p->out_c) / WG_G;
  return WG_HEADER + blocks * u_block_elems(p, tile) * sizeof(int16_t) + 3 * round8(p->out_c) * sizeof(int32_t);
}

void lite_qs8_winograd_pack(const lite_conv2d_params* p, size_t tile, const int8_t* weight, const int32_t* bias,
                            int32_t input_zero_point, const int32_t* multiplier, const int32_t* shift, void* packed) {
  const qs8_winograd_matrices* mx = qs8_winograd_matrices_for(tile);
  const size_t n = mx->n, ci_pad = round8(p->in_c), co_pad = round8(p->out_c), cb = ci_pad / WG_G;
  const size_t block = u_block_elems(p, tile);
  memset(packed, 0, lite_qs8_winograd_packed_size(p, tile));
  const int32_t header[2] = {input_zero_point, (int32_t)lite_qs8_winograd_parts(p, weight, input_zero_point, tile)};
  memcpy(packed, header, sizeof(header));
  int16_t* u = (int16_t*)((uint8_t*)packed + WG_HEADER);
  for (size_t co = 0; co < p->out_c; ++co)
    for (size_t ci = 0; ci < p->in_c; ++ci) {
      const int8_t* g = weight + co * 9 * p->in_c + ci; /* g[(a * 3 + b) * in_c] */
      int32_t gb[6][3];                                 /* G' g */
      for (size_t i = 0; i < n; ++i)
        for (size_t b = 0; b < 3; ++b) {
          int32_t s = 0;
          for (size_t a = 0; a < 3; ++a) s += mx->g[i][a] * g[(a * 3 + b) * p->in_c];
          gb[i][b] = s;
        }
      for (size_t i = 0; i < n; ++i)
        for (size_t j = 0; j < n; ++j) {
          const int32_t s = gb[i][0] * mx->g[j][0] + gb[i][1] * mx->g[j][1] + gb[i][2] * mx->g[j][2];
          const size_t t = i * n + j;
          u[(co / WG_G) * block + ((t * cb + ci / WG_G) * WG_G + ci % WG_G) * WG_G + co % WG_G] = (int16_t)s;
        }
    }
  int32_t* epilogue = (int32_t*)(u + (co_pad / WG_G) * block);
  for (size_t co = 0; co < p->out_c; ++co) {
    epilogue[co] = bias != NULL ? bias[co] : 0;
    epilogue[co_pad + co] = multiplier[co];
    epilogue[2 * co_pad + co] = shift[co];
  }
  for (size_t co = p->out_c; co < co_pad; ++co) epilogue[2 * co_pad + co] = 1; /* a valid shift */
}

static size_t tiles_h(const lite_conv2d_params* p, size_t tile) { return (p->out_h + tile - 1) / tile; }
static size_t tiles_w(const lite_conv2d_params* p, size_t tile) { return (p->out_w + tile - 1) / tile; }

size_t lite_qs8_winograd_groups(const lite_conv2d_params* p, size_t tile) {
  return (p->batch * tiles_h(p, tile) * tiles_w(p, tile) + WG_G - 1) / WG_G;
}

size_t lite_qs8_winograd_blocks(const lite_conv2d_params* p) { return round8(p->out_c) / WG_G; }

static size_t v_bytes(const lite_conv2d_params* p, size_t tile) {
  return points(tile) * round8(p->in_c) * WG_G * sizeof(int16_t);
}

size_t lite_qs8_winograd_scratch_size(const lite_conv2d_params* p, size_t tile) {
  return v_bytes(p, tile) + LITE_QS8_WINOGRAD_MAX_PARTS * points(tile) * WG_G * WG_G * sizeof(int32_t) +
         round8(p->in_c);
}

void lite_qs8_winograd_run(const lite_qs8_winograd_kernel* kernel, const lite_conv2d_params* p, const void* packed,
                           const lite_qs8_gemm_params* params, const int8_t* x, int8_t* y, size_t group_begin,
                           size_t group_end, size_t block_begin, size_t block_end, void* scratch) {
  const size_t m = kernel->tile, n = m + 2, np = n * n;
  const size_t ci_pad = round8(p->in_c), co_pad = round8(p->out_c), cb = ci_pad / WG_G;
  const size_t th = tiles_h(p, m), tw = tiles_w(p, m), tiles = p->batch * th * tw;
  const size_t block = u_block_elems(p, m);
  int32_t header[2];
  memcpy(header, packed, sizeof(header));
  const int32_t input_zero_point = header[0];
  const size_t parts = header[1] > 0 ? (size_t)header[1] : 1;
  const int16_t* u = (const int16_t*)((const uint8_t*)packed + WG_HEADER);
  const int32_t* epilogue = (const int32_t*)(u + (co_pad / WG_G) * block);
  int16_t* v = (int16_t*)scratch;
  int32_t* mm = (int32_t*)((uint8_t*)scratch + v_bytes(p, m));
  /* padding points read this row of zero points (d = 0) */
  int8_t* pad = (int8_t*)(mm + LITE_QS8_WINOGRAD_MAX_PARTS * np * WG_G * WG_G);
  memset(pad, (int8_t)input_zero_point, p->in_c);
  const int8_t* px[LITE_QS8_WINOGRAD_MAX_POINTS];
  for (size_t g = group_begin; g < group_end; ++g) {
    int8_t* dst[WG_G];
    uint8_t shape[WG_G];
    const size_t live = min_size(tiles - g * WG_G, WG_G);
    for (size_t s = 0; s < WG_G; ++s) {
      const size_t tile = g * WG_G + s;
      dst[s] = NULL;
      shape[s] = 0;
      if (tile >= tiles) { /* products of 8 tiles read every slot; of 4, slots 0-3 */
        if (live <= 4 && s >= 4) continue;
        for (size_t k = 0; k < np; ++k) px[k] = pad;
        kernel->input(px, p->in_c, cb, input_zero_point, v + s * WG_G);
        continue;
      }
      const size_t image = tile / (th * tw), oy = (tile / tw) % th * m, ox = tile % tw * m;
      for (size_t i = 0; i < n; ++i) {
        const ptrdiff_t iy = (ptrdiff_t)(oy + i) - (ptrdiff_t)p->pad_top;
        for (size_t j = 0; j < n; ++j) {
          const ptrdiff_t ix = (ptrdiff_t)(ox + j) - (ptrdiff_t)p->pad_left;
          const int inside = iy >= 0 && iy < (ptrdiff_t)p->in_h && ix >= 0 && ix < (ptrdiff_t)p->in_w;
          px[i * n + j] = inside ? x + ((image * p->in_h + (size_t)iy) * p->in_w + (size_t)ix) * p->in_c : pad;
        }
      }
      kernel->input(px, p->in_c, cb, input_zero_point, v + s * WG_G);
      dst[s] = y + ((image * p->out_h + oy) * p->out_w + ox) * p->out_c;
      shape[s] = (uint8_t)(min_size(m, p->out_h - oy) << 4 | min_size(m, p->out_w - ox));
    }
    for (size_t b = block_begin; b < block_end && b < co_pad / WG_G; ++b) {
      for (size_t k = 0; k < parts; ++k) {
        const size_t first = part_begin(k, parts, cb), blocks = part_begin(k + 1, parts, cb) - first;
        kernel->product(np, live, cb, blocks, v + first * 64, u + b * block + first * 64, mm + k * np * 64);
      }
      int8_t* dst_b[WG_G];
      for (size_t s = 0; s < WG_G; ++s) dst_b[s] = dst[s] != NULL ? dst[s] + b * WG_G : NULL;
      const size_t nc = min_size(p->out_c - b * WG_G, WG_G);
      kernel->output(mm, parts, nc, epilogue + b * WG_G, co_pad, params, dst_b, shape, p->out_w * p->out_c, p->out_c);
    }
  }
}
