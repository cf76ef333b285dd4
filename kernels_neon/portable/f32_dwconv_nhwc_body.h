/* The depthwise convolution body, written once over a vector abstraction and instantiated per ISA
 * (f32_dwconv_nhwc_portable.c, x86/f32_dwconv_nhwc_avx2.c, ...). The including file defines the LV_*
 * macros (see f32_dwconv_winograd_vector_activation.h) and LITE_DWCONV_ENTRY, the public name.
 *
 * 3x3 and 5x5 kernels with stride 1 or 2 run dw_square_row (weights in registers, groups of pixels
 * sharing their input loads, no checks in the interior); any other shape runs dw_row. Border pixels
 * clip the tap range instead of reading a padded copy. Sums start at the bias and add taps in
 * (kh, kw) order, the reference's order. Channels left over after the last full vector run in a
 * last vector that overlaps the one before (dw_vector_start); fewer channels than one vector take a
 * scalar path. */
#include <math.h>
#include <stddef.h>

#include "f32_dwconv_winograd_vector_activation.h"
#include "lite_kernels/f32_dwconv.h"

#define DW_ALWAYS_INLINE static inline __attribute__((always_inline))

/* Taps k in [*lo, *hi) of a K-tap window (dilation D) starting at `base` (may be negative) that land
 * inside [0, size). */
static inline void dw_tap_range(ptrdiff_t base, size_t K, size_t D, size_t size, size_t* lo, size_t* hi) {
  size_t l = base < 0 ? (size_t)((-base + (ptrdiff_t)D - 1) / (ptrdiff_t)D) : 0;
  const ptrdiff_t top = (ptrdiff_t)size - 1 - base;
  size_t h = top < 0 ? 0 : (size_t)(top / (ptrdiff_t)D) + 1;
  if (h > K) h = K;
  if (l > h) l = h;
  *lo = l;
  *hi = h;
}

/* Channels run in vectors of LV_W; when C is not a multiple of LV_W (BlazeFace's 28, 36 and 42), the
 * last vector starts at C - LV_W and overlaps the one before: the overlapped channels are computed
 * again the same way (from the bias, taps in the same order) and stored again, raw then activated,
 * so each is written with the value it had (an activation applied after a store runs on the new
 * raw sums). Only C < LV_W takes the scalar path. dw_vector_channels: the channels the vector loop
 * covers (0 or C); dw_vector_start: where the vector of loop index c0 starts. */
static inline size_t dw_vector_channels(size_t C) { return C >= (size_t)LV_W ? C : 0; }
static inline size_t dw_vector_start(size_t c0, size_t C) { return c0 + (size_t)LV_W <= C ? c0 : C - (size_t)LV_W; }

/* Geometry of one output row shared by the channel loops. */
typedef struct {
  size_t C, in_w, out_w;
  ptrdiff_t ih0;         /* input row of tap kh = 0 (may be negative) */
  size_t kh_lo, kh_hi;   /* taps inside the image vertically */
  size_t ow_lo, ow_hi;   /* interior pixels: every tap inside (empty unless all kh are inside) */
} dw_row_geometry;

DW_ALWAYS_INLINE dw_row_geometry dw_geometry(const lite_conv2d_params* p, size_t oh, size_t KH, size_t KW, size_t SH,
                                             size_t SW, size_t DH, size_t DW) {
  dw_row_geometry g;
  g.C = p->in_c;
  g.in_w = p->in_w;
  g.out_w = p->out_w;
  g.ih0 = (ptrdiff_t)(oh * SH) - (ptrdiff_t)p->pad_top;
  dw_tap_range(g.ih0, KH, DH, p->in_h, &g.kh_lo, &g.kh_hi);
  const size_t span = (KW - 1) * DW;
  size_t lo = (p->pad_left + SW - 1) / SW, hi = 0;
  if (p->in_w + p->pad_left >= span + 1) hi = (p->in_w + p->pad_left - span - 1) / SW + 1;
  if (hi > g.out_w) hi = g.out_w;
  if (lo > hi) lo = hi;
  if (g.kh_lo != 0 || g.kh_hi != KH) lo = hi = 0;
  g.ow_lo = lo;
  g.ow_hi = hi;
  return g;
}

