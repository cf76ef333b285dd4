/* lite_runtime.h: the stable C API of the .lite runtime (C99).
 *
 * Every binding (Python, Java/JNI, C and C++ apps) goes through this header only.
 *
 * Ownership and lifetimes
 *   - A lite_model owns the model bytes (a read-only mmap of the file, a copy, or a borrowed
 *     caller buffer, see lite_model_load_memory). It is immutable after loading.
 *   - A lite_interpreter holds a pointer to its model: the model must outlive every interpreter
 *     created from it. One model may serve many interpreters.
 *   - Strings returned by this API (names, error messages) are owned by the model or the
 *     interpreter: names stay valid until the model is destroyed; the string returned by
 *     lite_interpreter_error_message() until the next call on the same interpreter.
 *   - Pointers returned by lite_interpreter_input_data / lite_interpreter_output_data point into
 *     the interpreter's memory and stay valid until the next lite_interpreter_resize_input,
 *     lite_interpreter_allocate (or an implicit re-allocation after a resize) or
 *     lite_interpreter_destroy.
 *
 * Threads
 *   The library has no global mutable state. Different interpreters (even on the same model) may
 *   run in different threads at the same time. One interpreter must be used by one thread at a
 *   time (calls on the same interpreter are not synchronized).
 *
 * Errors
 *   Functions that can fail return lite_status. Loading and creation take an optional lite_error*
 *   (may be NULL) that receives the code and a message. Functions on an interpreter record their
 *   message in the interpreter: read it with lite_interpreter_error_message().
 *   Whose fault it is, by code:
 *     caller:   LITE_INVALID_ARGUMENT (a NULL pointer, an index out of range, a shape or byte count
 *               that contradicts the model's declaration, an unknown option value)
 *     model:    LITE_INVALID_MODEL, LITE_UNSUPPORTED, LITE_VERSION_MISMATCH, LITE_SHAPE_ERROR (the file
 *               is malformed, uses what this runtime lacks, or its ops disagree about shapes at the
 *               shapes the caller chose)
 *     resource: LITE_IO_ERROR (the file cannot be opened or is not a regular file),
 *               LITE_OUT_OF_MEMORY (over max_memory_bytes, or the system has no memory left)
 *     runtime:  LITE_INTERNAL (a bug in this library: please report it)
 *
 * Untrusted models
 *   Loading verifies the whole file before anything is used; every size that comes from the file or
 *   from a shape is overflow-checked; an interpreter commits at most max_memory_bytes (see
 *   lite_interpreter_options) for its arena, op scratch, packed weights and prepare-time values,
 *   checked before each allocation. The mapped file itself is not counted.
 */
#ifndef LITE_RUNTIME_H
#define LITE_RUNTIME_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>

#if defined(_WIN32)
#define LITE_API __declspec(dllexport)
#elif defined(__GNUC__)
#define LITE_API __attribute__((visibility("default")))
#else
#define LITE_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

#define LITE_MAX_RANK 8
#define LITE_ERROR_MESSAGE_SIZE 512

/* Same values as lite::Status in the runtime. */
typedef enum lite_status {
  LITE_OK = 0,
  LITE_INVALID_ARGUMENT = 1,
  LITE_IO_ERROR = 2,
  LITE_INVALID_MODEL = 3,
  LITE_UNSUPPORTED = 4,
  LITE_OUT_OF_MEMORY = 5,
  LITE_SHAPE_ERROR = 6,
  LITE_VERSION_MISMATCH = 7,
  LITE_INTERNAL = 8
} lite_status;

/* Same values as the schema's DType (runtime_arm/schema/lite.fbs). */
typedef enum lite_dtype {
  LITE_FLOAT32 = 0,
  LITE_FLOAT16 = 1,
  LITE_FLOAT64 = 2,
  LITE_INT8 = 3,
  LITE_UINT8 = 4,
  LITE_INT16 = 5,
  LITE_INT32 = 6,
  LITE_INT64 = 7,
  LITE_BOOL = 8,
  LITE_UINT16 = 9,
  LITE_UINT32 = 10,
  LITE_UINT64 = 11
} lite_dtype;

typedef struct lite_error {
  lite_status code;
  char message[LITE_ERROR_MESSAGE_SIZE]; /* NUL-terminated, "" on success */
} lite_error;

typedef struct lite_model lite_model;
typedef struct lite_interpreter lite_interpreter;

