// CONV_2D on int8 tensors: x INT8 [N,H,W,Ci] (per tensor), weight INT8 [Co,KH,KW,Ci/group]
// (symmetric, per output channel), bias INT32 [Co] (scale s_in * s_w[c], zero point 0) optional,
// y INT8 [N,OH,OW,Co] (per tensor). Fused RELU / CLIP become the output clamp. The per-channel
// multipliers are computed once at prepare (quant_params_int8.h). With a constant weight and bias,
// groups == 1 runs the packed int8 GEMM (conv_gemm_int8.h: a 1x1 stride-1 conv reads the NHWC input
// as A in place; where the GEMM has a runs kernel, qs8_gemm_packed_runs.h, other convs read their
// kernel rows in place too and copy only the pixels at the left / right padding; the rest go through
// im2col, packed once more where the kernel has a packed-A form, qs8_gemm_packed_a.h; a conv whose
// kernel rows are not whole k-groups of the runs kernel, like a 3x3 stem on 3 channels, reads them in
// place from a copy of the input with its channels padded, its weights padded with zeros) and a
// depthwise conv the fast depthwise kernel where the CPU has one (qs8_dwconv.h); another grouped conv
// one packed GEMM per group (conv2d_grouped.h); a 3x3 stride-1 conv
// the int8 Winograd F(2,3) or F(4,3) where its cost rule says it takes fewer instructions than the GEMM (ARM
// without dotprod / i8mm, qs8_winograd.h); every path gives the reference kernel's bytes.
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <new>
#include <vector>

#include "checked_math.h"
#include "conv2d_grouped.h"
#include "conv_gemm_int8.h"
#include "lite_kernels/cpu_features.h"
#include "lite_kernels/qs8_conv2d_fully_connected.h"
#include "lite_kernels/qs8_dwconv.h"
#include "lite_kernels/qs8_gemm_packed_a.h"
#include "lite_kernels/qs8_gemm_packed_runs.h"
#include "lite_kernels/qs8_winograd.h"
#include "lite_kernels/s8_pad_channels.h"
#include "memory_budget.h"
#include "op_api.h"
#include "op_util.h"
#include "quant_params_int8.h"
#include "window_geometry.h"

