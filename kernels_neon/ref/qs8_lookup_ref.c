/* int8 -> int8 through a 256-entry table indexed by the input value + 128. */
#include "lite_kernels/qs8_lookup.h"

void lite_qs8_lookup_ref(size_t count, const int8_t table[256], const int8_t* input, int8_t* output) {
  for (size_t i = 0; i < count; ++i) output[i] = table[(int32_t)input[i] + 128];
}
