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
// Overlapping kernels stay fp32 (the converter keeps them there).
#include <cstdlib>
#include <new>
#include <vector>

#include "conv_gemm_int8.h"
#include "op_api.h"
#include "op_util.h"
#include "quant_params_int8.h"

namespace lite {
namespace {

// Outputs per GEMM row below which input pixels are grouped (the narrowest x86 / ARM int8 tile width).
constexpr size_t kGroupedColumns = 16;

struct ConvTransposeInt8State {
  size_t batch = 0, in_h = 0, in_w = 0, in_c = 0, out_c = 0, kernel_h = 0, kernel_w = 0;
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

Status check_geometry(OpContext* ctx, const lite_fb::ConvTranspose2DOptions* o, const TensorRef* x,
                      const TensorRef* w) {
  if (x->shape.rank != 4 || w->shape.rank != 4)
    return fail(ctx, Status::kShapeError, "x must be [N,H,W,C] and weight [Ci,KH,KW,Co]");
  if (w->shape.dims[0] != x->shape.dims[3] || w->shape.dims[1] < 1 || w->shape.dims[2] < 1)
    return fail(ctx, Status::kShapeError, "weight does not fit %lld input channels",
                static_cast<long long>(x->shape.dims[3]));
  const bool disjoint =
      o == nullptr ? w->shape.dims[1] == 1 && w->shape.dims[2] == 1
                   : o->stride_h() == w->shape.dims[1] && o->stride_w() == w->shape.dims[2] && o->dilation_h() == 1 &&
                         o->dilation_w() == 1 && o->pad_top() == 0 && o->pad_left() == 0 && o->pad_bottom() == 0 &&
                         o->pad_right() == 0 && o->output_padding_h() == 0 && o->output_padding_w() == 0 &&
                         o->group() == 1 && o->padding() == lite_fb::Padding::EXPLICIT;
  if (!disjoint)
    return fail(ctx, Status::kUnsupported,
                "int8 supports kernel == stride without pads, dilation, output padding or groups");
  if (x->shape.dims[1] * w->shape.dims[1] > kMaxOpDim || x->shape.dims[2] * w->shape.dims[2] > kMaxOpDim)
    return fail(ctx, Status::kShapeError, "output is too large");
  return Status::kOk;
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
  if (s == Status::kOk) s = check_geometry(ctx, o, x, w);
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
  set_nhwc_output(y, lite_fb::DType::INT8, st->batch, st->in_h * st->kernel_h, st->in_w * st->kernel_w, st->out_c);
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
