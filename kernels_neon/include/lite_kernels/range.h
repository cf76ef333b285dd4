/* RANGE: start, start + delta, ... (ONNX Range), accumulated in the element type like ONNX's
 * definition (a loop adding delta), so float results match other runtimes bit for bit. */
#ifndef LITE_KERNELS_RANGE_H
#define LITE_KERNELS_RANGE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Number of elements: max(ceil((limit - start) / delta), 0), computed in double like onnxruntime.
 * start/limit/delta point at one element of dtype (lite_dtype). Returns -1 for an unsupported
 * dtype or delta == 0. */
int64_t lite_range_count(int dtype, const void* start, const void* limit, const void* delta);

/* Writes n elements. Returns 0, or -1 for an unsupported dtype. */
int lite_range_ref(int dtype, const void* start, const void* delta, void* out, int64_t n);

#ifdef __cplusplus
}
#endif

#endif
