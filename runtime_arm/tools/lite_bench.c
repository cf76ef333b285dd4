/* lite_bench: latency and memory of one .lite model through the public C API, on the device.
 *
 *   lite_bench model.lite [--shape INDEX:D0xD1x...]... [--input inputs.raw] [--threads N]
 *                         [--cpu-affinity none|fast] [--warmup N] [--runs N] [--packed-weight-ratio R] [--json]
 *
 * Prints (one "key: value" per line, or one JSON object with --json):
 *   init_ms        load + interpreter create + allocate (no weight packing happens before the first run
 *                  if the runtime packs lazily, so see first_run_ms too)
 *   first_run_ms   the first invoke (one-time work: weight packing, caches)
 *   min/median/p90/mean_ms over --runs timed invokes, after --warmup untimed ones
 *   cpus           with --cpu-affinity fast: the CPUs the threads run on ("" when nothing was pinned:
 *                  identical CPUs, or sysfs does not rank them)
 *   arena_bytes    the interpreter's activation arena
 *   memory_bytes   what the interpreter committed for the model: arena + scratch + packed weights and
 *                  other op state + prepare-time values (lite_interpreter_memory_bytes; the mapped
 *                  model file is not counted: weights_bytes is its constants)
 *   weights_bytes  the model's weights (its constants, lite_interpreter options' packed_weight_ratio
 *                  is a multiple of it; --packed-weight-ratio sets it, 0 or absent: the default)
 *   peak_rss_kb    the process's peak resident set (getrusage; under qemu-user it is qemu's)
 *
 * Instruction counting (benchmarks/qemu_insn_count, lite_converter/app/bench_qemu.py): the timed loop is
 * bracketed by lite_bench_marker_begin() / lite_bench_marker_end() and each timed invoke is preceded
 * by lite_bench_marker_iteration(). They do nothing; an emulator plugin finds them by symbol and
 * counts the guest instructions executed between begin and end, i.e. inference only (loading and
 * the first run, which packs weights, come before begin). Keep this binary unstripped.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

#include "lite_runtime.h"

/* ---- markers for the instruction counter ------------------------------------------------- */

/* Distinct side effects keep the three bodies different, so identical-code folding cannot give
 * them one address; noipa keeps every call a real call. */
static volatile int g_marker_state;

__attribute__((noipa, used, visibility("default"))) void lite_bench_marker_begin(void) { g_marker_state = 1; }

__attribute__((noipa, used, visibility("default"))) void lite_bench_marker_iteration(void) { g_marker_state += 2; }

__attribute__((noipa, used, visibility("default"))) void lite_bench_marker_end(void) { g_marker_state = -1; }

/* ---- helpers ----------------------------------------------------------------------------- */

#define MAX_SHAPES 16

typedef struct {
  const char* model_path;
  const char* input_path;
  int threads, warmup, runs, json, fast_cores;
  float packed_weight_ratio; /* 0: the runtime's default */
  int num_shapes;
  int shape_index[MAX_SHAPES];
  int shape_rank[MAX_SHAPES];
  int64_t shape_dims[MAX_SHAPES][LITE_MAX_RANK];
} bench_args;

static void usage(void) {
  fprintf(stderr,
          "usage: lite_bench model.lite [--shape INDEX:D0xD1x...]... [--input inputs.raw] [--threads N]\n"
          "                  [--cpu-affinity none|fast] [--warmup N] [--runs N] [--packed-weight-ratio R]\n"
          "                  [--json]\n");
}

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

/* Parses "INDEX:D0xD1x..." ("INDEX:" alone is a scalar). Returns 0 on success. */
static int parse_shape(const char* text, int* index, int64_t* dims, int* rank) {
  char* end = NULL;
  long i = strtol(text, &end, 10);
  if (end == text || *end != ':' || i < 0) return -1;
  *index = (int)i;
  *rank = 0;
  const char* p = end + 1;
  while (*p != '\0') {
    if (*rank >= LITE_MAX_RANK) return -1;
    long long d = strtoll(p, &end, 10);
    if (end == p || d < 0) return -1;
    dims[(*rank)++] = (int64_t)d;
    if (*end == 'x') {
      p = end + 1;
    } else if (*end != '\0') {
      return -1;
    } else {
      p = end;
    }
  }
  return 0;
}

static int parse_count(const char* text, int min_value, int* out) {
  char* end = NULL;
  long v = strtol(text, &end, 10);
  if (end == text || *end != '\0' || v < min_value || v > 1000000) return -1;
  *out = (int)v;
  return 0;
}

