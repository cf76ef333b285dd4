/* lite_jni_internal.h: what the JNI glue's files share (nothing here is exported).
 *
 * The glue uses the public C API (lite_runtime.h) only. Its one piece of global state is the
 * classes and method IDs cached by JNI_OnLoad (global references, immutable afterwards). Handles
 * cross into Java as jlong values of the C pointers. */
#ifndef LITE_JNI_INTERNAL_H
#define LITE_JNI_INTERNAL_H

#include <jni.h>
#include <stddef.h>
#include <stdint.h>

#include "lite_runtime.h"

/* The codes of org.liteedge.runtime.Backend, Precision, Tuning and CpuAffinity are the C API's enum
 * values (lite_backend, lite_precision, lite_tune, lite_cpu_affinity): passed through, checked there. */

/* Throw org.liteedge.runtime.LiteException(status, message); callers return right after. */
void lite_jni_throw(JNIEnv* env, lite_status status, const char* message);
/* Throw java.lang.IllegalArgumentException(message). */
void lite_jni_throw_argument(JNIEnv* env, const char* message);
/* A Java string from UTF-8 bytes of unknown quality (model names): invalid sequences become U+FFFD,
 * which NewStringUTF (modified UTF-8 only) would not survive. NULL -> "". */
jstring lite_jni_string(JNIEnv* env, const char* utf8);

/* Standard UTF-8 of a Java string (malloc'ed, free() it; NULL with an exception pending on failure).
 * GetStringUTFChars would give modified UTF-8, which differs for NUL and supplementary characters. */
char* lite_jni_utf8(JNIEnv* env, jstring string);

/* Bytes per element of a Java primitive array object (1, 2, 4 or 8), 0 for anything else. */
int lite_jni_array_element_bytes(JNIEnv* env, jobject array);

static inline lite_interpreter* lite_jni_interpreter(jlong handle) {
  return (lite_interpreter*)(intptr_t)handle;
}

/* Bytes per element of a lite_dtype, 0 for an unknown one. */
size_t lite_jni_dtype_bytes(int dtype);

/* The natives of org.liteedge.runtime.NativeApi, by file. */
jstring lite_jni_version(JNIEnv* env, jclass cls);
jlong lite_jni_load_model_file(JNIEnv* env, jclass cls, jstring path);
jlong lite_jni_load_model_direct(JNIEnv* env, jclass cls, jobject buffer, jlong offset, jlong size);
jlong lite_jni_load_model_copy(JNIEnv* env, jclass cls, jbyteArray data, jint offset, jint size);
void lite_jni_destroy_model(JNIEnv* env, jclass cls, jlong model);
jlong lite_jni_create_interpreter(JNIEnv* env, jclass cls, jlong model, jint threads, jint affinity, jint backend,
                                  jint precision, jstring cache_dir, jint tuning, jlong max_memory_bytes,
                                  jfloat packed_weight_ratio);
void lite_jni_destroy_interpreter(JNIEnv* env, jclass cls, jlong interpreter);
jstring lite_jni_backend_note(JNIEnv* env, jclass cls, jlong interpreter);
jstring lite_jni_backend_info(JNIEnv* env, jclass cls, jlong interpreter);
jstring lite_jni_backend_profile(JNIEnv* env, jclass cls, jlong interpreter);
jintArray lite_jni_cpu_affinity_cpus(JNIEnv* env, jclass cls, jlong interpreter);

jint lite_jni_tensor_count(JNIEnv* env, jclass cls, jlong interpreter, jboolean input);
jstring lite_jni_tensor_name(JNIEnv* env, jclass cls, jlong interpreter, jboolean input, jint index);
jint lite_jni_tensor_dtype(JNIEnv* env, jclass cls, jlong interpreter, jboolean input, jint index);
jlongArray lite_jni_tensor_shape(JNIEnv* env, jclass cls, jlong interpreter, jboolean input, jint index);
jlong lite_jni_tensor_bytes(JNIEnv* env, jclass cls, jlong interpreter, jboolean input, jint index);
jfloatArray lite_jni_quantization_scales(JNIEnv* env, jclass cls, jlong interpreter, jboolean input, jint index);
jlongArray lite_jni_quantization_zero_points(JNIEnv* env, jclass cls, jlong interpreter, jboolean input,
                                             jint index);
jint lite_jni_quantization_axis(JNIEnv* env, jclass cls, jlong interpreter, jboolean input, jint index);
void lite_jni_resize_input(JNIEnv* env, jclass cls, jlong interpreter, jint index, jlongArray dims);
void lite_jni_allocate(JNIEnv* env, jclass cls, jlong interpreter);
void lite_jni_invoke(JNIEnv* env, jclass cls, jlong interpreter);
void lite_jni_reset_variables(JNIEnv* env, jclass cls, jlong interpreter);
jint lite_jni_variable_count(JNIEnv* env, jclass cls, jlong interpreter);
jlong lite_jni_arena_bytes(JNIEnv* env, jclass cls, jlong interpreter);
jlong lite_jni_memory_bytes(JNIEnv* env, jclass cls, jlong interpreter);
jlong lite_jni_weights_bytes(JNIEnv* env, jclass cls, jlong interpreter);
void lite_jni_set_profiling(JNIEnv* env, jclass cls, jlong interpreter, jboolean enabled);
jint lite_jni_profile_count(JNIEnv* env, jclass cls, jlong interpreter);
void lite_jni_profile(JNIEnv* env, jclass cls, jlong interpreter, jobjectArray op_names, jobjectArray node_names,
                      jdoubleArray seconds, jlongArray calls, jintArray computed_by, jobjectArray backends);

void lite_jni_set_input_direct(JNIEnv* env, jclass cls, jlong interpreter, jint index, jobject buffer,
                               jint element_bytes, jlong offset, jlong bytes);
void lite_jni_set_input_bytes(JNIEnv* env, jclass cls, jlong interpreter, jint index, jbyteArray data, jint offset,
                              jint length);
void lite_jni_set_input_array(JNIEnv* env, jclass cls, jlong interpreter, jint index, jobject array, jint rank);
void lite_jni_get_output_direct(JNIEnv* env, jclass cls, jlong interpreter, jint index, jobject buffer,
                                jint element_bytes, jlong offset, jlong bytes);
void lite_jni_get_output_bytes(JNIEnv* env, jclass cls, jlong interpreter, jint index, jbyteArray data,
                               jint offset, jint length);
void lite_jni_get_output_array(JNIEnv* env, jclass cls, jlong interpreter, jint index, jobject array, jint rank);

#endif /* LITE_JNI_INTERNAL_H */