/* The runtime's version, e.g. "0.1.0". */
LITE_API const char* lite_version(void);

/* ---- Models ------------------------------------------------------------------------------ */

/* Maps the file read-only and verifies it (flatbuffer structure, schema version, graph
 * semantics, that every op is supported). Weights are used in place. */
LITE_API lite_status lite_model_load_file(const char* path, lite_model** model, lite_error* error);

typedef enum lite_memory_mode {
  /* The caller keeps `data` alive and unchanged until lite_model_destroy. Data that is not
   * 8-byte aligned is copied anyway (flatbuffer scalars need their natural alignment). */
  LITE_MEMORY_BORROW = 0,
  /* The runtime copies `data` into its own 64-byte aligned memory; the caller may free it. */
  LITE_MEMORY_COPY = 1
} lite_memory_mode;

LITE_API lite_status lite_model_load_memory(const void* data, size_t size, lite_memory_mode mode,
                                            lite_model** model, lite_error* error);

/* Accepts NULL. Destroy every interpreter of the model first. */
LITE_API void lite_model_destroy(lite_model* model);

/* ---- Interpreters ------------------------------------------------------------------------ */

/* Where the interpreter's threads run (lite_interpreter_options.cpu_affinity).
 *
 * LITE_CPU_AFFINITY_FAST_CORES (Linux and Android; a no-op elsewhere): at creation the runtime
 * ranks the CPUs the creating thread may use by the kernel's cpu_capacity (else cpufreq's
 * cpuinfo_max_freq) and chooses the num_threads fastest, equal ones by lower CPU number: the big
 * cores of a big.LITTLE / DynamIQ phone. The workers run on that set of CPUs (the mask of all of
 * them, not one CPU each), and so does the thread calling lite_interpreter_invoke for the duration
 * of each invoke: its own mask is restored when invoke returns. Nothing is chosen, and nothing
 * pinned, where the CPUs are all alike, sysfs does not describe them, or num_threads covers all of
 * them. Pinning is best effort (a mask the OS refuses leaves a thread where it was) and never
 * changes results. lite_interpreter_cpu_affinity_cpus tells what was chosen. */
typedef enum lite_cpu_affinity {
  LITE_CPU_AFFINITY_NONE = 0,      /* wherever the OS schedules them (default) */
  LITE_CPU_AFFINITY_FAST_CORES = 1 /* the num_threads fastest CPUs, see above */
} lite_cpu_affinity;

/* Where ops run (lite_interpreter_options.backend). The CPU runs every op; a GPU backend runs the
 * ops it supports (per op and shape) and leaves the rest to the CPU (docs/OPENCL.md).
 * LITE_BACKEND_OPENCL: libOpenCL is loaded at run time (dlopen, no link-time dependency);
 * lite_interpreter_create fails with LITE_UNSUPPORTED and the reason when there is no usable
 * OpenCL device. LITE_BACKEND_AUTO: OpenCL when usable, else the CPU alone
 * (lite_interpreter_backend_note says why). */
typedef enum lite_backend {
  LITE_BACKEND_CPU = 0,
  LITE_BACKEND_OPENCL = 1,
  LITE_BACKEND_AUTO = 2
} lite_backend;

/* Precision of a GPU backend: storage of its activations and its arithmetic. */
typedef enum lite_precision {
  LITE_PRECISION_FP32 = 0,
  LITE_PRECISION_FP16 = 1, /* half-float images, float math: half the memory traffic, ~1e-3 relative error */
  /* half images and half math (elementwise, activations, pooling, depthwise convolution) where the
   * device has cl_khr_fp16; reductions over many terms (convolution, FC, matmul, softmax, layer norm)
   * keep float accumulation. A device without cl_khr_fp16 refuses it (LITE_BACKEND_AUTO: the CPU). */
  LITE_PRECISION_FP16_COMPUTE = 2
} lite_precision;

/* Local-work-size tuning levels of a GPU backend (docs/OPENCL.md). */
typedef enum lite_tune { LITE_TUNE_NONE = 0, LITE_TUNE_FAST = 1, LITE_TUNE_NORMAL = 2, LITE_TUNE_EXHAUSTIVE = 3 } lite_tune;

/* The default of lite_interpreter_options.max_memory_bytes: 1 GiB. */
#define LITE_DEFAULT_MAX_MEMORY_BYTES ((size_t)1 << 30)

/* The default of lite_interpreter_options.packed_weight_ratio: no bound (every Winograd transformed
 * weight kept: the fewest instructions). */
