/* ARM int8 GEMM microkernels (i8mm smmla, dotprod sdot, plain NEON smull, armv7 vmull) against the
 * reference FC, byte for byte (test_qs8_gemm_common.h), each selected by its feature bits and run
 * where the (emulated) CPU has them; the selection from the CPU's own features must be the richest
 * kernel it allows; the requantization is exact over the whole multiplier range with unsaturated
 * outputs and exact ties; and no kernel reads A past the end of the last row, checked with an
 * inaccessible page right after it (the qemu runs have no AddressSanitizer). */
#include <sys/mman.h>
#include <unistd.h>

#include "lite_kernels/qs8_gemm_packed_a.h"
#include "test_qs8_gemm_common.h"

/* Every m <= 2 MR + 1 and k <= 40 with the last A row ending at a PROT_NONE page: a read past
 * byte k - 1 of that row faults (the test dies, which the runner reports as a failure). */
static void check_no_read_past_a(const lite_qs8_gemm_config* cfg) {
  const size_t page = (size_t)sysconf(_SC_PAGESIZE);
  const size_t rows_bytes = ((2 * cfg->mr + 1) * 40 + page - 1) / page * page; /* the largest A, whole pages */
  uint8_t* map = mmap(NULL, rows_bytes + page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (!kt_record(map != MAP_FAILED && mprotect(map + rows_bytes, page, PROT_NONE) == 0, __FILE__, __LINE__,
                 "guard page mapped")) return;
  kt_rng rng = kt_rng_make(77);
  const size_t n = cfg->nr + 3;
  int8_t w[(4 * 16 + 3) * 40];
  int32_t bias[4 * 16 + 3], multiplier[4 * 16 + 3], shift[4 * 16 + 3];
  static uint8_t packed[1 << 16];
  const lite_qs8_gemm_params params = {3, -128, 127};
  int8_t* out = malloc((2 * cfg->mr + 1) * n); /* every row of the largest m */
  int ok = out != NULL && sizeof(bias) / sizeof(bias[0]) >= n &&
           lite_qs8_gemm_packed_size(cfg, n, 40) <= sizeof(packed);
  for (size_t j = 0; j < n; ++j) bias[j] = kt_rand_int(&rng, -1000, 1000), multiplier[j] = 1 << 30, shift[j] = 40;
  for (size_t k = 1; k <= 40 && ok; ++k) {
    kt_fill_int8(&rng, w, n * k, -128, 127);
    cfg->pack(cfg, n, k, w, 1, k, bias, -7, multiplier, shift, packed);
    for (size_t m = 1; m <= 2 * cfg->mr + 1; ++m) {
      int8_t* a = (int8_t*)(map + rows_bytes - m * k); /* dense rows; the last ends at the guard page */
      kt_fill_int8(&rng, a, m * k, -128, 127);
      lite_qs8_gemm_packed_compute(cfg, m, 0, n, k, a, k, packed, &params, out, n);
    }
  }
  char what[160];
  snprintf(what, sizeof(what), "%s reads no byte of A past the last row", cfg->name);
  kt_record(ok, __FILE__, __LINE__, what);
  free(out);
  munmap(map, rows_bytes + page);
}

/* The requantization over the whole multiplier range with accumulators scaled so that most outputs
 * land inside int8 (random FC data saturates for multipliers >= 1/2, hiding epilogue errors there),
 * exact ties (power-of-two multipliers, odd multiples of half an output step) and every output
 * zero point sign: one row of A times weights of 0 / +-1 plus per-column biases. */
static void check_requantization(const lite_qs8_gemm_config* cfg) {
  enum { M = 5, N = 96, K = 3 };
  kt_rng rng = kt_rng_make(2024);
  int8_t a[M * K], w[N * K], ref[M * N], out[M * N];
  int32_t bias[N], multiplier[N], shift[N];
  static uint8_t packed[1 << 14];
  size_t cases = 0, passed = 0;
  for (int round = 0; round < 40; ++round) {
    for (size_t j = 0; j < N; ++j) {
      const int tie = j % 4 == 0;
      const double real = tie ? ldexp(1.0, kt_rand_int(&rng, -20, 5))
                              : ldexp(kt_rand_uniform(&rng, 0.5f, 1.0f), kt_rand_int(&rng, -30, 6));
      int s = 1;
      lite_quantize_multiplier(real, &multiplier[j], &s);
      shift[j] = s;
      const double target = tie ? kt_rand_int(&rng, -90, 90) + 0.5 : kt_rand_uniform(&rng, -90.0f, 90.0f);
      const double b = target / real;
      bias[j] = (int32_t)(b > 1e9 ? 1e9 : b < -1e9 ? -1e9 : b);
      for (size_t p = 0; p < K; ++p) w[p + j * K] = (int8_t)(real > 0.1 ? 0 : kt_rand_int(&rng, -1, 1));
    }
    kt_fill_int8(&rng, a, sizeof(a), -128, 127);
    const int32_t zp_in = kt_rand_int(&rng, -128, 127), zp_out = kt_rand_int(&rng, -20, 20);
    const lite_qs8_requant_params rq = {zp_in, zp_out, -128, 127, multiplier, shift};
    lite_qs8_fully_connected_ref(M, K, N, &rq, a, w, bias, ref);
    if (lite_qs8_gemm_packed_size(cfg, N, K) > sizeof(packed)) break;
    cfg->pack(cfg, N, K, w, 1, K, bias, zp_in, multiplier, shift, packed);
    const lite_qs8_gemm_params params = {zp_out, -128, 127};
    lite_qs8_gemm_packed_compute(cfg, M, 0, N, K, a, K, packed, &params, out, N);
    size_t inside = 0;
    for (size_t i = 0; i < M * N; ++i) inside += ref[i] > -128 && ref[i] < 127;
    ++cases;
    passed += memcmp(out, ref, sizeof(out)) == 0 && inside > M * N / 2;
  }
  char what[160];
  snprintf(what, sizeof(what), "%s: %zu of %zu requantization sweeps (mostly unsaturated) equal the reference",
           cfg->name, passed, cases);
  kt_record(cases == 40 && passed == cases, __FILE__, __LINE__, what);
}

/* The packed-A form of a config (qs8_gemm_packed_a.h), where it has one: A packed from a strided
 * source, then every row and column against the reference FC (tails in m, n, k; zero points and
 * clamps at the extremes, multipliers over the whole range). */
static void check_packed_a(const lite_qs8_gemm_config* cfg) {
  const lite_qs8_gemm_packed_a_kernel* kernel = lite_qs8_gemm_packed_a_select(cfg);
  if (kernel == NULL) return;
  kt_rng rng = kt_rng_make(4242);
  const size_t ks[] = {1, 7, 8, 9, 15, 16, 17, 24, 27, 32, 40, 147, 576};
  const int32_t zps[] = {-128, 127, 0, 9};
  const int32_t clamps[][2] = {{-128, 127}, {-3, 127}, {-128, 40}, {7, 7}};
  size_t cases = 0, passed = 0;
  for (size_t ki = 0; ki < sizeof(ks) / sizeof(ks[0]); ++ki)
    for (size_t v = 0; v < 4; ++v) {
      const size_t m = (size_t)kt_rand_int(&rng, 1, 41), n = (size_t)kt_rand_int(&rng, 1, 70), k = ks[ki];
      const size_t lda = k + (size_t)kt_rand_int(&rng, 0, 3), ldc = n + (size_t)kt_rand_int(&rng, 0, 3);
      int8_t* a = malloc((m - 1) * lda + k);
      int8_t* a_dense = malloc(m * k);
      int8_t* w = malloc(n * k);
      int32_t* bias = malloc(n * sizeof(int32_t));
      int32_t* multiplier = malloc(n * sizeof(int32_t));
      int32_t* shift = malloc(n * sizeof(int32_t));
      int8_t* ref = malloc(m * n);
      int8_t* out = malloc(m * ldc);
      void* packed_w = malloc(lite_qs8_gemm_packed_size(cfg, n, k));
      int8_t* packed_a = malloc(kernel->packed_a_bytes(m, k));
      kt_fill_int8(&rng, a, (m - 1) * lda + k, -128, 127);
      kt_fill_int8(&rng, w, n * k, -128, 127);
      for (size_t i = 0; i < m; ++i) memcpy(a_dense + i * k, a + i * lda, k);
      for (size_t j = 0; j < n; ++j) {
        bias[j] = kt_rand_int(&rng, -(1 << 20), 1 << 20);
        int sh = 1;
        lite_quantize_multiplier(qs8_test_real_multiplier(&rng, (int)(v % 2)), &multiplier[j], &sh);
        shift[j] = sh;
      }
      const int32_t zp_in = zps[v], zp_out = zps[(v + 1) % 4];
      const lite_qs8_requant_params rq = {zp_in, zp_out, clamps[v][0], clamps[v][1], multiplier, shift};
      lite_qs8_fully_connected_ref(m, k, n, &rq, a_dense, w, bias, ref);
      cfg->pack(cfg, n, k, w, 1, k, bias, zp_in, multiplier, shift, packed_w);
      kernel->pack_a(m, k, a, lda, packed_a);
      memset(out, 0x5A, m * ldc);
      const lite_qs8_gemm_params params = {zp_out, clamps[v][0], clamps[v][1]};
      kernel->compute(cfg, m, n, k, packed_a, packed_w, &params, out, ldc);
      int ok = 1;
      for (size_t i = 0; i < m && ok; ++i) {
        ok = memcmp(out + i * ldc, ref + i * n, n) == 0;
        for (size_t j = n; j < ldc && ok; ++j) ok = out[i * ldc + j] == 0x5A;
      }
      if (!ok) fprintf(stderr, "%s packed A: m=%zu n=%zu k=%zu differs\n", cfg->name, m, n, k);
      ++cases;
      passed += (size_t)ok;
      free(a), free(a_dense), free(w), free(bias), free(multiplier), free(shift), free(ref), free(out);
      free(packed_w), free(packed_a);
    }
  char what[160];
  snprintf(what, sizeof(what), "%s packed A: %zu of %zu GEMMs equal lite_qs8_fully_connected_ref", cfg->name, passed,
           cases);
  kt_record(passed == cases, __FILE__, __LINE__, what);
}

#if defined(__aarch64__) || defined(__arm__)
/* Weights in [-127, 127] (our quantizer's), where a kernel may sum two products in int16: random
 * problems, then the largest pair sums (A all -128 or 127 against weights of +-127), scaled so that
 * the outputs stay inside int8 (a wrapped pair would be far off). */
static void check_symmetric_weights(const lite_qs8_gemm_config* cfg) {
  qs8_test_weight_min = -127;
  run_qs8_gemm_tests(cfg);
  qs8_test_weight_min = -128;
  enum { M = 5, N = 19, KMAX = 300 };
  static int8_t a[M * KMAX], w[N * KMAX];
  static uint8_t packed[1 << 16];
  int8_t ref[M * N], out[M * N];
  int32_t multiplier[N], shift[N];
  const size_t ks[] = {16, 33, KMAX};
  size_t cases = 0, passed = 0;
  for (size_t ki = 0; ki < 3; ++ki)
    for (int av = 0; av < 2; ++av) {
      const size_t k = ks[ki];
      memset(a, av ? 127 : -128, sizeof(a));
      for (size_t j = 0; j < N; ++j) {
        memset(w + j * k, j % 2 ? 127 : -127, k);
        int sh = 1;
        lite_quantize_multiplier(100.0 / ((double)k * 128 * 127), &multiplier[j], &sh);
        shift[j] = sh;
      }
      const lite_qs8_requant_params rq = {0, 0, -128, 127, multiplier, shift};
      lite_qs8_fully_connected_ref(M, k, N, &rq, a, w, NULL, ref);
      cfg->pack(cfg, N, k, w, 1, k, NULL, 0, multiplier, shift, packed);
      const lite_qs8_gemm_params params = {0, -128, 127};
      lite_qs8_gemm_packed_compute(cfg, M, 0, N, k, a, k, packed, &params, out, N);
      ++cases;
      passed += memcmp(out, ref, sizeof(out)) == 0 && ref[0] != -128 && ref[0] != 127;
    }
  char what[160];
  snprintf(what, sizeof(what), "%s: %zu of %zu largest int16 pair sums equal the reference", cfg->name, passed, cases);
  kt_record(passed == cases, __FILE__, __LINE__, what);
}
#endif

#if defined(__aarch64__)
/* The dotprod kernel's 8-column path (a panel of nc <= 8, m >= 8, k a multiple of 16: 8-row tiles, the
 * last one overlapping when m % 8 != 0, nc < 8 through a scratch tile), with and without the left
 * shift of large multipliers. */
static void check_narrow_panels(const lite_qs8_gemm_config* cfg) {
  kt_rng rng = kt_rng_make(8);
  const size_t ms[] = {8, 13, 64, 71}, ns[] = {3, 8, 24, 40}, ks[] = {16, 96};
  size_t cases = 0, passed = 0;
  for (size_t mi = 0; mi < 4; ++mi)
    for (size_t ni = 0; ni < 4; ++ni)
      for (size_t ki = 0; ki < 2; ++ki) {
        qs8_test_wide_multipliers = (int)((mi + ni + ki) % 2);
        ++cases;
        passed += (size_t)qs8_gemm_case(cfg, &rng, ms[mi], ns[ni], ks[ki], ki ? -128 : 3, ni ? 127 : -5,
                                        ni == 2 ? -20 : -128, mi == 1 ? 20 : 127, (int)(mi & 1));
      }
  qs8_test_wide_multipliers = 0;
  char what[160];
  snprintf(what, sizeof(what), "%s: %zu of %zu GEMMs with a panel of <= 8 columns equal the reference", cfg->name,
           passed, cases);
  kt_record(passed == cases, __FILE__, __LINE__, what);
}
#endif

int main(void) {
  const uint32_t detected = lite_cpu_features_detected();
  check_no_read_past_a(lite_qs8_gemm_config_portable());
  check_requantization(lite_qs8_gemm_config_portable());
  kt_record(lite_qs8_gemm_packed_a_select(lite_qs8_gemm_config_portable()) == NULL, __FILE__, __LINE__,
            "the portable config has no packed-A kernel");
#if defined(__aarch64__)
  const uint32_t neon = LITE_CPU_ARM_NEON, dot = neon | LITE_CPU_ARM_DOTPROD, i8mm = dot | LITE_CPU_ARM_I8MM;
  run_qs8_gemm_variant(i8mm, 64, 64, "qs8_gemm_4x16c8_aarch64_neoni8mm");
  run_qs8_gemm_variant(dot, 64, 64, "qs8_gemm_64x16c4_aarch64_neondot");
  run_qs8_gemm_variant(neon, 64, 64, "qs8_gemm_36x8c16_aarch64_neon");
  const uint32_t levels[] = {i8mm, dot, neon};
  const char* best = "qs8_gemm_4x8c4_portable";
  for (size_t i = 3; i-- > 0;) {
    if ((detected & levels[i]) != levels[i]) break;
    check_no_read_past_a(lite_qs8_gemm_config_select(levels[i], 64, 64));
    check_requantization(lite_qs8_gemm_config_select(levels[i], 64, 64));
    check_symmetric_weights(lite_qs8_gemm_config_select(levels[i], 64, 64));
    if (levels[i] == dot) check_narrow_panels(lite_qs8_gemm_config_select(dot, 64, 64));
    best = lite_qs8_gemm_config_select(levels[i], 64, 64)->name;
  }
#elif defined(__arm__)
  run_qs8_gemm_variant(LITE_CPU_ARM_NEON, 64, 64, "qs8_gemm_72x4c16_armv7_neon");
  const char* best = (detected & LITE_CPU_ARM_NEON) ? "qs8_gemm_72x4c16_armv7_neon" : "qs8_gemm_4x8c4_portable";
  if (detected & LITE_CPU_ARM_NEON) {
    check_no_read_past_a(lite_qs8_gemm_config_select(LITE_CPU_ARM_NEON, 64, 64));
    check_requantization(lite_qs8_gemm_config_select(LITE_CPU_ARM_NEON, 64, 64));
    check_symmetric_weights(lite_qs8_gemm_config_select(LITE_CPU_ARM_NEON, 64, 64));
  }
#else
  kt_skip("not an ARM build: only the portable kernel's A reads are checked");
  const char* best = NULL;
#endif
  check_packed_a(lite_qs8_gemm_config_select(detected, 64, 64)); /* the CPU's own kernel, where it has the form */
  if (best != NULL) {
    const char* got = lite_qs8_gemm_config_select(detected, 64, 64)->name;
    char what[160];
    snprintf(what, sizeof(what), "this CPU selects %s, expected %s", got, best);
    kt_record(strcmp(got, best) == 0, __FILE__, __LINE__, what);
  }
  return kt_finish();
}
