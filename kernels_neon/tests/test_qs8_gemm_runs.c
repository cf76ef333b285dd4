/* The int8 GEMM microkernels over A rows made of runs (qs8_gemm_packed_runs.h) against the reference
 * FC on the concatenated rows, byte for byte: random run counts and lengths (multiples of KR), row
 * strides that overlap runs (a convolution's neighbouring pixels share input bytes), mr / nc tails,
 * zero-point extremes and clamps. Each run is its own allocation ending at the last byte the kernel
 * may read (ASan catches over-reads). Skipped where the CPU has no runs kernel. */
#include <stdlib.h>
#include <string.h>

#include "kernel_test_cpu.h"
#include "lite_kernels/cpu_features.h"
#include "lite_kernels/qs8_conv2d_fully_connected.h"
#include "lite_kernels/qs8_gemm_packed.h"
#include "lite_kernels/qs8_gemm_packed_runs.h"
#include "lite_kernels/requantize.h"

#if defined(__x86_64__) || defined(__aarch64__)
enum { kMaxRuns = 7, kMaxRows = 64 };

static int runs_case(const lite_qs8_gemm_config* cfg, lite_qs8_gemm_runs_ukernel_fn ukernel, kt_rng* rng, size_t mr,
                     size_t nc, size_t runs, size_t run_bytes, size_t a_stride, int32_t zp_in, int32_t zp_out,
                     int32_t act_min, int32_t act_max, int wide) {
  const size_t k = runs * run_bytes, n = nc;
  int8_t* run_data[kMaxRuns];
  for (size_t s = 0; s < runs; ++s) {
    run_data[s] = malloc((mr - 1) * a_stride + run_bytes);
    kt_fill_int8(rng, run_data[s], (mr - 1) * a_stride + run_bytes, -128, 127);
  }
  int8_t* a_dense = malloc(mr * k);
  for (size_t i = 0; i < mr; ++i)
    for (size_t s = 0; s < runs; ++s) memcpy(a_dense + i * k + s * run_bytes, run_data[s] + i * a_stride, run_bytes);
  int8_t* w = malloc(n * k);
  kt_fill_int8(rng, w, n * k, -128, 127);
  int32_t bias[64], multiplier[64], shift[64];
  for (size_t j = 0; j < n; ++j) {
    bias[j] = kt_rand_int(rng, -(1 << 20), 1 << 20);
    int s = 1;
    /* wide: some multipliers above 1 (a left shift before the fixed-point multiply) */
    const int exponent = wide && j % 3 == 0 ? kt_rand_int(rng, 0, 5) : -kt_rand_int(rng, 4, 16);
    lite_quantize_multiplier(ldexp(kt_rand_uniform(rng, 0.5f, 1.0f), exponent), &multiplier[j], &s);
    shift[j] = s;
  }
  const lite_qs8_requant_params rq = {zp_in, zp_out, act_min, act_max, multiplier, shift};
  static int8_t ref[kMaxRows * 64], out[kMaxRows * 64];
  lite_qs8_fully_connected_ref(mr, k, n, &rq, a_dense, w, bias, ref);
  void* packed = malloc(lite_qs8_gemm_packed_size(cfg, n, k));
  cfg->pack(cfg, n, k, w, 1, k, bias, zp_in, multiplier, shift, packed);
  const lite_qs8_gemm_params params = {zp_out, act_min, act_max};
  memset(out, 0x5A, sizeof(out));
  ukernel(mr, nc, runs, run_bytes, (const int8_t* const*)run_data, a_stride, packed, out, 64, &params);
  int ok = 1;
  for (size_t i = 0; i < mr; ++i) {
    ok &= memcmp(out + i * 64, ref + i * n, n) == 0;
    for (size_t j = n; j < 64; ++j) ok &= out[i * 64 + j] == 0x5A;  /* nothing past nc */
  }
  for (size_t i = mr; i < kMaxRows; ++i)
    for (size_t j = 0; j < 64; ++j) ok &= out[i * 64 + j] == 0x5A;  /* nothing past mr */
  if (!ok)
    fprintf(stderr, "%s runs: mr=%zu nc=%zu runs=%zu run_bytes=%zu stride=%zu differ\n", cfg->name, mr, nc, runs,
            run_bytes, a_stride);
  for (size_t s = 0; s < runs; ++s) free(run_data[s]);
  free(a_dense);
  free(w);
  free(packed);
  return ok;
}

static void run_runs_tests(uint32_t features, size_t n, size_t count, int wide) {
  const lite_qs8_gemm_config* cfg = lite_qs8_gemm_config_select(features, n, 64);
  const lite_qs8_gemm_runs_ukernel_fn ukernel = lite_qs8_gemm_runs_ukernel_select(cfg);
  char what[160];
  snprintf(what, sizeof(what), "%s has a runs kernel", cfg->name);
  if (!kt_record(ukernel != NULL, __FILE__, __LINE__, what)) return;
  kt_rng rng = kt_rng_make(0x51ab5eedull ^ cfg->nr);
  const int32_t zps[] = {-128, 127, 0, 5};
  const int32_t clamps[][2] = {{-128, 127}, {-3, 127}, {-20, 20}};
  size_t cases = 0, passed = 0;
  for (size_t t = 0; t < count; ++t) {
    const size_t mr = (size_t)kt_rand_int(&rng, 1, (int32_t)cfg->mr);
    const size_t nc = (size_t)kt_rand_int(&rng, 1, (int32_t)cfg->nr);
    const size_t runs = (size_t)kt_rand_int(&rng, 1, kMaxRuns);
    const size_t run_bytes = cfg->kr * (size_t)kt_rand_int(&rng, 1, 48);
    /* strides below run_bytes overlap neighbouring rows, like a stride-1 convolution's windows */
    const size_t a_stride = (size_t)kt_rand_int(&rng, 1, (int32_t)(2 * run_bytes));
    const int32_t* cl = clamps[t % 3];
    ++cases;
    passed += (size_t)runs_case(cfg, ukernel, &rng, mr, nc, runs, run_bytes, a_stride, zps[t % 4], zps[(t + 1) % 4],
                                cl[0], cl[1], wide);
  }
  snprintf(what, sizeof(what), "%s runs kernel: %zu of %zu random tiles equal lite_qs8_fully_connected_ref", cfg->name,
           passed, cases);
  kt_record(passed == cases, __FILE__, __LINE__, what);
}

#endif

int main(void) {
#if defined(__x86_64__)
  const uint32_t f = LITE_CPU_X86_AVX2 | LITE_CPU_X86_AVX512 | LITE_CPU_X86_AVX512VNNI;
  if (kt_cpu_has(f, "qs8_gemm_runs_avx512vnni")) {
    run_runs_tests(f, 16, 60, 0);
    run_runs_tests(f, 24, 60, 0);
    run_runs_tests(f, 64, 60, 0);
  }
#elif defined(__aarch64__)
  const uint32_t dot = LITE_CPU_ARM_NEON | LITE_CPU_ARM_DOTPROD;
  if (kt_cpu_has(dot, "qs8_gemm_runs_64x16c4_aarch64_neondot")) run_runs_tests(dot, 64, 120, 1);
#else
  kt_skip("no runs kernel on armv7");
#endif
  KT_CHECK(lite_qs8_gemm_runs_ukernel_select(lite_qs8_gemm_config_portable()) == NULL);
  return kt_finish();
}
