/* Reference PAD: every output coordinate maps to an input coordinate per axis (or to "constant"),
 * then rows are assembled element by element. */
#include <string.h>

#include "lite_kernels/pad.h"

/* Input index for output index o along an axis of n input elements, or -1 for the constant. */
static int64_t map_index(int64_t o, int64_t begin, int64_t n, int mode) {
  const int64_t i = o - begin;
  if (i >= 0 && i < n) return i;
  switch (mode) {
    case LITE_PAD_EDGE: return i < 0 ? 0 : n - 1;
    case LITE_PAD_WRAP: {
      const int64_t m = i % n;
      return m < 0 ? m + n : m;
    }
    case LITE_PAD_REFLECT: {
      if (n == 1) return 0;
      const int64_t period = 2 * (n - 1);
      int64_t m = i % period;
      if (m < 0) m += period;
      return m < n ? m : period - m;
    }
    default: return -1;
  }
}

int lite_pad_ref(size_t elem_size, int rank, const int64_t* in_dims, const int64_t* pads_begin,
                 const int64_t* pads_end, int mode, const void* value, const void* in, void* out) {
  if (rank > LITE_PAD_MAX_RANK) return -1;
  int64_t out_dims[LITE_PAD_MAX_RANK], in_strides[LITE_PAD_MAX_RANK];
  int64_t stride = 1;
  for (int k = rank - 1; k >= 0; --k) {
    out_dims[k] = in_dims[k] + pads_begin[k] + pads_end[k];
    if (out_dims[k] < 0) return -1;
    if (out_dims[k] == 0) return 0;
    if (mode != LITE_PAD_CONSTANT && in_dims[k] == 0) return -1;
    in_strides[k] = stride;
    stride *= in_dims[k];
  }
  char zero[16] = {0};
  const char* fill = value != NULL ? (const char*)value : zero;
  if (value == NULL && elem_size > sizeof zero) return -1;
  const char* src = (const char*)in;
  char* dst = (char*)out;
  if (rank == 0) {
    memcpy(dst, src, elem_size);
    return 0;
  }
  const int last = rank - 1;
  const int64_t n = out_dims[last];
  int64_t idx[LITE_PAD_MAX_RANK] = {0};
  for (;;) {
    /* Locate the input row for this outer coordinate, or mark it all-constant. */
    int64_t offset = 0;
    int constant_row = 0;
    for (int k = 0; k < last; ++k) {
      const int64_t i = map_index(idx[k], pads_begin[k], in_dims[k], mode);
      if (i < 0) constant_row = 1;
      else offset += i * in_strides[k];
    }
    for (int64_t j = 0; j < n; ++j) {
      const int64_t i = constant_row ? -1 : map_index(j, pads_begin[last], in_dims[last], mode);
      memcpy(dst + (size_t)j * elem_size, i < 0 ? fill : src + (size_t)(offset + i) * elem_size, elem_size);
    }
    dst += (size_t)n * elem_size;
    int k = last - 1;
    for (; k >= 0; --k) {
      if (++idx[k] < out_dims[k]) break;
      idx[k] = 0;
    }
    if (k < 0) return 0;
  }
}
