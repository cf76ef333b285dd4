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
#include <cstring>

#include "conv2d_int8_state.h"
#include "lite_kernels/qs8_conv2d_fully_connected.h"
#include "op_util.h"

namespace lite {
namespace {

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

}  // namespace

OpKernel conv2d_int8_op_kernel() {
  OpKernel k;
  k.prepare = conv2d_int8_prepare;
  k.eval = eval;
  k.free_state = conv2d_int8_free_state;
  return k;
}

}  // namespace lite