static int parse_args(int argc, char** argv, bench_args* args) {
  memset(args, 0, sizeof(*args));
  args->threads = 1;
  args->warmup = 3;
  args->runs = 10;
  for (int a = 1; a < argc; ++a) {
    const char* opt = argv[a];
    const char* value = a + 1 < argc ? argv[a + 1] : NULL;
    if (strcmp(opt, "--json") == 0) {
      args->json = 1;
    } else if (strcmp(opt, "--shape") == 0 && value != NULL) {
      int n = args->num_shapes;
      if (n >= MAX_SHAPES || parse_shape(value, &args->shape_index[n], args->shape_dims[n], &args->shape_rank[n])) {
        fprintf(stderr, "bad --shape '%s' (expected INDEX:D0xD1x...)\n", value);
        return -1;
      }
      args->num_shapes++, ++a;
    } else if (strcmp(opt, "--input") == 0 && value != NULL) {
      args->input_path = value, ++a;
    } else if (strcmp(opt, "--threads") == 0 && value != NULL) {
      if (parse_count(value, 1, &args->threads)) return -1;
      ++a;
    } else if (strcmp(opt, "--cpu-affinity") == 0 && value != NULL) {
      if (strcmp(value, "fast") != 0 && strcmp(value, "none") != 0) {
        fprintf(stderr, "bad --cpu-affinity '%s' (expected none or fast)\n", value);
        return -1;
      }
      args->fast_cores = strcmp(value, "fast") == 0, ++a;
    } else if (strcmp(opt, "--warmup") == 0 && value != NULL) {
      if (parse_count(value, 0, &args->warmup)) return -1;
      ++a;
    } else if (strcmp(opt, "--packed-weight-ratio") == 0 && value != NULL) {
      char* end = NULL;
      args->packed_weight_ratio = strtof(value, &end);
      if (end == value || *end != '\0' || !(args->packed_weight_ratio >= 0.0f)) {
        fprintf(stderr, "bad --packed-weight-ratio '%s' (expected a number >= 0, inf for no bound)\n", value);
        return -1;
      }
      ++a;
    } else if (strcmp(opt, "--runs") == 0 && value != NULL) {
      if (parse_count(value, 1, &args->runs)) return -1;
      ++a;
    } else if (opt[0] != '-' && args->model_path == NULL) {
      args->model_path = opt;
    } else {
      return -1;
    }
  }
  return args->model_path == NULL ? -1 : 0;
}

/* Inputs without --input: small deterministic values valid for every dtype (indices stay 0..4). */
static void fill_input(void* data, size_t bytes, int dtype) {
  size_t i;
  switch (dtype) {
    case LITE_FLOAT32:
      for (i = 0; i < bytes / sizeof(float); ++i) ((float*)data)[i] = (float)((int)(i * 7 % 17) - 8) / 8.0f;
      break;
    case LITE_INT32:
      for (i = 0; i < bytes / sizeof(int32_t); ++i) ((int32_t*)data)[i] = (int32_t)(i % 5);
      break;
    case LITE_INT64:
      for (i = 0; i < bytes / sizeof(int64_t); ++i) ((int64_t*)data)[i] = (int64_t)(i % 5);
      break;
    default: memset(data, 0, bytes); break;
  }
}

static int set_inputs(lite_interpreter* it, const char* input_path) {
  FILE* in = NULL;
  if (input_path != NULL && (in = fopen(input_path, "rb")) == NULL) {
    fprintf(stderr, "cannot open %s\n", input_path);
    return -1;
  }
  int rc = 0;
  for (int i = 0; i < lite_interpreter_input_count(it) && rc == 0; ++i) {
    size_t bytes = lite_interpreter_input_bytes(it, i);
    void* data = lite_interpreter_input_data(it, i);
    if (data == NULL) {
      fprintf(stderr, "input %d: %s\n", i, lite_interpreter_error_message(it));
      rc = -1;
    } else if (in != NULL) {
      if (fread(data, 1, bytes, in) != bytes) {
        fprintf(stderr, "%s is too short for input %d (%zu bytes)\n", input_path, i, bytes);
        rc = -1;
      }
    } else {
      fill_input(data, bytes, lite_interpreter_input_dtype(it, i));
    }
  }
  if (in != NULL) fclose(in);
  return rc;
}

static int compare_doubles(const void* a, const void* b) {
  double x = *(const double*)a, y = *(const double*)b;
  return (x > y) - (x < y);
}

/* The value at quantile q of sorted samples (nearest rank). */
static double quantile(const double* sorted, int n, double q) {
  int rank = (int)(q * (double)n + 0.999999);
  if (rank < 1) rank = 1;
  if (rank > n) rank = n;
  return sorted[rank - 1];
}

static long peak_rss_kb(void) {
  struct rusage usage;
  return getrusage(RUSAGE_SELF, &usage) == 0 ? usage.ru_maxrss : -1;
}

