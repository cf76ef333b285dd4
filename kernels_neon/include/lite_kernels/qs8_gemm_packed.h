/* int8 GEMM over pre-packed weights with the whole requantization epilogue fused:
 *   C[m, n] = clamp(zp_out + round((bias[n] + sum_p (A[m, p] - zp_in) * W[p, n]) * M[n] * 2^-S[n]))
 * exactly as lite_qs8_fully_connected_ref / lite_qs8_conv2d_nhwc_ref compute it (0 LSB on every ISA:
 * int32 accumulation is exact, the epilogue is lite_requantize_to_int8 of requantize.h).
 *
 * This header is the contract between the packing / tile loop (portable/qs8_gemm_packed_driver.c) and
 * the microkernels of every ISA (x86/qs8_gemm_*, arm/qs8_gemm_*). It is stable: add fields at the
 * end of the structs only.
 *
 * PACKED WEIGHTS. W (int8, [k, n] given by strides) is packed once, when the input zero point and the
 * per-channel multipliers are known (prepare time), into panels of NR output columns. One panel is
 * lite_qs8_gemm_panel_bytes(config, k) bytes (a multiple of 4; NR is a multiple of 4):
 *     int32 bias[NR]        bias[j] - (zp_in + A_OFFSET) * sum_p W[p, j], wrapped to 32 bits (two's
 *                           complement: the ukernel's int32 arithmetic is modulo 2^32, and the exact
 *                           result is in range, see lite_qs8_gemm_is_exact)
 *     int8  w[KC/KR][NR][KR] w[g][j][r] = W[g * KR + r, j]; KC = k rounded up to KR; zero past k and n
 *     int32 multiplier[NR]  requantization multiplier of column j (0 past n)
 *     int32 shift[NR]       its right shift, in [1, 62] (1 past n)
 * (a config's own pack may store these two words in another per-column encoding that only its
 * ukernel reads: the ARM kernels without sdot (aarch64 i8mm, plain NEON, armv7) keep the multiplier
 * and replace the shift by its sqshl / srshl amounts and panel flags, see
 * portable/qs8_gemm_pack_shift_amounts.c)
 * KR is the k-group one multiply-accumulate instruction consumes per column: 4 for x86 VNNI
 * (vpdpbusd) and aarch64 sdot, 8 for i8mm (smmla reads two adjacent columns' 8 bytes = 16 bytes),
 * 2 for int16 vpmaddwd / 1 or 2 for smlal-style kernels. Weights are aligned only to 4 bytes:
 * load them with unaligned loads.
 * A_OFFSET (0 or 128) is what the ukernel adds to every A byte: u8 x s8 instructions (vpdpbusd)
 * read A as a ^ 0x80 = a + 128, so the pack folds 128 * sum(W) into the bias; signed x signed
 * kernels (sdot, smmla, smlal, vpmaddwd) use 0.
 *
 * MICROKERNEL. ukernel(mr, nc, k, a, a_stride, w, c, c_stride, params) computes the top-left mr x nc
 * corner (1 <= mr <= MR, 1 <= nc <= NR) of one MR x NR tile from ONE panel `w`:
 *   - reads A row i at a + i * a_stride, bytes [0, k) only (any stride, no alignment, rows need
 *     not be adjacent: the NHWC activation itself for a 1x1 convolution). It must NOT read past
 *     byte k - 1 of a row (the last row may end the buffer): the k % KR tail is loaded partially
 *     (masked load or a copy); the padded weights are zero so the tail bytes' values do not matter.
 *     Rows i >= mr must not be read (clamp their pointers to row mr - 1 or skip them);
 *   - writes c[i * c_stride + j] for i < mr, j < nc only (nc < NR tails: masked or partial stores);
 *   - acc[j] = bias[j] + sum_p (A[i, p] + A_OFFSET) * w[p, j] in int32 (wrapping; exact, see above),
 *     then out = clamp(rounding_shift_right((int64)acc * multiplier[j], shift[j]) + zp_out,
 *     act_min, act_max): a 64-bit product, rounding half toward +infinity. Any formulation giving
 *     exactly these bytes is fine (arm/qs8_requantize_neon.h derives a 32-bit one); gemmlowp's
 *     rounding doubling-high-multiply + rounding divide rounds twice and differs by 1 LSB.
 * k >= 1. Every output is computed by one call from the same values, so any split of C into tiles
 * (threads) gives identical bytes.
 *
 * SELECTION. lite_qs8_gemm_config_select(features, n, k) is the only place mapping CPU features to
 * int8 GEMM microkernels. On aarch64 / armv7 it calls
 *     const lite_qs8_gemm_config* lite_qs8_gemm_config_select_arm(uint32_t features, size_t n, size_t k);
 * which kernels_neon/dispatch/qs8_gemm_config_arm.c defines (never returning NULL: fall back to
 * lite_qs8_gemm_config_portable()). dispatch/qs8_gemm_config.c calls it only when that file exists
 * (__has_include), so the ARM build works before it does; after adding it, rebuild qs8_gemm_config.c
 * (a stale object keeps the portable choice).
 *
 * x86 (dispatch/qs8_gemm_config.c): AVX-512 VNNI 8x16c4 / 8x24c4 / 8x32c4, the one padding the fewest
 * columns (ties: the wider), else AVX2 4x16c2 (int16 vpmaddwd), else the portable 4x8c4. */
