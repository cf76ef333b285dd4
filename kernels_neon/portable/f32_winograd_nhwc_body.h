/* The Winograd F(m x m, 3 x 3) convolution body, written once over a vector abstraction and
 * instantiated per ISA (f32_winograd_nhwc_portable.c, x86/f32_winograd_nhwc_avx2.c, ...). The
 * including file defines the LV_* macros (see f32_dwconv_winograd_vector_activation.h) and
 * LITE_WINOGRAD_ENTRY, the public name. The transforms come from the generated
 * f32_winograd_transforms.h; the alpha^2 multiplies run on the packed GEMM microkernels, or on the
 * ISA's own product kernel when the including file defines LITE_WINOGRAD_TILE_GEMM(gemm, rows,
 * out_c, co_pad, in_c, v, ldv, packed, m_out, ldm) (returns 0 to fall back to the GEMM).
 *
 * Scratch layout per block of TB tiles: V[t][tile][ci_pad] (transformed input, t = alpha^2 points)
 * then M[t][tile][co_pad] (products), then, without a packed weight, U of one panel of output
 * channels (f32_winograd.h); ci_pad / co_pad round the channels up to the vector width so
 * the transforms always move whole vectors (the GEMM reads only in_c columns and writes only out_c,
 * the padding columns of M stay zero). Stride 2 (m = 7, f32_winograd.h): V rows of 4 phases x cs channel
 * slots, K = 4 cs columns all read by the GEMM. */
#include <math.h>
#include <stddef.h>
#include <string.h>

#include "f32_dwconv_winograd_vector_activation.h"
#include "f32_winograd_transforms.h"
#include "lite_kernels/f32_winograd.h"

#define WG_ALWAYS_INLINE static inline __attribute__((always_inline))
/* The tile transforms stay out of line (GCC still clones them per m): measured on aarch64 with
 * ResNet-18, 1.4 M fewer instructions per inference than inlined into the block loop (less register
 * pressure there) and 1 KB less code. */
#define WG_OUT_OF_LINE static __attribute__((noinline))

/* Loads channels [c, c + LV_W) of one pixel; `avail` < LV_W reads only that many (rest zero). */
WG_ALWAYS_INLINE LV_T wg_load_partial(const float* src, size_t avail) {
  if (avail >= (size_t)LV_W) return LV_LOAD(src);
  float buf[LV_W];
  for (size_t k = 0; k < (size_t)LV_W; ++k) buf[k] = k < avail ? src[k] : 0.0f;
  return LV_LOAD(buf);
}

WG_ALWAYS_INLINE void wg_bt(int M, const LV_T* in, LV_T* out) {
  if (M == 2)
    LITE_WINO_F2_BT(LV, in, out);
  else if (M == 4)
    LITE_WINO_F4_BT(LV, in, out);
  else
    LITE_WINO_F6_BT(LV, in, out);
}

WG_ALWAYS_INLINE void wg_at(int M, const LV_T* in, LV_T* out) {
  if (M == 2)
    LITE_WINO_F2_AT(LV, in, out);
  else if (M == 4)
    LITE_WINO_F4_AT(LV, in, out);
  else if (M == 6)
    LITE_WINO_F6_AT(LV, in, out);
  else
    LITE_WINO_F7R2_AT(LV, in, out);
}

/* Input points per tile side: m + 2 for F(m, 3); 8 for stride 2 (F(7, 2) on the input phases). */
#define WG_ALPHA(M) ((M) == 7 ? 8 : (M) + 2)

/* B^T d B of the alpha x alpha input tile whose top-left pixel is (iy0, ix0) (may lie in the padding),
 * all channels, into v[t * t_stride + c]. Stride 2 (S = 2, M = 7): the same for each of the four
 * phases ph = (py, px) of the 2 alpha x 2 alpha input window (point (i, j) of phase ph is pixel
 * (iy0 + 2i + py, ix0 + 2j + px)), into channel slots v[t * t_stride + ph * cs + c]; the slots past
 * in_c are zeros (they meet zero weights, and must not hold stale NaNs). */
