/* run_model: loads a .lite model, fills its inputs, runs it, prints every output.
 *
 *   run_model model.lite [--shape INDEX:D0xD1x...]... [--input inputs.raw] [--output outputs.raw]
 *                        [--threads N] [--repeat N]
 *
 * --shape     resizes input INDEX (needed for dynamic dims, e.g. --shape 0:1x3x48x192)
 * --input     raw bytes of every input, in input order, concatenated (native little endian);
 *             without it, inputs get a deterministic pattern (see fill_pattern)
 * --output    writes the raw bytes of every output, in output order, concatenated
 *
 * Uses only the public C API (lite_runtime.h). C99.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lite_runtime.h"

static const char* const kDtypeNames[] = {"float32", "float16", "float64", "int8",   "uint8",  "int16",
                                          "int32",   "int64",   "bool",    "uint16", "uint32", "uint64"};

static const char* dtype_name(int dtype) {
  return dtype >= 0 && dtype < (int)(sizeof(kDtypeNames) / sizeof(kDtypeNames[0])) ? kDtypeNames[dtype] : "?";
}

static void usage(void) {
  fprintf(stderr,
          "usage: run_model model.lite [--shape INDEX:D0xD1x...]... [--input inputs.raw] "
          "[--output outputs.raw] [--threads N] [--repeat N]\n");
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
    } else if (*end == '\0') {
      p = end;
    } else {
      return -1;
    }
  }
  return 0;
}

/* A deterministic input: small values that vary by position and input, valid for every dtype. */
static void fill_pattern(void* data, size_t bytes, int dtype, int input_index) {
  size_t n, i;
  switch (dtype) {
    case LITE_FLOAT32: {
      float* p = (float*)data;
      n = bytes / sizeof(float);
      for (i = 0; i < n; ++i) p[i] = (float)((int)((i * 7 + (size_t)input_index * 13) % 17) - 8) / 8.0f;
      break;
    }
    case LITE_FLOAT64: {
      double* p = (double*)data;
      n = bytes / sizeof(double);
      for (i = 0; i < n; ++i) p[i] = (double)((int)((i * 7 + (size_t)input_index * 13) % 17) - 8) / 8.0;
      break;
    }
    case LITE_INT32: {
      int32_t* p = (int32_t*)data;
      n = bytes / sizeof(int32_t);
      for (i = 0; i < n; ++i) p[i] = (int32_t)(i % 5);
      break;
    }
    case LITE_INT64: {
      int64_t* p = (int64_t*)data;
      n = bytes / sizeof(int64_t);
      for (i = 0; i < n; ++i) p[i] = (int64_t)(i % 5);
      break;
    }
    case LITE_BOOL: {
      unsigned char* p = (unsigned char*)data;
      for (i = 0; i < bytes; ++i) p[i] = (unsigned char)(i % 2);
      break;
    }
    default: memset(data, 0, bytes); break;
  }
}

static void print_values(const void* data, size_t bytes, int dtype, size_t max_values) {
  size_t i, n;
  switch (dtype) {
    case LITE_FLOAT32:
      n = bytes / sizeof(float);
      for (i = 0; i < n && i < max_values; ++i) printf(" %.6g", (double)((const float*)data)[i]);
      break;
    case LITE_FLOAT64:
      n = bytes / sizeof(double);
      for (i = 0; i < n && i < max_values; ++i) printf(" %.6g", ((const double*)data)[i]);
      break;
    case LITE_INT32:
      n = bytes / sizeof(int32_t);
      for (i = 0; i < n && i < max_values; ++i) printf(" %ld", (long)((const int32_t*)data)[i]);
      break;
    case LITE_INT64:
      n = bytes / sizeof(int64_t);
      for (i = 0; i < n && i < max_values; ++i) printf(" %lld", (long long)((const int64_t*)data)[i]);
      break;
    default:
      for (i = 0; i < bytes && i < max_values; ++i) printf(" 0x%02x", ((const unsigned char*)data)[i]);
      break;
  }
  printf("\n");
}

