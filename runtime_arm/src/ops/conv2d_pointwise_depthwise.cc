// The 1x1 -> depthwise CONV_2D pair as one pass over row bands (see conv2d_pointwise_depthwise.h).
#include "conv2d_pointwise_depthwise.h"

#include <cstring>

#include "thread_pool.h"

namespace lite {
namespace {

// Larger intermediates do not survive in L2 (2 MiB per core on the x86 host, 0.5-1 MiB on ARM
// cores) from one op to the next.
constexpr size_t kL2Bytes = 1024 * 1024;
// The band buffer: small enough to stay in L2 beside the weights, large enough for GEMM calls of a
// few hundred pixels (MobileNetV2 112x112x96: 4 rows, 2 new rows of 112 pixels per output row).
constexpr size_t kBandBytes = 192 * 1024;

size_t window_rows(const lite_conv2d_params& p) { return (p.kernel_h - 1) * p.dilation_h + 1; }

}  // namespace

bool pointwise_depthwise_applies(const lite_conv2d_params& p, size_t intermediate_bytes) {
  if (intermediate_bytes <= kL2Bytes || p.out_h == 0 || p.in_h == 0) return false;
  const size_t window = window_rows(p);
  // the first and the last output row each read an image row
  return p.pad_top < window && (p.out_h - 1) * p.stride_h < p.in_h + p.pad_top;
}

size_t pointwise_depthwise_band_rows(const lite_conv2d_params& p) {
  const size_t row_bytes = p.in_w * p.in_c * sizeof(float);
  size_t rows = row_bytes > 0 ? kBandBytes / row_bytes : 1;
  const size_t window = window_rows(p), needed = (p.out_h - 1) * p.stride_h + window;
  if (rows < window) rows = window;
  return rows < needed ? rows : needed;
}

size_t pointwise_depthwise_scratch_bytes(const lite_conv2d_params& p, int num_threads) {
  return static_cast<size_t>(num_threads > 0 ? num_threads : 1) * pointwise_depthwise_band_rows(p) * p.in_w *
         p.in_c * sizeof(float);
}

// One task: output rows [o_begin, o_end) of image b, in chunks whose input rows fit the band. The
// rows a chunk shares with the previous one (window - stride of them) are moved to the front of the
// band, not computed again; only a task's first chunk computes its whole window.
void pointwise_depthwise_rows(const PointwiseStage& pw, const DepthwiseConv& dw, const lite_conv2d_params& p,
                              const float* bias, const lite_activation* act, float* y, float* band, size_t band_rows,
                              size_t b, size_t o_begin, size_t o_end) {
  const size_t W = p.in_w, C = p.in_c, K = pw.gemm->k, H = p.in_h, s = p.stride_h, window = window_rows(p);
  const size_t row_floats = W * C, chunk = (band_rows - window) / s + 1;
  const float* x = pw.x + b * H * W * K;
  size_t have_lo = 0, have_hi = 0;  // image rows [have_lo, have_hi) are band rows [0, have_hi - have_lo)
  for (size_t o0 = o_begin; o0 < o_end; o0 += chunk) {
    const size_t o1 = o_end - o0 < chunk ? o_end : o0 + chunk;
    const size_t lo = o0 * s > p.pad_top ? o0 * s - p.pad_top : 0;
    const size_t last = (o1 - 1) * s + window;  // one past the last row read, counted with the padding
    const size_t hi = last > p.pad_top + H ? H : last - p.pad_top;
    if (have_hi > lo && have_lo <= lo) {
      std::memmove(band, band + (lo - have_lo) * row_floats, (have_hi - lo) * row_floats * sizeof(float));
    } else {
      have_hi = lo;
    }
    have_lo = lo;
    if (hi > have_hi)
      lite_f32_gemm_packed_compute(pw.gemm->config, (hi - have_hi) * W, 0, pw.gemm->n, K, x + have_hi * W * K, K,
                                   pw.gemm->packed, pw.act, band + (have_hi - lo) * row_floats, C);
    have_hi = hi;
    lite_conv2d_params sub = p;
    sub.batch = 1;
    sub.in_h = hi - lo;
    sub.pad_top = p.pad_top + lo - o0 * s;
    sub.out_h = o1 - o0;
    dw.fn(&sub, band, dw.packed, bias, act, y + (b * p.out_h + o0) * p.out_w * C, 0, o1 - o0);
  }
}

void pointwise_depthwise_run(const PointwiseStage& pointwise, const DepthwiseConv& dw, const lite_conv2d_params& p,
                             ThreadPool* pool, const float* bias, const lite_activation* act, float* y,
                             void* scratch) {
  // One contiguous run of output rows per thread and image (each run computes its first window's
  // rows once more than a single run would): any split gives the same values.
  const size_t threads = pool != nullptr ? static_cast<size_t>(pool->num_threads()) : 1;
  const size_t parts = threads < p.out_h ? threads : p.out_h, band_rows = pointwise_depthwise_band_rows(p);
  float* bands = static_cast<float*>(scratch);
  parallel_for(pool, p.batch * parts, [&](size_t t, int worker) {
    const size_t b = t / parts, part = t % parts;
    pointwise_depthwise_rows(pointwise, dw, p, bias, act, y,
                             bands + static_cast<size_t>(worker) * band_rows * p.in_w * p.in_c, band_rows, b,
                             p.out_h * part / parts, p.out_h * (part + 1) / parts);
  });
}

}  // namespace lite