WG_OUT_OF_LINE void wg_input_tile(int M, int S, const lite_conv2d_params* p, const float* image, ptrdiff_t iy0,
                                  ptrdiff_t ix0, size_t ci_pad, size_t cs, float* v, size_t t_stride) {
  const int A = WG_ALPHA(M);
  const size_t C = p->in_c, slots = S == 1 ? ci_pad : cs;
  const ptrdiff_t span = (ptrdiff_t)S * A;
  const int interior = C % (size_t)LV_W == 0 && iy0 >= 0 && ix0 >= 0 && iy0 + span <= (ptrdiff_t)p->in_h &&
                       ix0 + span <= (ptrdiff_t)p->in_w;
  for (int ph = 0; ph < S * S; ++ph) {
    const ptrdiff_t py = ph / S, px = ph % S;
    float* vp = v + (size_t)ph * cs;
    if (interior) {
      /* Interior tile, whole vectors (most tiles of a large map): plain loads, no checks. */
      const float* base = image + ((size_t)(iy0 + py) * p->in_w + (size_t)(ix0 + px)) * C;
      const size_t row_stride = (size_t)S * p->in_w * C, col_stride = (size_t)S * C;
      for (size_t c = 0; c < C; c += (size_t)LV_W) {
        LV_T tmp[8][8];
        for (int j = 0; j < A; ++j) {
          LV_T col[8], res[8];
          for (int i = 0; i < A; ++i) col[i] = LV_LOAD(base + (size_t)i * row_stride + (size_t)j * col_stride + c);
          wg_bt(M, col, res);
          for (int i = 0; i < A; ++i) tmp[i][j] = res[i];
        }
        for (int i = 0; i < A; ++i) {
          LV_T res[8];
          wg_bt(M, tmp[i], res);
          for (int j = 0; j < A; ++j) LV_STORE(vp + (size_t)(i * A + j) * t_stride + c, res[j]);
        }
      }
      for (size_t c = C; c < slots; c += (size_t)LV_W)
        for (int t = 0; t < A * A; ++t) LV_STORE(vp + (size_t)t * t_stride + c, LV_SET1(0.0f));
      continue;
    }
    int row_in[8], col_in[8];
    for (int i = 0; i < A; ++i) {
      const ptrdiff_t iy = iy0 + (ptrdiff_t)S * i + py, ix = ix0 + (ptrdiff_t)S * i + px;
      row_in[i] = iy >= 0 && iy < (ptrdiff_t)p->in_h;
      col_in[i] = ix >= 0 && ix < (ptrdiff_t)p->in_w;
    }
    for (size_t c = 0; c < slots; c += (size_t)LV_W) {
      const size_t avail = c < C ? C - c : 0;
      LV_T tmp[8][8];
      for (int j = 0; j < A; ++j) {
        LV_T col[8], res[8];
        for (int i = 0; i < A; ++i)
          col[i] = row_in[i] && col_in[j] && avail > 0
                       ? wg_load_partial(image + ((size_t)(iy0 + (ptrdiff_t)S * i + py) * p->in_w +
                                                  (size_t)(ix0 + (ptrdiff_t)S * j + px)) * C + c,
                                         avail)
                       : LV_SET1(0.0f);
        wg_bt(M, col, res);
        for (int i = 0; i < A; ++i) tmp[i][j] = res[i];
      }
      for (int i = 0; i < A; ++i) {
        LV_T res[8];
        wg_bt(M, tmp[i], res);
        for (int j = 0; j < A; ++j) LV_STORE(vp + (size_t)(i * A + j) * t_stride + c, res[j]);
      }
    }
  }
}