#define LITE_DEFAULT_PACKED_WEIGHT_RATIO INFINITY

typedef struct lite_interpreter_options {
  size_t struct_size; /* sizeof(lite_interpreter_options) of the caller: lets the struct grow */
  int num_threads;    /* >= 1; default 1 */
  int reserved;       /* ignored: the first version's padding on 64-bit targets (callers left it unset) */
  int cpu_affinity;   /* a lite_cpu_affinity value; default LITE_CPU_AFFINITY_NONE */
  int backend;        /* a lite_backend value; default LITE_BACKEND_CPU */
  int precision;      /* a lite_precision value for GPU backends; default LITE_PRECISION_FP32 */
  /* An existing directory where the OpenCL backend keeps its compiled program between runs (files
   * named by device, driver, library version and kernel source; written atomically; a corrupt or
   * foreign file is ignored and rewritten). NULL or "": compile at every creation. Copied. */
  const char* cache_dir;
  /* The most memory the interpreter commits for the model: activation arena + op scratch + packed
   * weights and other op state + prepare-time values (the mapped model file is not counted). Checked
   * before each allocation: a plan over it fails with LITE_OUT_OF_MEMORY and a message naming the
   * largest tensor, and nothing is allocated. 0 means the default, LITE_DEFAULT_MAX_MEMORY_BYTES
   * (1 GiB: safe for files from anywhere; PP-OCRv4 det at 960x960 needs about 150 MB); SIZE_MAX
   * means no bound. Callers built against the first version (a struct without this field) get the
   * default. */
  size_t max_memory_bytes;
  /* Local-work-size tuning of the OpenCL backend: a lite_tune value; default LITE_TUNE_NONE (the
   * driver picks). Choices are timed at each op's first run and kept in cache_dir when given. */
  int tune;
  /* A bound on what the interpreter commits (arena + scratch + packed weights, lite_interpreter_memory_bytes),
   * as a multiple of the model's weight bytes, spent on Winograd convolutions' transformed weights (16/9
   * to 64/9 of their 3x3 weights): under it they prepare without them, and once the rest is counted the
   * copies that save the most instructions per byte are kept while they fit (a greedy knapsack over the
   * layers); the others transform their weight per block at every run (more instructions), stride-2
   * ones run as im2col + GEMM. 0 means the default, LITE_DEFAULT_PACKED_WEIGHT_RATIO (INFINITY: every
   * transformed copy kept, the fastest, the most memory: fp32 ResNet-18 4.7x its weights on ARM); 1.5
   * keeps it at 1.45x for +40% instructions on aarch64 (docs/ARCHITECTURE.md); a bound below the
   * activations' own needs keeps no copy. Negative or NaN: LITE_INVALID_ARGUMENT. Callers built
   * against a struct without this field get the default. */
  float packed_weight_ratio;
} lite_interpreter_options;

LITE_API lite_interpreter_options lite_interpreter_options_default(void);

/* `options` may be NULL (defaults). The interpreter keeps a pointer to `model`. */
LITE_API lite_status lite_interpreter_create(const lite_model* model, const lite_interpreter_options* options,
                                             lite_interpreter** interpreter, lite_error* error);

/* Accepts NULL. */
LITE_API void lite_interpreter_destroy(lite_interpreter* interpreter);

/* The CPUs chosen by LITE_CPU_AFFINITY_FAST_CORES: copies up to `capacity` of them, ascending, into
 * `cpus` (may be NULL when capacity is 0) and returns how many were chosen; 0 = no pinning. -1 when
 * interpreter is NULL, capacity < 0, or cpus is NULL with capacity > 0. */
LITE_API int lite_interpreter_cpu_affinity_cpus(const lite_interpreter* interpreter, int* cpus, int capacity);

/* The message of the last failed call on this interpreter ("" before any failure and after a
 * successful allocate/invoke). Never NULL. */
LITE_API const char* lite_interpreter_error_message(const lite_interpreter* interpreter);

LITE_API int lite_interpreter_input_count(const lite_interpreter* interpreter);
LITE_API int lite_interpreter_output_count(const lite_interpreter* interpreter);

/* Names; NULL when the index is out of range. */
LITE_API const char* lite_interpreter_input_name(const lite_interpreter* interpreter, int index);
LITE_API const char* lite_interpreter_output_name(const lite_interpreter* interpreter, int index);