namespace lite {
namespace {

// How an int8 convolution runs; choose_algorithm is the one place that decides.
enum class ConvInt8Algorithm {
  kReference,   // lite_qs8_conv2d_nhwc_ref: any conv (computed weights, sums past int32)
  kGemm1x1,     // 1x1, stride 1, no padding: the NHWC input is the GEMM's A as it is
  kIm2colGemm,  // groups == 1: im2col of a block of output pixels into per-thread scratch + GEMM
  kRowsGemm,    // groups == 1 with a runs kernel (qs8_gemm_packed_runs.h): kernel rows read from the
                // input (or its channel-padded copy) in place; only pixels whose window crosses the
                // left / right padding copied
  kDepthwise,   // groups == in_c == out_c: lite_qs8_dwconv_select's kernel over packed taps
  kWinograd,    // 3x3 stride 1, groups 1, where lite_qs8_winograd_choose finds an exact F(m,3) cheaper
  kGrouped,     // groups > 1, not depthwise: one GEMM per group (conv2d_grouped.h)
};

struct ConvInt8State {
  lite_conv2d_params params{};
  QuantInt8 in, out;
  int32_t act_min = -128, act_max = 127;
  std::vector<int32_t> multiplier, shift;
  ConvInt8Algorithm algorithm = ConvInt8Algorithm::kReference;
  PackedGemmInt8* gemm = nullptr;
  size_t im2col_rows = 0;  // kIm2colGemm: output pixels per tile (per-thread scratch rows)
  // kIm2colGemm / kGemm1x1 with a packed-A kernel: the im2col rows (the input rows) are packed once
  // per tile of rows for it and used by every weight panel
  const lite_qs8_gemm_packed_a_kernel* packed_a = nullptr;
  size_t thread_scratch = 0;  // bytes of scratch per thread
  lite_qs8_dwconv_fn depthwise = nullptr;  // kDepthwise
  // kRowsGemm: output columns [interior_begin, interior_end) of every output row have their whole
  // window inside the input's width; a task is `task_rows` output rows; kernel rows above / below
  // the input read `pad_row` (input zero points)
  lite_qs8_gemm_runs_ukernel_fn runs = nullptr;
  size_t interior_begin = 0, interior_end = 0, task_rows = 0;
  int8_t* pad_row = nullptr;  // op_allocate'd
  // kRowsGemm: the geometry the rows GEMM runs. Its in_c exceeds params.in_c when the kernel rows
  // (kernel_w * in_c bytes) are not whole k-groups: eval then first copies x into the start of the
  // scratch (padded_input_bytes) with that many channels, and the packed weight has zeros there.
  lite_conv2d_params rows{};
  size_t padded_input_bytes = 0;
  lite_s8_pad_channels_fn pad_channels = nullptr;
  void* depthwise_packed = nullptr;
  const lite_qs8_winograd_kernel* winograd = nullptr;  // kWinograd
  void* winograd_packed = nullptr;                      // op_allocate'd
  GroupedConv* grouped = nullptr;                       // kGrouped
};

// 1x1 convolutions with a packed-A kernel (qs8_gemm_packed_a.h) pack A in tiles of this many pixels, all
// weight panels of a tile in one task (A packed once).
constexpr size_t kPackedA1x1Rows = 64;

// kRowsGemm: at most this many kernel rows (the runs' pointers live on the stack); about this many
// output pixels per task.
constexpr size_t kRowsGemmMaxKernelH = 16;
constexpr size_t kRowsGemmTaskPixels = 64;

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

// Once per model load: cold (optimized for size; the ARM library's budget).
[[gnu::cold]] Status prepare(OpContext* ctx) {
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

// kRowsGemm over output rows [r0, r1) (r = image * out_h + oh): the border pixels through im2col and
// the plain kernel, then per weight panel and output row the interior pixels with the runs kernel.
void rows_gemm_task(const ConvInt8State& st, const lite_conv2d_params& p, const int8_t* x, size_t r0, size_t r1,
                    int8_t* scratch, int8_t* y) {
  const PackedGemmInt8& g = *st.gemm;
  const size_t k = g.k, n = g.n, ci = p.in_c;
  const size_t left = st.interior_begin, right = p.out_w - st.interior_end;
  const size_t borders = (left + right) * (r1 - r0);
  if (borders > 0) {
    int8_t* cols = scratch;
    int8_t* out = scratch + st.task_rows * (left + right) * k;
    const int8_t pad = static_cast<int8_t>(st.in.zero_point);
    size_t b = 0;
    for (size_t r = r0; r < r1; ++r) {
      im2col_int8_rows(p, x, pad, r * p.out_w, left, cols + b * k);
      im2col_int8_rows(p, x, pad, r * p.out_w + st.interior_end, right, cols + (b + left) * k);
      b += left + right;
    }
    lite_qs8_gemm_packed_compute(g.config, borders, 0, n, k, cols, k, g.packed, &g.params, out, n);
    b = 0;
    for (size_t r = r0; r < r1; ++r) {
      for (size_t ow = 0; ow < p.out_w; ++ow) {
        if (ow == left) ow = st.interior_end;
        if (ow == p.out_w) break;
        std::memcpy(y + (r * p.out_w + ow) * n, out + b++ * n, n);
      }
    }
  }
  const size_t mr_max = g.config->mr, nr = g.config->nr, run_bytes = p.kernel_w * ci;
  const size_t a_stride = p.stride_w * ci, interior = st.interior_end - st.interior_begin;
  const size_t panel_bytes = lite_qs8_gemm_panel_bytes(g.config, k);
  const ptrdiff_t iw0 = static_cast<ptrdiff_t>(st.interior_begin * p.stride_w) - static_cast<ptrdiff_t>(p.pad_left);
  for (size_t j0 = 0; j0 < n; j0 += nr) {
    const size_t nc = n - j0 < nr ? n - j0 : nr;
    const void* panel = static_cast<const uint8_t*>(g.packed) + (j0 / nr) * panel_bytes;
    for (size_t r = r0; r < r1; ++r) {
      const size_t image = r / p.out_h, oh = r % p.out_h;
      const int8_t* runs[kRowsGemmMaxKernelH];
      for (size_t kh = 0; kh < p.kernel_h; ++kh) {
        const ptrdiff_t ih =
            static_cast<ptrdiff_t>(oh * p.stride_h + kh * p.dilation_h) - static_cast<ptrdiff_t>(p.pad_top);
        runs[kh] = ih < 0 || ih >= static_cast<ptrdiff_t>(p.in_h)
                       ? st.pad_row
                       : x + ((image * p.in_h + static_cast<size_t>(ih)) * p.in_w) * ci + iw0 * static_cast<ptrdiff_t>(ci);
      }
      int8_t* c = y + (r * p.out_w + st.interior_begin) * n + j0;
      for (size_t i0 = 0; i0 < interior; i0 += mr_max) {
        const int8_t* shifted[kRowsGemmMaxKernelH];
        for (size_t kh = 0; kh < p.kernel_h; ++kh) shifted[kh] = runs[kh] + i0 * a_stride;
        const size_t mr = interior - i0 < mr_max ? interior - i0 : mr_max;
        st.runs(mr, nc, p.kernel_h, run_bytes, shifted, a_stride, panel, c + i0 * n, n, &g.params);
      }
    }
  }
}

void run_rows_gemm(const ConvInt8State& st, const lite_conv2d_params& p, const int8_t* x, int8_t* scratch,
                   ThreadPool* pool, int8_t* y) {
  const size_t rows = p.batch * p.out_h, per_task = st.task_rows;
  parallel_for(pool, (rows + per_task - 1) / per_task, [&](size_t t, int worker) {
    const size_t r0 = t * per_task, r1 = rows - r0 < per_task ? rows : r0 + per_task;
    rows_gemm_task(st, p, x, r0, r1, scratch + static_cast<size_t>(worker) * st.thread_scratch, y);
  });
}

Status eval(OpContext* ctx) {
  const ConvInt8State* st = static_cast<const ConvInt8State*>(ctx->state);
  if (ctx->output(0)->shape.num_elements() == 0) return Status::kOk;
  lite_qs8_requant_params rq{st->in.zero_point, st->out.zero_point, st->act_min, st->act_max, st->multiplier.data(),
                             st->shift.data()};
  const TensorRef* bias = ctx->input(2);
  const lite_conv2d_params& p = st->params;
  const int8_t* x = static_cast<const int8_t*>(ctx->input(0)->data);
  int8_t* y = static_cast<int8_t*>(ctx->output(0)->data);
  const size_t pixels = p.batch * p.out_h * p.out_w;
  if (st->algorithm == ConvInt8Algorithm::kGemm1x1 && st->packed_a != nullptr) {
    const PackedGemmInt8& g = *st->gemm;
    int8_t* scratch = static_cast<int8_t*>(ctx->scratch);
    parallel_for(ctx->pool, (pixels + kPackedA1x1Rows - 1) / kPackedA1x1Rows, [&](size_t t, int worker) {
      const size_t first = t * kPackedA1x1Rows;
      const size_t count = pixels - first < kPackedA1x1Rows ? pixels - first : kPackedA1x1Rows;
      int8_t* packed_a = scratch + static_cast<size_t>(worker) * st->thread_scratch;
      st->packed_a->pack_a(count, g.k, x + first * p.in_c, p.in_c, packed_a);
      st->packed_a->compute(g.config, count, g.n, g.k, packed_a, g.packed, &g.params, y + first * p.out_c, p.out_c);
    });
    return Status::kOk;
  }
  if (st->algorithm == ConvInt8Algorithm::kGemm1x1) {
    packed_gemm_int8_run(*st->gemm, ctx->pool, pixels, x, p.in_c, y, p.out_c);
    return Status::kOk;
  }
  if (st->algorithm == ConvInt8Algorithm::kWinograd) {
    const lite_qs8_gemm_params params{st->out.zero_point, st->act_min, st->act_max};
    uint8_t* scratch = static_cast<uint8_t*>(ctx->scratch);
    // Tasks of 4 groups (32 tiles: 128 pixels with F(2,3), 512 with F(4,3)) and every output-channel
    // block. With threads, where that makes fewer than 4 tasks per thread (the last stages: a 7x7
    // output is one group of F(4,3)), fewer groups per task, then the blocks split too, >= 4 blocks per
    // task (each task transforms its groups' input again). Any split gives the same bytes.
    const auto ceil_div = [](size_t a, size_t b) { return (a + b - 1) / b; };
    const size_t groups = lite_qs8_winograd_groups(&p, st->winograd->tile), blocks = lite_qs8_winograd_blocks(&p);
    const size_t want = ctx->num_threads > 1 ? 4 * static_cast<size_t>(ctx->num_threads) : 0;
    const size_t per_task = ceil_div(groups, 4) < want ? std::max<size_t>(groups / want, 1) : 4;
    const size_t group_tasks = ceil_div(groups, per_task);
    const size_t block_splits =
        group_tasks < want ? std::min(ceil_div(want, group_tasks), std::max<size_t>(blocks / 4, 1)) : 1;
    const size_t blocks_per_task = ceil_div(blocks, block_splits), block_tasks = ceil_div(blocks, blocks_per_task);
    parallel_for(ctx->pool, group_tasks * block_tasks, [&](size_t t, int worker) {
      const size_t g0 = t / block_tasks * per_task, b0 = t % block_tasks * blocks_per_task;
      lite_qs8_winograd_run(st->winograd, &p, st->winograd_packed, &params, x, y, g0, std::min(groups, g0 + per_task),
                            b0, std::min(blocks, b0 + blocks_per_task),
                            scratch + static_cast<size_t>(worker) * st->thread_scratch);
    });
    return Status::kOk;
  }
  if (st->algorithm == ConvInt8Algorithm::kDepthwise) {
    const lite_qs8_gemm_params params{st->out.zero_point, st->act_min, st->act_max};
    const size_t rows = p.batch * p.out_h;
    // output rows per task: about 32 KiB or more (a kernel may set up per call: the aarch64 3x3 one
    // unpacks each 16-channel step's taps once per call)
    const size_t tile = 1 + 32768 / (p.out_w * p.out_c + 1);
    parallel_for(ctx->pool, (rows + tile - 1) / tile, [&](size_t t, int) {
      const size_t r0 = t * tile, r1 = rows - r0 < tile ? rows : r0 + tile;
      st->depthwise(&p, st->depthwise_packed, &params, x, y, r0, r1);
    });
    return Status::kOk;
  }
  if (st->algorithm == ConvInt8Algorithm::kRowsGemm) {
    int8_t* scratch = static_cast<int8_t*>(ctx->scratch);
    const int8_t* rows_x = x;
    if (st->padded_input_bytes > 0) {
      const size_t input_rows = p.batch * p.in_h, pixels_per_row = p.in_w;
      // about 16 KiB of input per task
      const size_t per_task = 1 + 16384 / (pixels_per_row * p.in_c + 1);
      parallel_for(ctx->pool, (input_rows + per_task - 1) / per_task, [&](size_t t, int) {
        const size_t r0 = t * per_task, r1 = input_rows - r0 < per_task ? input_rows : r0 + per_task;
        // the added channels' weights are zero: any fill gives the same sums, a fixed one fixed scratch
        st->pad_channels((r1 - r0) * pixels_per_row, p.in_c, st->rows.in_c, x + r0 * pixels_per_row * p.in_c,
                         static_cast<int8_t>(st->in.zero_point), scratch + r0 * pixels_per_row * st->rows.in_c);
      });
      rows_x = scratch;
      scratch += st->padded_input_bytes;
    }
    run_rows_gemm(*st, st->rows, rows_x, scratch, ctx->pool, y);
    return Status::kOk;
  }
  if (st->algorithm == ConvInt8Algorithm::kIm2colGemm) {
    const PackedGemmInt8& g = *st->gemm;
    const size_t k = g.k, rows = st->im2col_rows;
    int8_t* scratch = static_cast<int8_t*>(ctx->scratch);
    const int8_t pad = static_cast<int8_t>(st->in.zero_point);
    parallel_for(ctx->pool, (pixels + rows - 1) / rows, [&](size_t t, int worker) {
      const size_t first = t * rows, count = pixels - first < rows ? pixels - first : rows;
      int8_t* cols = scratch + static_cast<size_t>(worker) * st->thread_scratch;
      im2col_int8_rows(p, x, pad, first, count, cols);
      if (st->packed_a != nullptr) {
        int8_t* packed_a = cols + rows * k;
        st->packed_a->pack_a(count, k, cols, k, packed_a);
        st->packed_a->compute(g.config, count, g.n, k, packed_a, g.packed, &g.params, y + first * p.out_c, p.out_c);
      } else {
        lite_qs8_gemm_packed_compute(g.config, count, 0, g.n, k, cols, k, g.packed, &g.params, y + first * p.out_c,
                                     p.out_c);
      }
    });
    return Status::kOk;
  }
  if (st->algorithm == ConvInt8Algorithm::kGrouped) {
    grouped_conv_run_int8(*st->grouped, ctx->pool, x, y, ctx->scratch);
    return Status::kOk;
  }
  lite_qs8_conv2d_nhwc_ref(&st->params, &rq, static_cast<const int8_t*>(ctx->input(0)->data),
                           static_cast<const int8_t*>(ctx->input(1)->data),
                           bias != nullptr ? static_cast<const int32_t*>(bias->data) : nullptr,
                           static_cast<int8_t*>(ctx->output(0)->data));
  return Status::kOk;
}

void free_state(void* state) {
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

}  // namespace

OpKernel conv2d_int8_op_kernel() {
  OpKernel k;
  k.prepare = prepare;
  k.eval = eval;
  k.free_state = free_state;
  return k;
}

}  // namespace lite
