/* 3x3 depthwise convolution rows, stride 1 or 2, aarch64 NEON with FMA (NHWC, 4 channels per vector).
 *
 * Why a separate body from the shared one (portable/f32_dwconv_nhwc_body.h): MobileNetV2's depthwise
 * layers ran at ~3 instructions per FMA there. Here, per vector of channels, the 9 weights, the bias
 * and the clamp bounds stay in registers across the row, and several output rows run together when
 * they are clear of the top/bottom padding (3 at stride 1, 2 at stride 2): an input row loaded once
 * feeds every output row it is a kernel row of (stride 1: 4 pixels x 3 rows = 108 FMAs from 30
 * loads, against 36 from 18 for one row). Each block of rows is one generated assembly block per
 * vector of channels (f32_dwconv_3x3_rows_aarch64_neonfma.h): edge pixels, groups of 4 interior
 * pixels, leftover pixels. Rows touching the top or bottom padding read a row of zeros in place of
 * each padded row (as the shared body does), so they run in the same blocks; the one padded column
 * at each end is a pixel with its outside taps left out, so no loop has a bounds check.
 *
 * Summation order: every output is bias, then taps in (kh, kw) order (padded rows adding exact zero
 * products, padded columns skipped), whichever block (3, 2 or 1 rows, group of 4 or 1 pixel)
 * computes it, so splitting rows over threads gives bit-identical results. The activation clamp
 * (None / Relu / Clip) is fused; layers with other activations are left to the shared body. */
#include "f32_dwconv_3x3_aarch64_neonfma.h"

#include <math.h>

#include "f32_dwconv_3x3_rows_aarch64_neonfma.h"

#define DW3_INLINE static inline __attribute__((always_inline))

enum { DW3_GROUP = 4 }; /* interior pixels per step of the assembly loops */

/* Per-layer geometry of a row. */
typedef struct {
  size_t C, in_stride, out_stride; /* floats per pixel, input row, output row */
  size_t pad_left;                 /* 0 or 1: pixel 0 is a left edge when 1 */
  size_t interior_end;             /* pixels [pad_left, interior_end) have all 3 columns inside */
  int right_edge;                  /* pixel interior_end is the last and misses its third column */
} dw3_geometry;

/* Input rows above or below the image read these zeros (pixel stride C like a real row), so a row
 * touching the padding runs the same code as the interior; 64 KB of .bss, no file size. */
enum { DW3_ZERO_FLOATS = 16384 };
static float dw3_zero_row[DW3_ZERO_FLOATS];
static const float dw3_zero_bias[4] = {0.0f, 0.0f, 0.0f, 0.0f};

/* R output rows (S, R constants) over all channels, one assembly block per vector of channels.
 * rows: the (R - 1) * S + 3 input rows at channel 0, column 0; y0: output row 0 at channel 0. */
DW3_INLINE void dw3_rows(const size_t R, const size_t S, const float* const* rows, float* y0, const dw3_geometry* g,
                         const float* w, const float* bias, const float* minmax) {
  const size_t rows_in = (R - 1) * S + 3, ncols = (DW3_GROUP - 1) * S + 3;
  size_t off[(DW3_GROUP - 1) * 2 + 3];
  for (size_t j = 0; j < ncols; ++j) off[j] = j * g->C * sizeof(float);
  const size_t interior = g->interior_end - g->pad_left, groups = interior / DW3_GROUP;
  /* leftover pixels in bits 0-1, the left / right edge flags in bits 8 / 9 */
  const size_t tails = interior % DW3_GROUP | g->pad_left << 8 | (size_t)g->right_edge << 9;
  for (size_t c = 0; c < g->C; c += 4) {
    const float* x[5];
    float* y[3];
    for (size_t i = 0; i < rows_in; ++i) x[i] = rows[i] + c;
    for (size_t r = 0; r < R; ++r) y[r] = y0 + r * g->out_stride + c;
    const float* b = bias != NULL ? bias + c : dw3_zero_bias;
    if (S == 1 && R == 3) dw3_row_s1_r3(x, y, off, w + c, b, minmax, groups, tails);
    if (S == 1 && R == 2) dw3_row_s1_r2(x, y, off, w + c, b, minmax, groups, tails);
    if (S == 1 && R == 1) dw3_row_s1_r1(x, y, off, w + c, b, minmax, groups, tails);
    if (S == 2 && R == 2) dw3_row_s2_r2(x, y, off, w + c, b, minmax, groups, tails);
    if (S == 2 && R == 1) dw3_row_s2_r1(x, y, off, w + c, b, minmax, groups, tails);
  }
}

