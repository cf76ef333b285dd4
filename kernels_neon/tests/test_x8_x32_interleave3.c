/* The plane-interleaving kernels against the definition out[3 i + k] = plane_k[i], bit for bit, for
 * pixel counts around the vector step (4-byte: 0..70 around 16 pixels; bytes: 0..200 around 64) and
 * image row blocks (224 x 3, 640 x 3), with
 * arbitrary bit patterns (NaN payloads included: the kernels move bits, never floats). */
#include <stdlib.h>
#include <string.h>

#include "kernel_test_cpu.h"
#include "lite_kernels/cpu_features.h"
#include "lite_kernels/interleave3.h"

static void interleave_case(kt_rng* rng, lite_interleave3_u32_fn interleave, const char* name, size_t n) {
  uint32_t* planes = calloc(3 * n + 1, sizeof(uint32_t));
  uint32_t* expected = malloc((3 * n + 1) * sizeof(uint32_t));
  uint32_t* out = malloc((3 * n + 2) * sizeof(uint32_t));
  for (size_t i = 0; i < 3 * n; ++i) planes[i] = (uint32_t)kt_rand_u64(rng);
  for (size_t i = 0; i < n; ++i)
    for (size_t k = 0; k < 3; ++k) expected[3 * i + k] = planes[k * n + i];
  for (size_t i = 0; i < 3 * n + 2; ++i) out[i] = 0xA5A5A5A5u;
  interleave(n, planes, planes + n, planes + 2 * n, out);
  char what[64];
  snprintf(what, sizeof(what), "%s n=%zu", name, n);
  kt_check_equal_bytes(__FILE__, __LINE__, what, out, expected, 3 * n * sizeof(uint32_t));
  KT_CHECK(out[3 * n] == 0xA5A5A5A5u && out[3 * n + 1] == 0xA5A5A5A5u); /* nothing written past the end */
  free(planes);
  free(expected);
  free(out);
}

static void interleave_u8_case(kt_rng* rng, lite_interleave3_u8_fn interleave, const char* name, size_t n) {
  uint8_t* planes = calloc(3 * n + 1, 1);
  uint8_t* expected = malloc(3 * n + 1);
  uint8_t* out = malloc(3 * n + 2);
  for (size_t i = 0; i < 3 * n; ++i) planes[i] = (uint8_t)kt_rand_u64(rng);
  for (size_t i = 0; i < n; ++i)
    for (size_t k = 0; k < 3; ++k) expected[3 * i + k] = planes[k * n + i];
  memset(out, 0xA5, 3 * n + 2);
  interleave(n, planes, planes + n, planes + 2 * n, out);
  char what[64];
  snprintf(what, sizeof(what), "%s bytes n=%zu", name, n);
  kt_check_equal_bytes(__FILE__, __LINE__, what, out, expected, 3 * n);
  KT_CHECK(out[3 * n] == 0xA5 && out[3 * n + 1] == 0xA5);
  free(planes);
  free(expected);
  free(out);
}

int main(void) {
  kt_rng rng = kt_rng_make(20261121);
  const lite_interleave3_u32_fn selected = lite_interleave3_u32_select(lite_cpu_features());
#if defined(__x86_64__)
  kt_cpu_has_among(lite_cpu_features(), LITE_CPU_X86_AVX512, "x8_x32_interleave3_avx512");
#else
  if (selected == lite_interleave3_u32_portable) kt_skip("no ISA-specific interleave kernel for this architecture");
#endif
  for (size_t n = 0; n <= 70; ++n) {
    interleave_case(&rng, lite_interleave3_u32_portable, "portable", n);
    if (selected != lite_interleave3_u32_portable) interleave_case(&rng, selected, "selected", n);
  }
  interleave_case(&rng, selected, "selected", 224 * 3);
  const lite_interleave3_u8_fn selected_u8 = lite_interleave3_u8_select(lite_cpu_features());
#if defined(__x86_64__)
  if (selected_u8 == lite_interleave3_u8_portable) kt_skip("x8_interleave3_u8_avx512vbmi: the CPU lacks avx512vbmi");
#else
  if (selected_u8 == lite_interleave3_u8_portable) kt_skip("no ISA-specific byte interleave kernel for this architecture");
#endif
  for (size_t n = 0; n <= 200; ++n) {
    interleave_u8_case(&rng, lite_interleave3_u8_portable, "portable", n);
    if (selected_u8 != lite_interleave3_u8_portable) interleave_u8_case(&rng, selected_u8, "selected", n);
  }
  interleave_u8_case(&rng, selected_u8, "selected", 640 * 3);
  return kt_finish();
}
