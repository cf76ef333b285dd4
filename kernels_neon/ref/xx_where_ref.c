/* Reference WHERE over a broadcast plan; element copies specialised for 1/2/4/8 bytes. */
#include <string.h>

#include "lite_kernels/where.h"

#define WHERE_ROW(NAME, T)                                                                     \
  static void NAME(void* ctx, const void* const* in, const int* step, void* out, int64_t n) {  \
    const uint8_t* c = (const uint8_t*)in[0];                                                  \
    const T* x = (const T*)in[1];                                                              \
    const T* y = (const T*)in[2];                                                              \
    T* o = (T*)out;                                                                            \
    (void)ctx;                                                                                 \
    for (int64_t i = 0; i < n; ++i) o[i] = c[i * step[0]] ? x[i * step[1]] : y[i * step[2]];   \
  }

WHERE_ROW(where_u8, uint8_t)
WHERE_ROW(where_u16, uint16_t)
WHERE_ROW(where_u32, uint32_t)
WHERE_ROW(where_u64, uint64_t)

static void where_bytes(void* ctx, const void* const* in, const int* step, void* out, int64_t n) {
  const size_t size = *(const size_t*)ctx;
  const uint8_t* c = (const uint8_t*)in[0];
  const char* x = (const char*)in[1];
  const char* y = (const char*)in[2];
  char* o = (char*)out;
  for (int64_t i = 0; i < n; ++i) {
    const char* src = c[i * step[0]] ? x + (size_t)(i * step[1]) * size : y + (size_t)(i * step[2]) * size;
    memcpy(o + (size_t)i * size, src, size);
  }
}

void lite_where_ref(const lite_bcast* plan, const uint8_t* cond, const void* x, const void* y, void* out,
                    size_t elem_size) {
  const void* in[3] = {cond, x, y};
  const size_t sizes[3] = {1, elem_size, elem_size};
  lite_bcast_row_fn row;
  switch (elem_size) {
    case 1: row = where_u8; break;
    case 2: row = where_u16; break;
    case 4: row = where_u32; break;
    case 8: row = where_u64; break;
    default: row = where_bytes; break;
  }
  lite_bcast_run(plan, in, sizes, out, elem_size, row, &elem_size);
}