/* Index of the input/output with this name, -1 if none. */
LITE_API int lite_interpreter_input_index(const lite_interpreter* interpreter, const char* name);
LITE_API int lite_interpreter_output_index(const lite_interpreter* interpreter, const char* name);

/* dtype (a lite_dtype value); -1 when the index is out of range. */
LITE_API int lite_interpreter_input_dtype(const lite_interpreter* interpreter, int index);
LITE_API int lite_interpreter_output_dtype(const lite_interpreter* interpreter, int index);

/* Copies up to `max_rank` dims into `dims` and returns the rank; -1 when the index is out of range.
 * Input shapes are the current ones (model shape, or as resized; -1 marks a dynamic dim not yet
 * resized). Output shapes are the model's declared shapes until the interpreter is allocated,
 * then the computed ones. */
LITE_API int lite_interpreter_input_shape(const lite_interpreter* interpreter, int index, int64_t* dims,
                                          int max_rank);
LITE_API int lite_interpreter_output_shape(const lite_interpreter* interpreter, int index, int64_t* dims,
                                           int max_rank);

/* Byte size of the tensor with its current shape; 0 while the shape has dynamic dims. */
LITE_API size_t lite_interpreter_input_bytes(const lite_interpreter* interpreter, int index);
LITE_API size_t lite_interpreter_output_bytes(const lite_interpreter* interpreter, int index);

/* Affine quantization parameters of a tensor: real = scale * (q - zero_point).
 * count == 0: not quantized. axis == -1: per-tensor. The arrays are owned by the model. */
typedef struct lite_quantization {
  int count;
  int axis;
  const float* scales;
  const int64_t* zero_points; /* NULL when the model gives none (all zero) */
} lite_quantization;

LITE_API lite_status lite_interpreter_input_quantization(const lite_interpreter* interpreter, int index,
                                                         lite_quantization* quantization);
LITE_API lite_status lite_interpreter_output_quantization(const lite_interpreter* interpreter, int index,
                                                          lite_quantization* quantization);

/* Sets the shape of a graph input (e.g. to resolve its dynamic dims). The rank must be the model's
 * and every static dim the model's value (LITE_INVALID_ARGUMENT otherwise, naming the input): only
 * dynamic dims (-1 in the model) take the caller's sizes; an input the model gives no shape (rank
 * unknown at conversion) takes any rank. Shapes, prepare-time values and the memory
 * plan are recomputed on the next allocate/invoke; pointers obtained before are invalid afterwards. */
LITE_API lite_status lite_interpreter_resize_input(lite_interpreter* interpreter, int index, const int64_t* dims,
                                                   int rank);

/* Prepares every op and plans memory now. Optional: the calls below do it when needed. */
LITE_API lite_status lite_interpreter_allocate(lite_interpreter* interpreter);

/* Copies `bytes` bytes (must equal lite_interpreter_input_bytes) into input `index`.
 * Input values persist across invokes until overwritten or the interpreter is re-allocated. */
LITE_API lite_status lite_interpreter_set_input(lite_interpreter* interpreter, int index, const void* data,
                                                size_t bytes);

/* Direct access to input/output memory (allocates when needed; NULL on error, see
 * lite_interpreter_error_message). Valid until the next resize/allocate/destroy. Output memory may
 * be shared with the model's constants or another output, never with an input (unless the model
 * lists one tensor as both), so writing the next input does not change the last outputs.
 * Never write through lite_interpreter_output_data. */
LITE_API void* lite_interpreter_input_data(lite_interpreter* interpreter, int index);
LITE_API const void* lite_interpreter_output_data(lite_interpreter* interpreter, int index);

/* Runs the graph (allocates first when needed). A model with variables (state kept across
 * invokes: a streaming model's memory, e.g. an imported TFLite resource variable) reads the values
 * the previous invoke left and updates them; a resize or re-allocation keeps them. */
LITE_API lite_status lite_interpreter_invoke(lite_interpreter* interpreter);

/* Restores every variable to the model's initial value, so the next invoke starts a new stream
 * (a new utterance, a new video). LITE_INVALID_ARGUMENT when interpreter is NULL; a model without
 * variables is left as it is (LITE_OK). */
LITE_API lite_status lite_interpreter_reset_variables(lite_interpreter* interpreter);

/* Number of variables of the model (0 for a stateless model). */
LITE_API int lite_interpreter_variable_count(const lite_interpreter* interpreter);

