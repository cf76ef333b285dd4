/* lite_jni_model.c: loading models, creating and destroying interpreters, the backend choice. */
#include <stdio.h>
#include <stdlib.h>

#include "lite_jni_internal.h"

static jlong load_failed(JNIEnv* env, lite_status status, const lite_error* error) {
  lite_jni_throw(env, status, error->message[0] != '\0' ? error->message : "loading the model failed");
  return 0;
}

jstring lite_jni_version(JNIEnv* env, jclass cls) {
  (void)cls;
  return lite_jni_string(env, lite_version());
}

jlong lite_jni_load_model_file(JNIEnv* env, jclass cls, jstring path) {
  (void)cls;
  if (path == NULL) {
    lite_jni_throw_argument(env, "model path is null");
    return 0;
  }
  char* chars = lite_jni_utf8(env, path);
  if (chars == NULL) {
    return 0;
  }
  lite_model* model = NULL;
  lite_error error = {LITE_OK, ""};
  lite_status status = lite_model_load_file(chars, &model, &error);
  free(chars);
  return status == LITE_OK ? (jlong)(intptr_t)model : load_failed(env, status, &error);
}

jlong lite_jni_load_model_direct(JNIEnv* env, jclass cls, jobject buffer, jlong offset, jlong size) {
  (void)cls;
  const uint8_t* base = buffer != NULL ? (const uint8_t*)(*env)->GetDirectBufferAddress(env, buffer) : NULL;
  jlong capacity = buffer != NULL ? (*env)->GetDirectBufferCapacity(env, buffer) : -1;
  if (base == NULL || capacity < 0) {
    lite_jni_throw_argument(env, "the model buffer is not a direct buffer this VM can address");
    return 0;
  }
  if (offset < 0 || size < 0 || offset > capacity || size > capacity - offset) {
    lite_jni_throw_argument(env, "the model's byte range lies outside the buffer");
    return 0;
  }
  lite_model* model = NULL;
  lite_error error = {LITE_OK, ""};
  /* BORROW: the Java Interpreter keeps the buffer reachable until it destroys the model. */
  lite_status status = lite_model_load_memory(base + offset, (size_t)size, LITE_MEMORY_BORROW, &model, &error);
  return status == LITE_OK ? (jlong)(intptr_t)model : load_failed(env, status, &error);
}

jlong lite_jni_load_model_copy(JNIEnv* env, jclass cls, jbyteArray data, jint offset, jint size) {
  (void)cls;
  if (data == NULL || offset < 0 || size < 0 || offset > (*env)->GetArrayLength(env, data) - size) {
    lite_jni_throw_argument(env, "the model's byte range lies outside the array");
    return 0;
  }
  /* The runtime copies into its own aligned memory: the pinned array is released right after. */
  jbyte* bytes = (jbyte*)(*env)->GetPrimitiveArrayCritical(env, data, NULL);
  if (bytes == NULL) {
    return 0;
  }
  lite_model* model = NULL;
  lite_error error = {LITE_OK, ""};
  lite_status status = lite_model_load_memory(bytes + offset, (size_t)size, LITE_MEMORY_COPY, &model, &error);
  (*env)->ReleasePrimitiveArrayCritical(env, data, bytes, JNI_ABORT);
  return status == LITE_OK ? (jlong)(intptr_t)model : load_failed(env, status, &error);
}

void lite_jni_destroy_model(JNIEnv* env, jclass cls, jlong model) {
  (void)env;
  (void)cls;
  lite_model_destroy((lite_model*)(intptr_t)model);
}

jlong lite_jni_create_interpreter(JNIEnv* env, jclass cls, jlong model, jint threads, jint affinity, jint backend,
                                  jint precision, jstring cache_dir, jint tuning, jlong max_memory_bytes,
                                  jfloat packed_weight_ratio) {
  (void)cls;
  if (max_memory_bytes < 1 || !(packed_weight_ratio > 0.0f)) {
    lite_jni_throw_argument(env, "maxMemoryBytes must be >= 1 and packedWeightRatio > 0");
    return 0;
  }
  lite_interpreter_options options = lite_interpreter_options_default();
  options.num_threads = threads;
  options.cpu_affinity = affinity;
  options.backend = backend;
  options.precision = precision;
  options.tune = tuning;
  /* Long.MAX_VALUE is "no bound"; on a 32-bit process anything past SIZE_MAX is the same. */
  options.max_memory_bytes = (uint64_t)max_memory_bytes >= (uint64_t)SIZE_MAX ? SIZE_MAX : (size_t)max_memory_bytes;
  options.packed_weight_ratio = packed_weight_ratio;
  char* cache = NULL;
  if (cache_dir != NULL) {
    cache = lite_jni_utf8(env, cache_dir);
    if (cache == NULL) {
      return 0; /* exception pending */
    }
    options.cache_dir = cache;
  }
  lite_interpreter* interpreter = NULL;
  lite_error error = {LITE_OK, ""};
  lite_status status = lite_interpreter_create((const lite_model*)(intptr_t)model, &options, &interpreter, &error);
  free(cache); /* the runtime copied it */
  if (status != LITE_OK) {
    lite_jni_throw(env, status, error.message[0] != '\0' ? error.message : "creating the interpreter failed");
    return 0;
  }
  return (jlong)(intptr_t)interpreter;
}

void lite_jni_destroy_interpreter(JNIEnv* env, jclass cls, jlong interpreter) {
  (void)env;
  (void)cls;
  lite_interpreter_destroy(lite_jni_interpreter(interpreter));
}

jstring lite_jni_backend_note(JNIEnv* env, jclass cls, jlong interpreter) {
  (void)cls;
  return lite_jni_string(env, lite_interpreter_backend_note(lite_jni_interpreter(interpreter)));
}

jstring lite_jni_backend_info(JNIEnv* env, jclass cls, jlong interpreter) {
  (void)cls;
  return lite_jni_string(env, lite_interpreter_backend_info(lite_jni_interpreter(interpreter)));
}

jstring lite_jni_backend_profile(JNIEnv* env, jclass cls, jlong interpreter) {
  (void)cls;
  return lite_jni_string(env, lite_interpreter_backend_profile(lite_jni_interpreter(interpreter)));
}

jintArray lite_jni_cpu_affinity_cpus(JNIEnv* env, jclass cls, jlong interpreter) {
  (void)cls;
  lite_interpreter* it = lite_jni_interpreter(interpreter);
  int count = lite_interpreter_cpu_affinity_cpus(it, NULL, 0);
  int cpus[1024];
  if (count < 0 || count > (int)(sizeof cpus / sizeof cpus[0])) {
    count = 0;
  }
  count = lite_interpreter_cpu_affinity_cpus(it, cpus, count);
  jintArray result = (*env)->NewIntArray(env, count);
  if (result != NULL && count > 0) {
    (*env)->SetIntArrayRegion(env, result, 0, count, (const jint*)cpus);
  }
  return result;
}
