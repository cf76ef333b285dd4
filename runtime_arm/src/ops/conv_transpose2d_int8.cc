// CONV_TRANSPOSE_2D on int8 tensors: x INT8 [N,H,W,Ci] (per tensor), weight INT8 [Ci,KH,KW,Co] (the
// fp32 op's layout; symmetric, one scale per output channel along axis 3, or one scale), bias INT32
// [Co] (scale s_in * s_w[c]) optional, y INT8 [N,OH,OW,Co] (per tensor); fused RELU / CLIP become the
// output clamp. Only kernel == stride without padding, dilation, output padding or groups (a detection
// head's 2x2 upsampling): each input pixel then owns a disjoint KH x KW block of output pixels, so
// output row ih * KH + kh is one int8 GEMM of input row ih (M = W pixels, K = Ci) with the weight slice
// of tap row kh (N = KW * Co, columns (kw, co)), written in place: C row iw is output pixels
// [iw * KW, iw * KW + KW) of that row, KW * Co bytes apart. Where KW * Co is much narrower than a GEMM
// tile (24 -> 1 channel: 2 columns of 16), a GEMM row takes G adjacent input pixels (G * Ci contiguous
// bytes) against a block-diagonal weight (G copies of the slice): the same multiply-adds, G times fewer
// requantized lanes thrown away, and C row g is again G pixels' output bytes in place. Every output
// value is one requantized int32 sum, as slim/fake_quant.py conv_transpose2d_nhwc computes it (0 LSB).
//
// Overlapping kernels (kernel > stride, pads, output padding: a decoder's 4x4 / 2 upsampling, 3x3 / 2 with
// output padding 1) split by output phase: output o (one axis) with o + pad = q * stride + r gets the taps
// k = r, r + stride, ... of input pixels q, q - 1, ..., so phase (r_h, r_w) is an ordinary stride-1
// convolution of x with the sub-kernel of those taps flipped (T = ceil((K - r) / stride) per axis,
// padded by T - 1), whose output pixel q lands on o = q * stride + r - pad: im2col (the int8 CONV_2D's)
// of a phase's output row and one int8 GEMM written in place with a row stride of stride * Co. Each
// output value is still one requantized sum over exactly its taps. Dilation and groups stay fp32 (the
// converter keeps them there, lite_converter/passes/quantize_int8.py transpose_int8_supported).
#include <cstdlib>
#include <cstring>
#include <new>
#include <vector>

#include "conv_gemm_int8.h"
#include "op_api.h"
#include "op_util.h"
#include "quant_params_int8.h"
#include "window_geometry.h"

