/* Element-wise int8 activations through a 256-entry lookup table (docs/INT8_OPS.md). The table is
 * built at prepare from the fp32 function and the input / output quantization; applying it is one
 * load per element, and it equals the fake-quant simulation exactly (same table). */
#pragma once

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* output[i] = table[input[i] + 128] */
void lite_qs8_lookup_ref(size_t count, const int8_t table[256], const int8_t* input, int8_t* output);

#ifdef __cplusplus
}
#endif