int main(int argc, char** argv) {
  bench_args args;
  if (parse_args(argc, argv, &args) != 0) {
    usage();
    return 2;
  }
  int rc = 1;
  lite_error error;
  lite_model* model = NULL;
  lite_interpreter* it = NULL;
  double* samples = NULL;

  const double t0 = now_ms();
  if (lite_model_load_file(args.model_path, &model, &error) != LITE_OK) {
    fprintf(stderr, "cannot load %s: %s\n", args.model_path, error.message);
    return 1;
  }
  lite_interpreter_options options = lite_interpreter_options_default();
  options.num_threads = args.threads;
  options.cpu_affinity = args.fast_cores ? LITE_CPU_AFFINITY_FAST_CORES : LITE_CPU_AFFINITY_NONE;
  options.packed_weight_ratio = args.packed_weight_ratio;
  if (lite_interpreter_create(model, &options, &it, &error) != LITE_OK) {
    fprintf(stderr, "cannot create the interpreter: %s\n", error.message);
    goto done;
  }
  for (int s = 0; s < args.num_shapes; ++s) {
    if (lite_interpreter_resize_input(it, args.shape_index[s], args.shape_dims[s], args.shape_rank[s]) != LITE_OK) {
      fprintf(stderr, "resize: %s\n", lite_interpreter_error_message(it));
      goto done;
    }
  }
  if (lite_interpreter_allocate(it) != LITE_OK) {
    fprintf(stderr, "allocate: %s\n", lite_interpreter_error_message(it));
    goto done;
  }
  const double init_ms = now_ms() - t0;
  if (set_inputs(it, args.input_path) != 0) goto done;

  double t = now_ms();
  if (lite_interpreter_invoke(it) != LITE_OK) {
    fprintf(stderr, "invoke: %s\n", lite_interpreter_error_message(it));
    goto done;
  }
  const double first_run_ms = now_ms() - t;
  for (int r = 0; r < args.warmup; ++r) {
    if (lite_interpreter_invoke(it) != LITE_OK) {
      fprintf(stderr, "invoke: %s\n", lite_interpreter_error_message(it));
      goto done;
    }
  }

  samples = malloc(sizeof(double) * (size_t)args.runs);
  if (samples == NULL) goto done;
  lite_bench_marker_begin();
  for (int r = 0; r < args.runs; ++r) {
    lite_bench_marker_iteration();
    t = now_ms();
    if (lite_interpreter_invoke(it) != LITE_OK) {
      lite_bench_marker_end();
      fprintf(stderr, "invoke: %s\n", lite_interpreter_error_message(it));
      goto done;
    }
    samples[r] = now_ms() - t;
  }
  lite_bench_marker_end();

  double sum = 0.0;
  for (int r = 0; r < args.runs; ++r) sum += samples[r];
  qsort(samples, (size_t)args.runs, sizeof(double), compare_doubles);
  const double min_ms = samples[0], median_ms = quantile(samples, args.runs, 0.5);
  const double p90_ms = quantile(samples, args.runs, 0.9), mean_ms = sum / args.runs;
  const size_t arena = lite_interpreter_arena_bytes(it), memory = lite_interpreter_memory_bytes(it);
  const size_t weights = lite_interpreter_weights_bytes(it);
  const long rss = peak_rss_kb();
  char cpus[256] = "";
  int chosen[64];
  const int count = lite_interpreter_cpu_affinity_cpus(it, chosen, 64);
  for (int i = 0, used = 0; i < count && i < 64 && used < (int)sizeof(cpus) - 12; ++i)
    used += snprintf(cpus + used, sizeof(cpus) - (size_t)used, "%s%d", i ? "," : "", chosen[i]);
  if (args.json) {
    printf("{\"model\": \"%s\", \"threads\": %d, \"warmup\": %d, \"runs\": %d, \"init_ms\": %.4f, "
           "\"first_run_ms\": %.4f, \"min_ms\": %.4f, \"median_ms\": %.4f, \"p90_ms\": %.4f, \"mean_ms\": %.4f, "
           "\"arena_bytes\": %zu, \"memory_bytes\": %zu, \"weights_bytes\": %zu, \"peak_rss_kb\": %ld, "
           "\"cpus\": \"%s\"}\n",
           args.model_path, args.threads, args.warmup, args.runs, init_ms, first_run_ms, min_ms, median_ms, p90_ms,
           mean_ms, arena, memory, weights, rss, cpus);
  } else {
    printf("model: %s\nthreads: %d\nwarmup: %d\nruns: %d\n", args.model_path, args.threads, args.warmup, args.runs);
    printf("init_ms: %.4f\nfirst_run_ms: %.4f\n", init_ms, first_run_ms);
    printf("min_ms: %.4f\nmedian_ms: %.4f\np90_ms: %.4f\nmean_ms: %.4f\n", min_ms, median_ms, p90_ms, mean_ms);
    printf("arena_bytes: %zu\nmemory_bytes: %zu\nweights_bytes: %zu\npeak_rss_kb: %ld\n", arena, memory, weights,
           rss);
    if (args.fast_cores) printf("cpus: %s\n", cpus);
  }
  rc = 0;

done:
  free(samples);
  lite_interpreter_destroy(it); /* before its model */
  lite_model_destroy(model);
  return rc;
}
