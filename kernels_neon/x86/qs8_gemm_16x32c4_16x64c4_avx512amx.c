/* AMX int8 GEMM microkernels (qs8_gemm_packed.h): MR 16, NR 32 or 64, KR 4, A_OFFSET 0.
 *
 * tdpbssd multiplies signed bytes by signed bytes into int32 tiles: C (mr x 16 int32 per tile,
 * tmm0..tmm3), A (mr rows x 64 k bytes, tmm4) and B (16 k-groups x 16 columns x 4 bytes, tmm5). The
 * generic pack's [k/4][NR][4] panel is already AMX's B layout: the tile of columns 16q..16q+15 is read
 * with a row stride of 4 * NR bytes. The k % 64 tail runs on its own tile shapes (tmm6, tmm7), its A
 * bytes copied into a zeroed buffer so that no row is read past byte k - 1. Every call loads its
 * tile configuration (rows = mr) and releases the tiles, so other code on the thread (another
 * runtime's AMX kernels) finds no state of ours. The int32 sums are exact (lite_qs8_gemm_is_exact);
 * the bias is added to them and the epilogue is the exact requantization of qs8_requantize_avx512.h,
 * so the bytes equal every other variant's. */
#include <immintrin.h>
#include <string.h>

#include "lite_kernels/qs8_gemm_packed.h"
#include "qs8_gemm_avx512vnni_tile.h"

typedef struct {
  uint8_t palette_id, start_row, reserved[14];
  uint16_t colsb[16];
  uint8_t rows[16];
} amx_tile_config;

static inline __attribute__((always_inline)) void configure(size_t mr, size_t tail_groups) {
  amx_tile_config cfg;
  memset(&cfg, 0, sizeof(cfg));
  cfg.palette_id = 1;
  for (int t = 0; t < 4; ++t) cfg.rows[t] = (uint8_t)mr, cfg.colsb[t] = 64; /* C: mr x 16 int32 */
  cfg.rows[4] = (uint8_t)mr, cfg.colsb[4] = 64;                             /* A: mr x 64 bytes */
  cfg.rows[5] = 16, cfg.colsb[5] = 64;                                      /* B: 16 groups x 16 cols */
  if (tail_groups > 0) {
    cfg.rows[6] = (uint8_t)mr, cfg.colsb[6] = (uint16_t)(4 * tail_groups);
    cfg.rows[7] = (uint8_t)tail_groups, cfg.colsb[7] = 64;
  }
  _tile_loadconfig(&cfg);
}

/* C tile q += A x B(columns 16q..16q+15) for the k-groups [g, g + 16) of the panel. */
#define AMX_STEP(Q, B_TILE, A_TILE)                                                  \
  do {                                                                               \
    _tile_loadd(B_TILE, weights + g * 4 * NR + 64 * (Q), 4 * NR);                    \
    _tile_dpbssd(Q, A_TILE, B_TILE);                                                 \
  } while (0)

static inline __attribute__((always_inline)) void gemm_tile(const size_t NV, size_t mr, size_t nc, size_t k,
                                                            const int8_t* a, size_t a_stride, const void* w,
                                                            int8_t* c, size_t c_stride,
                                                            const lite_qs8_gemm_params* params) {
  const size_t NR = 16 * NV, kc = (k + 3) & ~(size_t)3;
  const uint8_t* panel = (const uint8_t*)w;
  const int8_t* weights = (const int8_t*)(panel + 4 * NR);
  const size_t full = k / 64, tail = k - 64 * full, tail_groups = (tail + 3) / 4;
  configure(mr, tail_groups);
  _tile_zero(0);
  _tile_zero(1);
  if (NV > 2) {
    _tile_zero(2);
    _tile_zero(3);
  }
  size_t g = 0; /* k-group (4 bytes) of the current block */
  for (size_t b = 0; b < full; ++b, g += 16) {
    _tile_loadd(4, a + 64 * b, a_stride);
    AMX_STEP(0, 5, 4);
    AMX_STEP(1, 5, 4);
    if (NV > 2) {
      AMX_STEP(2, 5, 4);
      AMX_STEP(3, 5, 4);
    }
  }
  if (tail > 0) {
    int8_t rows[16][64];
    memset(rows, 0, sizeof(rows));
    for (size_t i = 0; i < mr; ++i) memcpy(rows[i], a + i * a_stride + 64 * full, tail);
    _tile_loadd(6, rows, 64);
    AMX_STEP(0, 7, 6);
    AMX_STEP(1, 7, 6);
    if (NV > 2) {
      AMX_STEP(2, 7, 6);
      AMX_STEP(3, 7, 6);
    }
  }
  int32_t sums[16][64];
  _tile_stored(0, &sums[0][0], 4 * 64);
  _tile_stored(1, &sums[0][16], 4 * 64);
  if (NV > 2) {
    _tile_stored(2, &sums[0][32], 4 * 64);
    _tile_stored(3, &sums[0][48], 4 * 64);
  }
  _tile_release();
  /* bias + sums, requantized 16 columns at a time */
  const uint8_t* requant = panel + 4 * NR + NR * kc;
  const qs8_vnni_output o = qs8_vnni_output_of(params);
  for (size_t v = 0; v < NV && 16 * v < nc; ++v) {
    const size_t cols = nc - 16 * v < 16 ? nc - 16 * v : 16;
    const __mmask16 mask = (__mmask16)((1u << cols) - 1u);
    const lite_qs8_requant_avx512 r =
        lite_qs8_requant_avx512_load_used(requant + 64 * v, requant + 4 * NR + 64 * v, mask);
    const __m512i bias = _mm512_loadu_si512(panel + 64 * v);
    for (size_t i = 0; i < mr; ++i) {
      const __m512i acc = _mm512_add_epi32(bias, _mm512_loadu_si512(&sums[i][16 * v]));
      _mm_mask_storeu_epi8(c + i * c_stride + 16 * v, mask, qs8_vnni_requantize16(acc, &r, &o));
    }
  }
}

void lite_qs8_gemm_ukernel_16x32c4_avx512amx(size_t mr, size_t nc, size_t k, const int8_t* a, size_t a_stride,
                                             const void* w, int8_t* c, size_t c_stride,
                                             const lite_qs8_gemm_params* params) {
  gemm_tile(2, mr, nc, k, a, a_stride, w, c, c_stride, params);
}

void lite_qs8_gemm_ukernel_16x64c4_avx512amx(size_t mr, size_t nc, size_t k, const int8_t* a, size_t a_stride,
                                             const void* w, int8_t* c, size_t c_stride,
                                             const lite_qs8_gemm_params* params) {
  gemm_tile(4, mr, nc, k, a, a_stride, w, c, c_stride, params);
}