/* A^T M A + bias, activation, store of the m x m output tile at (oy0, ox0) clipped to the output. */
WG_OUT_OF_LINE void wg_output_tile(int M, const lite_conv2d_params* p, const float* mat, size_t t_stride,
                                     size_t c_begin, size_t c_end, const float* bias, const lite_activation* act,
                                     LV_T vlo, LV_T vhi, int post, float* out_image, size_t oy0, size_t ox0) {
  const int A = WG_ALPHA(M);
  const size_t C = p->out_c;
  const size_t my = p->out_h - oy0 < (size_t)M ? p->out_h - oy0 : (size_t)M;
  const size_t mx = p->out_w - ox0 < (size_t)M ? p->out_w - ox0 : (size_t)M;
  if (!post && my == (size_t)M && mx == (size_t)M && C % (size_t)LV_W == 0) {
    /* Whole tile, whole vectors, min/max activation (most tiles): the same arithmetic, no checks. */
    float* base = out_image + (oy0 * p->out_w + ox0) * C;
    const size_t row_stride = p->out_w * C;
    for (size_t c = c_begin; c < c_end; c += (size_t)LV_W) {
      LV_T tmp[7][8];
      for (int j = 0; j < A; ++j) {
        LV_T col[8], res[7];
        for (int i = 0; i < A; ++i) col[i] = LV_LOAD(mat + (size_t)(i * A + j) * t_stride + c);
        wg_at(M, col, res);
        for (int i = 0; i < M; ++i) tmp[i][j] = res[i];
      }
      const LV_T b = bias != NULL ? LV_LOAD(bias + c) : LV_SET1(0.0f);
      for (int i = 0; i < M; ++i) {
        LV_T y[7];
        wg_at(M, tmp[i], y);
        float* row = base + (size_t)i * row_stride + c;
        for (int j = 0; j < M; ++j) LV_STORE(row + (size_t)j * C, LV_MIN(LV_MAX(LV_ADD(y[j], b), vlo), vhi));
      }
    }
    return;
  }
  for (size_t c = c_begin; c < c_end; c += (size_t)LV_W) {
    const size_t avail = C - c;
    LV_T tmp[7][8];
    for (int j = 0; j < A; ++j) {
      LV_T col[8], res[7];
      for (int i = 0; i < A; ++i) col[i] = LV_LOAD(mat + (size_t)(i * A + j) * t_stride + c);
      wg_at(M, col, res);
      for (int i = 0; i < M; ++i) tmp[i][j] = res[i];
    }
    const LV_T b = bias != NULL ? wg_load_partial(bias + c, avail) : LV_SET1(0.0f);
    for (size_t i = 0; i < my; ++i) {
      LV_T y[7];
      wg_at(M, tmp[i], y);
      float* row = out_image + ((oy0 + i) * p->out_w + ox0) * C + c;
      for (size_t j = 0; j < mx; ++j) {
        const LV_T val = LV_ADD(y[j], b);
        if (avail >= (size_t)LV_W) {
          const LV_T clamped = LV_MIN(LV_MAX(val, vlo), vhi);
          if (post)
            lv_store_activated(act, clamped, c, row + j * C);
          else
            LV_STORE(row + j * C, clamped);
        } else {
          float buf[LV_W];
          LV_STORE(buf, val);
          for (size_t k = 0; k < avail; ++k) row[j * C + k] = act != NULL ? lite_activate(act, buf[k], c + k) : buf[k];
        }
      }
    }
  }
}

