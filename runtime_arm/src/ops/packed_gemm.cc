#include "packed_gemm.h"

#include <cstdlib>
#include <new>

#include "lite_kernels/cpu_features.h"

namespace lite {

PackedGemm* packed_gemm_create(size_t n, size_t k, const float* b, size_t stride_k, size_t stride_n,
                               const float* bias) {
  PackedGemm* g = new (std::nothrow) PackedGemm();
  if (g == nullptr) return nullptr;
  g->config = lite_f32_gemm_config_select(lite_cpu_features(), n);
  g->n = n;
  g->k = k;
  const size_t floats = lite_f32_gemm_packed_size(g->config, n, k);
  g->packed = static_cast<float*>(std::malloc(floats * sizeof(float) + 64));
  if (g->packed == nullptr) {
    delete g;
    return nullptr;
  }
  lite_f32_gemm_pack_b(g->config, n, k, b, stride_k, stride_n, bias, g->packed);
  return g;
}

void packed_gemm_free(PackedGemm* gemm) {
  if (gemm == nullptr) return;
  std::free(gemm->packed);
  delete gemm;
}

void packed_gemm_run(const PackedGemm& gemm, ThreadPool* pool, size_t m, const float* a, size_t lda,
                     const lite_activation* act, float* c, size_t ldc) {
  const size_t mr = gemm.config->mr, nr = gemm.config->nr;
  // Tiles of about 64 rows x 128 columns: A rows stay in L1/L2 across the panels of a tile.
  const size_t tile_m = mr * ((64 + mr - 1) / mr);
  const size_t tile_n = nr * ((128 + nr - 1) / nr);
  const size_t tiles_m = (m + tile_m - 1) / tile_m, tiles_n = (gemm.n + tile_n - 1) / tile_n;
  parallel_for(pool, tiles_m * tiles_n, [&](size_t t, int) {
    const size_t i0 = (t / tiles_n) * tile_m, j0 = (t % tiles_n) * tile_n;
    const size_t rows = m - i0 < tile_m ? m - i0 : tile_m;
    const size_t j1 = gemm.n - j0 < tile_n ? gemm.n : j0 + tile_n;
    lite_f32_gemm_packed_compute(gemm.config, rows, j0, j1, gemm.k, a + i0 * lda, lda, gemm.packed, act, c + i0 * ldc,
                                 ldc);
  });
}

}  // namespace lite