/* One output vector (channels [c, c + LV_W)) of a border pixel: taps clipped to the image. */
DW_ALWAYS_INLINE void dw_pixel_checked_vec(const lite_conv2d_params* p, const dw_row_geometry* g, const float* image,
                                           const float* w, LV_T b, const lite_activation* act, float* out, size_t ow,
                                           size_t c, size_t KW, size_t SW, size_t DH, size_t DW) {
  const ptrdiff_t iw0 = (ptrdiff_t)(ow * SW) - (ptrdiff_t)p->pad_left;
  size_t kw_lo, kw_hi;
  dw_tap_range(iw0, KW, DW, g->in_w, &kw_lo, &kw_hi);
  LV_T acc = b;
  for (size_t kh = g->kh_lo; kh < g->kh_hi; ++kh) {
    const size_t ih = (size_t)(g->ih0 + (ptrdiff_t)(kh * DH));
    for (size_t kw = kw_lo; kw < kw_hi; ++kw) {
      const size_t iw = (size_t)(iw0 + (ptrdiff_t)(kw * DW));
      acc = LV_FMA(acc, LV_LOAD(image + (ih * g->in_w + iw) * g->C + c), LV_LOAD(w + (kh * KW + kw) * g->C + c));
    }
  }
  lv_store_activated(act, acc, c, out + ow * g->C + c);
}

/* The same for one channel (the channels after the last full vector). */
DW_ALWAYS_INLINE void dw_pixel_checked_scalar(const lite_conv2d_params* p, const dw_row_geometry* g, const float* image,
                                              const float* w, const float* bias, const lite_activation* act, float* out,
                                              size_t ow, size_t c, size_t KW, size_t SW, size_t DH, size_t DW) {
  const ptrdiff_t iw0 = (ptrdiff_t)(ow * SW) - (ptrdiff_t)p->pad_left;
  size_t kw_lo, kw_hi;
  dw_tap_range(iw0, KW, DW, g->in_w, &kw_lo, &kw_hi);
  float acc = bias != NULL ? bias[c] : 0.0f;
  for (size_t kh = g->kh_lo; kh < g->kh_hi; ++kh) {
    const size_t ih = (size_t)(g->ih0 + (ptrdiff_t)(kh * DH));
    for (size_t kw = kw_lo; kw < kw_hi; ++kw) {
      const size_t iw = (size_t)(iw0 + (ptrdiff_t)(kw * DW));
      acc += image[(ih * g->in_w + iw) * g->C + c] * w[(kh * KW + kw) * g->C + c];
    }
  }
  out[ow * g->C + c] = act != NULL ? lite_activate(act, acc, c) : acc;
}

/* One output row of any kernel size, stride and dilation (the shapes dw_square_row does not serve).
 * KH..DW are compile-time constants where the call site knows them. */
