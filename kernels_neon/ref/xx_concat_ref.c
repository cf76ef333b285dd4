/* Reference CONCAT / SPLIT: block copies, one per part and outer index. */
#include <string.h>

#include "lite_kernels/concat.h"

void lite_concat_ref(size_t outer, int num_parts, const void* const* parts, const size_t* part_bytes, void* out) {
  char* dst = (char*)out;
  for (size_t o = 0; o < outer; ++o) {
    for (int p = 0; p < num_parts; ++p) {
      const size_t bytes = part_bytes[p];
      if (bytes == 0) continue;
      memcpy(dst, (const char*)parts[p] + o * bytes, bytes);
      dst += bytes;
    }
  }
}

void lite_split_ref(size_t outer, const void* in, int num_parts, void* const* parts, const size_t* part_bytes) {
  const char* src = (const char*)in;
  for (size_t o = 0; o < outer; ++o) {
    for (int p = 0; p < num_parts; ++p) {
      const size_t bytes = part_bytes[p];
      if (bytes == 0) continue;
      if (parts[p] != NULL) memcpy((char*)parts[p] + o * bytes, src, bytes);
      src += bytes;
    }
  }
}
