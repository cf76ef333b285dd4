/* The depthwise convolution body, written once over a vector abstraction and instantiated per ISA
 * (f32_dwconv_nhwc_portable.c, x86/f32_dwconv_nhwc_avx2.c, ...). The including file defines the LV_*
 * macros (see f32_dwconv_winograd_vector_activation.h) and LITE_DWCONV_ENTRY, the public name.
 *
 * Per output row and per vector of channels: the weights of a 3x3 or 5x5 kernel are loaded once into
 * registers (hoisted) and reused over the whole row; interior pixels (all taps inside the image) run
 * the fully unrolled tap loop; border pixels clip the tap range instead of reading a padded copy.
 * Sums start at the bias and add taps in (kh, kw) order, the reference's order. Channels left over
 * after the last full vector take a scalar path. */
#include <stddef.h>

#include "f32_dwconv_winograd_vector_activation.h"
#include "lite_kernels/dwconv.h"

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

/* One output row. KH..DW are compile-time constants at the specialized call sites; `hoist` (also a
 * constant) keeps the KH*KW <= 25 weight vectors in registers across the row. */
DW_ALWAYS_INLINE void dw_row(const lite_conv2d_params* p, const float* restrict image, const float* restrict w,
                             const float* restrict bias, const lite_activation* act, float* restrict out, size_t oh,
                             size_t KH, size_t KW, size_t SH, size_t SW, size_t DH, size_t DW, int hoist) {
  const dw_row_geometry g = dw_geometry(p, oh, KH, KW, SH, SW, DH, DW);
  const size_t C = g.C, cv = C - C % (size_t)LV_W;
  for (size_t c = 0; c < cv; c += (size_t)LV_W) {
    const LV_T b = bias != NULL ? LV_LOAD(bias + c) : LV_SET1(0.0f);
    size_t ow = 0;
    for (; ow < g.ow_lo; ++ow) dw_pixel_checked_vec(p, &g, image, w, b, act, out, ow, c, KW, SW, DH, DW);
    if (g.ow_lo < g.ow_hi) {
      const float* in_row = image + (size_t)g.ih0 * g.in_w * C + c;
      if (hoist) {
        LV_T wv[25];
        for (size_t t = 0; t < KH * KW; ++t) wv[t] = LV_LOAD(w + t * C + c);
        /* Stride 1: four pixels at a time, four independent FMA chains hide the FMA latency (one
         * chain of KH*KW dependent FMAs per pixel would stall); each pixel's sum order is unchanged.
         * (Measured slower at stride 2, where the loads of the four pixels spread twice as far.) */
        for (; SW == 1 && ow + 4 <= g.ow_hi; ow += 4) {
          const float* in = in_row + (ow * SW - p->pad_left) * C;
          LV_T a0 = b, a1 = b, a2 = b, a3 = b;
          for (size_t kh = 0; kh < KH; ++kh)
            for (size_t kw = 0; kw < KW; ++kw) {
              const float* x = in + (kh * DH * g.in_w + kw * DW) * C;
              const LV_T wt = wv[kh * KW + kw];
              a0 = LV_FMA(a0, LV_LOAD(x), wt);
              a1 = LV_FMA(a1, LV_LOAD(x + SW * C), wt);
              a2 = LV_FMA(a2, LV_LOAD(x + 2 * SW * C), wt);
              a3 = LV_FMA(a3, LV_LOAD(x + 3 * SW * C), wt);
            }
          float* o = out + ow * C + c;
          lv_store_activated(act, a0, c, o);
          lv_store_activated(act, a1, c, o + C);
          lv_store_activated(act, a2, c, o + 2 * C);
          lv_store_activated(act, a3, c, o + 3 * C);
        }
        for (; ow < g.ow_hi; ++ow) {
          const float* in = in_row + (ow * SW - p->pad_left) * C;
          LV_T acc = b;
          for (size_t kh = 0; kh < KH; ++kh)
            for (size_t kw = 0; kw < KW; ++kw)
              acc = LV_FMA(acc, LV_LOAD(in + (kh * DH * g.in_w + kw * DW) * C), wv[kh * KW + kw]);
          lv_store_activated(act, acc, c, out + ow * C + c);
        }
      } else {
        for (; ow < g.ow_hi; ++ow) {
          const float* in = in_row + (ow * SW - p->pad_left) * C;
          LV_T acc = b;
          for (size_t kh = 0; kh < KH; ++kh)
            for (size_t kw = 0; kw < KW; ++kw)
              acc = LV_FMA(acc, LV_LOAD(in + (kh * DH * g.in_w + kw * DW) * C), LV_LOAD(w + (kh * KW + kw) * C + c));
          lv_store_activated(act, acc, c, out + ow * C + c);
        }
      }
    }
    for (; ow < g.out_w; ++ow) dw_pixel_checked_vec(p, &g, image, w, b, act, out, ow, c, KW, SW, DH, DW);
  }
  for (size_t c = cv; c < C; ++c)
    for (size_t ow = 0; ow < g.out_w; ++ow) dw_pixel_checked_scalar(p, &g, image, w, bias, act, out, ow, c, KW, SW, DH, DW);
}

void LITE_DWCONV_ENTRY(const lite_conv2d_params* p, const float* input, const float* packed_weight, const float* bias,
                       const lite_activation* act, float* output, size_t row_begin, size_t row_end) {
  if (act != NULL && act->kind == LITE_ACT_NONE) act = NULL;
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
      dw_row(p, image, packed_weight, bias, act, out, oh, 3, 3, 1, 1, 1, 1, 1);
    else if (k3 && s2)
      dw_row(p, image, packed_weight, bias, act, out, oh, 3, 3, 2, 2, 1, 1, 1);
    else if (k5 && s1)
      dw_row(p, image, packed_weight, bias, act, out, oh, 5, 5, 1, 1, 1, 1, 1);
    else if (k5 && s2)
      dw_row(p, image, packed_weight, bias, act, out, oh, 5, 5, 2, 2, 1, 1, 1);
    else
      dw_row(p, image, packed_weight, bias, act, out, oh, KH, KW, SH, SW, DH, DW, 0);
  }
}
