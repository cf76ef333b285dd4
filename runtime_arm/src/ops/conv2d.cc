// CONV_2D: x [N,H,W,Ci], weight [Co,KH,KW,Ci/group], bias? [Co], prelu_slope? [Co] -> [N,OH,OW,Co].
// choose_algorithm picks the GEMM paths (packed weights kept as the op's state; grouped convolutions one
// GEMM per group, conv2d_grouped.h) or the reference kernel (computed weights: packed into scratch at
// every eval).
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <new>

#include "conv2d_depthwise.h"
#include "conv2d_grouped.h"
#include "conv2d_pointwise_depthwise.h"
#include "conv2d_winograd.h"
#include "fused_activation_check.h"
#include "lite_kernels/conv2d.h"
#include "op_api.h"
#include "op_util.h"
#include "packed_gemm.h"
#include "thread_pool.h"
#include "window_geometry.h"

namespace lite {
namespace {

using ConvAttrs = ConvWindowAttrs;

ConvAttrs read_attrs(const OpContext* ctx) { return read_conv_window_attrs(ctx->op->options_as_Conv2DOptions()); }

// Fills the kernel parameters from the shapes and options; fails with a message when they do not fit.
Status conv_params(OpContext* ctx, lite_conv2d_params* p) {
  const TensorRef* x = ctx->input(0);
  const TensorRef* w = ctx->input(1);
  if (x == nullptr || w == nullptr) return fail(ctx, Status::kInvalidModel, "needs inputs x and weight");
  if (x->dtype != lite_fb::DType::FLOAT32 || w->dtype != lite_fb::DType::FLOAT32)
    return fail(ctx, Status::kUnsupported, "supports float32 x and weight, got %s and %s", dtype_name(x->dtype),
                dtype_name(w->dtype));
  if (x->shape.rank != 4 || w->shape.rank != 4)
    return fail(ctx, Status::kShapeError, "x must be [N,H,W,C] and weight [Co,KH,KW,Ci/group], got ranks %d and %d",
                x->shape.rank, w->shape.rank);
  const ConvAttrs a = read_attrs(ctx);
  Status s = check_conv_window_attrs(ctx, a);
  if (s != Status::kOk) return s;
  if (w->shape.dims[1] < 1 || w->shape.dims[2] < 1)
    return fail(ctx, Status::kShapeError, "weight kernel %lldx%lld must be at least 1x1",
                static_cast<long long>(w->shape.dims[1]), static_cast<long long>(w->shape.dims[2]));
  const int64_t ci = x->shape.dims[3], co = w->shape.dims[0];
  if (ci % a.group != 0 || co % a.group != 0)
    return fail(ctx, Status::kShapeError, "input channels %lld and output channels %lld must be multiples of group %lld",
                static_cast<long long>(ci), static_cast<long long>(co), static_cast<long long>(a.group));
  if (w->shape.dims[3] != ci / a.group)
    return fail(ctx, Status::kShapeError, "weight has %lld input channels per group, x has %lld / group %lld",
                static_cast<long long>(w->shape.dims[3]), static_cast<long long>(ci), static_cast<long long>(a.group));
  const TensorRef* bias = ctx->input(2);
  if (bias != nullptr && (bias->dtype != lite_fb::DType::FLOAT32 || bias->shape.num_elements() != co))
    return fail(ctx, Status::kShapeError, "bias must be float32 with %lld values", static_cast<long long>(co));
  s = check_fused_activation(ctx, a.activation, 3, co);
  if (s != Status::kOk) return s;

  Window2D win = conv_window(a, w->shape.dims[1], w->shape.dims[2]);
  if (!slide_window(a.padding, false, x->shape, a.pad_top, a.pad_left, a.pad_bottom, a.pad_right, &win))
    return fail(ctx, Status::kShapeError, "kernel %lldx%lld (dilated) does not fit the padded input %lldx%lld",
                static_cast<long long>(w->shape.dims[1]), static_cast<long long>(w->shape.dims[2]),
                static_cast<long long>(x->shape.dims[1]), static_cast<long long>(x->shape.dims[2]));
  // Pads up to 2^31 make an output the core would refuse; refused here already, before the
  // algorithm choice computes with its size (the Winograd cost rule converts it to size_t).
  Shape out;
  out.rank = 4;
  out.dims[0] = x->shape.dims[0];
  out.dims[1] = win.h.out;
  out.dims[2] = win.w.out;
  out.dims[3] = co;
  if (!shape_within_limits(out))
    return fail(ctx, Status::kShapeError, "output %lldx%lld with %lld channels is too large (pads %lld,%lld,%lld,%lld)",
                static_cast<long long>(win.h.out), static_cast<long long>(win.w.out), static_cast<long long>(co),
                static_cast<long long>(a.pad_top), static_cast<long long>(a.pad_left),
                static_cast<long long>(a.pad_bottom), static_cast<long long>(a.pad_right));
  fill_conv_params(x->shape, co, a.group, win, p);
  return Status::kOk;
}

// How a convolution runs. choose_algorithm is the one place that decides: a new algorithm
// (depthwise, winograd) adds a value here, a condition there and a case in eval.
enum class ConvAlgorithm {
  kReference,   // lite_f32_conv2d_nhwc_ref: any conv (computed weights); the oracle
  kGemm1x1,     // 1x1, stride 1, no padding: the NHWC input is the GEMM's A as it is
  kIm2colGemm,  // groups == 1: im2col of a block of output pixels into per-thread scratch + GEMM
  kDepthwise,   // groups == in_c == out_c: lite_f32_dwconv (conv2d_depthwise.cc)
  kWinograd,    // 3x3 s1/s2 d1 groups 1 where a cost rule picks F(m,3) or F(7,2) (conv2d_winograd.cc)
  kGrouped,     // groups > 1, not depthwise: one GEMM per group (conv2d_grouped.h)
};

// *winograd_m / *winograd_keep: kWinograd's tile size and whether it keeps its transformed weight
// (offered to the model's budget here, so called once per prepare). Without it, F(m,3) transforms
// at run time; F(7,2), whose transform has no run-time form, becomes im2col + GEMM.
ConvAlgorithm choose_algorithm(OpContext* ctx, const lite_conv2d_params& p, bool weight_and_bias_constant,
                               int* winograd_m, bool* winograd_keep) {
  if (weight_and_bias_constant && depthwise_conv_applies(p)) return ConvAlgorithm::kDepthwise;
  if (!weight_and_bias_constant) return ConvAlgorithm::kReference;
  if (p.groups != 1) return ConvAlgorithm::kGrouped;
  if (p.kernel_h == 1 && p.kernel_w == 1 && p.stride_h == 1 && p.stride_w == 1 && p.pad_top == 0 &&
      p.pad_left == 0 && p.out_h == p.in_h && p.out_w == p.in_w)
    return ConvAlgorithm::kGemm1x1;
  *winograd_m = winograd_conv_choose(p);
  if (*winograd_m != 0) {
    *winograd_keep = winograd_conv_keeps_transformed(ctx, p, winograd_m);
    if (*winograd_keep || *winograd_m != 7) return ConvAlgorithm::kWinograd;
  }
  return ConvAlgorithm::kIm2colGemm;
}

// Packed weights above this stay out of L2 (2 MiB on the x86 host, 0.5-1 MiB on ARM cores) between
// GEMM calls: the per-task im2col scheme, whose GEMMs cover a few pixels each and all columns,
// would stream the whole weight from L3 or memory once per task. ResNet-18's 3x3 512 -> 512 on a
// 7x7 map (9.4 MB of weight, 8-pixel tasks) read it 7 times: 3.9 ms against 1.5 ms for one pass.
constexpr size_t kL2WeightBytes = 512 * 1024;

// Pixels per block of im2col_block_gemm: about 1 MiB of im2col (kept in L2 while the GEMM streams
// each weight panel once over it), whole microkernel heights, at least 4 of them, at most the image.
size_t im2col_block_rows(size_t k, size_t mr, size_t pixels) {
  size_t rows = (262144 / (k > 0 ? k : 1)) / mr * mr;
  if (rows < 4 * mr) rows = 4 * mr;
  const size_t all = (pixels + mr - 1) / mr * mr;
  return rows < all ? rows : (all > 0 ? all : mr);
}

struct ConvState {
  ConvAlgorithm algorithm = ConvAlgorithm::kReference;
  float* ref_packed = nullptr;  // kReference with a constant weight: [kh, kw, ci, co]
  PackedGemm* gemm = nullptr;   // GEMM algorithms: B = weight as [kh*kw*ci, co] + bias
  size_t im2col_rows = 0;       // kIm2colGemm: output pixels per tile (per-thread scratch rows)
  bool im2col_blocked = false;  // kIm2colGemm with a weight larger than L2: im2col_block_gemm
  DepthwiseConv* depthwise = nullptr;  // kDepthwise: weight packed as [kh*kw, c]
  WinogradConv* winograd = nullptr;    // kWinograd: transformed + packed weight
  GroupedConv* grouped = nullptr;      // kGrouped: each group's packed weight
  // kDepthwise that absorbed the 1x1 CONV_2D computing its input (absorb_producer): that op's
  // context (its input and activation, read at eval) and packed weight
  const OpContext* pointwise = nullptr;
  const PackedGemm* pointwise_gemm = nullptr;
};

void free_state(void* state) {
  ConvState* st = static_cast<ConvState*>(state);
  if (st == nullptr) return;
  std::free(st->ref_packed);
  packed_gemm_free(st->gemm);
  depthwise_conv_free(st->depthwise);
  winograd_conv_free(st->winograd);
  grouped_conv_free(st->grouped);
  delete st;
}

// Once per model load: cold (optimized for size; the ARM library's budget).
[[gnu::cold]] Status prepare(OpContext* ctx) {
  lite_conv2d_params p{};
  Status s = conv_params(ctx, &p);
  if (s != Status::kOk) return s;
  TensorRef* y = ctx->output(0);
  if (y == nullptr) return fail(ctx, Status::kInvalidModel, "needs one output");
  set_nhwc_output(y, lite_fb::DType::FLOAT32, p.batch, p.out_h, p.out_w, p.out_c);

  const TensorRef* w = ctx->input(1);
  const TensorRef* bias = ctx->input(2);
  ConvState* st = new (std::nothrow) ConvState();
  if (st == nullptr) return fail(ctx, Status::kOutOfMemory, "out of memory");
  ctx->state = st;
  int winograd_m = 0;
  bool winograd_keep = true;
  st->algorithm =
      choose_algorithm(ctx, p, is_constant_or_absent(w) && is_constant_or_absent(bias), &winograd_m, &winograd_keep);
  const size_t k = p.kernel_h * p.kernel_w * p.in_c;
  switch (st->algorithm) {
    case ConvAlgorithm::kGemm1x1:
    case ConvAlgorithm::kIm2colGemm: {
      // The .lite weight [co, kh, kw, ci] is B^T: B[p, j] = weight[j * k + p].
      st->gemm = packed_gemm_create(ctx, p.out_c, k, static_cast<const float*>(w->data), 1, k,
                                    bias != nullptr ? static_cast<const float*>(bias->data) : nullptr);
      if (st->gemm == nullptr) return Status::kOutOfMemory;
      if (st->algorithm == ConvAlgorithm::kIm2colGemm) {
        const size_t mr = st->gemm->config->mr;
        const size_t packed_bytes = lite_f32_gemm_packed_size(st->gemm->config, p.out_c, k) * sizeof(float);
        if (packed_bytes > kL2WeightBytes) {
          st->im2col_blocked = true;
          st->im2col_rows = im2col_block_rows(k, mr, p.batch * p.out_h * p.out_w);
          ctx->scratch_bytes_requested = st->im2col_rows * k * sizeof(float);
          break;
        }
        const size_t cap = mr * ((64 + mr - 1) / mr);  // about 64 pixels
        size_t rows = (32768 / (k > 0 ? k : 1)) / mr * mr;  // about 128 KiB of im2col per tile
        rows = rows < mr ? mr : (rows > cap ? cap : rows);
        st->im2col_rows = rows;
        ctx->scratch_bytes_requested = static_cast<size_t>(ctx->num_threads) * rows * k * sizeof(float);
      }
      break;
    }
    case ConvAlgorithm::kDepthwise:
      st->depthwise = depthwise_conv_create(ctx, p, static_cast<const float*>(w->data));
      if (st->depthwise == nullptr) return Status::kOutOfMemory;
      break;
    case ConvAlgorithm::kWinograd:
      st->winograd = winograd_conv_create(ctx, p, winograd_m, static_cast<const float*>(w->data), winograd_keep);
      if (st->winograd == nullptr) return Status::kOutOfMemory;
      ctx->scratch_bytes_requested = winograd_conv_scratch_bytes(*st->winograd, ctx->num_threads);
      break;
    case ConvAlgorithm::kGrouped:
      st->grouped = grouped_conv_create_f32(ctx, p, static_cast<const float*>(w->data),
                                            bias != nullptr ? static_cast<const float*>(bias->data) : nullptr);
      if (st->grouped == nullptr) return Status::kOutOfMemory;
      ctx->scratch_bytes_requested = grouped_conv_scratch_bytes(*st->grouped, ctx->num_threads);
      break;
    case ConvAlgorithm::kReference: {
      const size_t packed_bytes = lite_f32_conv2d_packed_weight_size(&p) * sizeof(float);
      if (is_constant_or_absent(w)) {
        st->ref_packed = static_cast<float*>(op_allocate(ctx, packed_bytes, "the packed weight"));
        if (st->ref_packed == nullptr) return Status::kOutOfMemory;
        lite_f32_conv2d_pack_weight_ref(&p, static_cast<const float*>(w->data), st->ref_packed);
      } else {
        ctx->scratch_bytes_requested = packed_bytes;
      }
      break;
    }
  }
  return Status::kOk;
}

// n floats from src to dst. The im2col pieces are often short (a 7x7 stem row of 3 channels is 21
// floats): 4-float blocks, the last one overlapping its predecessor when n % 4 != 0 (measured under
// qemu-aarch64: about half the instructions of 8/4/1-float steps with a switch); long pieces take
// the library memcpy.
inline void copy_floats(float* dst, const float* src, size_t n) {
  if (n > 64) {
    std::memcpy(dst, src, n * sizeof(float));
    return;
  }
  if (n >= 4) {
    size_t i = 0;
    for (; i + 4 <= n; i += 4) std::memcpy(dst + i, src + i, 4 * sizeof(float));
    if (i < n) std::memcpy(dst + n - 4, src + n - 4, 4 * sizeof(float));
    return;
  }
  switch (n) {
    case 3: dst[2] = src[2]; [[fallthrough]];
    case 2: dst[1] = src[1]; [[fallthrough]];
    case 1: dst[0] = src[0]; [[fallthrough]];
    default: break;
  }
}

// n zeros at dst (a padding tap), like copy_floats.
inline void zero_floats(float* dst, size_t n) {
  if (n > 64) {
    std::memset(dst, 0, n * sizeof(float));
    return;
  }
  for (; n >= 4; n -= 4, dst += 4) std::memset(dst, 0, 4 * sizeof(float));
  switch (n) {
    case 3: dst[2] = 0.0f; [[fallthrough]];
    case 2: dst[1] = 0.0f; [[fallthrough]];
    case 1: dst[0] = 0.0f; [[fallthrough]];
    default: break;
  }
}

// The receptive fields of `count` pixels of one output row whose windows lie inside the image
// (dilation 1): kernel_h copies of N = kernel_w * ci adjacent floats per pixel. N a constant (the
// 3x3 stem's 9 floats, the 7x7 stem's 21) makes each copy a few fixed moves: a per-pixel loop
// with copy_floats cost about a third of MobileNetV2's stem convolution.
template <size_t N>
void im2col_inside_run(const float* src, size_t pixel_step, size_t row_step, size_t kernel_h, size_t n, size_t count,
                       float* out, size_t k) {
  for (size_t r = 0; r < count; ++r, src += pixel_step, out += k) {
    const float* s = src;
    float* d = out;
    for (size_t kh = 0; kh < kernel_h; ++kh, s += row_step, d += n) {
      if (N != 0)
        std::memcpy(d, s, N * sizeof(float));
      else
        copy_floats(d, s, n);
    }
  }
}

// Copies the receptive field of output pixel (b, oh, ow) into one row of k floats, in the weight's
// (kh, kw, ci) order; taps in the padding are zeros.
void im2col_pixel(const lite_conv2d_params& p, const float* x, size_t b, size_t oh, size_t ow, float* row) {
  const size_t ci = p.in_c;
  const ptrdiff_t iw0 = static_cast<ptrdiff_t>(ow * p.stride_w) - static_cast<ptrdiff_t>(p.pad_left);
  const bool row_inside = p.dilation_w == 1 && iw0 >= 0 && iw0 + static_cast<ptrdiff_t>(p.kernel_w) <=
                                                            static_cast<ptrdiff_t>(p.in_w);
  for (size_t kh = 0; kh < p.kernel_h; ++kh) {
    const ptrdiff_t ih = static_cast<ptrdiff_t>(oh * p.stride_h + kh * p.dilation_h) - static_cast<ptrdiff_t>(p.pad_top);
    if (row_inside && ih >= 0 && ih < static_cast<ptrdiff_t>(p.in_h)) {
      // The kernel_w taps of this row are adjacent NHWC pixels: one copy.
      copy_floats(row + kh * p.kernel_w * ci,
                  x + ((b * p.in_h + static_cast<size_t>(ih)) * p.in_w + static_cast<size_t>(iw0)) * ci,
                  p.kernel_w * ci);
      continue;
    }
    for (size_t kw = 0; kw < p.kernel_w; ++kw) {
      const ptrdiff_t iw =
          static_cast<ptrdiff_t>(ow * p.stride_w + kw * p.dilation_w) - static_cast<ptrdiff_t>(p.pad_left);
      float* dst = row + (kh * p.kernel_w + kw) * ci;
      if (ih < 0 || iw < 0 || ih >= static_cast<ptrdiff_t>(p.in_h) || iw >= static_cast<ptrdiff_t>(p.in_w)) {
        zero_floats(dst, ci);
      } else {
        copy_floats(dst, x + ((b * p.in_h + static_cast<size_t>(ih)) * p.in_w + static_cast<size_t>(iw)) * ci, ci);
      }
    }
  }
}

// Copies the receptive fields of output pixels [first, first + rows) into rows of k floats, in the
// weight's (kh, kw, ci) order; taps in the padding are zeros. Runs of pixels whose whole window is
// inside the image (most of them) take im2col_inside_run.
void im2col_rows(const lite_conv2d_params& p, const float* x, size_t first, size_t rows, float* out) {
  const size_t ci = p.in_c, k = p.kernel_h * p.kernel_w * ci, n = p.kernel_w * ci;
  // Output columns [ow_lo, ow_hi) have every horizontal tap inside the image (dilation 1 only).
  size_t ow_lo = 0, ow_hi = 0;
  if (p.dilation_w == 1 && p.dilation_h == 1 && p.in_w + p.pad_left >= p.kernel_w) {
    ow_lo = (p.pad_left + p.stride_w - 1) / p.stride_w;
    ow_hi = (p.in_w + p.pad_left - p.kernel_w) / p.stride_w + 1;
    if (ow_hi > p.out_w) ow_hi = p.out_w;
  }
  // (b, oh, ow) of pixel `first`, then stepped: no divisions per pixel
  size_t ow = first % p.out_w, oh = (first / p.out_w) % p.out_h, b = first / (p.out_w * p.out_h);
  for (size_t r = 0; r < rows;) {
    const ptrdiff_t ih0 = static_cast<ptrdiff_t>(oh * p.stride_h) - static_cast<ptrdiff_t>(p.pad_top);
    size_t count = 1;
    if (ow >= ow_lo && ow < ow_hi && ih0 >= 0 &&
        ih0 + static_cast<ptrdiff_t>(p.kernel_h) <= static_cast<ptrdiff_t>(p.in_h)) {
      count = ow_hi - ow < rows - r ? ow_hi - ow : rows - r;
      const float* src = x + ((b * p.in_h + static_cast<size_t>(ih0)) * p.in_w + (ow * p.stride_w - p.pad_left)) * ci;
      const size_t pixel_step = p.stride_w * ci, row_step = p.in_w * ci;
      float* dst = out + r * k;
      switch (n) {
        case 9: im2col_inside_run<9>(src, pixel_step, row_step, p.kernel_h, n, count, dst, k); break;
        case 21: im2col_inside_run<21>(src, pixel_step, row_step, p.kernel_h, n, count, dst, k); break;
        default: im2col_inside_run<0>(src, pixel_step, row_step, p.kernel_h, n, count, dst, k); break;
      }
    } else {
      im2col_pixel(p, x, b, oh, ow, out + r * k);
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

// Output columns [lo, hi) whose horizontal taps all lie inside the image (dilation 1).
struct InteriorColumns {
  size_t lo = 0, hi = 0;
};

InteriorColumns interior_columns(const lite_conv2d_params& p) {
  InteriorColumns c;
  if (p.in_w + p.pad_left < p.kernel_w) return c;
  c.lo = (p.pad_left + p.stride_w - 1) / p.stride_w;
  c.hi = (p.in_w + p.pad_left - p.kernel_w) / p.stride_w + 1;
  if (c.hi > p.out_w) c.hi = p.out_w;
  if (c.lo > c.hi) c.lo = c.hi;
  return c;
}

// The kernel-row GEMM: where the microkernel can read A rows as kernel_h runs of kernel_w * ci
// floats in place (AVX2, AVX-512), the interior pixels of an output row skip im2col. MobileNetV2's
// stem spent about a third of its time copying 9-float window rows. Each output row is its own task,
// so its pixels run as ceil(border / mr) + ceil(interior / mr) tiles, where im2col's blocks span rows
// (out_w / mr tiles per row): a tile of 1-2 rows costs about as much as a full one (FMA latency).
// On narrow maps the partial tiles outweigh the copy saved (openWakeWord's 1x3 and 3x1 convolutions
// on 8-32 px wide maps ran 1.3-1.9x slower on AVX2): the kernel rows only within 1/8 of im2col's tiles.
bool kernel_row_gemm_applies(const lite_conv2d_params& p, const PackedGemm& g) {
  if (g.config->runs == nullptr || p.dilation_h != 1 || p.dilation_w != 1) return false;
  const InteriorColumns c = interior_columns(p);
  const size_t mr = g.config->mr, interior = c.hi - c.lo;
  if (interior < mr) return false;
  const size_t tiles = (c.lo + mr - 1) / mr + (interior + mr - 1) / mr + (p.out_w - c.hi + mr - 1) / mr;
  return tiles * mr * 8 <= p.out_w * 9;
}

// One task per output row: rows with every kernel row inside the image run their interior pixels
// through lite_f32_gemm_packed_compute_runs and their border pixels (and every pixel of the other
// rows) through im2col + GEMM in chunks of `rows` pixels. Each element is the same sum in the same
// order as with im2col alone: results are identical for any split.
void kernel_row_gemm(const lite_conv2d_params& p, const PackedGemm& g, ThreadPool* pool, const float* x,
                     const lite_activation* act, float* scratch, size_t rows, float* y) {
  const size_t ci = p.in_c, k = p.kernel_h * p.kernel_w * ci;
  const InteriorColumns interior = interior_columns(p);
  auto im2col_gemm = [&](size_t first, size_t count, float* cols) {
    for (size_t done = 0; done < count;) {
      const size_t n = count - done < rows ? count - done : rows;
      im2col_rows(p, x, first + done, n, cols);
      lite_f32_gemm_packed_compute(g.config, n, 0, g.n, k, cols, k, g.packed, act, y + (first + done) * p.out_c,
                                   p.out_c);
      done += n;
    }
  };
  parallel_for(pool, p.batch * p.out_h, [&](size_t row, int worker) {
    float* cols = scratch + static_cast<size_t>(worker) * rows * k;
    const size_t b = row / p.out_h, oh = row % p.out_h, first = row * p.out_w;
    const ptrdiff_t ih0 = static_cast<ptrdiff_t>(oh * p.stride_h) - static_cast<ptrdiff_t>(p.pad_top);
    if (ih0 < 0 || ih0 + static_cast<ptrdiff_t>(p.kernel_h) > static_cast<ptrdiff_t>(p.in_h)) {
      im2col_gemm(first, p.out_w, cols);
      return;
    }
    im2col_gemm(first, interior.lo, cols);
    const float* a =
        x + ((b * p.in_h + static_cast<size_t>(ih0)) * p.in_w + (interior.lo * p.stride_w - p.pad_left)) * ci;
    lite_f32_gemm_packed_compute_runs(g.config, interior.hi - interior.lo, 0, g.n, p.kernel_h, p.kernel_w * ci,
                                      p.in_w * ci, a, p.stride_w * ci, g.packed, act,
                                      y + (first + interior.lo) * p.out_c, p.out_c);
    im2col_gemm(first + interior.hi, p.out_w - interior.hi, cols);
  });
}

// Weight-heavy convolutions (im2col_blocked): blocks of `rows` output pixels, each copied by im2col
// on the pool (8-pixel chunks) into the shared scratch, then one packed_gemm_run over the block,
// whose column tiles stream each weight panel once per block. Every element is still one
// microkernel sum over the same im2col row: results equal the per-task path's.
void im2col_block_gemm(const lite_conv2d_params& p, const PackedGemm& g, ThreadPool* pool, const float* x,
                       const lite_activation* act, float* cols, size_t rows, float* y) {
  constexpr size_t kChunk = 8;
  const size_t k = p.kernel_h * p.kernel_w * p.in_c, pixels = p.batch * p.out_h * p.out_w;
  for (size_t first = 0; first < pixels; first += rows) {
    const size_t count = pixels - first < rows ? pixels - first : rows;
    parallel_for(pool, (count + kChunk - 1) / kChunk, [&](size_t c, int) {
      const size_t begin = c * kChunk, n = count - begin < kChunk ? count - begin : kChunk;
      im2col_rows(p, x, first + begin, n, cols + begin * k);
    });
    packed_gemm_run(g, pool, count, cols, k, act, y + first * p.out_c, p.out_c);
  }
}

// A depthwise convolution takes over the 1x1 convolution right before it (conv2d_pointwise_depthwise.h)
// when the tensor between them is larger than L2 and only it reads that tensor (checked by the core).
bool absorb_producer(OpContext* ctx, OpContext* producer) {
  ConvState* st = static_cast<ConvState*>(ctx->state);
  const ConvState* pw = static_cast<const ConvState*>(producer->state);
  if (st == nullptr || pw == nullptr || producer->op->opcode() != lite_fb::OpCode::CONV_2D ||
      st->algorithm != ConvAlgorithm::kDepthwise || pw->algorithm != ConvAlgorithm::kGemm1x1)
    return false;
  lite_conv2d_params p{};
  if (conv_params(ctx, &p) != Status::kOk) return false;
  const TensorRef* between = ctx->input(0);
  if (!pointwise_depthwise_applies(p, between->bytes())) return false;
  st->pointwise = producer;
  st->pointwise_gemm = pw->gemm;
  const size_t scratch = pointwise_depthwise_scratch_bytes(p, ctx->num_threads);
  if (scratch > ctx->scratch_bytes_requested) ctx->scratch_bytes_requested = scratch;
  return true;
}

Status eval(OpContext* ctx) {
  lite_conv2d_params p{};
  Status s = conv_params(ctx, &p);
  if (s != Status::kOk) return s;
  if (ctx->output(0)->shape.num_elements() == 0) return Status::kOk;  // nothing to write (the loops would still run)
  const ConvState* st = static_cast<const ConvState*>(ctx->state);
  if (st == nullptr) return fail(ctx, Status::kInternal, "not prepared");
  const TensorRef* bias = ctx->input(2);
  const ConvAttrs a = read_attrs(ctx);
  const lite_activation act = to_kernel_activation(a.activation, ctx->input(3));
  const float* x = static_cast<const float*>(ctx->input(0)->data);
  float* y = static_cast<float*>(ctx->output(0)->data);
  const size_t pixels = p.batch * p.out_h * p.out_w;
  switch (st->algorithm) {
    case ConvAlgorithm::kGemm1x1:
      packed_gemm_run(*st->gemm, ctx->pool, pixels, x, p.in_c, &act, y, p.out_c);
      return Status::kOk;
    case ConvAlgorithm::kIm2colGemm: {
      const size_t k = p.kernel_h * p.kernel_w * p.in_c, rows = st->im2col_rows;
      float* scratch = static_cast<float*>(ctx->scratch);
      const PackedGemm& g = *st->gemm;
      if (st->im2col_blocked) {
        im2col_block_gemm(p, g, ctx->pool, x, &act, scratch, rows, y);
        return Status::kOk;
      }
      if (kernel_row_gemm_applies(p, g)) {
        kernel_row_gemm(p, g, ctx->pool, x, &act, scratch, rows, y);
        return Status::kOk;
      }
      parallel_for(ctx->pool, (pixels + rows - 1) / rows, [&](size_t t, int worker) {
        const size_t first = t * rows, count = pixels - first < rows ? pixels - first : rows;
        float* cols = scratch + static_cast<size_t>(worker) * rows * k;
        im2col_rows(p, x, first, count, cols);
        lite_f32_gemm_packed_compute(g.config, count, 0, g.n, k, cols, k, g.packed, &act, y + first * p.out_c,
                                     p.out_c);
      });
      return Status::kOk;
    }
    case ConvAlgorithm::kDepthwise:
      if (st->pointwise != nullptr) {
        OpContext* pw = const_cast<OpContext*>(st->pointwise);
        const lite_activation pw_act = to_kernel_activation(read_attrs(pw).activation, pw->input(3));
        PointwiseStage stage;
        stage.gemm = st->pointwise_gemm;
        stage.act = &pw_act;
        stage.x = static_cast<const float*>(pw->input(0)->data);
        pointwise_depthwise_run(stage, *st->depthwise, p, ctx->pool,
                                bias != nullptr ? static_cast<const float*>(bias->data) : nullptr, &act, y,
                                ctx->scratch);
        return Status::kOk;
      }
      depthwise_conv_run(*st->depthwise, p, ctx->pool, x,
                         bias != nullptr ? static_cast<const float*>(bias->data) : nullptr, &act, y);
      return Status::kOk;
    case ConvAlgorithm::kWinograd:
      winograd_conv_run(*st->winograd, p, ctx->pool, x,
                        bias != nullptr ? static_cast<const float*>(bias->data) : nullptr, &act, y, ctx->scratch);
      return Status::kOk;
    case ConvAlgorithm::kGrouped:
      grouped_conv_run_f32(*st->grouped, ctx->pool, im2col_rows, x, &act, y, ctx->scratch);
      return Status::kOk;
    case ConvAlgorithm::kReference: {
      const float* packed = st->ref_packed;
      if (packed == nullptr) {
        float* scratch = static_cast<float*>(ctx->scratch);
        lite_f32_conv2d_pack_weight_ref(&p, static_cast<const float*>(ctx->input(1)->data), scratch);
        packed = scratch;
      }
      lite_f32_conv2d_nhwc_ref(&p, x, packed, bias != nullptr ? static_cast<const float*>(bias->data) : nullptr, &act,
                               y);
      return Status::kOk;
    }
  }
  return fail(ctx, Status::kInternal, "unknown algorithm");
}

}  // namespace

OpKernel conv2d_op_kernel() {
  OpKernel k;
  k.prepare = prepare;
  k.eval = eval;
  k.free_state = free_state;
  k.absorb_producer = absorb_producer;
  return k;
}

}  // namespace lite