/* The right edge: the last pixel may miss its third column (one padded column), never more. */
static int dw3_right_edge(const lite_conv2d_params* p, size_t* interior_end) {
  const size_t S = p->stride_w, last = p->out_w - 1;
  const ptrdiff_t last_col = (ptrdiff_t)(last * S) - (ptrdiff_t)p->pad_left + 2; /* its third column */
  *interior_end = p->out_w;
  if (last_col < (ptrdiff_t)p->in_w) return 0;
  *interior_end = last;
  return 1;
}

int lite_f32_dwconv_3x3_aarch64_applies(const lite_conv2d_params* p, const lite_activation* act) {
  if (act != NULL && act->kind != LITE_ACT_RELU && act->kind != LITE_ACT_CLIP) return 0;
  if (p->kernel_h != 3 || p->kernel_w != 3 || p->dilation_h != 1 || p->dilation_w != 1) return 0;
  if (p->stride_h != p->stride_w || (p->stride_w != 1 && p->stride_w != 2)) return 0;
  if (p->in_c % 4 != 0 || p->pad_left > 1 || p->out_w == 0) return 0;
  const ptrdiff_t last_col = (ptrdiff_t)((p->out_w - 1) * p->stride_w) - (ptrdiff_t)p->pad_left + 2;
  if (last_col > (ptrdiff_t)p->in_w) return 0; /* two padded columns on the right */
  size_t interior_end;
  const int right_edge = dw3_right_edge(p, &interior_end);
  /* a single pixel missing columns on both sides has no body here */
  return !(right_edge && p->pad_left == 1 && interior_end == 0);
}

/* Whether every input row of output row oh is inside the image. */
static int dw3_row_inside(const lite_conv2d_params* p, size_t oh) {
  const size_t top = oh * p->stride_h;
  return top >= p->pad_top && top - p->pad_top + 3 <= p->in_h;
}

/* Rows from `row` for stride S (a constant); see lite_f32_dwconv_3x3_aarch64_rows. */
DW3_INLINE size_t dw3_rows_stride(const size_t S, const lite_conv2d_params* p, const float* input, const float* w,
                                  const float* bias, float* output, size_t row, size_t row_end,
                                  const float* minmax) {
  dw3_geometry g;
  g.C = p->in_c;
  g.in_stride = p->in_w * p->in_c;
  g.out_stride = p->out_w * p->out_c;
  g.pad_left = p->pad_left;
  g.right_edge = dw3_right_edge(p, &g.interior_end);
  const size_t n = row / p->out_h, oh = row % p->out_h;
  const float* image = input + n * p->in_h * g.in_stride;
  float* y = output + row * g.out_stride;
  const ptrdiff_t ih0 = (ptrdiff_t)(oh * S) - (ptrdiff_t)p->pad_top;
  /* as many rows as the registers allow (3 at stride 1, 2 at stride 2), within the image and the range */
  size_t R = S == 1 ? 3 : 2;
  if (R > p->out_h - oh) R = p->out_h - oh;
  if (R > row_end - row) R = row_end - row;
  if (g.in_stride > DW3_ZERO_FLOATS) { /* no zero row that wide: only rows clear of the padding */
    if (!dw3_row_inside(p, oh)) return 0;
    while (!dw3_row_inside(p, oh + R - 1)) --R;
  }
  const float* rows[5];
  for (size_t i = 0; i < (R - 1) * S + 3; ++i) {
    const ptrdiff_t ih = ih0 + (ptrdiff_t)i;
    rows[i] = ih >= 0 && ih < (ptrdiff_t)p->in_h ? image + (size_t)ih * g.in_stride : dw3_zero_row;
  }
  if (S == 1 && R == 3)
    dw3_rows(3, S, rows, y, &g, w, bias, minmax);
  else if (R == 2)
    dw3_rows(2, S, rows, y, &g, w, bias, minmax);
  else
    dw3_rows(1, S, rows, y, &g, w, bias, minmax);
  return R;
}

size_t lite_f32_dwconv_3x3_aarch64_rows(const lite_conv2d_params* p, const float* input, const float* packed_weight,
                                        const float* bias, const lite_activation* act, float* output, size_t row,
                                        size_t row_end) {
  const float minmax[2] = {act == NULL ? -INFINITY : (act->kind == LITE_ACT_CLIP ? act->alpha : 0.0f),
                           act != NULL && act->kind == LITE_ACT_CLIP ? act->beta : INFINITY};
  return p->stride_w == 1 ? dw3_rows_stride(1, p, input, packed_weight, bias, output, row, row_end, minmax)
                          : dw3_rows_stride(2, p, input, packed_weight, bias, output, row, row_end, minmax);
}
