/* lite_jni_data.c: data into inputs and out of outputs, from direct buffers, byte arrays and
 * primitive Java arrays of any rank. Every path copies once, between Java-visible memory and the
 * runtime's (lite_interpreter_input_data / _output_data), and checks every size before copying. */
#include <string.h>

#include "lite_jni_internal.h"

typedef enum { TO_RUNTIME, FROM_RUNTIME } direction;

/* The runtime memory of input/output `index` and its size; NULL with an exception on failure. */
static uint8_t* tensor_memory(JNIEnv* env, lite_interpreter* it, jint index, direction dir, size_t* bytes) {
  void* data = dir == TO_RUNTIME ? lite_interpreter_input_data(it, index)
                                 : (void*)(uintptr_t)lite_interpreter_output_data(it, index);
  if (data == NULL) {
    const char* message = lite_interpreter_error_message(it);
    lite_jni_throw(env, LITE_INVALID_ARGUMENT, message[0] != '\0' ? message : "tensor index out of range");
    return NULL;
  }
  *bytes = dir == TO_RUNTIME ? lite_interpreter_input_bytes(it, index) : lite_interpreter_output_bytes(it, index);
  return (uint8_t*)data;
}

static int dtype_bytes(lite_interpreter* it, jint index, direction dir) {
  int dtype = dir == TO_RUNTIME ? lite_interpreter_input_dtype(it, index) : lite_interpreter_output_dtype(it, index);
  return (int)lite_jni_dtype_bytes(dtype);
}

static void copy_direct(JNIEnv* env, jlong interpreter, jint index, jobject buffer, jint element_bytes, jlong offset,
                        jlong bytes, direction dir) {
  lite_interpreter* it = lite_jni_interpreter(interpreter);
  uint8_t* base = buffer != NULL ? (uint8_t*)(*env)->GetDirectBufferAddress(env, buffer) : NULL;
  jlong capacity = buffer != NULL ? (*env)->GetDirectBufferCapacity(env, buffer) : -1;
  if (base == NULL || capacity < 0 || element_bytes < 1 || element_bytes > 8) {
    lite_jni_throw_argument(env, "not a direct buffer this VM can address");
    return;
  }
  jlong capacity_bytes = capacity * element_bytes; /* capacity counts the buffer's elements */
  if (offset < 0 || bytes < 0 || offset > capacity_bytes || bytes > capacity_bytes - offset) {
    lite_jni_throw_argument(env, "the byte range lies outside the buffer");
    return;
  }
  size_t tensor_bytes = 0;
  uint8_t* memory = tensor_memory(env, it, index, dir, &tensor_bytes);
  if (memory == NULL) {
    return;
  }
  if ((size_t)bytes != tensor_bytes) {
    lite_jni_throw_argument(env, "the buffer's byte count differs from the tensor's");
    return;
  }
  if (dir == TO_RUNTIME) {
    memcpy(memory, base + offset, tensor_bytes);
  } else {
    memcpy(base + offset, memory, tensor_bytes);
  }
}

void lite_jni_set_input_direct(JNIEnv* env, jclass cls, jlong interpreter, jint index, jobject buffer,
                               jint element_bytes, jlong offset, jlong bytes) {
  (void)cls;
  copy_direct(env, interpreter, index, buffer, element_bytes, offset, bytes, TO_RUNTIME);
}

void lite_jni_get_output_direct(JNIEnv* env, jclass cls, jlong interpreter, jint index, jobject buffer,
                                jint element_bytes, jlong offset, jlong bytes) {
  (void)cls;
  copy_direct(env, interpreter, index, buffer, element_bytes, offset, bytes, FROM_RUNTIME);
}

static void copy_bytes(JNIEnv* env, jlong interpreter, jint index, jbyteArray data, jint offset, jint length,
                       direction dir) {
  lite_interpreter* it = lite_jni_interpreter(interpreter);
  if (data == NULL || offset < 0 || length < 0 || offset > (*env)->GetArrayLength(env, data) - length) {
    lite_jni_throw_argument(env, "the byte range lies outside the array");
    return;
  }
  size_t tensor_bytes = 0;
  uint8_t* memory = tensor_memory(env, it, index, dir, &tensor_bytes);
  if (memory == NULL) {
    return;
  }
  if ((size_t)length != tensor_bytes) {
    lite_jni_throw_argument(env, "the array's byte count differs from the tensor's");
    return;
  }
  if (dir == TO_RUNTIME) {
    (*env)->GetByteArrayRegion(env, data, offset, length, (jbyte*)memory);
  } else {
    (*env)->SetByteArrayRegion(env, data, offset, length, (const jbyte*)memory);
  }
}

