// Winograd CONV_2D glue: cost rule, weight transform at prepare, tile-row tasks at eval
// (see conv2d_winograd.h).
#include "conv2d_winograd.h"

#include <cmath>
#include <cstdlib>
#include <new>

#include "lite_kernels/cpu_features.h"
#include "memory_budget.h"
#include "thread_pool.h"

namespace lite {

int winograd_conv_choose(const lite_conv2d_params& p) {
  if (!lite_f32_winograd_applies(&p) || p.batch == 0 || p.out_h == 0 || p.out_w == 0) return 0;
  if (p.stride_h == 2) return lite_f32_winograd_choose_stride2(p.in_c, p.out_c, p.out_h, p.out_w);
  return lite_f32_winograd_choose(p.in_c, p.out_c, p.out_h, p.out_w);
}

// Under a packed-weight bound (lite_runtime.h, packed_weight_ratio) the op runs, until its offer is
// granted, with the tile size whose run-time weight transform costs least in all, and offers the copy
// that saves most per byte against that (by the rule's estimates: F(2,3)'s 16/9 of the weight on
// ResNet-18's 7x7 512-channel layers, where F(4,3) saves more but needs 36/9). Stride 2 runs as
// im2col + GEMM there (F(7,2)'s copy is 28x the weight).
bool winograd_conv_keeps_transformed(OpContext* ctx, const lite_conv2d_params& p, int* m) {
  if (ctx->memory == nullptr || !ctx->memory->transformed_bounded()) return true;
  if (*m == 7) return false;
  const lite_f32_gemm_config* gemm = lite_f32_gemm_config_select(lite_cpu_features(), p.out_c);
  double cost[7] = {}, fallback_cost = HUGE_VAL, best = 0.0;
  int fallback = *m, offered = 0;
  for (int t = 2; t <= 6; t += 2) {
    cost[t] = static_cast<double>(p.batch) * lite_f32_winograd_cost(t, p.in_c, p.out_c, p.out_h, p.out_w);
    const double run_time = cost[t] + lite_f32_winograd_transform_cost(t, &p);
    if (run_time < fallback_cost) {
      fallback_cost = run_time;
      fallback = t;
    }
  }
  size_t bytes = 0;
  const size_t threads = static_cast<size_t>(ctx->num_threads > 0 ? ctx->num_threads : 1);
  const size_t run_time_scratch = threads * lite_f32_winograd_scratch_size_unpacked(gemm, fallback, &p);
  for (int t = 2; t <= 6; t += 2) {
    // the copy, and the scratch a larger tile needs beyond the run-time one's
    const size_t kept_scratch = threads * lite_f32_winograd_scratch_size(t, &p);
    const size_t b = (lite_f32_winograd_packed_weight_size(gemm, t, &p) +
                      (kept_scratch > run_time_scratch ? kept_scratch - run_time_scratch : 0)) * sizeof(float);
    if ((fallback_cost - cost[t]) / static_cast<double>(b) > best) {
      best = (fallback_cost - cost[t]) / static_cast<double>(b);
      offered = t;
      bytes = b;
    }
  }
  if (offered == 0 || !ctx->kept_granted) {
    ctx->kept_offer_bytes = bytes;
    ctx->kept_offer_saving = offered != 0 ? fallback_cost - cost[offered] : 0.0;
    *m = fallback;
    return false;
  }
  *m = offered;
  return true;
}

namespace {

// The kept transformed weight; false with the message in ctx's error sink.
bool pack(OpContext* ctx, const lite_conv2d_params& p, WinogradConv* wg, const float* weight) {
  const size_t n = lite_f32_winograd_packed_weight_size(wg->gemm, wg->m, &p);
  wg->packed = static_cast<float*>(op_allocate(ctx, n * sizeof(float), "the packed weight"));
  if (wg->packed == nullptr) return false;
  if (!lite_f32_winograd_pack_weight(wg->gemm, wg->m, &p, weight, wg->packed)) {
    fail(ctx, Status::kOutOfMemory, "cannot allocate the Winograd transform's temporary");
    return false;
  }
  return true;
}

}  // namespace

WinogradConv* winograd_conv_create(OpContext* ctx, const lite_conv2d_params& p, int m, const float* weight,
                                   bool keep) {
  WinogradConv* wg = new (std::nothrow) WinogradConv();
  if (wg == nullptr) {
    fail(ctx, Status::kOutOfMemory, "cannot allocate the op state");
    return nullptr;
  }
  wg->m = m;
  wg->gemm = lite_f32_gemm_config_select(lite_cpu_features(), p.out_c);
  wg->fn = lite_f32_winograd_select();
  if (keep && !pack(ctx, p, wg, weight)) {
    winograd_conv_free(wg);
    return nullptr;
  }
  wg->weight = keep ? nullptr : weight;
  wg->scratch_floats = keep ? lite_f32_winograd_scratch_size(m, &p)
                            : lite_f32_winograd_scratch_size_unpacked(wg->gemm, m, &p);
  // A task covers at least one block of tiles so the GEMMs see full blocks.
  const size_t tiles_x = (p.out_w + static_cast<size_t>(m) - 1) / static_cast<size_t>(m);
  const size_t block = lite_f32_winograd_block_tiles(m, &p);
  wg->rows_per_task = (block + tiles_x - 1) / tiles_x;
  return wg;
}

void winograd_conv_free(WinogradConv* wg) {
  if (wg == nullptr) return;
  std::free(wg->packed);
  delete wg;
}

size_t winograd_conv_scratch_bytes(const WinogradConv& wg, int num_threads) {
  return static_cast<size_t>(num_threads > 0 ? num_threads : 1) * wg.scratch_floats * sizeof(float);
}

// Output-channel groups per block of tile rows: only as many as it takes for one task per thread
// (ResNet-18's 7x7 layers are one row task: two groups of 8 weight panels at 2 threads). Each group
// transforms the input tiles again and streams its panels as a shorter run, so more groups cost more
// than an uneven last task: ResNet-18 at 2 threads, interleaved with onnxruntime, 11.1-11.2 ms with
// groups up to one task per thread, 12.1-12.4 ms with up to two per thread. Any split gives the
// same values, so it may depend on the thread count.
size_t winograd_channel_groups(const WinogradConv& wg, const lite_conv2d_params& p, size_t row_tasks, int threads) {
  const size_t panels = (p.out_c + wg.gemm->nr - 1) / wg.gemm->nr;
  const size_t wanted = static_cast<size_t>(threads > 1 ? threads : 0);
  size_t groups = 1;
  while (row_tasks * groups < wanted && groups * 2 <= panels) groups *= 2;
  return groups;
}

void winograd_conv_run(const WinogradConv& wg, const lite_conv2d_params& p, ThreadPool* pool, const float* x,
                       const float* bias, const lite_activation* act, float* y, void* scratch) {
  const size_t rows = lite_f32_winograd_tile_rows(wg.m, &p), per_task = wg.rows_per_task;
  const size_t row_tasks = (rows + per_task - 1) / per_task;
  const size_t groups = winograd_channel_groups(wg, p, row_tasks, pool != nullptr ? pool->num_threads() : 1);
  const size_t nr = wg.gemm->nr, panels = (p.out_c + nr - 1) / nr;
  float* base = static_cast<float*>(scratch);
  parallel_for(pool, row_tasks * groups, [&](size_t t, int worker) {
    const size_t r = t / groups, g = t % groups;
    const size_t begin = r * per_task, end = begin + per_task < rows ? begin + per_task : rows;
    const size_t co_begin = panels * g / groups * nr, co_end_panel = panels * (g + 1) / groups * nr;
    wg.fn(wg.gemm, wg.m, &p, x, wg.packed, wg.weight, bias, act, y, base + static_cast<size_t>(worker) * wg.scratch_floats,
          begin, end, co_begin, co_end_panel < p.out_c ? co_end_panel : p.out_c);
  });
}

}  // namespace lite
