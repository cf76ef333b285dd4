#include "conv_gemm_int8.h"

#include <cstdlib>
#include <cstring>
#include <new>

#include "lite_kernels/copy_short.h"
#include "lite_kernels/cpu_features.h"

namespace lite {

PackedGemmInt8* packed_gemm_int8_create(OpContext* ctx, size_t n, size_t k, const int8_t* w, size_t stride_k,
                                        size_t stride_n, const int32_t* bias, int32_t input_zero_point,
                                        const int32_t* multiplier, const int32_t* shift,
                                        const lite_qs8_gemm_params& params) {
  PackedGemmInt8* g = new (std::nothrow) PackedGemmInt8();
  if (g == nullptr) {
    fail(ctx, Status::kOutOfMemory, "cannot allocate the op state");
    return nullptr;
  }
  g->config = lite_qs8_gemm_config_select(lite_cpu_features(), n, k);
  g->n = n;
  g->k = k;
  g->params = params;
  const size_t bytes = lite_qs8_gemm_packed_size(g->config, n, k);
  g->packed = op_allocate(ctx, bytes, "the packed weight");
  if (g->packed == nullptr) {
    delete g;
    return nullptr;
  }
  g->config->pack(g->config, n, k, w, stride_k, stride_n, bias, input_zero_point, multiplier, shift, g->packed);
  return g;
}

void packed_gemm_int8_free(PackedGemmInt8* gemm) {
  if (gemm == nullptr) return;
  std::free(gemm->packed);
  delete gemm;
}

void packed_gemm_int8_run(const PackedGemmInt8& gemm, ThreadPool* pool, size_t m, const int8_t* a, size_t lda,
                          int8_t* c, size_t ldc) {
  const size_t mr = gemm.config->mr, nr = gemm.config->nr;
  // Tiles of about 64 rows x 128 columns: A rows stay in L1 across the panels of a tile.
  const size_t tile_m = mr * ((64 + mr - 1) / mr);
  const size_t tile_n = nr * ((128 + nr - 1) / nr);
  const size_t tiles_m = (m + tile_m - 1) / tile_m, tiles_n = (gemm.n + tile_n - 1) / tile_n;
  parallel_for(pool, tiles_m * tiles_n, [&](size_t t, int) {
    const size_t i0 = (t / tiles_n) * tile_m, j0 = (t % tiles_n) * tile_n;
    const size_t rows = m - i0 < tile_m ? m - i0 : tile_m;
    const size_t j1 = gemm.n - j0 < tile_n ? gemm.n : j0 + tile_n;
    lite_qs8_gemm_packed_compute(gemm.config, rows, j0, j1, gemm.k, a + i0 * lda, lda, gemm.packed, &gemm.params,
                                 c + i0 * ldc, ldc);
  });
}

size_t im2col_int8_tile_rows(size_t k, size_t mr) {
  const size_t cap = mr * ((64 + mr - 1) / mr);
  size_t rows = (32768 / (k > 0 ? k : 1)) / mr * mr;
  return rows < mr ? mr : (rows > cap ? cap : rows);
}

namespace {

// The short runs of a small-channel convolution (a 3x3 stem on 3 channels copies 9 bytes per kernel
// row, a 7x7 one 21) without a memcpy call each.
inline void copy_run(int8_t* dst, const int8_t* src, size_t n) {
  if (n >= 8 && n <= 32)
    lite_copy_8_to_32(dst, src, n);
  else
    std::memcpy(dst, src, n);
}

}  // namespace

namespace {

// The receptive fields of `count` output pixels of one row whose windows lie inside the image (dilation_w
// 1): per pixel kernel_h runs of n = kernel_w * in_c adjacent bytes, row_step apart. The per-pixel
// bounds checks and address arithmetic of im2col_int8_pixel cost more than a short run's copy (a grouped
// conv's 4 channels per group copy 12 bytes per kernel row).
void im2col_int8_inside_run(const int8_t* src, size_t pixel_step, size_t row_step, size_t kernel_h, size_t n,
                            size_t count, int8_t* out, size_t k) {
  const bool short_runs = n >= 8 && n <= 32;
  for (size_t i = 0; i < count; ++i, src += pixel_step, out += k) {
    const int8_t* s = src;
    int8_t* d = out;
    for (size_t kh = 0; kh < kernel_h; ++kh, s += row_step, d += n) {
      if (short_runs)
        lite_copy_8_to_32(d, s, n);
      else
        std::memcpy(d, s, n);
    }
  }
}

// The receptive field of output pixel (b, oh, ow) as one row of k bytes; taps in the padding are pad_value.
void im2col_int8_pixel(const lite_conv2d_params& p, const int8_t* x, int8_t pad_value, size_t b, size_t oh,
                       size_t ow, int8_t* row) {
  const size_t ci = p.in_c;
  const ptrdiff_t in_h = static_cast<ptrdiff_t>(p.in_h), in_w = static_cast<ptrdiff_t>(p.in_w);
  const ptrdiff_t iw0 = static_cast<ptrdiff_t>(ow * p.stride_w) - static_cast<ptrdiff_t>(p.pad_left);
  const bool row_inside = p.dilation_w == 1 && iw0 >= 0 && iw0 + static_cast<ptrdiff_t>(p.kernel_w) <= in_w;
  for (size_t kh = 0; kh < p.kernel_h; ++kh) {
    const ptrdiff_t ih = static_cast<ptrdiff_t>(oh * p.stride_h + kh * p.dilation_h) - static_cast<ptrdiff_t>(p.pad_top);
    int8_t* dst_row = row + kh * p.kernel_w * ci;
    if (ih < 0 || ih >= in_h) {
      std::memset(dst_row, pad_value, p.kernel_w * ci);
      continue;
    }
    const int8_t* src_row = x + (b * p.in_h + static_cast<size_t>(ih)) * p.in_w * ci;
    if (row_inside) {  // the kernel_w taps are adjacent NHWC pixels: one copy
      copy_run(dst_row, src_row + static_cast<size_t>(iw0) * ci, p.kernel_w * ci);
      continue;
    }
    for (size_t kw = 0; kw < p.kernel_w; ++kw) {
      const ptrdiff_t iw = iw0 + static_cast<ptrdiff_t>(kw * p.dilation_w);
      if (iw < 0 || iw >= in_w)
        std::memset(dst_row + kw * ci, pad_value, ci);
      else
        copy_run(dst_row + kw * ci, src_row + static_cast<size_t>(iw) * ci, ci);
    }
  }
}

}  // namespace

void im2col_int8_rows(const lite_conv2d_params& p, const int8_t* x, int8_t pad_value, size_t first, size_t rows,
                      int8_t* out) {
  const size_t ci = p.in_c, k = p.kernel_h * p.kernel_w * ci;
  // Output columns [ow_lo, ow_hi) have every horizontal tap inside the image (dilation_w 1 only).
  size_t ow_lo = 0, ow_hi = 0;
  if (p.dilation_w == 1 && p.in_w + p.pad_left >= p.kernel_w) {
    ow_lo = (p.pad_left + p.stride_w - 1) / p.stride_w;
    ow_hi = (p.in_w + p.pad_left - p.kernel_w) / p.stride_w + 1;
    if (ow_hi > p.out_w) ow_hi = p.out_w;
  }
  const size_t span_h = (p.kernel_h - 1) * p.dilation_h + 1;
  // (b, oh, ow) of pixel `first`, then stepped: no divisions per pixel
  size_t ow = first % p.out_w, oh = (first / p.out_w) % p.out_h, b = first / (p.out_w * p.out_h);
  for (size_t r = 0; r < rows;) {
    const ptrdiff_t ih0 = static_cast<ptrdiff_t>(oh * p.stride_h) - static_cast<ptrdiff_t>(p.pad_top);
    size_t count = 1;
    if (ow >= ow_lo && ow < ow_hi && ih0 >= 0 && static_cast<size_t>(ih0) + span_h <= p.in_h) {
      count = ow_hi - ow < rows - r ? ow_hi - ow : rows - r;
      const int8_t* src = x + ((b * p.in_h + static_cast<size_t>(ih0)) * p.in_w + (ow * p.stride_w - p.pad_left)) * ci;
      im2col_int8_inside_run(src, p.stride_w * ci, p.dilation_h * p.in_w * ci, p.kernel_h, p.kernel_w * ci, count,
                             out + r * k, k);
    } else {
      im2col_int8_pixel(p, x, pad_value, b, oh, ow, out + r * k);
    }
    r += count;
    ow += count;
    if (ow == p.out_w) {
      ow = 0;
      if (++oh == p.out_h) {
        oh = 0;
        ++b;
      }
    }
  }
}

}  // namespace lite
