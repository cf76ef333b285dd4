/* Reference strided copy (see lite_kernels/strided_copy.h): collapses dims that are contiguous
 * in the source, then copies whole rows with memcpy when the innermost stride is 1, element by
 * element (specialised for 1/2/4/8 bytes) otherwise. */
#include <stdint.h>
#include <string.h>

#include "lite_kernels/strided_copy.h"

#define COPY_ROW(T)                                                   \
  do {                                                                \
    const T* s = (const T*)src;                                       \
    T* d = (T*)dst;                                                   \
    for (int64_t i = 0; i < n; ++i) d[i] = s[i * stride];             \
  } while (0)

static void copy_row(size_t elem_size, const char* src, int64_t stride, char* dst, int64_t n) {
  if (stride == 1) {
    memcpy(dst, src, (size_t)n * elem_size);
    return;
  }
  switch (elem_size) {
    case 1: COPY_ROW(uint8_t); break;
    case 2: COPY_ROW(uint16_t); break;
    case 4: COPY_ROW(uint32_t); break;
    case 8: COPY_ROW(uint64_t); break;
    default:
      for (int64_t i = 0; i < n; ++i) memcpy(dst + (size_t)i * elem_size, src + i * stride * (int64_t)elem_size, elem_size);
  }
}

/* out[i * n + j] = in[i * row_stride + j * stride] for i < rows, j < n. */
#define DEFINE_TRANSPOSE(name, T)                                                                         \
  static void name(int64_t rows, int64_t row_stride, int64_t n, int64_t stride, const T* s, T* o) {      \
    if (n == 3 && row_stride == 1) {                                                                      \
      const T *p0 = s, *p1 = s + stride, *p2 = s + 2 * stride;                                            \
      for (int64_t i = 0; i < rows; ++i, o += 3) {                                                        \
        o[0] = p0[i];                                                                                     \
        o[1] = p1[i];                                                                                     \
        o[2] = p2[i];                                                                                     \
      }                                                                                                   \
      return;                                                                                             \
    }                                                                                                     \
    for (int64_t i = 0; i < rows; ++i, o += n)                                                            \
      for (int64_t j = 0; j < n; ++j) o[j] = s[i * row_stride + j * stride];                              \
  }
DEFINE_TRANSPOSE(transpose_u32, uint32_t)
DEFINE_TRANSPOSE(transpose_u8, uint8_t)

/* out[(p * m + i) * N + j] = in[p * outer_stride + i + j * stride] for p < outer, i < m, j < N: the
 * last two dims transposed under an outer one, N (2, 3 or 4) a constant so that each output pixel's
 * N-way interleave of N input rows is one tight loop (ShuffleNet's channel shuffle, N = 2, made a
 * function call per 2 values: ~1 ns per value). */
#define DEFINE_INTERLEAVE(name, T)                                                                         \
  static void name(int64_t outer, int64_t outer_stride, int64_t m, int64_t stride, int64_t N, const T* s,   \
                   T* o) {                                                                                  \
    for (int64_t p = 0; p < outer; ++p, s += outer_stride)                                                  \
      switch (N) {                                                                                          \
        case 2:                                                                                             \
          for (int64_t i = 0; i < m; ++i, o += 2) o[0] = s[i], o[1] = s[i + stride];                        \
          break;                                                                                            \
        case 3:                                                                                             \
          for (int64_t i = 0; i < m; ++i, o += 3) o[0] = s[i], o[1] = s[i + stride], o[2] = s[i + 2 * stride]; \
          break;                                                                                            \
        default:                                                                                            \
          for (int64_t i = 0; i < m; ++i, o += 4)                                                           \
            o[0] = s[i], o[1] = s[i + stride], o[2] = s[i + 2 * stride], o[3] = s[i + 3 * stride];          \
          break;                                                                                            \
      }                                                                                                     \
  }
DEFINE_INTERLEAVE(interleave_u32, uint32_t)
DEFINE_INTERLEAVE(interleave_u8, uint8_t)

void lite_strided_copy_ref(size_t elem_size, int rank, const int64_t* dims, const void* in,
                           const int64_t* in_strides, void* out) {
  int64_t d[LITE_STRIDED_COPY_MAX_RANK], st[LITE_STRIDED_COPY_MAX_RANK];
  int r = 0;
  for (int k = 0; k < rank; ++k) {
    if (dims[k] == 0) return;
    if (dims[k] == 1) continue;
    if (r > 0 && st[r - 1] == in_strides[k] * dims[k]) {
      d[r - 1] *= dims[k];
      st[r - 1] = in_strides[k];
      continue;
    }
    d[r] = dims[k];
    st[r] = in_strides[k];
    ++r;
  }
  if (r == 0) {
    memcpy(out, in, elem_size);
    return;
  }
  const int64_t n = d[r - 1], stride = st[r - 1];
  const int64_t esize = (int64_t)elem_size;
  if (r == 2 && stride != 1 && (elem_size == 4 || elem_size == 1)) {
    /* A 2-D transpose of 4- or 1-byte elements (TRANSPOSE NCHW -> NHWC of an fp32 image, or of
     * an int8 one the int8 converter quantizes before transposing): one tight loop instead of a
     * row call per C values; for an RGB image each of the three planes is read sequentially. */
    if (elem_size == 4)
      transpose_u32(d[0], st[0], n, stride, (const uint32_t*)in, (uint32_t*)out);
    else
      transpose_u8(d[0], st[0], n, stride, (const uint8_t*)in, (uint8_t*)out);
    return;
  }
  if (r == 3 && n >= 2 && n <= 4 && st[1] == 1 && (elem_size == 4 || elem_size == 1)) {
    if (elem_size == 4)
      interleave_u32(d[0], st[0], d[1], stride, n, (const uint32_t*)in, (uint32_t*)out);
    else
      interleave_u8(d[0], st[0], d[1], stride, n, (const uint8_t*)in, (uint8_t*)out);
    return;
  }
  int64_t idx[LITE_STRIDED_COPY_MAX_RANK] = {0};
  const char* src = (const char*)in;
  char* dst = (char*)out;
  for (;;) {
    copy_row(elem_size, src, stride, dst, n);
    dst += n * esize;
    int k = r - 2;
    for (; k >= 0; --k) {
      src += st[k] * esize;
      if (++idx[k] < d[k]) break;
      src -= st[k] * d[k] * esize;
      idx[k] = 0;
    }
    if (k < 0) return;
  }
}
