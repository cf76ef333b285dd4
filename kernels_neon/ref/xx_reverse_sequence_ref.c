/* Reference REVERSE_SEQUENCE: one copy of `inner` elements per (time, batch) step. */
#include <string.h>

#include "lite_kernels/reverse_sequence.h"

void lite_reverse_sequence_ref(size_t elem_size, int64_t time, int64_t batch, int64_t inner, int time_major,
                               const int64_t* seq_lens, const void* x, void* out) {
  const char* src = (const char*)x;
  char* dst = (char*)out;
  const size_t step_bytes = (size_t)inner * elem_size;
  for (int64_t b = 0; b < batch; ++b) {
    for (int64_t t = 0; t < time; ++t) {
      const int64_t to = t < seq_lens[b] ? seq_lens[b] - 1 - t : t;
      const int64_t from_step = time_major ? t * batch + b : b * time + t;
      const int64_t to_step = time_major ? to * batch + b : b * time + to;
      memcpy(dst + (size_t)to_step * step_bytes, src + (size_t)from_step * step_bytes, step_bytes);
    }
  }
}