/* Copies output `index` into `dst`; `bytes` must equal lite_interpreter_output_bytes. */
LITE_API lite_status lite_interpreter_get_output(lite_interpreter* interpreter, int index, void* dst,
                                                 size_t bytes);

/* ---- Sequences and optionals (ONNX; docs/OPS.md, "Sequences and optionals") --------------------
 * A graph input or output may be a sequence (an ordered list of tensors of the entry's dtype, each
 * with its own shape) or an optional (a tensor or a sequence, or nothing). Its dtype above is the
 * elements'; its bytes are an internal buffer: read and write it with the calls below only.
 * ARM builds leave sequences out unless built with -DLITE_RUNTIME_SEQUENCES=ON: the library then
 * does not export the calls below (link against a build with them) and refuses models using them.
 * Example (an output that is a sequence of float tensors):
 *   int64_t n = lite_interpreter_output_sequence_length(it, 0);
 *   for (int64_t i = 0; i < n; ++i) {
 *     lite_sequence_element e;
 *     if (lite_interpreter_output_sequence_element(it, 0, i, &e) == LITE_OK) use(e.data, e.dims, e.rank);
 *   } */
typedef enum lite_value_kind {
  LITE_KIND_TENSOR = 0,
  LITE_KIND_SEQUENCE = 1,
  LITE_KIND_OPTIONAL_TENSOR = 2,
  LITE_KIND_OPTIONAL_SEQUENCE = 3
} lite_value_kind;

/* One element of a sequence (or the tensor of an optional tensor). */
typedef struct lite_sequence_element {
  int dtype; /* lite_dtype */
  int rank;
  int64_t dims[LITE_MAX_RANK];
  const void* data; /* output: valid until the next invoke/resize/allocate */
  size_t bytes;
} lite_sequence_element;

/* The kind (lite_value_kind) of an input / output; -1 when the index is out of range. */
LITE_API int lite_interpreter_input_kind(const lite_interpreter* interpreter, int index);
LITE_API int lite_interpreter_output_kind(const lite_interpreter* interpreter, int index);

/* After an invoke: the number of elements of a sequence output (an optional tensor: 1 when it holds
 * one; an empty optional: 0); -1 on error (not a sequence/optional output, not computed yet). */
LITE_API int64_t lite_interpreter_output_sequence_length(lite_interpreter* interpreter, int index);

/* Element `i` (0 <= i < length) of a sequence / optional output; LITE_INVALID_ARGUMENT when out of
 * range (the message gives the length). */
LITE_API lite_status lite_interpreter_output_sequence_element(lite_interpreter* interpreter, int index, int64_t i,
                                                              lite_sequence_element* element);

/* 1 when an optional output holds a value (a sequence or tensor output: always), 0 when empty,
 * -1 on error. */
LITE_API int lite_interpreter_output_has_element(lite_interpreter* interpreter, int index);

/* Sets a sequence / optional input to `count` elements (`elements` may be NULL when count is 0), each
 * of the input's dtype (its `data`, `bytes` = its shape's size, `dims`, `rank`); count -1 sets an
 * optional input to "no value". It resizes the input to fit, then allocates and copies: with several
 * inputs to resize, first resize them all (lite_interpreter_resize_input, and
 * lite_interpreter_resize_input_sequence with the same elements), then set them. */
LITE_API lite_status lite_interpreter_set_input_sequence(lite_interpreter* interpreter, int index,
                                                         const lite_sequence_element* elements, int64_t count);
/* Only the resize part of lite_interpreter_set_input_sequence (no allocate). */
LITE_API lite_status lite_interpreter_resize_input_sequence(lite_interpreter* interpreter, int index,
                                                            const lite_sequence_element* elements, int64_t count);

/* Size of the activation arena of the current plan (0 before the first allocate). */
LITE_API size_t lite_interpreter_arena_bytes(const lite_interpreter* interpreter);

/* Memory counted against max_memory_bytes by the last allocate: what it committed (arena, scratch,
 * packed weights, prepare-time values); when that allocate failed with LITE_OUT_OF_MEMORY over the
 * bound, what it had asked for when it stopped (a lower bound of the need at these shapes). */
LITE_API size_t lite_interpreter_memory_bytes(const lite_interpreter* interpreter);

/* The model's weights: bytes of its constants (what packed_weight_ratio multiplies). */
LITE_API size_t lite_interpreter_weights_bytes(const lite_interpreter* interpreter);

