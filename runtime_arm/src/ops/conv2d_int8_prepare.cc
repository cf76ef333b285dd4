// The int8 CONV_2D's prepare (conv2d_int8.cc has the op and its eval): choose_algorithm picks how the
// convolution runs and the weights are packed for it. Runs once per model load: compiled for size on ARM.
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <new>
#include <vector>

#include "checked_math.h"
#include "conv2d_int8_state.h"
#include "lite_kernels/cpu_features.h"
#include "memory_budget.h"
#include "op_util.h"
#include "window_geometry.h"

namespace lite {
namespace {

// Whether an output row's `interior` pixels fill the runs kernel's tiles (which, like the plain
// kernels, compute a partial tile as the next power of two of rows up to mr) to within 1/8: im2col's
// tiles span output rows and waste almost nothing. ResNet-18 (mr 8): 54, 27, 26, 12 interior pixels
// run in place, 13 (8 + 5 of 8) and 5 go through im2col; measured per op, 13 was slower in place.
bool rows_fill_tiles(size_t interior, size_t mr) {
  if (interior < mr) return false;
  const size_t rest = interior % mr;
  size_t computed = interior - rest;
  if (rest > 0) {
    size_t tile = 1;
    while (tile < rest) tile *= 2;
    computed += tile < mr ? tile : mr;
  }
  return 8 * (computed - interior) <= interior;
}

// Output columns whose window lies inside the input's width (empty when none does).
void interior_columns(const lite_conv2d_params& p, size_t* begin, size_t* end) {
  const size_t first = (p.pad_left + p.stride_w - 1) / p.stride_w;
  const size_t span = (p.kernel_w - 1) * p.dilation_w + 1;
  size_t last_plus_one = 0;
  if (p.in_w + p.pad_left >= span) last_plus_one = (p.in_w + p.pad_left - span) / p.stride_w + 1;
  if (last_plus_one > p.out_w) last_plus_one = p.out_w;
  *begin = first < last_plus_one ? first : 0;
  *end = first < last_plus_one ? last_plus_one : 0;
}

bool rows_gemm_applies(const lite_conv2d_params& p, const lite_qs8_gemm_config* config) {
  if (lite_qs8_gemm_runs_ukernel_select(config) == nullptr) return false;
  if (p.dilation_w != 1 || p.kernel_h > kRowsGemmMaxKernelH || (p.kernel_w * p.in_c) % config->kr != 0) return false;
  // aarch64 dotprod (MR 64) loads kernel rows 16 bytes at a time: a shorter run or a k % 16 tail per run
  // costs more than im2col's one tail (ResNet-18's 7x7 stem on 3 -> 4 channels: +3.7 M instructions)
  if (config->mr > 8 && (p.kernel_w * p.in_c) % 16 != 0) return false;
  size_t begin = 0, end = 0;
  interior_columns(p, &begin, &end);
  if (config->mr > 8) {
    // aarch64 dotprod (MR 64): 4-row tiles, the last one overlapping. im2col's copy costs about 1/18 of
    // the GEMM, and its tiles span output rows (the border pixels' small GEMMs do not): in place only for
    // long rows wasting <= 1/32. Measured under qemu cortex-a76: ResNet-18's 54, 26 and 12 interior
    // pixels +1.3 M instructions in place, PP-OCRv4 det's 158 and 78 -10 M.
    const size_t interior = end - begin, computed = (interior + 3) / 4 * 4;
    return interior >= 64 && 32 * (computed - interior) <= interior;
  }
  return rows_fill_tiles(end - begin, config->mr);
}

// The channel count that makes the rows GEMM apply to a conv whose kernel rows are not whole k-groups
// of the runs kernel (kernel_w * in_c % kr != 0: a 3x3 stem on 3 channels), p.in_c when it needs no
// padding or padding would not make it apply or pay. Measured: the 3x3 stem on 3 channels (36 bytes
// per kernel row set in place for 27 copied, 28 multiplied) runs in about half of im2col's time. Only
// inputs with fewer channels than kr whose padded depth has at most 4/3 of im2col's k-groups pad;
// 1 or 2 channels (a 3x3 depth of 9 or 18 padded to 36) and wider inputs keep im2col (not measured).
size_t rows_gemm_channels(const lite_conv2d_params& p, const int32_t* bias) {
  const uint32_t features = lite_cpu_features();
  const size_t im2col_k = p.kernel_h * p.kernel_w * p.in_c;
  const lite_qs8_gemm_config* config = lite_qs8_gemm_config_select(features, p.out_c, im2col_k);
  const size_t kr = config->kr;
  if (lite_qs8_gemm_runs_ukernel_select(config) == nullptr || (p.kernel_w * p.in_c) % kr == 0 || p.in_c >= kr)
    return p.in_c;
  size_t channels = p.in_c;
  while ((p.kernel_w * channels) % kr != 0) ++channels;
  lite_conv2d_params padded = p;
  padded.in_c = channels;
  const size_t k = p.kernel_h * p.kernel_w * channels;
  const size_t im2col_groups = (im2col_k + kr - 1) / kr, padded_groups = k / kr;
  if (3 * padded_groups > 4 * im2col_groups) return p.in_c;
  const lite_qs8_gemm_config* padded_config = lite_qs8_gemm_config_select(features, p.out_c, k);
  if (padded_config->kr != kr || !lite_qs8_gemm_is_exact(p.out_c, k, bias) ||
      !rows_gemm_applies(padded, padded_config))
    return p.in_c;
  return channels;
}

// winograd_tile / winograd_saving: F(m,3)'s m and the instructions it saves where the answer is kWinograd
// (only considered when winograd_allowed).
ConvInt8Algorithm choose_algorithm(const lite_conv2d_params& p, const TensorRef* w, const TensorRef* bias,
                                   int32_t input_zero_point, bool winograd_allowed, size_t* winograd_tile,
                                   double* winograd_saving) {
  if (!is_constant_or_absent(w) || !is_constant_or_absent(bias)) return ConvInt8Algorithm::kReference;
  const int32_t* bias_data = bias != nullptr ? static_cast<const int32_t*>(bias->data) : nullptr;
  if (p.groups != 1) {
    if (lite_qs8_dwconv_applies(&p, bias_data) && lite_qs8_dwconv_select(lite_cpu_features(), &p) != nullptr)
      return ConvInt8Algorithm::kDepthwise;
    return grouped_conv_int8_exact(p, bias_data) ? ConvInt8Algorithm::kGrouped : ConvInt8Algorithm::kReference;
  }
  *winograd_tile = winograd_allowed ? lite_qs8_winograd_choose(lite_cpu_features(), &p,
                                                                static_cast<const int8_t*>(w->data),
                                                                input_zero_point, winograd_saving)
                                    : 0;
  if (*winograd_tile != 0) return ConvInt8Algorithm::kWinograd;
  const size_t k = p.kernel_h * p.kernel_w * p.in_c;
  if (k == 0 || p.out_c == 0 || !lite_qs8_gemm_is_exact(p.out_c, k, bias_data)) return ConvInt8Algorithm::kReference;
  if (p.kernel_h == 1 && p.kernel_w == 1 && p.stride_h == 1 && p.stride_w == 1 && p.pad_top == 0 &&
      p.pad_left == 0 && p.out_h == p.in_h && p.out_w == p.in_w)
    return ConvInt8Algorithm::kGemm1x1;
  return ConvInt8Algorithm::kIm2colGemm;
}

// Under a packed-weight bound (lite_runtime.h, packed_weight_ratio) the Winograd weights are an offer, as
// fp32 Winograd's are (conv2d_winograd.h): until the interpreter grants it (the offers that save most
// per byte, within the bound), the convolution runs the direct GEMM. The offer counts the transformed
// weights and the Winograd scratch in full, not net of the GEMM's packed copy and scratch, so the
// bound holds with margin.
bool winograd_kept(OpContext* ctx, const lite_conv2d_params& p, size_t tile, double saving) {
  if (ctx->memory == nullptr || !ctx->memory->transformed_bounded() || ctx->kept_granted) return true;
  const size_t threads = static_cast<size_t>(ctx->num_threads > 0 ? ctx->num_threads : 1);
  ctx->kept_offer_bytes = lite_qs8_winograd_packed_size(&p, tile) + threads * lite_qs8_winograd_scratch_size(&p, tile);
  ctx->kept_offer_saving = saving;
  return false;
}

Status geometry(OpContext* ctx, const lite_fb::Conv2DOptions* o, lite_conv2d_params* p) {
  const TensorRef* x = ctx->input(0);
  const TensorRef* w = ctx->input(1);
  if (x->shape.rank != 4 || w->shape.rank != 4)
    return fail(ctx, Status::kShapeError, "x must be [N,H,W,C] and weight [Co,KH,KW,Ci/group]");
  const ConvWindowAttrs a = read_conv_window_attrs(o);
  const Status s = check_conv_window_attrs(ctx, a);
  if (s != Status::kOk) return s;
  const int64_t ci = x->shape.dims[3], co = w->shape.dims[0];
  if (ci % a.group != 0 || co % a.group != 0 || w->shape.dims[3] != ci / a.group || w->shape.dims[1] < 1 ||
      w->shape.dims[2] < 1)
    return fail(ctx, Status::kShapeError, "weight does not fit %lld input channels in %lld groups",
                static_cast<long long>(ci), static_cast<long long>(a.group));
  Window2D win = conv_window(a, w->shape.dims[1], w->shape.dims[2]);
  if (!slide_window(a.padding, false, x->shape, a.pad_top, a.pad_left, a.pad_bottom, a.pad_right, &win))
    return fail(ctx, Status::kShapeError, "kernel does not fit the padded input");
  // Before anything is sized from the geometry: the output must be a tensor the core can hold.
  const int64_t out_dims[4] = {x->shape.dims[0], win.h.out, win.w.out, co};
  size_t out_elements = 0;
  if (!checked_num_elements(out_dims, 4, size_t{1} << 31, &out_elements))
    return fail(ctx, Status::kShapeError, "output [%lld, %lld, %lld, %lld] exceeds 2^31 elements (pads %lld, %lld)",
                static_cast<long long>(out_dims[0]), static_cast<long long>(out_dims[1]),
                static_cast<long long>(out_dims[2]), static_cast<long long>(out_dims[3]),
                static_cast<long long>(win.h.pad_begin), static_cast<long long>(win.w.pad_begin));
  fill_conv_params(x->shape, co, a.group, win, p);
  return Status::kOk;
}

}  // namespace

Status conv2d_int8_prepare(OpContext* ctx) {
  if (ctx->input(0) == nullptr || ctx->input(1) == nullptr || ctx->output(0) == nullptr)
    return fail(ctx, Status::kInvalidModel, "needs inputs x and weight and one output");
  if (ctx->input(3) != nullptr) return fail(ctx, Status::kUnsupported, "int8 CONV_2D has no PRELU");
  ConvInt8State* st = new (std::nothrow) ConvInt8State;
  if (st == nullptr) return fail(ctx, Status::kOutOfMemory, "cannot allocate op state");
  ctx->state = st;
  const lite_fb::Conv2DOptions* o = ctx->op->options_as_Conv2DOptions();
  Status s = per_tensor_int8(ctx, ctx->input(0), "x", &st->in);
  if (s == Status::kOk) s = per_tensor_int8(ctx, ctx->output(0), "y", &st->out);
  if (s == Status::kOk) s = geometry(ctx, o, &st->params);
  if (s != Status::kOk) return s;
  const int64_t co = static_cast<int64_t>(st->params.out_c);
  const TensorRef* bias = ctx->input(2);
  if (bias != nullptr && (bias->dtype != lite_fb::DType::INT32 || bias->shape.num_elements() != co))
    return fail(ctx, Status::kInvalidModel, "int8 CONV_2D bias must be INT32 with %lld values",
                static_cast<long long>(co));
  s = channel_multipliers(ctx, ctx->input(1), co, 0, st->in, st->out, &st->multiplier, &st->shift);
  if (s == Status::kOk)
    s = activation_range_int8(ctx, o != nullptr ? o->activation() : nullptr, st->out, &st->act_min, &st->act_max);
  if (s != Status::kOk) return s;
  const lite_conv2d_params& p = st->params;
  size_t tile = 0;
  double saving = 0.0;
  st->algorithm = choose_algorithm(p, ctx->input(1), bias, st->in.zero_point, true, &tile, &saving);
  if (st->algorithm == ConvInt8Algorithm::kWinograd && !winograd_kept(ctx, p, tile, saving))
    st->algorithm = choose_algorithm(p, ctx->input(1), bias, st->in.zero_point, false, &tile, &saving);
  if (st->algorithm == ConvInt8Algorithm::kWinograd) {
    const int8_t* weight = static_cast<const int8_t*>(ctx->input(1)->data);
    st->winograd = lite_qs8_winograd_select(lite_cpu_features(), tile);
    st->winograd_packed = op_allocate(ctx, lite_qs8_winograd_packed_size(&p, tile), "the Winograd weight");
    if (st->winograd_packed == nullptr) return Status::kOutOfMemory;
    lite_qs8_winograd_pack(&p, tile, weight,
                           bias != nullptr ? static_cast<const int32_t*>(bias->data) : nullptr, st->in.zero_point,
                           st->multiplier.data(), st->shift.data(), st->winograd_packed);
    st->thread_scratch = (lite_qs8_winograd_scratch_size(&p, tile) + 63) / 64 * 64;
    ctx->scratch_bytes_requested = static_cast<size_t>(ctx->num_threads) * st->thread_scratch;
  } else if (st->algorithm == ConvInt8Algorithm::kDepthwise) {
    st->depthwise = lite_qs8_dwconv_select(lite_cpu_features(), &p);
    const size_t bytes = lite_qs8_dwconv_packed_size(&p);
    st->depthwise_packed = op_allocate(ctx, bytes, "the packed weight");
    if (st->depthwise_packed == nullptr) return Status::kOutOfMemory;
    lite_qs8_dwconv_pack(&p, static_cast<const int8_t*>(ctx->input(1)->data),
                         bias != nullptr ? static_cast<const int32_t*>(bias->data) : nullptr, st->in.zero_point,
                         st->multiplier.data(), st->shift.data(), st->depthwise_packed);
  } else if (st->algorithm == ConvInt8Algorithm::kGrouped) {
    st->grouped = grouped_conv_create_int8(ctx, p, static_cast<const int8_t*>(ctx->input(1)->data),
                                           bias != nullptr ? static_cast<const int32_t*>(bias->data) : nullptr,
                                           st->in.zero_point, st->multiplier.data(), st->shift.data(),
                                           lite_qs8_gemm_params{st->out.zero_point, st->act_min, st->act_max});
    if (st->grouped == nullptr) return Status::kOutOfMemory;
    ctx->scratch_bytes_requested = grouped_conv_scratch_bytes(*st->grouped, ctx->num_threads);
  } else if (st->algorithm != ConvInt8Algorithm::kReference) {
    const int32_t* bias_data = bias != nullptr ? static_cast<const int32_t*>(bias->data) : nullptr;
    st->rows = p;
    if (st->algorithm == ConvInt8Algorithm::kIm2colGemm) st->rows.in_c = rows_gemm_channels(p, bias_data);
    const size_t k = p.kernel_h * p.kernel_w * st->rows.in_c;
    const int8_t* weight = static_cast<const int8_t*>(ctx->input(1)->data);
    std::vector<int8_t> padded_weight;
    if (st->rows.in_c != p.in_c) {  // [co, kh, kw, ci] -> [co, kh, kw, rows.in_c], zeros in the added channels
      padded_weight.assign(p.out_c * k, 0);
      for (size_t tap = 0; tap < p.out_c * p.kernel_h * p.kernel_w; ++tap)
        std::memcpy(padded_weight.data() + tap * st->rows.in_c, weight + tap * p.in_c, p.in_c);
      weight = padded_weight.data();
    }
    // The .lite weight [co, kh, kw, ci] is W^T: W[p, j] = weight[j * k + p].
    st->gemm = packed_gemm_int8_create(ctx, p.out_c, k, weight, 1, k, bias_data, st->in.zero_point, st->multiplier.data(),
                                       st->shift.data(),
                                       lite_qs8_gemm_params{st->out.zero_point, st->act_min, st->act_max});
    if (st->gemm == nullptr) return Status::kOutOfMemory;
    if (st->algorithm == ConvInt8Algorithm::kIm2colGemm && rows_gemm_applies(st->rows, st->gemm->config)) {
      st->algorithm = ConvInt8Algorithm::kRowsGemm;
      st->runs = lite_qs8_gemm_runs_ukernel_select(st->gemm->config);
      interior_columns(p, &st->interior_begin, &st->interior_end);
      st->task_rows = (kRowsGemmTaskPixels + p.out_w - 1) / p.out_w;
      // aarch64 dotprod's 4-row tiles: at least 4 border pixels per task when a row has 2 (fewer run in
      // intrinsics, one 4-row tile each)
      if (st->gemm->config->mr > 8 && st->task_rows < 2) st->task_rows = 2;
      const size_t borders = p.out_w - (st->interior_end - st->interior_begin);
      // per thread: the border pixels' im2col rows, then their outputs before they are scattered
      st->thread_scratch = st->task_rows * borders * (k + p.out_c);
      if (st->rows.in_c != p.in_c) {
        st->padded_input_bytes = (p.batch * p.in_h * p.in_w * st->rows.in_c + 63) / 64 * 64;
        st->pad_channels = lite_s8_pad_channels_select(lite_cpu_features(), p.in_c, st->rows.in_c);
      }
      ctx->scratch_bytes_requested =
          st->padded_input_bytes + static_cast<size_t>(ctx->num_threads) * st->thread_scratch;
      size_t pad_row_bytes = 0;
      if (!checked_mul(p.out_w, p.stride_w, &pad_row_bytes) || !checked_add(pad_row_bytes, p.kernel_w, &pad_row_bytes) ||
          !checked_mul(pad_row_bytes, st->rows.in_c, &pad_row_bytes))
        return fail(ctx, Status::kShapeError, "the padding row's size overflows");
      st->pad_row = static_cast<int8_t*>(op_allocate(ctx, pad_row_bytes, "the padding row"));
      if (st->pad_row == nullptr) return Status::kOutOfMemory;
      std::memset(st->pad_row, static_cast<int8_t>(st->in.zero_point), pad_row_bytes);
    } else if (st->algorithm == ConvInt8Algorithm::kIm2colGemm) {
      st->im2col_rows = im2col_int8_tile_rows(k, st->gemm->config->mr);
      st->packed_a = lite_qs8_gemm_packed_a_select(st->gemm->config);
      st->thread_scratch = st->im2col_rows * k;
      if (st->packed_a != nullptr) st->thread_scratch += st->packed_a->packed_a_bytes(st->im2col_rows, k);
      ctx->scratch_bytes_requested = static_cast<size_t>(ctx->num_threads) * st->thread_scratch;
    } else {
      // 1x1: packing costs about what the kernel saves on one panel (MobileNetV2's 16-channel layers
      // measured the same either way under qemu), and layers have several
      st->packed_a = lite_qs8_gemm_packed_a_select(st->gemm->config);
      if (st->packed_a != nullptr) {
        st->thread_scratch = st->packed_a->packed_a_bytes(kPackedA1x1Rows, k);
        ctx->scratch_bytes_requested = static_cast<size_t>(ctx->num_threads) * st->thread_scratch;
      }
    }
  }
  TensorRef* y = ctx->output(0);
  set_nhwc_output(y, lite_fb::DType::INT8, st->params.batch, st->params.out_h, st->params.out_w, st->params.out_c);
  return Status::kOk;
}

void conv2d_int8_free_state(void* state) {
  ConvInt8State* st = static_cast<ConvInt8State*>(state);
  if (st != nullptr) {
    packed_gemm_int8_free(st->gemm);
    grouped_conv_free(st->grouped);
    std::free(st->depthwise_packed);
    std::free(st->winograd_packed);
    std::free(st->pad_row);
  }
  delete st;
}

}  // namespace lite