namespace lite {
namespace {

// Outputs per GEMM row below which input pixels are grouped (the narrowest x86 / ARM int8 tile width).
constexpr size_t kGroupedColumns = 16;

// One output phase of an overlapping transposed convolution: a stride-1 convolution `view` of x whose
// output rows [q_h, q_h + rows) and columns [q_w, q_w + cols) land on output pixels (oh0 + j * stride_h,
// ow0 + i * stride_w).
struct TransposePhase {
  lite_conv2d_params view{};
  size_t q_h = 0, q_w = 0, rows = 0, cols = 0, oh0 = 0, ow0 = 0;
  PackedGemmInt8* gemm = nullptr;
};

struct ConvTransposeInt8State {
  size_t batch = 0, in_h = 0, in_w = 0, in_c = 0, out_c = 0, kernel_h = 0, kernel_w = 0;
  // overlapping kernels: the phases, the output size and strides, the input zero point (im2col's
  // padding) and each thread's im2col bytes
  TransposePhase* phases = nullptr;  // op_allocate'd, phase_count of them
  size_t phase_count = 0;
  size_t out_h = 0, out_w = 0, stride_h = 1, stride_w = 1, thread_scratch = 0;
  int8_t pad = 0;
  bool phased = false;
  size_t group = 1;  // input pixels per GEMM row
  // per kernel row kh: the packed (block-diagonal) weight for `group` pixels, and for the in_w % group
  // pixels left at the end of a row (null when none are)
  std::vector<PackedGemmInt8*> tap_rows, tail_rows;
};

void free_state(void* state) {
  ConvTransposeInt8State* st = static_cast<ConvTransposeInt8State*>(state);
  if (st == nullptr) return;
  for (PackedGemmInt8* g : st->tap_rows) packed_gemm_int8_free(g);
  for (PackedGemmInt8* g : st->tail_rows) packed_gemm_int8_free(g);
  for (size_t i = 0; i < st->phase_count; ++i) packed_gemm_int8_free(st->phases[i].gemm);
  std::free(st->phases);
  delete st;
}

// Per-output-column values of a GEMM row of `pixels` pixels: column (pixel, kw, co) takes channel co's.
struct ColumnParams {
  std::vector<int32_t> bias, multiplier, shift;
};

ColumnParams column_params(size_t columns, size_t out_c, const int32_t* bias, const std::vector<int32_t>& multiplier,
                           const std::vector<int32_t>& shift) {
  ColumnParams c{std::vector<int32_t>(columns, 0), std::vector<int32_t>(columns), std::vector<int32_t>(columns)};
  for (size_t j = 0; j < columns; ++j) {
    const size_t channel = j % out_c;
    c.bias[j] = bias != nullptr ? bias[channel] : 0;
    c.multiplier[j] = multiplier[channel];
    c.shift[j] = shift[channel];
  }
  return c;
}

// The packed weight of kernel row kh for `pixels` adjacent input pixels: W[p, j] is tap (kh, kw, co) of
// input channel p % Ci where p / Ci == j / (KW * Co) (pixel j / (KW * Co) reads only its own bytes), else 0.
PackedGemmInt8* pack_tap_row(OpContext* ctx, const ConvTransposeInt8State& st, const int8_t* weight, size_t kh, size_t pixels,
                             const ColumnParams& columns, int32_t input_zero_point,
                             const lite_qs8_gemm_params& params) {
  const size_t n = st.kernel_w * st.out_c, weight_row = st.kernel_h * n;  // weight_row: one input channel's taps
  if (pixels == 1)
    return packed_gemm_int8_create(ctx, n, st.in_c, weight + kh * n, weight_row, 1, columns.bias.data(), input_zero_point,
                                   columns.multiplier.data(), columns.shift.data(), params);
  const size_t k = pixels * st.in_c;
  std::vector<int8_t> block(pixels * n * k, 0);  // [column][k]
  for (size_t j = 0; j < pixels * n; ++j)
    for (size_t c = 0; c < st.in_c; ++c) block[j * k + (j / n) * st.in_c + c] = weight[c * weight_row + kh * n + j % n];
  return packed_gemm_int8_create(ctx, pixels * n, k, block.data(), 1, k, columns.bias.data(), input_zero_point,
                                 columns.multiplier.data(), columns.shift.data(), params);
}

// The output phases of one axis (out outputs, kernel taps, stride, leading pad) for the phase path: per
// residue r, the taps T and the first and last input-aligned index q whose output is inside.
struct PhaseAxis {
  size_t taps = 0, q_first = 0, count = 0, out_first = 0;
};

PhaseAxis phase_axis(size_t r, size_t out, size_t kernel, size_t stride, size_t pad) {
  PhaseAxis a;
  a.taps = (kernel - r + stride - 1) / stride;
  // o = q * stride + r - pad in [0, out)
  a.q_first = pad > r ? (pad - r + stride - 1) / stride : 0;
  if (out + pad <= r) return a;
  const size_t q_last = (out - 1 + pad - r) / stride;
  if (q_last < a.q_first) return a;
  a.count = q_last - a.q_first + 1;
  a.out_first = a.q_first * stride + r - pad;
  return a;
}

// Whether the geometry is the disjoint form (kernel == stride, nothing else), the phase form (kernel >=
// stride, dilation 1, groups 1), or neither (kUnsupported). Fills the output size.
Status check_geometry(OpContext* ctx, const lite_fb::ConvTranspose2DOptions* o, const TensorRef* x,
                      const TensorRef* w, ConvWindowAttrs* attrs, bool* disjoint, size_t* out_h, size_t* out_w) {
  if (x->shape.rank != 4 || w->shape.rank != 4)
    return fail(ctx, Status::kShapeError, "x must be [N,H,W,C] and weight [Ci,KH,KW,Co]");
  if (w->shape.dims[0] != x->shape.dims[3] || w->shape.dims[1] < 1 || w->shape.dims[2] < 1)
    return fail(ctx, Status::kShapeError, "weight does not fit %lld input channels",
                static_cast<long long>(x->shape.dims[3]));
  const ConvWindowAttrs a = read_conv_window_attrs(o);
  *attrs = a;
  Status s = check_conv_window_attrs(ctx, a);
  if (s != Status::kOk) return s;
  const int64_t kh = w->shape.dims[1], kw = w->shape.dims[2];
  const int64_t pad_h = o != nullptr ? o->output_padding_h() : 0, pad_w = o != nullptr ? o->output_padding_w() : 0;
  if (pad_h < 0 || pad_w < 0) return fail(ctx, Status::kInvalidModel, "output_padding must be >= 0");
  if (a.group != 1 || a.dilation_h != 1 || a.dilation_w != 1 || a.padding != lite_fb::Padding::EXPLICIT ||
      kh < a.stride_h || kw < a.stride_w)
    return fail(ctx, Status::kUnsupported,
                "int8 supports groups 1, dilation 1, explicit pads and kernels at least the stride");
  WindowAxis axis_h, axis_w;
  if (!transposed_window_axis(a.padding, x->shape.dims[1], kh, a.stride_h, 1, a.pad_top, a.pad_bottom, pad_h,
                              &axis_h) ||
      !transposed_window_axis(a.padding, x->shape.dims[2], kw, a.stride_w, 1, a.pad_left, a.pad_right, pad_w,
                              &axis_w) ||
      axis_h.out > kMaxOpDim || axis_w.out > kMaxOpDim)
    return fail(ctx, Status::kShapeError, "no valid output size (empty or too large)");
  *out_h = static_cast<size_t>(axis_h.out);
  *out_w = static_cast<size_t>(axis_w.out);
  *disjoint = a.stride_h == kh && a.stride_w == kw && a.pad_top == 0 && a.pad_left == 0 && a.pad_bottom == 0 &&
              a.pad_right == 0 && pad_h == 0 && pad_w == 0;
  return Status::kOk;
}

// The phases of an overlapping transposed convolution: per (r_h, r_w) its sub-kernel packed as a
// [T_h * T_w * Ci, Co] int8 GEMM weight (taps flipped: view tap u reads kernel row r + (T - 1 - u) * stride).
Status prepare_phases(OpContext* ctx, ConvTransposeInt8State* st, const ConvWindowAttrs& a,
                      const int8_t* weight, const int32_t* bias, int32_t input_zero_point, const int32_t* multiplier,
                      const int32_t* shift, const lite_qs8_gemm_params& params) {
  const size_t pad_top = static_cast<size_t>(a.pad_top), pad_left = static_cast<size_t>(a.pad_left);
  st->stride_h = static_cast<size_t>(a.stride_h);
  st->stride_w = static_cast<size_t>(a.stride_w);
  st->phased = true;
  // counted against the memory bound: a hostile model's strides are bounded only by its kernel
  size_t phases_bytes = 0;
  if (__builtin_mul_overflow(st->stride_h, st->stride_w, &phases_bytes) ||
      __builtin_mul_overflow(phases_bytes, sizeof(TransposePhase), &phases_bytes))
    return fail(ctx, Status::kShapeError, "strides %zu x %zu are too large", st->stride_h, st->stride_w);
  st->phases = static_cast<TransposePhase*>(op_allocate(ctx, phases_bytes, "the output phases"));
  if (st->phases == nullptr) return Status::kOutOfMemory;
  std::memset(static_cast<void*>(st->phases), 0, phases_bytes);
  // the largest phase's sub-kernel, [(u, v, ci)][co]: its sums bound every phase's
  const size_t k_max = ((st->kernel_h + st->stride_h - 1) / st->stride_h) *
                       ((st->kernel_w + st->stride_w - 1) / st->stride_w) * st->in_c;
  if (!lite_qs8_gemm_is_exact(st->out_c, k_max, bias))
    return fail(ctx, Status::kUnsupported, "int8 CONV_TRANSPOSE_2D sums may exceed int32 (%zu input channels)",
                st->in_c);
  std::vector<int8_t> sub(k_max * st->out_c);
  st->pad = static_cast<int8_t>(input_zero_point);
  lite_conv2d_params base{};
  base.batch = st->batch;
  base.in_h = st->in_h;
  base.in_w = st->in_w;
  base.in_c = st->in_c;
  base.out_c = st->out_c;
  base.stride_h = base.stride_w = base.dilation_h = base.dilation_w = base.groups = 1;
  for (size_t rh = 0; rh < st->stride_h; ++rh) {
    const PhaseAxis ah = phase_axis(rh, st->out_h, st->kernel_h, st->stride_h, pad_top);
    for (size_t rw = 0; rw < st->stride_w; ++rw) {
      const PhaseAxis aw = phase_axis(rw, st->out_w, st->kernel_w, st->stride_w, pad_left);
      if (ah.count == 0 || aw.count == 0) continue;
      TransposePhase& phase = st->phases[st->phase_count];
      lite_conv2d_params& v = phase.view;
      v = base;
      v.kernel_h = ah.taps;
      v.kernel_w = aw.taps;
      v.pad_top = ah.taps - 1;
      v.pad_left = aw.taps - 1;
      v.out_h = ah.q_first + ah.count;
      v.out_w = aw.q_first + aw.count;
      phase.q_h = ah.q_first;
      phase.q_w = aw.q_first;
      phase.rows = ah.count;
      phase.cols = aw.count;
      phase.oh0 = ah.out_first;
      phase.ow0 = aw.out_first;
      const size_t k = ah.taps * aw.taps * st->in_c;
      for (size_t u = 0; u < ah.taps; ++u)
        for (size_t t = 0; t < aw.taps; ++t)
          for (size_t c = 0; c < st->in_c; ++c) {
            const size_t kh = rh + (ah.taps - 1 - u) * st->stride_h, kw = rw + (aw.taps - 1 - t) * st->stride_w;
            const int8_t* src = weight + ((c * st->kernel_h + kh) * st->kernel_w + kw) * st->out_c;
            std::memcpy(sub.data() + ((u * aw.taps + t) * st->in_c + c) * st->out_c, src, st->out_c);
          }
      phase.gemm = packed_gemm_int8_create(ctx, st->out_c, k, sub.data(), st->out_c, 1, bias, input_zero_point,
                                           multiplier, shift, params);
      if (phase.gemm == nullptr) return Status::kOutOfMemory;
      ++st->phase_count;
      const size_t bytes = (phase.cols * k + 63) / 64 * 64;
      if (bytes > st->thread_scratch) st->thread_scratch = bytes;
    }
  }
  ctx->scratch_bytes_requested = static_cast<size_t>(ctx->num_threads > 0 ? ctx->num_threads : 1) * st->thread_scratch;
  return Status::kOk;
}

// Overlapping kernels: one task per (phase, image, phase output row).
void run_phases(const ConvTransposeInt8State& st, ThreadPool* pool, const int8_t* x, int8_t* y, int8_t* scratch) {
  size_t tasks = 0;
  for (size_t i = 0; i < st.phase_count; ++i) tasks += st.batch * st.phases[i].rows;
  parallel_for(pool, tasks, [&](size_t t, int worker) {
    size_t i = 0;
    while (t >= st.batch * st.phases[i].rows) t -= st.batch * st.phases[i++].rows;
    const TransposePhase& phase = st.phases[i];
    const size_t b = t / phase.rows, j = t % phase.rows;
    const lite_conv2d_params& v = phase.view;
    int8_t* cols = scratch + static_cast<size_t>(worker) * st.thread_scratch;
    im2col_int8_rows(v, x, st.pad, (b * v.out_h + phase.q_h + j) * v.out_w + phase.q_w, phase.cols, cols);
    const PackedGemmInt8& g = *phase.gemm;
    int8_t* c = y + ((b * st.out_h + phase.oh0 + j * st.stride_h) * st.out_w + phase.ow0) * st.out_c;
    lite_qs8_gemm_packed_compute(g.config, phase.cols, 0, g.n, g.k, cols, g.k, g.packed, &g.params, c,
                                 st.stride_w * st.out_c);
  });
}

Status prepare(OpContext* ctx) {
  const TensorRef* x = ctx->input(0);
  const TensorRef* w = ctx->input(1);
  const TensorRef* bias = ctx->input(2);
  TensorRef* y = ctx->output(0);
  if (x == nullptr || w == nullptr || y == nullptr)
    return fail(ctx, Status::kInvalidModel, "needs inputs x and weight and one output");
  ConvTransposeInt8State* st = new (std::nothrow) ConvTransposeInt8State;
  if (st == nullptr) return fail(ctx, Status::kOutOfMemory, "cannot allocate op state");
  ctx->state = st;
  const lite_fb::ConvTranspose2DOptions* o = ctx->op->options_as_ConvTranspose2DOptions();
  QuantInt8 in, out;
  Status s = per_tensor_int8(ctx, x, "x", &in);
  if (s == Status::kOk) s = per_tensor_int8(ctx, y, "y", &out);
  bool disjoint = false;
  size_t out_h = 0, out_w = 0;
  ConvWindowAttrs attrs;
  if (s == Status::kOk) s = check_geometry(ctx, o, x, w, &attrs, &disjoint, &out_h, &out_w);
  if (s != Status::kOk) return s;
  if (w->dtype != lite_fb::DType::INT8 || !is_constant_or_absent(w) || !is_constant_or_absent(bias))
    return fail(ctx, Status::kUnsupported, "int8 CONV_TRANSPOSE_2D needs a constant INT8 weight and bias");
  const int64_t co = w->shape.dims[3];
  if (bias != nullptr && (bias->dtype != lite_fb::DType::INT32 || bias->shape.num_elements() != co))
    return fail(ctx, Status::kInvalidModel, "bias must be INT32 with %lld values", static_cast<long long>(co));
  std::vector<int32_t> multiplier, shift;
  s = channel_multipliers(ctx, w, co, 3, in, out, &multiplier, &shift);
  int32_t act_min = -128, act_max = 127;
  if (s == Status::kOk)
    s = activation_range_int8(ctx, o != nullptr ? o->activation() : nullptr, out, &act_min, &act_max);
  if (s != Status::kOk) return s;
  st->batch = static_cast<size_t>(x->shape.dims[0]);
  st->in_h = static_cast<size_t>(x->shape.dims[1]);
  st->in_w = static_cast<size_t>(x->shape.dims[2]);
  st->in_c = static_cast<size_t>(x->shape.dims[3]);
  st->out_c = static_cast<size_t>(co);
  st->kernel_h = static_cast<size_t>(w->shape.dims[1]);
  st->kernel_w = static_cast<size_t>(w->shape.dims[2]);
  st->out_h = out_h;
  st->out_w = out_w;
  set_nhwc_output(y, lite_fb::DType::INT8, st->batch, st->out_h, st->out_w, st->out_c);
  if (!disjoint) {
    if (st->in_c == 0) return fail(ctx, Status::kUnsupported, "int8 CONV_TRANSPOSE_2D needs input channels");
    return prepare_phases(ctx, st, attrs, static_cast<const int8_t*>(w->data),
                          bias != nullptr ? static_cast<const int32_t*>(bias->data) : nullptr, in.zero_point,
                          multiplier.data(), shift.data(), lite_qs8_gemm_params{out.zero_point, act_min, act_max});
  }
  // One GEMM column per (pixel, kw, co): the per-channel values repeat.
  const size_t n = st->kernel_w * st->out_c;
  st->group = n < kGroupedColumns ? kGroupedColumns / n : 1;
  if (st->group > st->in_w) st->group = st->in_w > 0 ? st->in_w : 1;
  const int32_t* bias_data = bias != nullptr ? static_cast<const int32_t*>(bias->data) : nullptr;
  const ColumnParams columns = column_params(st->group * n, st->out_c, bias_data, multiplier, shift);
  if (st->in_c == 0 || n == 0 || !lite_qs8_gemm_is_exact(st->group * n, st->group * st->in_c, columns.bias.data()))
    return fail(ctx, Status::kUnsupported, "int8 CONV_TRANSPOSE_2D sums may exceed int32 (%zu input channels)",
                st->in_c);
  const int8_t* weight = static_cast<const int8_t*>(w->data);
  const lite_qs8_gemm_params params{out.zero_point, act_min, act_max};
  const size_t tail = st->in_w % st->group;
  for (size_t kh = 0; kh < st->kernel_h; ++kh) {
    st->tap_rows.push_back(pack_tap_row(ctx, *st, weight, kh, st->group, columns, in.zero_point, params));
    st->tail_rows.push_back(tail > 0 ? pack_tap_row(ctx, *st, weight, kh, tail, columns, in.zero_point, params) : nullptr);
    if (st->tap_rows.back() == nullptr || (tail > 0 && st->tail_rows.back() == nullptr))
      return Status::kOutOfMemory;
  }
  return Status::kOk;
}

Status eval(OpContext* ctx) {
  const ConvTransposeInt8State* st = static_cast<const ConvTransposeInt8State*>(ctx->state);
  if (ctx->output(0)->shape.num_elements() == 0) return Status::kOk;
  const int8_t* x = static_cast<const int8_t*>(ctx->input(0)->data);
  int8_t* y = static_cast<int8_t*>(ctx->output(0)->data);
  if (st->phased) {
    run_phases(*st, ctx->pool, x, y, static_cast<int8_t*>(ctx->scratch));
    return Status::kOk;
  }
  const size_t n = st->kernel_w * st->out_c, out_row = st->in_w * n;
  const size_t rows = st->in_w / st->group, tail_first = rows * st->group;
  // one task per input row: its kernel_h output rows
  parallel_for(ctx->pool, st->batch * st->in_h, [&](size_t r, int) {
    const int8_t* x_row = x + r * st->in_w * st->in_c;
    for (size_t kh = 0; kh < st->kernel_h; ++kh) {
      int8_t* y_row = y + (r * st->kernel_h + kh) * out_row;
      const PackedGemmInt8& g = *st->tap_rows[kh];
      lite_qs8_gemm_packed_compute(g.config, rows, 0, g.n, g.k, x_row, g.k, g.packed, &g.params, y_row, g.n);
      if (st->tail_rows[kh] != nullptr) {
        const PackedGemmInt8& t = *st->tail_rows[kh];
        lite_qs8_gemm_packed_compute(t.config, 1, 0, t.n, t.k, x_row + tail_first * st->in_c, t.k, t.packed,
                                     &t.params, y_row + tail_first * n, t.n);
      }
    }
  });
  return Status::kOk;
}

}  // namespace

OpKernel conv_transpose2d_int8_op_kernel() {
  OpKernel k;
  k.prepare = prepare;
  k.eval = eval;
  k.free_state = free_state;
  return k;
}

}  // namespace lite
