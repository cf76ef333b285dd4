/* The channel-padding copies against the definition y[i * padded + c] = x[i * channels + c] (c <
 * channels), fill after: the portable one for 1..6 channels padded to 4 or 8, the selected one for
 * 3 -> 4 at 0..100 pixels (around its 16-pixel step and masked tail) and a 640-pixel image row, with
 * random bytes and fills; nothing is written past the last pixel. */
#include <stdlib.h>
#include <string.h>

#include "kernel_test_cpu.h"
#include "lite_kernels/cpu_features.h"
#include "lite_kernels/s8_pad_channels.h"

static void pad_case(kt_rng* rng, lite_s8_pad_channels_fn pad, const char* name, size_t pixels, size_t channels,
                     size_t padded) {
  int8_t* x = calloc(pixels * channels + 1, 1);
  int8_t* expected = malloc(pixels * padded + 1);
  int8_t* y = malloc(pixels * padded + 8);
  for (size_t i = 0; i < pixels * channels; ++i) x[i] = (int8_t)kt_rand_u64(rng);
  const int8_t fill = (int8_t)kt_rand_u64(rng);
  for (size_t i = 0; i < pixels; ++i)
    for (size_t c = 0; c < padded; ++c) expected[i * padded + c] = c < channels ? x[i * channels + c] : fill;
  memset(y, 0x5A, pixels * padded + 8);
  pad(pixels, channels, padded, x, fill, y);
  char what[80];
  snprintf(what, sizeof(what), "%s pixels=%zu %zu->%zu fill=%d", name, pixels, channels, padded, fill);
  kt_check_equal_bytes(__FILE__, __LINE__, what, y, expected, pixels * padded);
  for (size_t i = 0; i < 8; ++i) KT_CHECK(y[pixels * padded + i] == 0x5A); /* nothing written past the end */
  free(x);
  free(expected);
  free(y);
}

int main(void) {
  kt_rng rng = kt_rng_make(20261121);
  for (size_t channels = 1; channels <= 6; ++channels)
    for (size_t padded = channels <= 4 ? 4 : 8; padded <= 8; padded += 4)
      for (size_t pixels = 0; pixels <= 20; ++pixels)
        pad_case(&rng, lite_s8_pad_channels_portable, "portable", pixels, channels, padded);
  const lite_s8_pad_channels_fn selected = lite_s8_pad_channels_select(lite_cpu_features(), 3, 4);
#if defined(__x86_64__)
  kt_cpu_has_among(lite_cpu_features(), LITE_CPU_X86_AVX512, "s8_pad_channels_3to4_avx512");
#else
  if (selected == lite_s8_pad_channels_portable) kt_skip("no ISA-specific 3 -> 4 channel padding for this architecture");
#endif
  for (size_t pixels = 0; pixels <= 100; ++pixels) pad_case(&rng, selected, "selected", pixels, 3, 4);
  pad_case(&rng, selected, "selected", 640, 3, 4);
  return kt_finish();
}