/* ---- Inspection (tests and tools) -------------------------------------------------------- */

typedef enum lite_storage {
  LITE_STORAGE_NONE = 0,     /* not used by the current plan */
  LITE_STORAGE_CONSTANT = 1, /* model weights */
  LITE_STORAGE_ARENA = 2,    /* the activation arena (own region or shared with an alias group) */
  LITE_STORAGE_PREPARED = 3, /* computed at prepare time (shape subgraphs), heap */
  LITE_STORAGE_BACKEND = 4,  /* only in the memory of the non-CPU backend whose op writes it; data NULL */
  LITE_STORAGE_VARIABLE = 5  /* a variable: interpreter memory kept across invokes (reset_variables) */
} lite_storage;

typedef struct lite_tensor_info {
  const char* name;
  int dtype;
  int rank;
  int64_t dims[LITE_MAX_RANK];
  size_t bytes;
  int storage;          /* lite_storage */
  int64_t arena_offset; /* LITE_STORAGE_ARENA: byte offset in the arena, else -1 */
  const void* data;
} lite_tensor_info;

LITE_API int lite_interpreter_tensor_count(const lite_interpreter* interpreter);
/* Information on tensor `index` of the graph as of the last allocate. */
LITE_API lite_status lite_interpreter_tensor_info(const lite_interpreter* interpreter, int index,
                                                  lite_tensor_info* info);

/* ---- Per-op profiling (tools: `lite bench --profile`) ------------------------------------ */

/* Time spent in one op of the graph since profiling was last enabled. */
typedef struct lite_op_profile {
  int op_index;          /* position of the op in the graph's execution order */
  const char* op_name;   /* op code, e.g. "CONV_2D"; owned by the library */
  const char* node_name; /* the op's name in the model ("" when it has none); owned by the model */
  double total_seconds;  /* summed wall time of its eval calls (monotonic clock) */
  int64_t calls;         /* eval calls: one per invoke; 0 for ops computed once at prepare time */
} lite_op_profile;

/* enabled != 0 starts profiling and resets every op's counters to zero; 0 stops it (the counters
 * keep their values). Disabled profiling costs one branch per op, no clock reads. */
LITE_API lite_status lite_interpreter_set_profiling(lite_interpreter* interpreter, int enabled);

/* Number of profile entries: one per op of the graph. */
LITE_API int lite_interpreter_profile_count(const lite_interpreter* interpreter);

LITE_API lite_status lite_interpreter_profile_entry(const lite_interpreter* interpreter, int index,
                                                    lite_op_profile* entry);

/* The op whose eval computes the outputs of op `index`: `index` itself; the next op when that one
 * runs both as one pass (a 1x1 convolution feeding a depthwise one: the first then has 0 calls); -1
 * when they are computed once at prepare time or the interpreter is not allocated; -2 for an index
 * out of range. */
LITE_API int lite_interpreter_op_computed_by(const lite_interpreter* interpreter, int index);

/* The name of the backend that runs op `index` as of the last allocate: "cpu" or "opencl" (ops
 * computed at prepare time run on the CPU). Owned by the
 * library. NULL when the index is out of range or the interpreter is not allocated. */
LITE_API const char* lite_interpreter_op_backend(const lite_interpreter* interpreter, int index);

/* With LITE_BACKEND_AUTO, why no GPU backend is in use ("" when one is, or none was asked for).
 * Owned by the interpreter. */
LITE_API const char* lite_interpreter_backend_note(const lite_interpreter* interpreter);

/* One line about the GPU backend in use, for tools and logs: device, library, whether its program
 * was compiled or loaded from cache_dir and in how long, cache problems met ("" without one).
 * Owned by the interpreter; valid until the next call. */
LITE_API const char* lite_interpreter_backend_info(lite_interpreter* interpreter);

/* The GPU backend's times, for `lite bench --profile` ("" without one): tab-separated lines
 * "program\t<compiled|loaded|none>\t<milliseconds>", "tune\t<level>\t<milliseconds>", then
 * "kernel\t<name>\t<calls>\t<seconds>" per kernel, slowest first, summed from OpenCL event
 * timestamps (device time) since lite_interpreter_set_profiling(interpreter, 1). Owned by the
 * interpreter; valid until the next call. */
LITE_API const char* lite_interpreter_backend_profile(lite_interpreter* interpreter);

#ifdef __cplusplus
}
#endif

#endif /* LITE_RUNTIME_H */