int main(int argc, char** argv) {
  const char* model_path = NULL;
  const char* input_path = NULL;
  const char* output_path = NULL;
  int threads = 1, repeat = 1;
  int shape_index[16];
  int64_t shape_dims[16][LITE_MAX_RANK];
  int shape_rank[16];
  int num_shapes = 0;
  int a;
  for (a = 1; a < argc; ++a) {
    if (strcmp(argv[a], "--shape") == 0 && a + 1 < argc) {
      if (num_shapes >= 16 || parse_shape(argv[++a], &shape_index[num_shapes], shape_dims[num_shapes],
                                          &shape_rank[num_shapes]) != 0) {
        fprintf(stderr, "bad --shape '%s' (expected INDEX:D0xD1x...)\n", argv[a]);
        return 2;
      }
      ++num_shapes;
    } else if (strcmp(argv[a], "--input") == 0 && a + 1 < argc) {
      input_path = argv[++a];
    } else if (strcmp(argv[a], "--output") == 0 && a + 1 < argc) {
      output_path = argv[++a];
    } else if (strcmp(argv[a], "--threads") == 0 && a + 1 < argc) {
      threads = atoi(argv[++a]);
    } else if (strcmp(argv[a], "--repeat") == 0 && a + 1 < argc) {
      repeat = atoi(argv[++a]);
    } else if (argv[a][0] != '-' && model_path == NULL) {
      model_path = argv[a];
    } else {
      usage();
      return 2;
    }
  }
  if (model_path == NULL || repeat < 1) {
    usage();
    return 2;
  }

  int rc = 1;
  lite_error error;
  lite_model* model = NULL;
  lite_interpreter* it = NULL;
  FILE* in = NULL;
  FILE* out = NULL;
  void* buffer = NULL;

  if (lite_model_load_file(model_path, &model, &error) != LITE_OK) {
    fprintf(stderr, "cannot load %s: %s\n", model_path, error.message);
    return 1;
  }
  lite_interpreter_options options = lite_interpreter_options_default();
  options.num_threads = threads;
  if (lite_interpreter_create(model, &options, &it, &error) != LITE_OK) {
    fprintf(stderr, "cannot create the interpreter: %s\n", error.message);
    goto done;
  }
  for (a = 0; a < num_shapes; ++a) {
    if (lite_interpreter_resize_input(it, shape_index[a], shape_dims[a], shape_rank[a]) != LITE_OK) {
      fprintf(stderr, "resize: %s\n", lite_interpreter_error_message(it));
      goto done;
    }
  }
  if (lite_interpreter_allocate(it) != LITE_OK) {
    fprintf(stderr, "allocate: %s\n", lite_interpreter_error_message(it));
    goto done;
  }

  if (input_path != NULL && (in = fopen(input_path, "rb")) == NULL) {
    fprintf(stderr, "cannot open %s\n", input_path);
    goto done;
  }
  int i;
  for (i = 0; i < lite_interpreter_input_count(it); ++i) {
    size_t bytes = lite_interpreter_input_bytes(it, i);
    void* data = lite_interpreter_input_data(it, i);
    if (data == NULL) {
      fprintf(stderr, "input %d: %s\n", i, lite_interpreter_error_message(it));
      goto done;
    }
    if (in != NULL) {
      if (fread(data, 1, bytes, in) != bytes) {
        fprintf(stderr, "%s is too short for input %d (%zu bytes)\n", input_path, i, bytes);
        goto done;
      }
    } else {
      fill_pattern(data, bytes, lite_interpreter_input_dtype(it, i), i);
    }
  }
  if (in != NULL && fgetc(in) != EOF) {
    fprintf(stderr, "%s has more bytes than the inputs take\n", input_path);
    goto done;
  }

  for (a = 0; a < repeat; ++a) {
    if (lite_interpreter_invoke(it) != LITE_OK) {
      fprintf(stderr, "invoke: %s\n", lite_interpreter_error_message(it));
      goto done;
    }
  }

  if (output_path != NULL && (out = fopen(output_path, "wb")) == NULL) {
    fprintf(stderr, "cannot create %s\n", output_path);
    goto done;
  }
  for (i = 0; i < lite_interpreter_output_count(it); ++i) {
    int64_t dims[LITE_MAX_RANK];
    int rank = lite_interpreter_output_shape(it, i, dims, LITE_MAX_RANK);
    int dtype = lite_interpreter_output_dtype(it, i);
    size_t bytes = lite_interpreter_output_bytes(it, i);
    free(buffer);
    buffer = malloc(bytes > 0 ? bytes : 1);
    if (buffer == NULL || lite_interpreter_get_output(it, i, buffer, bytes) != LITE_OK) {
      fprintf(stderr, "output %d: %s\n", i, buffer == NULL ? "out of memory" : lite_interpreter_error_message(it));
      goto done;
    }
    printf("output %d '%s' %s [", i, lite_interpreter_output_name(it, i), dtype_name(dtype));
    int d;
    for (d = 0; d < rank; ++d) printf(d == 0 ? "%lld" : ", %lld", (long long)dims[d]);
    printf("]:");
    print_values(buffer, bytes, dtype, 8);
    if (out != NULL && fwrite(buffer, 1, bytes, out) != bytes) {
      fprintf(stderr, "cannot write %s\n", output_path);
      goto done;
    }
  }
  printf("arena bytes: %zu\n", lite_interpreter_arena_bytes(it));
  rc = 0;

done:
  free(buffer);
  if (in != NULL) fclose(in);
  if (out != NULL && fclose(out) != 0 && rc == 0) {
    fprintf(stderr, "cannot write %s\n", output_path);
    rc = 1;
  }
  lite_interpreter_destroy(it); /* before its model */
  lite_model_destroy(model);
  return rc;
}
