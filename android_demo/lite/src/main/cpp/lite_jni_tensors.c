/* lite_jni_tensors.c: tensor metadata, resizing, allocating, invoking, profiling. */
#include <stdlib.h>

#include "lite_jni_internal.h"

static void check(JNIEnv* env, lite_interpreter* it, lite_status status) {
  if (status != LITE_OK) {
    lite_jni_throw(env, status, lite_interpreter_error_message(it));
  }
}

jint lite_jni_tensor_count(JNIEnv* env, jclass cls, jlong interpreter, jboolean input) {
  (void)env;
  (void)cls;
  lite_interpreter* it = lite_jni_interpreter(interpreter);
  return input ? lite_interpreter_input_count(it) : lite_interpreter_output_count(it);
}

jstring lite_jni_tensor_name(JNIEnv* env, jclass cls, jlong interpreter, jboolean input, jint index) {
  (void)cls;
  lite_interpreter* it = lite_jni_interpreter(interpreter);
  return lite_jni_string(env, input ? lite_interpreter_input_name(it, index) : lite_interpreter_output_name(it, index));
}

jint lite_jni_tensor_dtype(JNIEnv* env, jclass cls, jlong interpreter, jboolean input, jint index) {
  (void)env;
  (void)cls;
  lite_interpreter* it = lite_jni_interpreter(interpreter);
  return input ? lite_interpreter_input_dtype(it, index) : lite_interpreter_output_dtype(it, index);
}

jlongArray lite_jni_tensor_shape(JNIEnv* env, jclass cls, jlong interpreter, jboolean input, jint index) {
  (void)cls;
  lite_interpreter* it = lite_jni_interpreter(interpreter);
  int64_t dims[LITE_MAX_RANK];
  int rank = input ? lite_interpreter_input_shape(it, index, dims, LITE_MAX_RANK)
                   : lite_interpreter_output_shape(it, index, dims, LITE_MAX_RANK);
  if (rank < 0 || rank > LITE_MAX_RANK) {
    lite_jni_throw(env, LITE_INVALID_ARGUMENT, "tensor index out of range");
    return NULL;
  }
  jlongArray result = (*env)->NewLongArray(env, rank);
  if (result != NULL && rank > 0) {
    jlong wide[LITE_MAX_RANK];
    for (int i = 0; i < rank; i++) {
      wide[i] = (jlong)dims[i];
    }
    (*env)->SetLongArrayRegion(env, result, 0, rank, wide);
  }
  return result;
}

jlong lite_jni_tensor_bytes(JNIEnv* env, jclass cls, jlong interpreter, jboolean input, jint index) {
  (void)env;
  (void)cls;
  lite_interpreter* it = lite_jni_interpreter(interpreter);
  return (jlong)(input ? lite_interpreter_input_bytes(it, index) : lite_interpreter_output_bytes(it, index));
}

static int quantization(JNIEnv* env, jlong interpreter, jboolean input, jint index, lite_quantization* q) {
  lite_interpreter* it = lite_jni_interpreter(interpreter);
  lite_status status = input ? lite_interpreter_input_quantization(it, index, q)
                             : lite_interpreter_output_quantization(it, index, q);
  check(env, it, status);
  return status == LITE_OK && q->count >= 0;
}

jfloatArray lite_jni_quantization_scales(JNIEnv* env, jclass cls, jlong interpreter, jboolean input, jint index) {
  (void)cls;
  lite_quantization q;
  if (!quantization(env, interpreter, input, index, &q)) {
    return NULL;
  }
  jfloatArray result = (*env)->NewFloatArray(env, q.count);
  if (result != NULL && q.count > 0) {
    (*env)->SetFloatArrayRegion(env, result, 0, q.count, q.scales);
  }
  return result;
}

jlongArray lite_jni_quantization_zero_points(JNIEnv* env, jclass cls, jlong interpreter, jboolean input,
                                             jint index) {
  (void)cls;
  lite_quantization q;
  if (!quantization(env, interpreter, input, index, &q)) {
    return NULL;
  }
  jlongArray result = (*env)->NewLongArray(env, q.count); /* zeros when the model gives none */
  if (result != NULL && q.count > 0 && q.zero_points != NULL) {
    for (int i = 0; i < q.count; i++) {
      jlong value = (jlong)q.zero_points[i];
      (*env)->SetLongArrayRegion(env, result, i, 1, &value);
    }
  }
  return result;
}

jint lite_jni_quantization_axis(JNIEnv* env, jclass cls, jlong interpreter, jboolean input, jint index) {
  (void)cls;
  lite_quantization q;
  return quantization(env, interpreter, input, index, &q) ? q.axis : -1;
}

