/* Elementwise dtype conversion with ONNX Cast semantics: float -> integer truncates toward zero
 * (NaN and out-of-range values give the integer's minimum, never undefined behaviour), anything ->
 * BOOL is x != 0, FLOAT16 rounds to nearest even. */
#ifndef LITE_KERNELS_CAST_H
#define LITE_KERNELS_CAST_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* y[i] = (to) x[i] for n elements; from/to are lite_dtype values. Returns 0, or -1 when a dtype is
 * unknown. x and y must not overlap unless from == to. */
int lite_cast_ref(int from, int to, const void* x, void* y, size_t n);

/* IEEE half <-> single precision, shared with kernels that store FLOAT16. */
float lite_f16_to_f32(uint16_t h);
uint16_t lite_f32_to_f16(float f);

#ifdef __cplusplus
}
#endif

#endif