#ifndef LITE_KERNELS_QS8_GEMM_PACKED_H
#define LITE_KERNELS_QS8_GEMM_PACKED_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The per-tensor part of the epilogue (the per-channel part is in the packed panel). */
typedef struct {
  int32_t output_zero_point; /* [-128, 127] */
  int32_t act_min, act_max;  /* quantized clamp, -128 <= act_min <= act_max <= 127 */
} lite_qs8_gemm_params;

typedef void (*lite_qs8_gemm_ukernel_fn)(size_t mr, size_t nc, size_t k, const int8_t* a, size_t a_stride,
                                          const void* w, int8_t* c, size_t c_stride, const lite_qs8_gemm_params* params);

struct lite_qs8_gemm_config;

/* Packs W[p, j] = w[p * stride_k + j * stride_n] for n columns and depth k (a [n, k] .lite weight:
 * stride_k = 1, stride_n = k) into lite_qs8_gemm_packed_size bytes at `packed` (4-byte aligned).
 * bias may be NULL (zeros); multiplier / shift have n entries (requantize.h). */
typedef void (*lite_qs8_gemm_pack_fn)(const struct lite_qs8_gemm_config* config, size_t n, size_t k, const int8_t* w,
                                      size_t stride_k, size_t stride_n, const int32_t* bias, int32_t input_zero_point,
                                      const int32_t* multiplier, const int32_t* shift, void* packed);

typedef struct lite_qs8_gemm_config {
  lite_qs8_gemm_ukernel_fn ukernel;
  lite_qs8_gemm_pack_fn pack; /* lite_qs8_gemm_pack_generic unless an ISA needs another layout */
  uint32_t mr, nr, kr;        /* nr a multiple of 4 */
  int32_t a_offset;           /* 0, or 128 for u8 x s8 dot products */
  const char* name;           /* e.g. "qs8_gemm_8x32c4_avx512vnni" */
} lite_qs8_gemm_config;

/* The best microkernel for n output columns and depth k among those `features` (lite_cpu_features()
 * bits) allow and this build compiled; never NULL. */
const lite_qs8_gemm_config* lite_qs8_gemm_config_select(uint32_t features, size_t n, size_t k);

/* The portable C configuration (needs nothing; the ARM selection's fallback). */
const lite_qs8_gemm_config* lite_qs8_gemm_config_portable(void);

/* Bytes of one panel and of the whole packed weight. */
size_t lite_qs8_gemm_panel_bytes(const lite_qs8_gemm_config* config, size_t k);
size_t lite_qs8_gemm_packed_size(const lite_qs8_gemm_config* config, size_t n, size_t k);