void lite_jni_set_input_bytes(JNIEnv* env, jclass cls, jlong interpreter, jint index, jbyteArray data, jint offset,
                              jint length) {
  (void)cls;
  copy_bytes(env, interpreter, index, data, offset, length, TO_RUNTIME);
}

void lite_jni_get_output_bytes(JNIEnv* env, jclass cls, jlong interpreter, jint index, jbyteArray data,
                               jint offset, jint length) {
  (void)cls;
  copy_bytes(env, interpreter, index, data, offset, length, FROM_RUNTIME);
}

typedef struct {
  uint8_t* cursor;   /* next byte of the runtime's memory */
  size_t remaining;  /* bytes left in it */
  int element_bytes; /* of the tensor's dtype; every leaf array must have the same width */
  direction dir;
} array_walk;

/* Copies the rows of a rank-`rank` array in order; 0 with an exception pending on failure. */
static int walk(JNIEnv* env, jobject array, int rank, array_walk* w) {
  if (array == NULL) {
    lite_jni_throw_argument(env, "the array has a null row");
    return 0;
  }
  jsize length = (*env)->GetArrayLength(env, (jarray)array);
  if (rank > 1) {
    for (jsize i = 0; i < length; i++) {
      jobject row = (*env)->GetObjectArrayElement(env, (jobjectArray)array, i);
      if ((*env)->ExceptionCheck(env)) {
        return 0;
      }
      int ok = walk(env, row, rank - 1, w);
      (*env)->DeleteLocalRef(env, row);
      if (!ok) {
        return 0;
      }
    }
    return 1;
  }
  if (lite_jni_array_element_bytes(env, array) != w->element_bytes) {
    lite_jni_throw_argument(env, "the array's element type does not match the tensor's data type");
    return 0;
  }
  size_t bytes = (size_t)length * (size_t)w->element_bytes;
  if (bytes > w->remaining) {
    lite_jni_throw_argument(env, "the array holds more values than the tensor");
    return 0;
  }
  /* No JNI call between Get and Release: the copy is a plain memcpy. */
  void* values = (*env)->GetPrimitiveArrayCritical(env, (jarray)array, NULL);
  if (values == NULL) {
    return 0;
  }
  if (w->dir == TO_RUNTIME) {
    memcpy(w->cursor, values, bytes);
  } else {
    memcpy(values, w->cursor, bytes);
  }
  (*env)->ReleasePrimitiveArrayCritical(env, (jarray)array, values, w->dir == TO_RUNTIME ? JNI_ABORT : 0);
  w->cursor += bytes;
  w->remaining -= bytes;
  return 1;
}

static void copy_array(JNIEnv* env, jlong interpreter, jint index, jobject array, jint rank, direction dir) {
  lite_interpreter* it = lite_jni_interpreter(interpreter);
  if (rank < 1 || rank > LITE_MAX_RANK) {
    lite_jni_throw_argument(env, "array rank out of range");
    return;
  }
  size_t tensor_bytes = 0;
  uint8_t* memory = tensor_memory(env, it, index, dir, &tensor_bytes);
  if (memory == NULL) {
    return;
  }
  array_walk w = {memory, tensor_bytes, dtype_bytes(it, index, dir), dir};
  if (w.element_bytes == 0) {
    lite_jni_throw(env, LITE_UNSUPPORTED, "the tensor's data type has no Java array type");
    return;
  }
  if (walk(env, array, rank, &w) && w.remaining != 0) {
    lite_jni_throw_argument(env, "the array holds fewer values than the tensor");
  }
}

void lite_jni_set_input_array(JNIEnv* env, jclass cls, jlong interpreter, jint index, jobject array, jint rank) {
  (void)cls;
  copy_array(env, interpreter, index, array, rank, TO_RUNTIME);
}

void lite_jni_get_output_array(JNIEnv* env, jclass cls, jlong interpreter, jint index, jobject array, jint rank) {
  (void)cls;
  copy_array(env, interpreter, index, array, rank, FROM_RUNTIME);
}
