/* Vectorized fp32 ADD / SUB / MUL / DIV / PRELU over one broadcast row: y[i] = a[i * a_step] op b[i * b_step]
 * with each step 0 (a repeated scalar) or 1 (contiguous), the row shapes lite_bcast_run produces.
 * IEEE add/sub/mul/div are correctly rounded in every vector unit, so results equal the reference
 * row functions (xx_elementwise_binary_ref.c) bit for bit, except that armv7 NEON flushes subnormal
 * inputs and results of ADD/SUB/MUL/PRELU to zero (as every armv7 NEON kernel does; DIV divides lane by
 * lane in VFP, exactly: armv7 has no vector divide). */
#ifndef LITE_KERNELS_F32_VBINARY_H
#define LITE_KERNELS_F32_VBINARY_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* op is a lite_binary_op (LITE_BIN_ADD, _SUB, _MUL, _DIV, _PRELU); a_step and b_step are 0 or 1. */
typedef void (*lite_f32_vbinary_fn)(int op, size_t n, const float* a, int a_step, const float* b, int b_step,
                                    float* y);

/* 1 for the ops the variants compute (ADD, SUB, MUL, DIV, PRELU). */
int lite_f32_vbinary_supports(int op);

/* The variant for `features` (lite_cpu_features() bits); never NULL. */
lite_f32_vbinary_fn lite_f32_vbinary_select(uint32_t features);
const char* lite_f32_vbinary_name(lite_f32_vbinary_fn fn);

void lite_f32_vbinary_portable(int op, size_t n, const float* a, int a_step, const float* b, int b_step, float* y);
void lite_f32_vbinary_avx2(int op, size_t n, const float* a, int a_step, const float* b, int b_step, float* y);
void lite_f32_vbinary_aarch64_neon(int op, size_t n, const float* a, int a_step, const float* b, int b_step, float* y);
void lite_f32_vbinary_armv7_neon(int op, size_t n, const float* a, int a_step, const float* b, int b_step, float* y);

#ifdef __cplusplus
}
#endif

#endif