/* The layout described above, for any MR/NR/KR/A_OFFSET. */
void lite_qs8_gemm_pack_generic(const lite_qs8_gemm_config* config, size_t n, size_t k, const int8_t* w,
                                size_t stride_k, size_t stride_n, const int32_t* bias, int32_t input_zero_point,
                                const int32_t* multiplier, const int32_t* shift, void* packed);

/* The generic layout with each shift word replaced by sqshl / srshl amounts and panel flags, for
 * the ARM kernels (portable/qs8_gemm_pack_shift_amounts.c describes the encoding). */
enum { LITE_QS8_PANEL_LEFT_SHIFT = 1 << 16, LITE_QS8_PANEL_WEIGHT_MIN = 1 << 17 };
void lite_qs8_gemm_pack_shift_amounts(const lite_qs8_gemm_config* config, size_t n, size_t k, const int8_t* w,
                                      size_t stride_k, size_t stride_n, const int32_t* bias,
                                      int32_t input_zero_point, const int32_t* multiplier, const int32_t* shift,
                                      void* packed);

/* True when int32 accumulation gives the reference's result for every input: the exact sum
 * |bias| + k * 255 * 128 stays below 2^31 (the reference saturates a larger int64 sum to int32;
 * a caller falls back to it otherwise; only hostile models get there, k > 65000). */
int lite_qs8_gemm_is_exact(size_t n, size_t k, const int32_t* bias);

/* C rows [0, m), columns [n_begin, n_end) (n_begin a multiple of NR) from A (row stride lda) and the
 * packed weight; c points at row 0, column 0 (row stride ldc). */
void lite_qs8_gemm_packed_compute(const lite_qs8_gemm_config* config, size_t m, size_t n_begin, size_t n_end,
                                  size_t k, const int8_t* a, size_t lda, const void* packed,
                                  const lite_qs8_gemm_params* params, int8_t* c, size_t ldc);

/* The microkernels (built only where the ISA is; the config selects among them). */
void lite_qs8_gemm_ukernel_4x8c4_portable(size_t mr, size_t nc, size_t k, const int8_t* a, size_t a_stride,
                                          const void* w, int8_t* c, size_t c_stride,
                                          const lite_qs8_gemm_params* params);
void lite_qs8_gemm_ukernel_8x16c4_avx512vnni(size_t mr, size_t nc, size_t k, const int8_t* a, size_t a_stride,
                                             const void* w, int8_t* c, size_t c_stride,
                                             const lite_qs8_gemm_params* params);
void lite_qs8_gemm_ukernel_8x24c4_avx512vnni(size_t mr, size_t nc, size_t k, const int8_t* a, size_t a_stride,
                                             const void* w, int8_t* c, size_t c_stride,
                                             const lite_qs8_gemm_params* params);
void lite_qs8_gemm_ukernel_8x32c4_avx512vnni(size_t mr, size_t nc, size_t k, const int8_t* a, size_t a_stride,
                                             const void* w, int8_t* c, size_t c_stride,
                                             const lite_qs8_gemm_params* params);
void lite_qs8_gemm_ukernel_16x32c4_avx512amx(size_t mr, size_t nc, size_t k, const int8_t* a, size_t a_stride,
                                             const void* w, int8_t* c, size_t c_stride,
                                             const lite_qs8_gemm_params* params);
void lite_qs8_gemm_ukernel_16x64c4_avx512amx(size_t mr, size_t nc, size_t k, const int8_t* a, size_t a_stride,
                                             const void* w, int8_t* c, size_t c_stride,
                                             const lite_qs8_gemm_params* params);
void lite_qs8_gemm_ukernel_4x16c2_avx2(size_t mr, size_t nc, size_t k, const int8_t* a, size_t a_stride,
                                       const void* w, int8_t* c, size_t c_stride, const lite_qs8_gemm_params* params);

#ifdef __cplusplus
}
#endif

#endif