WG_ALWAYS_INLINE void wg_run(int M, const lite_f32_gemm_config* gemm, const lite_conv2d_params* p, const float* input,
                             const float* packed, const float* weight, const float* bias, const lite_activation* act, float* output,
                             float* scratch, size_t tr_begin, size_t tr_end, size_t co_begin, size_t co_end) {
  const size_t A = (size_t)WG_ALPHA(M), T2 = A * A;
  const int S = M == 7 ? 2 : 1;
  const size_t tiles_y = (p->out_h + (size_t)M - 1) / (size_t)M, tiles_x = (p->out_w + (size_t)M - 1) / (size_t)M;
  const size_t ci_pad = (p->in_c + LV_W - 1) / LV_W * LV_W, co_pad = (p->out_c + LV_W - 1) / LV_W * LV_W;
  const size_t TB = lite_f32_winograd_block_tiles(M, p);
  /* the products' depth K and the row stride of V: in_c and ci_pad, or 4 phases of cs channels */
  const size_t K = lite_f32_winograd_gemm_k(M, p), vrow = S == 1 ? ci_pad : K;
  const size_t per_t = lite_f32_gemm_packed_size(gemm, p->out_c, K);
  /* Channels [co_begin, co_end): their panels of the packed weight (a packed B of their own), the
   * same columns of M, and whole vectors of them in the output transform. */
  const size_t n_cols = co_end - co_begin, panel_offset = co_begin / gemm->nr * gemm->nr * (K + 1);
  const size_t c_end = (co_end + LV_W - 1) / LV_W * LV_W < co_pad ? (co_end + LV_W - 1) / LV_W * LV_W : co_pad;
  float* v = scratch;
  float* mat = scratch + T2 * TB * vrow;
  /* Without a packed weight: one panel of U at a time, transformed into the scratch after M, per block. */
  float* u = mat + T2 * TB * co_pad;
  const size_t chunk = packed != NULL ? n_cols : gemm->nr, u_t = lite_f32_gemm_packed_size(gemm, gemm->nr, K);
  /* The output transform reads whole vectors: the padding columns past out_c (never written by the
   * GEMM) are zeroed, not the whole of M (a memset of all of M per call cost more than the input
   * transform when a layer's channels are split among several calls). */
  if (c_end > p->out_c)
    for (size_t r = 0; r < T2 * TB; ++r) memset(mat + r * co_pad + p->out_c, 0, sizeof(float) * (c_end - p->out_c));
  const size_t in_image = p->in_h * p->in_w * p->in_c, out_image = p->out_h * p->out_w * p->out_c;
  const size_t lo = tr_begin * tiles_x, hi = tr_end * tiles_x;
  /* None / Relu / Clip: one max + min per output vector (bounds +-inf where absent, first operand so
   * NaN stays NaN); other activations (post) after it, on the vector as before. */
  const lite_activation* pixel_act = lv_defer_exp_activation(&act); /* over each stored pixel's channels */
  const int clamp = act == NULL || act->kind == LITE_ACT_RELU || act->kind == LITE_ACT_CLIP, post = !clamp;
  const LV_T vlo = LV_SET1(act == NULL || !clamp ? -INFINITY : (act->kind == LITE_ACT_CLIP ? act->alpha : 0.0f));
  const LV_T vhi = LV_SET1(act != NULL && act->kind == LITE_ACT_CLIP ? act->beta : INFINITY);
  for (size_t start = lo; start < hi; start += TB) {
    const size_t nb = hi - start < TB ? hi - start : TB;
    for (size_t b = 0; b < nb; ++b) {
      const size_t idx = start + b, tr = idx / tiles_x, tx = idx % tiles_x, n = tr / tiles_y, ty = tr % tiles_y;
      wg_input_tile(M, S, p, input + n * in_image, (ptrdiff_t)(ty * (size_t)(M * S)) - (ptrdiff_t)p->pad_top,
                    (ptrdiff_t)(tx * (size_t)(M * S)) - (ptrdiff_t)p->pad_left, ci_pad, K / 4, v + b * vrow, TB * vrow);
    }
    for (size_t cb = co_begin; cb < co_end; cb += chunk) {
      const size_t ce = co_end - cb < chunk ? co_end : cb + chunk;
      const float* w_t = u;
      size_t w_stride = u_t;
      if (packed != NULL) {
        w_t = packed + panel_offset;
        w_stride = per_t;
      } else {
        lite_f32_winograd_transform_weight(gemm, M, p, weight, cb, ce, u, u_t);
      }
      for (size_t t = 0; t < T2; ++t) {
#ifdef LITE_WINOGRAD_TILE_GEMM
        const size_t ce_pad = (ce + LV_W - 1) / LV_W * LV_W < co_pad ? (ce + LV_W - 1) / LV_W * LV_W : co_pad;
        if (LITE_WINOGRAD_TILE_GEMM(gemm, nb, ce - cb, ce_pad - cb, K, v + t * TB * vrow, vrow, w_t + t * w_stride,
                                    mat + t * TB * co_pad + cb, co_pad))
          continue;
#endif
        lite_f32_gemm_packed_compute(gemm, nb, 0, ce - cb, K, v + t * TB * vrow, vrow, w_t + t * w_stride, NULL,
                                     mat + t * TB * co_pad + cb, co_pad);
      }
    }
    for (size_t b = 0; b < nb; ++b) {
      const size_t idx = start + b, tr = idx / tiles_x, tx = idx % tiles_x, n = tr / tiles_y, ty = tr % tiles_y;
      wg_output_tile(M, p, mat + b * co_pad, TB * co_pad, co_begin, c_end, bias, act, vlo, vhi, post,
                     output + n * out_image, ty * (size_t)M, tx * (size_t)M);
      if (pixel_act != NULL) {
        const size_t oy0 = ty * (size_t)M, ox0 = tx * (size_t)M, C = p->out_c, c1 = co_end < C ? co_end : C;
        for (size_t y = oy0; y < oy0 + (size_t)M && y < p->out_h; ++y)
          for (size_t x = ox0; x < ox0 + (size_t)M && x < p->out_w; ++x) {
            float* px = output + n * out_image + (y * p->out_w + x) * C + co_begin;
            lite_f32_activate_copy(pixel_act, px, px, c1 - co_begin);
          }
      }
    }
  }
}

LITE_F32_WINOGRAD_DECLARE(LITE_WINOGRAD_ENTRY) {
  if (act != NULL && act->kind == LITE_ACT_NONE) act = NULL;
  if (m == 2)
    wg_run(2, gemm, params, input, packed_weight, weight, bias, act, output, scratch, tile_row_begin, tile_row_end, co_begin,
           co_end);
  else if (m == 4)
    wg_run(4, gemm, params, input, packed_weight, weight, bias, act, output, scratch, tile_row_begin, tile_row_end, co_begin,
           co_end);
  else if (m == 7)
    wg_run(7, gemm, params, input, packed_weight, weight, bias, act, output, scratch, tile_row_begin, tile_row_end, co_begin,
           co_end);
  else
    wg_run(6, gemm, params, input, packed_weight, weight, bias, act, output, scratch, tile_row_begin, tile_row_end, co_begin,
           co_end);
}
