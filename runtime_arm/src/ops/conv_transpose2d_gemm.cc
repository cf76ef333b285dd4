#include "conv_transpose2d_gemm.h"

#include <cstdlib>
#include <cstring>
#include <new>

#include "lite_kernels/f32_vactivation.h"
#include "packed_gemm.h"
#include "thread_pool.h"

namespace lite {
namespace {

// Floats of one input row's GEMM result [W, KW*Co]; larger rows (hostile shapes) use the reference.
constexpr size_t kMaxRowFloats = size_t{1} << 24;

bool is_non_overlapping(const lite_conv_transpose2d_params& p) {
  return p.kernel_h == p.stride_h && p.kernel_w == p.stride_w && p.dilation_h == 1 && p.dilation_w == 1 &&
         p.pad_left == 0 && p.in_w * p.stride_w <= p.out_w;
}

// Output row [OW, Co] that no input row reaches: bias (or zeros) and the activation.
void fill_bias_row(const lite_conv_transpose2d_params& p, const float* bias, const lite_activation* act, float* row,
                   size_t pixels) {
  for (size_t i = 0; i < pixels; ++i) {
    if (bias != nullptr)
      std::memcpy(row + i * p.out_c, bias, p.out_c * sizeof(float));
    else
      std::memset(row + i * p.out_c, 0, p.out_c * sizeof(float));
  }
  lite_f32_activate(act, row, pixels, p.out_c);
}

// Activations the GEMM microkernels apply in registers; the others run vectorized on the row after.
bool gemm_epilogue_applies(const lite_activation* act) {
  return act == nullptr || act->kind == LITE_ACT_NONE || act->kind == LITE_ACT_RELU || act->kind == LITE_ACT_CLIP ||
         act->kind == LITE_ACT_HARD_SWISH;
}

// Non-overlapping form: output row oh comes from at most one input row and one kernel row.
void run_output_row_direct(const ConvTransposeGemm& g, const lite_conv_transpose2d_params& p, const float* x,
                           const lite_activation* act, size_t n, size_t oh, float* y_row) {
  const size_t padded = oh + p.pad_top, ih = padded / p.stride_h, kh = padded % p.stride_h;
  size_t written = 0;  // output pixels of this row already computed
  if (ih < p.in_h) {
    const PackedGemm& slice = *g.slices[kh];
    const bool fused = gemm_epilogue_applies(act);
    lite_f32_gemm_packed_compute(slice.config, p.in_w, 0, slice.n, slice.k, x + (n * p.in_h + ih) * p.in_w * p.in_c,
                                 p.in_c, slice.packed, fused ? act : nullptr, y_row, slice.n);
    written = p.in_w * p.stride_w;
    if (!fused) lite_f32_activate(act, y_row, written, p.out_c);
  }
  // Pixels past the last input column (output_padding) and rows past the last input row.
  // The bias of the slices is [kw][co]; its first Co values are the op's bias.
  if (written < p.out_w) {
    const float* bias = g.bias;
    fill_bias_row(p, bias, act, y_row + written * p.out_c, p.out_w - written);
  }
}

// General form: every kernel row kh whose input row exists adds its GEMM result into the row.
void run_output_row_accumulate(const ConvTransposeGemm& g, const lite_conv_transpose2d_params& p, const float* x,
                               const lite_activation* act, size_t n, size_t oh, float* y_row, float* cols) {
  fill_bias_row(p, g.bias, nullptr, y_row, p.out_w);
  const size_t padded = oh + p.pad_top, co = p.out_c;
  for (size_t kh = 0; kh < p.kernel_h; ++kh) {
    const size_t reach = kh * p.dilation_h;
    if (reach > padded || (padded - reach) % p.stride_h != 0) continue;
    const size_t ih = (padded - reach) / p.stride_h;
    if (ih >= p.in_h) continue;
    const PackedGemm& slice = *g.slices[kh];
    lite_f32_gemm_packed_compute(slice.config, p.in_w, 0, slice.n, slice.k, x + (n * p.in_h + ih) * p.in_w * p.in_c,
                                 p.in_c, slice.packed, nullptr, cols, slice.n);
    for (size_t iw = 0; iw < p.in_w; ++iw) {
      for (size_t kw = 0; kw < p.kernel_w; ++kw) {
        const size_t ow_padded = iw * p.stride_w + kw * p.dilation_w;
        if (ow_padded < p.pad_left || ow_padded - p.pad_left >= p.out_w) continue;
        float* out = y_row + (ow_padded - p.pad_left) * co;
        const float* add = cols + (iw * p.kernel_w + kw) * co;
        for (size_t c = 0; c < co; ++c) out[c] += add[c];
      }
    }
  }
  lite_f32_activate(act, y_row, p.out_w, co);
}

}  // namespace

bool conv_transpose_gemm_applies(const lite_conv_transpose2d_params& p) {
  if (p.groups != 1 || p.in_c == 0 || p.out_c == 0 || p.in_w == 0) return false;
  size_t row = 0;
  if (__builtin_mul_overflow(p.in_w, p.kernel_w, &row) || __builtin_mul_overflow(row, p.out_c, &row)) return false;
  return row <= kMaxRowFloats;
}

ConvTransposeGemm* conv_transpose_gemm_create(OpContext* ctx, const lite_conv_transpose2d_params& p,
                                              const float* weight, const float* bias) {
  ConvTransposeGemm* g = new (std::nothrow) ConvTransposeGemm();
  if (g == nullptr) {
    fail(ctx, Status::kOutOfMemory, "cannot allocate the op state");
    return nullptr;
  }
  g->non_overlapping = is_non_overlapping(p);
  const size_t co = p.out_c, slice_n = p.kernel_w * co, k_stride = p.kernel_h * slice_n;
  if (bias != nullptr) {
    g->bias = static_cast<float*>(op_allocate(ctx, slice_n * sizeof(float), "the per-column bias"));
    if (g->bias == nullptr) {
      conv_transpose_gemm_free(g);
      return nullptr;
    }
    for (size_t j = 0; j < slice_n; ++j) g->bias[j] = bias[j % co];  // [kw][co]: the bias per kw
  }
  g->slices = static_cast<PackedGemm**>(op_allocate(ctx, p.kernel_h * sizeof(PackedGemm*), "the weight slices"));
  if (g->slices == nullptr) {
    conv_transpose_gemm_free(g);
    return nullptr;
  }
  for (size_t kh = 0; kh < p.kernel_h; ++kh) g->slices[kh] = nullptr;
  g->num_slices = p.kernel_h;
  for (size_t kh = 0; kh < p.kernel_h; ++kh) {
    // B[ci, (kw, co)] = weight[((ci * KH + kh) * KW + kw) * Co + co].
    g->slices[kh] = packed_gemm_create(ctx, slice_n, p.in_c, weight + kh * slice_n, k_stride, 1,
                                       g->non_overlapping ? g->bias : nullptr);
    if (g->slices[kh] == nullptr) {
      conv_transpose_gemm_free(g);
      return nullptr;
    }
  }
  return g;
}

void conv_transpose_gemm_free(ConvTransposeGemm* g) {
  if (g == nullptr) return;
  for (size_t i = 0; i < g->num_slices; ++i) packed_gemm_free(g->slices[i]);
  std::free(g->slices);
  std::free(g->bias);
  delete g;
}

size_t conv_transpose_gemm_scratch_bytes(const ConvTransposeGemm& g, const lite_conv_transpose2d_params& p,
                                         int num_threads) {
  if (g.non_overlapping) return 0;
  return static_cast<size_t>(num_threads > 0 ? num_threads : 1) * p.in_w * p.kernel_w * p.out_c * sizeof(float);
}

void conv_transpose_gemm_run(const ConvTransposeGemm& g, const lite_conv_transpose2d_params& p, ThreadPool* pool,
                             const float* x, const lite_activation* act, float* y, void* scratch) {
  const size_t rows = p.batch * p.out_h, row_floats = p.out_w * p.out_c;
  const size_t cols_floats = p.in_w * p.kernel_w * p.out_c;
  const lite_activation* a = act != nullptr && act->kind != LITE_ACT_NONE ? act : nullptr;
  parallel_for(pool, rows, [&](size_t r, int worker) {
    const size_t n = r / p.out_h, oh = r % p.out_h;
    float* y_row = y + r * row_floats;
    if (g.non_overlapping) {
      run_output_row_direct(g, p, x, a, n, oh, y_row);
    } else {
      float* cols = static_cast<float*>(scratch) + static_cast<size_t>(worker) * cols_floats;
      run_output_row_accumulate(g, p, x, a, n, oh, y_row, cols);
    }
  });
}

}  // namespace lite
