/* The int8 F(2,3) Winograd convolution (qs8_winograd.h): applicability, the exactness bound, weight
 * packing and the tile loop shared by every ISA (the ISA supplies input / product / output). */
#include <stdint.h>
#include <string.h>

#include "lite_kernels/qs8_winograd.h"

#define WG_G LITE_QS8_WINOGRAD_GROUP
#define WG_HEADER 64 /* bytes before the first U block */

static size_t round8(size_t n) { return (n + WG_G - 1) / WG_G * WG_G; }

int lite_qs8_winograd_applies(const lite_conv2d_params* p) {
  return p->groups == 1 && p->kernel_h == 3 && p->kernel_w == 3 && p->stride_h == 1 && p->stride_w == 1 &&
         p->dilation_h == 1 && p->dilation_w == 1 && p->in_c > 0 && p->out_c > 0 && p->out_h > 0 && p->out_w > 0;
}

int lite_qs8_winograd_is_exact(const lite_conv2d_params* p, const int8_t* weight, int32_t input_zero_point) {
  /* the largest |x - zp| over int8 x */
  const int64_t d = input_zero_point >= 0 ? (int64_t)input_zero_point + 128 : 127 - (int64_t)input_zero_point;
  const size_t taps = 9 * p->in_c;
  for (size_t co = 0; co < p->out_c; ++co) {
    int64_t s = 0;
    for (size_t k = 0; k < taps; ++k) {
      const int8_t w = weight[co * taps + k];
      s += w < 0 ? -(int64_t)w : w;
    }
    if (s * d >= ((int64_t)1 << 29)) return 0;
  }
  return 1;
}

static size_t u_block_elems(const lite_conv2d_params* p) { return 16 * round8(p->in_c) * WG_G; }

size_t lite_qs8_winograd_packed_size(const lite_conv2d_params* p) {
  const size_t blocks = round8(p->out_c) / WG_G;
  return WG_HEADER + blocks * u_block_elems(p) * sizeof(int16_t) + 3 * round8(p->out_c) * sizeof(int32_t);
}

/* G scaled by 2: U = G' g G'^T = 4 G g G^T, integer. */
static const int8_t k_g2[4][3] = {{2, 0, 0}, {1, 1, 1}, {1, -1, 1}, {0, 0, 2}};

void lite_qs8_winograd_pack(const lite_conv2d_params* p, const int8_t* weight, const int32_t* bias,
                            int32_t input_zero_point, const int32_t* multiplier, const int32_t* shift, void* packed) {
  const size_t ci_pad = round8(p->in_c), co_pad = round8(p->out_c), cb = ci_pad / WG_G;
  memset(packed, 0, lite_qs8_winograd_packed_size(p));
  memcpy(packed, &input_zero_point, sizeof(input_zero_point));
  int16_t* u = (int16_t*)((uint8_t*)packed + WG_HEADER);
  for (size_t co = 0; co < p->out_c; ++co)
    for (size_t ci = 0; ci < p->in_c; ++ci) {
      const int8_t* g = weight + co * 9 * p->in_c + ci; /* g[(a * 3 + b) * in_c] */
      for (size_t i = 0; i < 4; ++i)
        for (size_t j = 0; j < 4; ++j) {
          int32_t s = 0;
          for (size_t a = 0; a < 3; ++a)
            for (size_t b = 0; b < 3; ++b) s += k_g2[i][a] * g[(a * 3 + b) * p->in_c] * k_g2[j][b];
          const size_t t = i * 4 + j;
          u[(co / WG_G) * u_block_elems(p) + ((t * cb + ci / WG_G) * WG_G + ci % WG_G) * WG_G + co % WG_G] =
              (int16_t)s;
        }
    }
  int32_t* epilogue = (int32_t*)(u + (co_pad / WG_G) * u_block_elems(p));
  for (size_t co = 0; co < p->out_c; ++co) {
    epilogue[co] = bias != NULL ? bias[co] : 0;
    epilogue[co_pad + co] = multiplier[co];
    epilogue[2 * co_pad + co] = shift[co];
  }
  for (size_t co = p->out_c; co < co_pad; ++co) epilogue[2 * co_pad + co] = 1; /* a valid shift */
}

