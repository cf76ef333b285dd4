#include "packed_gemm.h"

#include <cstdlib>
#include <new>

#include "lite_kernels/cpu_features.h"
#include "lite_kernels/f32_gemv_packed.h"
#include "lite_kernels/f32_vactivation.h"
#include "../memory_budget.h"

namespace lite {

PackedGemm* packed_gemm_create(OpContext* ctx, size_t n, size_t k, const float* b, size_t stride_k,
                               size_t stride_n, const float* bias) {
  PackedGemm* g = new (std::nothrow) PackedGemm();
  if (g == nullptr) {
    fail(ctx, Status::kOutOfMemory, "cannot allocate the op state");
    return nullptr;
  }
  g->config = lite_f32_gemm_config_select(lite_cpu_features(), n);
  g->n = n;
  g->k = k;
  const size_t floats = lite_f32_gemm_packed_size(g->config, n, k);
  g->bytes = floats * sizeof(float) + 64;
  g->packed = static_cast<float*>(op_allocate(ctx, g->bytes, "the packed weight"));
  if (g->packed == nullptr) {
    delete g;
    return nullptr;
  }
  lite_f32_gemm_pack_b(g->config, n, k, b, stride_k, stride_n, bias, g->packed);
  g->source = b;
  g->bias = bias;
  return g;
}

bool packed_gemm_still_valid(const void* state, size_t n, size_t k, const TensorRef& b, const TensorRef* bias) {
  const PackedGemm* g = static_cast<const PackedGemm*>(state);
  return g != nullptr && g->n == n && g->k == k && g->source == b.data &&
         (b.is_constant || (b.value_version != 0 && b.value_version == g->value_version)) &&
         (bias == nullptr ? g->bias == nullptr : (bias->is_constant && g->bias == bias->data));
}

bool packed_gemm_keep(OpContext* ctx, size_t n, size_t k, const TensorRef& b, const TensorRef* bias) {
  if (!packed_gemm_still_valid(ctx->state, n, k, b, bias)) return false;
  return ctx->memory == nullptr || ctx->memory->reserve(static_cast<const PackedGemm*>(ctx->state)->bytes);
}

void packed_gemm_free(PackedGemm* gemm) {
  if (gemm == nullptr) return;
  std::free(gemm->packed);
  delete gemm;
}

namespace {

// The tile grid of packed_gemm_run: row blocks of MR rows and panels of NR columns dealt evenly
// into tiles_m x tiles_n tiles (sizes differ by at most one block or panel).
struct TileGrid {
  size_t blocks, panels, tiles_m, tiles_n;
};

// Tiles of at most 64 rows x 128 columns (A rows stay in L1/L2 across the panels of a tile), split
// further into at least kMinTiles where the matrix allows: first by columns, into a count of column
// tiles that divides the panels (equal tiles; the small-m layers, e.g. 7x7 = 49 rows, are
// weight-heavy: each thread then streams only its own panels), then by rows.
// A fixed 64 x 128 grid left 2 threads with 4:1 or 128:68-row shares on MobileNetV2's 7x7 and 14x14
// layers. The grid depends only on the shape, never on the thread count.
TileGrid tile_grid(size_t m, size_t n, size_t mr, size_t nr) {
  constexpr size_t kMinTiles = 8;
  TileGrid g;
  g.blocks = (m + mr - 1) / mr;
  g.panels = (n + nr - 1) / nr;
  g.tiles_m = (g.blocks * mr + 63) / 64;
  g.tiles_n = (g.panels * nr + 127) / 128;
  if (g.tiles_m == 0) g.tiles_m = 1;
  if (g.tiles_n == 0) g.tiles_n = 1;
  while ((g.tiles_m * g.tiles_n < kMinTiles || g.panels % g.tiles_n != 0) && g.tiles_n < g.panels) ++g.tiles_n;
  while (g.tiles_m * g.tiles_n < kMinTiles && g.tiles_m < g.blocks) ++g.tiles_m;
  return g;
}

}  // namespace

void packed_gemm_run(const PackedGemm& gemm, ThreadPool* pool, size_t m, const float* a, size_t lda,
                     const lite_activation* act, float* c, size_t ldc) {
  const size_t mr = gemm.config->mr, nr = gemm.config->nr;
  const TileGrid g = tile_grid(m, gemm.n, mr, nr);
  // A few rows (a FULLY_CONNECTED / MATMUL over one vector, a 1x1 conv on a pooled 1x1 map, a
  // recurrent step): the microkernel's 1- to 3-row tiles wait on FMA latency, the GEMV keeps several
  // panels in flight. Same sums in the same order; the activation follows on each column block.
  constexpr size_t kGemvRows = 3;
  const lite_f32_gemv_packed_fn gemv = m <= kGemvRows ? lite_f32_gemv_packed_select(gemm.config) : nullptr;
  if (gemv != nullptr) {
    // A small product (a recurrent step's h · Rᵀ) runs as one task: a pool hand-off costs more.
    constexpr size_t kMinPooledMacs = size_t{1} << 16;
    const size_t tasks = m * gemm.n * gemm.k < kMinPooledMacs ? 1 : g.tiles_n;
    parallel_for(pool, tasks, [&](size_t tn, int) {
      const size_t j0 = g.panels * tn / tasks * nr, j1 = g.panels * (tn + 1) / tasks * nr;
      const size_t cols = (j1 < gemm.n ? j1 : gemm.n) - j0;
      lite_activation shifted = act != nullptr ? *act : lite_activation{LITE_ACT_NONE, 0.0f, 0.0f, nullptr};
      if (shifted.prelu_slope != nullptr) shifted.prelu_slope += j0;  // its channel index restarts at j0
      for (size_t i = 0; i < m; ++i) {
        gemv(cols, gemm.k, a + i * lda, gemm.packed + j0 * (gemm.k + 1), c + i * ldc + j0);
        lite_f32_activate(&shifted, c + i * ldc + j0, 1, cols);
      }
    });
    return;
  }
  parallel_for(pool, g.tiles_m * g.tiles_n, [&](size_t t, int) {
    const size_t tm = t / g.tiles_n, tn = t % g.tiles_n;
    const size_t i0 = g.blocks * tm / g.tiles_m * mr, i1 = g.blocks * (tm + 1) / g.tiles_m * mr;
    const size_t j0 = g.panels * tn / g.tiles_n * nr, j1 = g.panels * (tn + 1) / g.tiles_n * nr;
    const size_t rows = (i1 < m ? i1 : m) - i0;
    lite_f32_gemm_packed_compute(gemm.config, rows, j0, j1 < gemm.n ? j1 : gemm.n, gemm.k, a + i0 * lda, lda,
                                 gemm.packed, act, c + i0 * ldc, ldc);
  });
}

}  // namespace lite
