/* Nearest-neighbour resize: each output pixel copies one whole input pixel (all channels), so the
 * kernel is dtype generic. */
#include <math.h>
#include <string.h>

#include "lite_kernels/copy_short.h"
#include "lite_kernels/resize.h"

static size_t nearest_index(const lite_resize_params* p, size_t out_index, double scale, size_t in_len,
                            size_t out_len) {
  double x = lite_resize_source_coordinate(p->coordinate_mode, out_index, scale, in_len, out_len);
  /* Rounding decides at integers (floor, ceil) and halves (round): a coordinate that is one of
   * those in exact arithmetic but lands an ulp away (scales like 0.6f or 5/3 are inexact) is
   * snapped to it, so the result is the exact-arithmetic one rather than an accident of the
   * floating-point evaluation order. */
  const double half_steps = x * 2.0, snapped = floor(half_steps + 0.5);
  if (fabs(half_steps - snapped) <= 1e-6 * (fabs(half_steps) > 1.0 ? fabs(half_steps) : 1.0)) x = snapped / 2.0;
  const double lower = floor(x);
  double picked;
  switch (p->nearest_mode) {
    case LITE_RESIZE_FLOOR: picked = lower; break;
    case LITE_RESIZE_CEIL: picked = ceil(x); break;
    case LITE_RESIZE_ROUND_PREFER_CEIL: picked = x - lower >= 0.5 ? lower + 1.0 : lower; break;
    case LITE_RESIZE_ROUND_PREFER_FLOOR:
    default: picked = x - lower > 0.5 ? lower + 1.0 : lower; break;
  }
  if (!(picked >= 0.0)) return 0; /* also NaN: the (size_t) conversion below must see a value in range */
  if (picked > (double)(in_len - 1)) return in_len - 1;
  return (size_t)picked;
}

/* Output pixels [0, count) of one row, whose source columns are columns[0..count). Short pixels
 * are copied one by one with fixed-size copies; a run of longer pixels repeating one source pixel
 * (upsampling) is written by copying the pixel once and then doubling the written part, so an 8x
 * upsample makes 4 copies instead of 8. */
static void fill_row_block(const unsigned char* row, const size_t* columns, size_t count, size_t pixel_bytes,
                           unsigned char* out) {
  if (pixel_bytes >= 8 && pixel_bytes <= 32) {
    for (size_t ow = 0; ow < count; ++ow)
      lite_copy_8_to_32(out + ow * pixel_bytes, row + columns[ow] * pixel_bytes, pixel_bytes);
    return;
  }
  for (size_t ow = 0; ow < count;) {
    size_t end = ow + 1;
    while (end < count && columns[end] == columns[ow]) ++end;
    unsigned char* dst = out + ow * pixel_bytes;
    memcpy(dst, row + columns[ow] * pixel_bytes, pixel_bytes);
    for (size_t filled = 1, run = end - ow; filled < run;) {
      const size_t chunk = filled < run - filled ? filled : run - filled;
      memcpy(dst + filled * pixel_bytes, dst, chunk * pixel_bytes);
      filled += chunk;
    }
    ow = end;
  }
}

/* Source columns are computed once per block of this many output columns (not per output row). */
#define COLUMN_BLOCK 256

void lite_resize_nearest_nhwc_rows(const lite_resize_params* p, size_t element_size, const void* input, void* output,
                                   size_t row_begin, size_t row_end) {
  const size_t pixel_bytes = p->channels * element_size, out_row_bytes = p->out_w * pixel_bytes;
  const unsigned char* in = (const unsigned char*)input;
  unsigned char* out = (unsigned char*)output;
  size_t columns[COLUMN_BLOCK];
  for (size_t block = 0; block < p->out_w; block += COLUMN_BLOCK) {
    const size_t count = p->out_w - block < COLUMN_BLOCK ? p->out_w - block : COLUMN_BLOCK;
    for (size_t i = 0; i < count; ++i) columns[i] = nearest_index(p, block + i, p->scale_w, p->in_w, p->out_w);
    size_t previous_ih = 0; /* the source row of output row `row - 1` */
    for (size_t row = row_begin; row < row_end; ++row) { /* row = image * out_h + oh */
      const size_t n = row / p->out_h, oh = row % p->out_h;
      const size_t ih = nearest_index(p, oh, p->scale_h, p->in_h, p->out_h);
      unsigned char* out_block = out + row * out_row_bytes + block * pixel_bytes;
      const int same_source = row > row_begin && oh > 0 && ih == previous_ih;
      previous_ih = ih;
      if (same_source) { /* upsampling: the previous output row again */
        memcpy(out_block, out_block - out_row_bytes, count * pixel_bytes);
        continue;
      }
      fill_row_block(in + (n * p->in_h + ih) * p->in_w * pixel_bytes, columns, count, pixel_bytes, out_block);
    }
  }
}

void lite_resize_nearest_nhwc_ref(const lite_resize_params* p, size_t element_size, const void* input,
                                  void* output) {
  lite_resize_nearest_nhwc_rows(p, element_size, input, output, 0, p->batch * p->out_h);
}