void lite_jni_resize_input(JNIEnv* env, jclass cls, jlong interpreter, jint index, jlongArray dims) {
  (void)cls;
  lite_interpreter* it = lite_jni_interpreter(interpreter);
  jsize rank = dims != NULL ? (*env)->GetArrayLength(env, dims) : -1;
  if (rank < 0 || rank > LITE_MAX_RANK) {
    lite_jni_throw(env, LITE_INVALID_ARGUMENT, "input rank exceeds LITE_MAX_RANK (8)");
    return;
  }
  jlong wide[LITE_MAX_RANK];
  int64_t narrow[LITE_MAX_RANK];
  (*env)->GetLongArrayRegion(env, dims, 0, rank, wide);
  for (jsize i = 0; i < rank; i++) {
    narrow[i] = (int64_t)wide[i];
  }
  check(env, it, lite_interpreter_resize_input(it, index, narrow, (int)rank));
}

void lite_jni_allocate(JNIEnv* env, jclass cls, jlong interpreter) {
  (void)cls;
  lite_interpreter* it = lite_jni_interpreter(interpreter);
  check(env, it, lite_interpreter_allocate(it));
}

void lite_jni_invoke(JNIEnv* env, jclass cls, jlong interpreter) {
  (void)cls;
  lite_interpreter* it = lite_jni_interpreter(interpreter);
  check(env, it, lite_interpreter_invoke(it));
}

void lite_jni_reset_variables(JNIEnv* env, jclass cls, jlong interpreter) {
  (void)cls;
  lite_interpreter* it = lite_jni_interpreter(interpreter);
  check(env, it, lite_interpreter_reset_variables(it));
}

jint lite_jni_variable_count(JNIEnv* env, jclass cls, jlong interpreter) {
  (void)env;
  (void)cls;
  return (jint)lite_interpreter_variable_count(lite_jni_interpreter(interpreter));
}

jlong lite_jni_arena_bytes(JNIEnv* env, jclass cls, jlong interpreter) {
  (void)env;
  (void)cls;
  return (jlong)lite_interpreter_arena_bytes(lite_jni_interpreter(interpreter));
}

jlong lite_jni_memory_bytes(JNIEnv* env, jclass cls, jlong interpreter) {
  (void)env;
  (void)cls;
  return (jlong)lite_interpreter_memory_bytes(lite_jni_interpreter(interpreter));
}

jlong lite_jni_weights_bytes(JNIEnv* env, jclass cls, jlong interpreter) {
  (void)env;
  (void)cls;
  return (jlong)lite_interpreter_weights_bytes(lite_jni_interpreter(interpreter));
}

void lite_jni_set_profiling(JNIEnv* env, jclass cls, jlong interpreter, jboolean enabled) {
  (void)cls;
  lite_interpreter* it = lite_jni_interpreter(interpreter);
  check(env, it, lite_interpreter_set_profiling(it, enabled ? 1 : 0));
}

jint lite_jni_profile_count(JNIEnv* env, jclass cls, jlong interpreter) {
  (void)env;
  (void)cls;
  return lite_interpreter_profile_count(lite_jni_interpreter(interpreter));
}

void lite_jni_profile(JNIEnv* env, jclass cls, jlong interpreter, jobjectArray op_names, jobjectArray node_names,
                      jdoubleArray seconds, jlongArray calls, jintArray computed_by, jobjectArray backends) {
  (void)cls;
  lite_interpreter* it = lite_jni_interpreter(interpreter);
  int count = lite_interpreter_profile_count(it);
  if (op_names == NULL || node_names == NULL || seconds == NULL || calls == NULL || computed_by == NULL ||
      backends == NULL || (*env)->GetArrayLength(env, backends) < count ||
      (*env)->GetArrayLength(env, op_names) < count || (*env)->GetArrayLength(env, node_names) < count ||
      (*env)->GetArrayLength(env, seconds) < count || (*env)->GetArrayLength(env, calls) < count ||
      (*env)->GetArrayLength(env, computed_by) < count) {
    lite_jni_throw_argument(env, "profile arrays shorter than the op count");
    return;
  }
  for (int i = 0; i < count; i++) {
    lite_op_profile entry;
    lite_status status = lite_interpreter_profile_entry(it, i, &entry);
    if (status != LITE_OK) {
      check(env, it, status);
      return;
    }
    jstring op = lite_jni_string(env, entry.op_name);
    jstring node = op != NULL ? lite_jni_string(env, entry.node_name) : NULL;
    if (node == NULL) {
      return;
    }
    (*env)->SetObjectArrayElement(env, op_names, i, op);
    (*env)->SetObjectArrayElement(env, node_names, i, node);
    (*env)->DeleteLocalRef(env, op);
    (*env)->DeleteLocalRef(env, node);
    /* NULL before the first allocation: the array element stays null. */
    const char* placed = lite_interpreter_op_backend(it, i);
    if (placed != NULL) {
      jstring backend = lite_jni_string(env, placed);
      if (backend == NULL) {
        return;
      }
      (*env)->SetObjectArrayElement(env, backends, i, backend);
      (*env)->DeleteLocalRef(env, backend);
    }
    jdouble time = entry.total_seconds;
    jlong runs = (jlong)entry.calls;
    jint by = lite_interpreter_op_computed_by(it, i);
    (*env)->SetDoubleArrayRegion(env, seconds, i, 1, &time);
    (*env)->SetLongArrayRegion(env, calls, i, 1, &runs);
    (*env)->SetIntArrayRegion(env, computed_by, i, 1, &by);
  }
}