DW_ALWAYS_INLINE void dw_row(const lite_conv2d_params* p, const float* restrict image, const float* restrict w,
                             const float* restrict bias, const lite_activation* act, float* restrict out, size_t oh,
                             size_t KH, size_t KW, size_t SH, size_t SW, size_t DH, size_t DW) {
  const dw_row_geometry g = dw_geometry(p, oh, KH, KW, SH, SW, DH, DW);
  const size_t C = g.C, cv = dw_vector_channels(C);
  for (size_t c0 = 0; c0 < cv; c0 += (size_t)LV_W) {
    const size_t c = dw_vector_start(c0, C);
    const LV_T b = bias != NULL ? LV_LOAD(bias + c) : LV_SET1(0.0f);
    size_t ow = 0;
    for (; ow < g.ow_lo; ++ow) dw_pixel_checked_vec(p, &g, image, w, b, act, out, ow, c, KW, SW, DH, DW);
    for (; ow < g.ow_hi; ++ow) { /* ow_lo < ow_hi only when every tap row is inside: ih0 >= 0 */
      const float* in = image + ((size_t)g.ih0 * g.in_w + ow * SW - p->pad_left) * C + c;
      LV_T acc = b;
      for (size_t kh = 0; kh < KH; ++kh)
        for (size_t kw = 0; kw < KW; ++kw)
          acc = LV_FMA(acc, LV_LOAD(in + (kh * DH * g.in_w + kw * DW) * C), LV_LOAD(w + (kh * KW + kw) * C + c));
      lv_store_activated(act, acc, c, out + ow * C + c);
    }
    for (; ow < g.out_w; ++ow) dw_pixel_checked_vec(p, &g, image, w, b, act, out, ow, c, KW, SW, DH, DW);
  }
  for (size_t c = cv; c < C; ++c)
    for (size_t ow = 0; ow < g.out_w; ++ow) dw_pixel_checked_scalar(p, &g, image, w, bias, act, out, ow, c, KW, SW, DH, DW);
}

/* The interior pixels [ow, hi) of one vector of channels in groups of G (see dw_square_row); returns
 * the first pixel not done. `uniform` (a constant): every row has pixel stride C, so the column
 * offsets are loop invariants; the row pointers advance by the group's width. */
DW_ALWAYS_INLINE size_t dw_square_groups(size_t C, const float* const* row, const size_t* step, int uniform,
                                         const LV_T* wv, LV_T b, LV_T vlo, LV_T vhi, float* restrict out,
                                         size_t out_stride, size_t ow, size_t hi, size_t pad_left, size_t K, size_t S,
                                         size_t G) {
  const size_t NCOL = (G - 1) * S + K;
  if (ow + G > hi) return ow;
  const float* x[5];
  size_t st[5];
  for (size_t kh = 0; kh < K; ++kh) {
    st[kh] = uniform ? C : step[kh];
    x[kh] = row[kh] + (ow * S - pad_left) * st[kh];
  }
  float* o = out + ow * out_stride;
  for (; ow + G <= hi; ow += G) {
    LV_T acc[4] = {b, b, b, b};
    for (size_t kh = 0; kh < K; ++kh) {
      LV_T col[9];
      for (size_t j = 0; j < NCOL; ++j) col[j] = LV_LOAD(x[kh] + j * st[kh]);
      for (size_t q = 0; q < G; ++q)
        for (size_t kw = 0; kw < K; ++kw) acc[q] = LV_FMA(acc[q], col[q * S + kw], wv[kh * K + kw]);
      x[kh] += G * S * st[kh];
    }
    for (size_t q = 0; q < G; ++q) LV_STORE(o + q * out_stride, LV_MIN(LV_MAX(acc[q], vlo), vhi));
    o += G * out_stride;
  }
  return ow;
}

/* Pixels [ow, end) of dw_square_row that need column checks (the borders and, on x86, the interior
 * pixels after the last full group), G at a time: a tap column outside the image reads the zero
 * vector (an exact zero added, as the rows outside do). One pixel at a time, a 5x5 pixel is a chain of
 * 25 dependent FMAs: on a 7-pixel row (PP-LCNet's last 5x5 layer, 7x7x512) the border pixels alone
 * waited on FMA latency longer than the whole row's FMA throughput (48 us against onnxruntime's 31 us
 * on AVX-512); groups of 4, then 2 (LITE_DWCONV_EDGE_GROUP 4) keep that many chains in flight, and
 * rows of at most 16 pixels (stride 1) run entirely in such groups. The x86 bodies set it (14x14x256
 * 5x5: 60 -> 41 us, 7x7x512: 49 -> 37 us on AVX-512); the others keep 1, the single-pixel paths
 * (these groups cost ~15 KB of aarch64 code, over the library's size budget, and with zero taps
 * instead of skipped ones 4-16 % more cortex-a72 instructions on 5x5 layers). */
