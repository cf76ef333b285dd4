/* REVERSE_SEQUENCE (ONNX ReverseSequence) for any element size: in each batch entry, the first
 * seq_lens[b] steps along the time axis are reversed and the rest copied. */
#ifndef LITE_KERNELS_REVERSE_SEQUENCE_H
#define LITE_KERNELS_REVERSE_SEQUENCE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* x and out are [time, batch, inner] when time_major, else [batch, time, inner] (inner elements of
 * elem_size bytes each); 0 <= seq_lens[b] <= time for every b (the caller checks). */
void lite_reverse_sequence_ref(size_t elem_size, int64_t time, int64_t batch, int64_t inner, int time_major,
                               const int64_t* seq_lens, const void* x, void* out);

#ifdef __cplusplus
}
#endif

#endif