static size_t tiles_h(const lite_conv2d_params* p) { return (p->out_h + 1) / 2; }
static size_t tiles_w(const lite_conv2d_params* p) { return (p->out_w + 1) / 2; }

size_t lite_qs8_winograd_groups(const lite_conv2d_params* p) {
  return (p->batch * tiles_h(p) * tiles_w(p) + WG_G - 1) / WG_G;
}

static size_t v_bytes(const lite_conv2d_params* p) { return 16 * round8(p->in_c) * WG_G * sizeof(int16_t); }

size_t lite_qs8_winograd_scratch_size(const lite_conv2d_params* p) {
  return v_bytes(p) + 16 * WG_G * WG_G * sizeof(int32_t) + round8(p->in_c);
}

void lite_qs8_winograd_run(const lite_qs8_winograd_kernel* kernel, const lite_conv2d_params* p, const void* packed,
                           const lite_qs8_gemm_params* params, const int8_t* x, int8_t* y, size_t group_begin,
                           size_t group_end, void* scratch) {
  const size_t ci_pad = round8(p->in_c), co_pad = round8(p->out_c), cb = ci_pad / WG_G;
  const size_t th = tiles_h(p), tw = tiles_w(p), tiles = p->batch * th * tw;
  int32_t input_zero_point;
  memcpy(&input_zero_point, packed, sizeof(input_zero_point));
  const int16_t* u = (const int16_t*)((const uint8_t*)packed + WG_HEADER);
  const int32_t* epilogue = (const int32_t*)(u + (co_pad / WG_G) * u_block_elems(p));
  int16_t* v = (int16_t*)scratch;
  int32_t* m = (int32_t*)((uint8_t*)scratch + v_bytes(p));
  /* padding points read this row of zero points (d = 0) */
  int8_t* pad = (int8_t*)(m + 16 * WG_G * WG_G);
  memset(pad, (int8_t)input_zero_point, p->in_c);
  const int8_t* none[16];
  for (size_t k = 0; k < 16; ++k) none[k] = pad;
  for (size_t g = group_begin; g < group_end; ++g) {
    int8_t* dst[WG_G];
    uint8_t shape[WG_G];
    for (size_t s = 0; s < WG_G; ++s) {
      const size_t tile = g * WG_G + s;
      dst[s] = NULL;
      shape[s] = 0;
      if (tile >= tiles) {
        kernel->input(none, p->in_c, cb, input_zero_point, v + s * WG_G);
        continue;
      }
      const size_t image = tile / (th * tw), oy = (tile / tw) % th * 2, ox = tile % tw * 2;
      const int8_t* px[16];
      for (size_t i = 0; i < 4; ++i) {
        const ptrdiff_t iy = (ptrdiff_t)(oy + i) - (ptrdiff_t)p->pad_top;
        for (size_t j = 0; j < 4; ++j) {
          const ptrdiff_t ix = (ptrdiff_t)(ox + j) - (ptrdiff_t)p->pad_left;
          const int inside = iy >= 0 && iy < (ptrdiff_t)p->in_h && ix >= 0 && ix < (ptrdiff_t)p->in_w;
          px[i * 4 + j] = inside ? x + ((image * p->in_h + (size_t)iy) * p->in_w + (size_t)ix) * p->in_c : pad;
        }
      }
      kernel->input(px, p->in_c, cb, input_zero_point, v + s * WG_G);
      dst[s] = y + ((image * p->out_h + oy) * p->out_w + ox) * p->out_c;
      shape[s] = (uint8_t)((ox + 1 < p->out_w ? 1 : 0) | (oy + 1 < p->out_h ? 2 : 0));
    }
    for (size_t b = 0; b < co_pad / WG_G; ++b) {
      kernel->product(cb, v, u + b * u_block_elems(p), m);
      int8_t* dst_b[WG_G];
      for (size_t s = 0; s < WG_G; ++s) dst_b[s] = dst[s] != NULL ? dst[s] + b * WG_G : NULL;
      const size_t nc = p->out_c - b * WG_G < WG_G ? p->out_c - b * WG_G : WG_G;
      kernel->output(m, nc, epilogue + b * WG_G, co_pad, params, dst_b, shape, p->out_w * p->out_c, p->out_c);
    }
  }
}