#ifndef LITE_DWCONV_EDGE_GROUP
#define LITE_DWCONV_EDGE_GROUP 1
#endif
DW_ALWAYS_INLINE size_t dw_square_edge_group(const float* const* row, const size_t* step, size_t in_w,
                                             const float* zeros, const LV_T* wv, LV_T b, LV_T vlo, LV_T vhi,
                                             float* restrict out, size_t out_stride, size_t ow, size_t end,
                                             size_t pad_left, size_t K, size_t S, size_t G) {
  const size_t NCOL = (G - 1) * S + K;
  for (; ow + G <= end; ow += G) {
    const ptrdiff_t iw0 = (ptrdiff_t)(ow * S) - (ptrdiff_t)pad_left;
    LV_T acc[4] = {b, b, b, b};
    for (size_t kh = 0; kh < K; ++kh) {
      LV_T col[11];
      for (size_t j = 0; j < NCOL; ++j) {
        const ptrdiff_t iw = iw0 + (ptrdiff_t)j;
        col[j] = LV_LOAD(iw >= 0 && iw < (ptrdiff_t)in_w ? row[kh] + (size_t)iw * step[kh] : zeros);
      }
      for (size_t q = 0; q < G; ++q)
        for (size_t kw = 0; kw < K; ++kw) acc[q] = LV_FMA(acc[q], col[q * S + kw], wv[kh * K + kw]);
    }
    for (size_t q = 0; q < G; ++q) LV_STORE(out + (ow + q) * out_stride, LV_MIN(LV_MAX(acc[q], vlo), vhi));
  }
  return ow;
}

/* One border pixel of dw_square_row: columns outside the image are skipped (rows read zeros). */
DW_ALWAYS_INLINE void dw_square_edge(const float* const* row, const size_t* step, size_t in_w, const LV_T* wv, LV_T b,
                                     LV_T vlo, LV_T vhi, float* restrict out, size_t ow, size_t pad_left, size_t K,
                                     size_t S) {
  const ptrdiff_t iw0 = (ptrdiff_t)(ow * S) - (ptrdiff_t)pad_left;
  LV_T acc = b;
  for (size_t kh = 0; kh < K; ++kh)
    for (size_t kw = 0; kw < K; ++kw) {
      const ptrdiff_t iw = iw0 + (ptrdiff_t)kw;
      if (iw >= 0 && iw < (ptrdiff_t)in_w) acc = LV_FMA(acc, LV_LOAD(row[kh] + (size_t)iw * step[kh]), wv[kh * K + kw]);
    }
  LV_STORE(out, LV_MIN(LV_MAX(acc, vlo), vhi));
}

/* Pixels [ow, end) with column checks: groups of 4 and 2 where LITE_DWCONV_EDGE_GROUP allows, then
 * one pixel at a time skipping the columns outside. */
DW_ALWAYS_INLINE size_t dw_square_edges(const float* const* row, const size_t* step, size_t in_w, const float* zeros,
                                        const LV_T* wv, LV_T b, LV_T vlo, LV_T vhi, float* restrict out,
                                        size_t out_stride, size_t ow, size_t end, size_t pad_left, size_t K,
                                        size_t S) {
  if (LITE_DWCONV_EDGE_GROUP >= 4)
    ow = dw_square_edge_group(row, step, in_w, zeros, wv, b, vlo, vhi, out, out_stride, ow, end, pad_left, K, S, 4);
  if (LITE_DWCONV_EDGE_GROUP >= 2)
    ow = dw_square_edge_group(row, step, in_w, zeros, wv, b, vlo, vhi, out, out_stride, ow, end, pad_left, K, S, 2);
  for (; ow < end; ++ow) dw_square_edge(row, step, in_w, wv, b, vlo, vhi, out + ow * out_stride, ow, pad_left, K, S);
  return ow;
}

