/* Fills a buffer with copies of one element of any size (CONSTANT_OF_SHAPE). */
#ifndef LITE_KERNELS_FILL_H
#define LITE_KERNELS_FILL_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* out[i] = *value for n elements of elem_size bytes; value NULL means zero bytes. */
void lite_fill_ref(size_t elem_size, const void* value, void* out, size_t n);

#ifdef __cplusplus
}
#endif

#endif
