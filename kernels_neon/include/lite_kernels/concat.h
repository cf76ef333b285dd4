/* CONCAT and its inverse SPLIT along one axis, for any element size. The caller flattens the
 * tensors to [outer, axis_dim * inner]: each part then contributes one contiguous block of
 * part_bytes[i] = axis_dim_i * inner * elem_size bytes per outer index. */
#ifndef LITE_KERNELS_CONCAT_H
#define LITE_KERNELS_CONCAT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* out = concat(parts) along the flattened axis. */
void lite_concat_ref(size_t outer, int num_parts, const void* const* parts, const size_t* part_bytes, void* out);

/* parts = split(in) along the flattened axis. */
void lite_split_ref(size_t outer, const void* in, int num_parts, void* const* parts, const size_t* part_bytes);

#ifdef __cplusplus
}
#endif

#endif