/* Square K x K (3 or 5), stride S (1 or 2), dilation 1: the MobileNet / PP-LCNet shapes.
 * Per vector of channels, the K*K weights stay in registers; the interior of the row runs G pixels
 * at a time (G = 4 for 3x3, 2 for 5x5: weights + accumulators + loads fit the 32 NEON registers),
 * each input vector loaded once per group and used by every pixel of the group that needs it (row
 * reuse: a 3x3 stride-1 group of 4 loads 18 vectors for 36 FMAs). Rows above or below the image read
 * a vector of zeros with a pixel stride of 0, so the interior has no per-pixel checks at all (the zero
 * taps add exact zeros); the interior pixels after the last group run one at a time without checks,
 * border columns skip the taps outside the image. On x86 (LITE_DWCONV_EDGE_GROUP 4) those remainder
 * and border pixels run in checked groups instead (dw_square_edge_group). None / Relu / Clip are one max + min (bounds +-inf where absent; the bound is
 * the first operand so a NaN sum stays NaN on every ISA); other activations run on the stored row
 * afterwards with the same vector code as the other bodies. Each pixel sums from its bias in
 * (kh, kw) order whatever the group, so any row split is bit-identical. */
DW_ALWAYS_INLINE void dw_square_row(const lite_conv2d_params* p, const float* restrict image, const float* restrict w,
                                    const float* restrict bias, const lite_activation* act, float* restrict out,
                                    size_t oh, size_t K, size_t S) {
  static const float zeros[LV_W] = {0.0f};
  const dw_row_geometry g = dw_geometry(p, oh, K, K, S, S, 1, 1);
  const size_t C = g.C, cv = dw_vector_channels(C);
  size_t lo = (p->pad_left + S - 1) / S, hi = 0; /* interior columns, whatever the rows */
  if (p->in_w + p->pad_left >= K) hi = (p->in_w + p->pad_left - K) / S + 1;
  if (hi > g.out_w) hi = g.out_w;
  if (lo > hi) lo = hi;
  const int clamp = act == NULL || act->kind == LITE_ACT_RELU || act->kind == LITE_ACT_CLIP;
  const LV_T vlo = LV_SET1(act == NULL || !clamp ? -INFINITY : (act->kind == LITE_ACT_CLIP ? act->alpha : 0.0f));
  const LV_T vhi = LV_SET1(act != NULL && act->kind == LITE_ACT_CLIP ? act->beta : INFINITY);
  for (size_t c0 = 0; c0 < cv; c0 += (size_t)LV_W) {
    const size_t c = dw_vector_start(c0, C);
    const LV_T b = bias != NULL ? LV_LOAD(bias + c) : LV_SET1(0.0f);
    const float* row[5];
    size_t step[5];
    for (size_t kh = 0; kh < K; ++kh) {
      const ptrdiff_t ih = g.ih0 + (ptrdiff_t)kh;
      const int inside = ih >= 0 && ih < (ptrdiff_t)p->in_h;
      row[kh] = inside ? image + (size_t)ih * g.in_w * C + c : zeros;
      step[kh] = inside ? C : 0;
    }
    const int uniform = g.kh_lo == 0 && g.kh_hi == K;
    LV_T wv[25];
    for (size_t t = 0; t < K * K; ++t) wv[t] = LV_LOAD(w + t * C + c);
    if (LITE_DWCONV_EDGE_GROUP >= 4 && S == 1 && g.out_w <= 16) { /* a narrow row: all in checked groups */
      dw_square_edges(row, step, g.in_w, zeros, wv, b, vlo, vhi, out + c, C, 0, g.out_w, p->pad_left, K, S);
      if (!clamp)
        for (size_t o = 0; o < g.out_w; ++o) lv_store_activated(act, LV_LOAD(out + o * C + c), c, out + o * C + c);
      continue;
    }
    size_t ow = dw_square_edges(row, step, g.in_w, zeros, wv, b, vlo, vhi, out + c, C, 0, lo, p->pad_left, K, S);
    /* Rows all inside (every row but the first and last few): one pixel stride, whose multiples the
     * compiler keeps in registers; otherwise per-row strides (0 for the zero rows). */
    const size_t G = K == 3 ? 4 : 2;
    if (uniform)
      ow = dw_square_groups(C, row, step, 1, wv, b, vlo, vhi, out + c, C, ow, hi, p->pad_left, K, S, G);
    else
      ow = dw_square_groups(C, row, step, 0, wv, b, vlo, vhi, out + c, C, ow, hi, p->pad_left, K, S, G);
    if (LITE_DWCONV_EDGE_GROUP == 1) { /* the interior pixels after the last group, one at a time unchecked */
      if (uniform)
        ow = dw_square_groups(C, row, step, 1, wv, b, vlo, vhi, out + c, C, ow, hi, p->pad_left, K, S, 1);
      else
        ow = dw_square_groups(C, row, step, 0, wv, b, vlo, vhi, out + c, C, ow, hi, p->pad_left, K, S, 1);
    }
    /* the interior pixels after the last group (x86), then the right border */
    dw_square_edges(row, step, g.in_w, zeros, wv, b, vlo, vhi, out + c, C, ow, g.out_w, p->pad_left, K, S);
    if (!clamp)
      for (size_t o = 0; o < g.out_w; ++o) lv_store_activated(act, LV_LOAD(out + o * C + c), c, out + o * C + c);
  }
  for (size_t c = cv; c < C; ++c)
    for (size_t ow = 0; ow < g.out_w; ++ow) dw_pixel_checked_scalar(p, &g, image, w, bias, act, out, ow, c, K, S, 1, 1);
}

