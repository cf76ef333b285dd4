/* Vectorized int8 elementwise kernels (ADD, MUL, QUANTIZE, DEQUANTIZE, 256-entry LOOKUP) that give
 * exactly the bytes / floats of their ref/ twins (lite_qs8_add_periodic_ref, lite_qs8_mul_ref,
 * lite_qs8_quantize_f32_ref, lite_qs8_dequantize_f32_ref, lite_qs8_lookup_ref).
 *
 * Why a "plan": the reference rescales in 64 bits and divides by 2^shift. The vector kernels split each
 * 31-bit multiplier m into hi * 2^16 + lo (lo signed 16 bits) so every product fits an int32 lane, and
 * fold zero points and the rounding constant into integer biases, all computed once in
 * lite_qs8_{add,mul}_plan_init. The derivation is exact (floor division nests), it is not an
 * approximation; parameters outside the proven range (see the init functions) set `exact` = 0 and the
 * kernels then call the reference. */
#ifndef LITE_KERNELS_QS8_ELEMENTWISE_H
#define LITE_KERNELS_QS8_ELEMENTWISE_H

#include <stddef.h>
#include <stdint.h>

#include "lite_kernels/qs8_binary.h"
#include "lite_kernels/qs8_quantize.h"

#ifdef __cplusplus
extern "C" {
#endif

/* out = clamp(out_bias + ((N + round_bias) >> shift)), with
 * N = H + ((L + low_bias) >> 16), H = a * a_hi + b * b_hi, L = a * a_lo + b * b_lo (raw int8 a, b). */
typedef struct {
  lite_qs8_add_params params; /* the reference's parameters (fallback and scalar-b folding) */
  int exact;                  /* 0: the split does not cover these parameters, kernels run the reference */
  int16_t a_hi, a_lo, b_hi, b_lo;
  int32_t low_bias, round_bias, out_bias;
  int32_t shift;              /* in [0, 30] */
  int8_t act_min, act_max;
} lite_qs8_add_plan;

/* Covers multipliers in [0, 2^31 - 2^15) and shifts in [16, 46] (real multipliers between ~2^-15 and
 * ~2^15: every input/output scale ratio a real model has). */
void lite_qs8_add_plan_init(const lite_qs8_add_params* params, lite_qs8_add_plan* plan);

/* The plan of a + (constant b_value): the b term folded into the biases (b_hi = b_lo = 0). */
void lite_qs8_add_plan_fold_b(const lite_qs8_add_plan* plan, int8_t b_value, lite_qs8_add_plan* folded);

/* P = (a - za) * (b - zb); out = clamp(out_bias + (N >> shift) + (((N & (2^shift - 1)) + round_bias) >> shift)),
 * N = P * hi + ((P * lo + low_bias) >> 16). */
typedef struct {
  lite_qs8_mul_params params;
  int exact;
  int32_t hi, lo;
  int32_t low_bias, round_bias, out_bias;
  int32_t shift; /* in [8, 30] */
  int16_t a_zero_point, b_zero_point;
  int8_t act_min, act_max;
} lite_qs8_mul_plan;

/* Covers multipliers in [0, 2^31 - 2^15) and shifts in [24, 46]. */
void lite_qs8_mul_plan_init(const lite_qs8_mul_params* params, lite_qs8_mul_plan* plan);

/* Same contracts as the references; b repeats with period b_period (1 <= b_period; count for same shape). */
typedef void (*lite_qs8_vadd_fn)(size_t count, const lite_qs8_add_plan* plan, const int8_t* a, const int8_t* b,
                                 size_t b_period, int8_t* output);
typedef void (*lite_qs8_vmul_fn)(size_t count, const lite_qs8_mul_plan* plan, const int8_t* a, const int8_t* b,
                                 size_t b_period, int8_t* output);
typedef void (*lite_qs8_vquantize_fn)(size_t count, float scale, int32_t zero_point, const float* input,
                                      int8_t* output);
typedef void (*lite_qs8_vdequantize_fn)(size_t count, float scale, int32_t zero_point, const int8_t* input,
                                        float* output);
typedef void (*lite_qs8_vlookup_fn)(size_t count, const int8_t table[256], const int8_t* input, int8_t* output);

typedef struct {
  lite_qs8_vadd_fn add;
  lite_qs8_vmul_fn mul;
  lite_qs8_vquantize_fn quantize;
  lite_qs8_vdequantize_fn dequantize;
  lite_qs8_vlookup_fn lookup;
  const char* name; /* ISA of the set, e.g. "avx2", "aarch64_neon", "portable" */
} lite_qs8_elementwise_kernels;

/* The best set for `features` (lite_cpu_features()); the portable set runs the references. */
const lite_qs8_elementwise_kernels* lite_qs8_elementwise_select(uint32_t features);

/* The reference entry points in the kernel-table signatures (the portable set). */
void lite_qs8_vadd_portable(size_t count, const lite_qs8_add_plan* plan, const int8_t* a, const int8_t* b,
                            size_t b_period, int8_t* output);
void lite_qs8_vmul_portable(size_t count, const lite_qs8_mul_plan* plan, const int8_t* a, const int8_t* b,
                            size_t b_period, int8_t* output);

#if defined(__x86_64__)
void lite_qs8_vadd_avx2(size_t count, const lite_qs8_add_plan* plan, const int8_t* a, const int8_t* b,
                        size_t b_period, int8_t* output);
void lite_qs8_vmul_avx2(size_t count, const lite_qs8_mul_plan* plan, const int8_t* a, const int8_t* b,
                        size_t b_period, int8_t* output);
void lite_qs8_vquantize_avx2(size_t count, float scale, int32_t zero_point, const float* input, int8_t* output);
void lite_qs8_vdequantize_avx2(size_t count, float scale, int32_t zero_point, const int8_t* input, float* output);
void lite_qs8_vlookup_avx2(size_t count, const int8_t table[256], const int8_t* input, int8_t* output);
void lite_qs8_vlookup_avx512(size_t count, const int8_t table[256], const int8_t* input, int8_t* output);
#elif defined(__aarch64__)
void lite_qs8_vadd_aarch64_neon(size_t count, const lite_qs8_add_plan* plan, const int8_t* a, const int8_t* b,
                                size_t b_period, int8_t* output);
void lite_qs8_vmul_aarch64_neon(size_t count, const lite_qs8_mul_plan* plan, const int8_t* a, const int8_t* b,
                                size_t b_period, int8_t* output);
void lite_qs8_vquantize_aarch64_neon(size_t count, float scale, int32_t zero_point, const float* input,
                                     int8_t* output);
void lite_qs8_vdequantize_aarch64_neon(size_t count, float scale, int32_t zero_point, const int8_t* input,
                                       float* output);
void lite_qs8_vlookup_aarch64_neon(size_t count, const int8_t table[256], const int8_t* input, int8_t* output);
#elif defined(__arm__) && defined(__ARM_NEON)
void lite_qs8_vadd_armv7_neon(size_t count, const lite_qs8_add_plan* plan, const int8_t* a, const int8_t* b,
                              size_t b_period, int8_t* output);
void lite_qs8_vmul_armv7_neon(size_t count, const lite_qs8_mul_plan* plan, const int8_t* a, const int8_t* b,
                              size_t b_period, int8_t* output);
void lite_qs8_vquantize_armv7_neon(size_t count, float scale, int32_t zero_point, const float* input,
                                   int8_t* output);
void lite_qs8_vdequantize_armv7_neon(size_t count, float scale, int32_t zero_point, const int8_t* input,
                                     float* output);
void lite_qs8_vlookup_armv7_neon(size_t count, const int8_t table[256], const int8_t* input, int8_t* output);
#endif

#ifdef __cplusplus
}
#endif

#endif