void LITE_DWCONV_ENTRY(const lite_conv2d_params* p, const float* input, const float* packed_weight, const float* bias,
                       const lite_activation* act, float* output, size_t row_begin, size_t row_end) {
  if (act != NULL && act->kind == LITE_ACT_NONE) act = NULL;
  const lite_activation* row_act = lv_defer_exp_activation(&act); /* run over each stored row */
  const size_t KH = p->kernel_h, KW = p->kernel_w, SH = p->stride_h, SW = p->stride_w;
  const size_t DH = p->dilation_h, DW = p->dilation_w;
  const int dil1 = DH == 1 && DW == 1;
  const int k3 = dil1 && KH == 3 && KW == 3, k5 = dil1 && KH == 5 && KW == 5;
  const int s1 = SH == 1 && SW == 1, s2 = SH == 2 && SW == 2;
  const size_t image_size = p->in_h * p->in_w * p->in_c, out_row_size = p->out_w * p->out_c;
  for (size_t r = row_begin; r < row_end; ++r) {
    const size_t n = r / p->out_h, oh = r % p->out_h;
    const float* image = input + n * image_size;
    float* out = output + r * out_row_size;
    if (k3 && s1)
      dw_square_row(p, image, packed_weight, bias, act, out, oh, 3, 1);
    else if (k3 && s2)
      dw_square_row(p, image, packed_weight, bias, act, out, oh, 3, 2);
    else if (k5 && s1)
      dw_square_row(p, image, packed_weight, bias, act, out, oh, 5, 1);
    else if (k5 && s2)
      dw_square_row(p, image, packed_weight, bias, act, out, oh, 5, 2);
    else
      dw_row(p, image, packed_weight, bias, act, out, oh, KH, KW, SH, SW, DH, DW);
    if (row_act != NULL) lite_f32_activate_copy(row_act, out, out, out_row_size);
  }
}
