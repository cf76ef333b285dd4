/* lite_jni_onload.c: JNI_OnLoad (caches classes and method IDs, registers the natives of
 * org.liteedge.runtime.NativeApi) and the helpers every native uses: exceptions, strings. */
#include <stdlib.h>
#include <string.h>

#include "lite_jni_internal.h"

/* Global references taken once in JNI_OnLoad and never changed: the only global state. */
static jclass g_lite_exception;
static jmethodID g_lite_exception_init; /* LiteException(int, String) */
static jclass g_illegal_argument;
#define PRIMITIVE_ARRAY_TYPES 8
static jclass g_array_classes[PRIMITIVE_ARRAY_TYPES]; /* boolean[] byte[] char[] short[] int[] float[] long[] double[] */
static const int g_array_bytes[PRIMITIVE_ARRAY_TYPES] = {1, 1, 2, 2, 4, 4, 8, 8};

static jclass global_class(JNIEnv* env, const char* name) {
  jclass local = (*env)->FindClass(env, name);
  if (local == NULL) {
    return NULL;
  }
  jclass global = (jclass)(*env)->NewGlobalRef(env, local);
  (*env)->DeleteLocalRef(env, local);
  return global;
}

void lite_jni_throw(JNIEnv* env, lite_status status, const char* message) {
  if ((*env)->ExceptionCheck(env)) {
    return; /* keep the first exception */
  }
  jstring text = lite_jni_string(env, message);
  if (text == NULL) {
    return; /* OutOfMemoryError pending */
  }
  jobject exception = (*env)->NewObject(env, g_lite_exception, g_lite_exception_init, (jint)status, text);
  if (exception != NULL) {
    (*env)->Throw(env, (jthrowable)exception);
    (*env)->DeleteLocalRef(env, exception);
  }
  (*env)->DeleteLocalRef(env, text);
}

void lite_jni_throw_argument(JNIEnv* env, const char* message) {
  if (!(*env)->ExceptionCheck(env)) {
    (*env)->ThrowNew(env, g_illegal_argument, message);
  }
}

/* Decodes one UTF-8 sequence at s (n bytes left); returns its length and the code point, or 0 for
 * an invalid sequence (overlong, surrogate, > U+10FFFF, truncated). */
static size_t utf8_decode(const unsigned char* s, size_t n, uint32_t* code) {
  if (s[0] < 0x80) {
    *code = s[0];
    return 1;
  }
  size_t length = s[0] >= 0xF0 ? 4 : s[0] >= 0xE0 ? 3 : s[0] >= 0xC0 ? 2 : 0;
  if (length == 0 || length > n || s[0] > 0xF4) {
    return 0;
  }
  uint32_t value = s[0] & (0x7F >> length);
  for (size_t i = 1; i < length; i++) {
    if ((s[i] & 0xC0) != 0x80) {
      return 0;
    }
    value = (value << 6) | (s[i] & 0x3F);
  }
  static const uint32_t smallest[5] = {0, 0, 0x80, 0x800, 0x10000};
  if (value < smallest[length] || value > 0x10FFFF || (value >= 0xD800 && value <= 0xDFFF)) {
    return 0;
  }
  *code = value;
  return length;
}

jstring lite_jni_string(JNIEnv* env, const char* utf8) {
  if (utf8 == NULL) {
    utf8 = "";
  }
  size_t n = strlen(utf8);
  /* UTF-16 never needs more units than UTF-8 has bytes. */
  jchar* units = (jchar*)malloc((n > 0 ? n : 1) * sizeof(jchar));
  if (units == NULL) {
    jclass oom = (*env)->FindClass(env, "java/lang/OutOfMemoryError");
    if (oom != NULL) {
      (*env)->ThrowNew(env, oom, "lite_jni: string conversion");
    }
    return NULL;
  }
  size_t count = 0;
  const unsigned char* s = (const unsigned char*)utf8;
  for (size_t i = 0; i < n;) {
    uint32_t code;
    size_t length = utf8_decode(s + i, n - i, &code);
    if (length == 0) {
      code = 0xFFFD;
      length = 1;
    }
    if (code >= 0x10000) {
      code -= 0x10000;
      units[count++] = (jchar)(0xD800 + (code >> 10));
      units[count++] = (jchar)(0xDC00 + (code & 0x3FF));
    } else {
      units[count++] = (jchar)code;
    }
    i += length;
  }
  jstring result = (*env)->NewString(env, units, (jsize)count);
  free(units);
  return result;
}

char* lite_jni_utf8(JNIEnv* env, jstring string) {
  jsize length = (*env)->GetStringLength(env, string);
  char* utf8 = (char*)malloc((size_t)length * 3 + 1); /* a UTF-16 unit never needs more than 3 bytes */
  const jchar* units = utf8 != NULL ? (*env)->GetStringChars(env, string, NULL) : NULL;
  if (units == NULL) {
    free(utf8);
    jclass oom = (*env)->FindClass(env, "java/lang/OutOfMemoryError");
    if (oom != NULL && !(*env)->ExceptionCheck(env)) {
      (*env)->ThrowNew(env, oom, "lite_jni: string conversion");
    }
    return NULL;
  }
  size_t n = 0;
  for (jsize i = 0; i < length; i++) {
    uint32_t code = units[i];
    if (code >= 0xD800 && code <= 0xDBFF && i + 1 < length && units[i + 1] >= 0xDC00 && units[i + 1] <= 0xDFFF) {
      code = 0x10000 + ((code - 0xD800) << 10) + (units[++i] - 0xDC00u);
    } else if (code >= 0xD800 && code <= 0xDFFF) {
      code = 0xFFFD; /* a lone surrogate */
    }
    if (code < 0x80) {
      utf8[n++] = (char)code;
    } else if (code < 0x800) {
      utf8[n++] = (char)(0xC0 | (code >> 6));
      utf8[n++] = (char)(0x80 | (code & 0x3F));
    } else if (code < 0x10000) {
      utf8[n++] = (char)(0xE0 | (code >> 12));
      utf8[n++] = (char)(0x80 | ((code >> 6) & 0x3F));
      utf8[n++] = (char)(0x80 | (code & 0x3F));
    } else {
      utf8[n++] = (char)(0xF0 | (code >> 18));
      utf8[n++] = (char)(0x80 | ((code >> 12) & 0x3F));
      utf8[n++] = (char)(0x80 | ((code >> 6) & 0x3F));
      utf8[n++] = (char)(0x80 | (code & 0x3F));
    }
  }
  utf8[n] = '\0';
  (*env)->ReleaseStringChars(env, string, units);
  return utf8;
}

int lite_jni_array_element_bytes(JNIEnv* env, jobject array) {
  if (array == NULL) {
    return 0;
  }
  for (int i = 0; i < PRIMITIVE_ARRAY_TYPES; i++) {
    if ((*env)->IsInstanceOf(env, array, g_array_classes[i])) {
      return g_array_bytes[i];
    }
  }
  return 0;
}

size_t lite_jni_dtype_bytes(int dtype) {
  switch (dtype) {
    case LITE_INT8: case LITE_UINT8: case LITE_BOOL:
      return 1;
    case LITE_FLOAT16: case LITE_INT16: case LITE_UINT16:
      return 2;
    case LITE_FLOAT32: case LITE_INT32: case LITE_UINT32:
      return 4;
    case LITE_FLOAT64: case LITE_INT64: case LITE_UINT64:
      return 8;
    default:
      return 0;
  }
}

#define NATIVE(name, signature, function) {(char*)(name), (char*)(signature), (void*)(function)}

static const JNINativeMethod kNatives[] = {
    NATIVE("version", "()Ljava/lang/String;", lite_jni_version),
    NATIVE("loadModelFile", "(Ljava/lang/String;)J", lite_jni_load_model_file),
    NATIVE("loadModelDirect", "(Ljava/nio/Buffer;JJ)J", lite_jni_load_model_direct),
    NATIVE("loadModelCopy", "([BII)J", lite_jni_load_model_copy),
    NATIVE("destroyModel", "(J)V", lite_jni_destroy_model),
    NATIVE("createInterpreter", "(JIIIILjava/lang/String;IJF)J", lite_jni_create_interpreter),
    NATIVE("destroyInterpreter", "(J)V", lite_jni_destroy_interpreter),
    NATIVE("backendNote", "(J)Ljava/lang/String;", lite_jni_backend_note),
    NATIVE("backendInfo", "(J)Ljava/lang/String;", lite_jni_backend_info),
    NATIVE("backendProfile", "(J)Ljava/lang/String;", lite_jni_backend_profile),
    NATIVE("cpuAffinityCpus", "(J)[I", lite_jni_cpu_affinity_cpus),
    NATIVE("tensorCount", "(JZ)I", lite_jni_tensor_count),
    NATIVE("tensorName", "(JZI)Ljava/lang/String;", lite_jni_tensor_name),
    NATIVE("tensorDataType", "(JZI)I", lite_jni_tensor_dtype),
    NATIVE("tensorShape", "(JZI)[J", lite_jni_tensor_shape),
    NATIVE("tensorBytes", "(JZI)J", lite_jni_tensor_bytes),
    NATIVE("quantizationScales", "(JZI)[F", lite_jni_quantization_scales),
    NATIVE("quantizationZeroPoints", "(JZI)[J", lite_jni_quantization_zero_points),
    NATIVE("quantizationAxis", "(JZI)I", lite_jni_quantization_axis),
    NATIVE("resizeInput", "(JI[J)V", lite_jni_resize_input),
    NATIVE("allocate", "(J)V", lite_jni_allocate),
    NATIVE("invoke", "(J)V", lite_jni_invoke),
    NATIVE("resetVariables", "(J)V", lite_jni_reset_variables),
    NATIVE("variableCount", "(J)I", lite_jni_variable_count),
    NATIVE("arenaBytes", "(J)J", lite_jni_arena_bytes),
    NATIVE("memoryBytes", "(J)J", lite_jni_memory_bytes),
    NATIVE("weightsBytes", "(J)J", lite_jni_weights_bytes),
    NATIVE("setInputDirect", "(JILjava/nio/Buffer;IJJ)V", lite_jni_set_input_direct),
    NATIVE("setInputBytes", "(JI[BII)V", lite_jni_set_input_bytes),
    NATIVE("setInputArray", "(JILjava/lang/Object;I)V", lite_jni_set_input_array),
    NATIVE("getOutputDirect", "(JILjava/nio/Buffer;IJJ)V", lite_jni_get_output_direct),
    NATIVE("getOutputBytes", "(JI[BII)V", lite_jni_get_output_bytes),
    NATIVE("getOutputArray", "(JILjava/lang/Object;I)V", lite_jni_get_output_array),
    NATIVE("setProfiling", "(JZ)V", lite_jni_set_profiling),
    NATIVE("profileCount", "(J)I", lite_jni_profile_count),
    NATIVE("profile", "(J[Ljava/lang/String;[Ljava/lang/String;[D[J[I[Ljava/lang/String;)V", lite_jni_profile),
};

JNIEXPORT jint JNI_OnLoad(JavaVM* vm, void* reserved) {
  (void)reserved;
  JNIEnv* env = NULL;
  if ((*vm)->GetEnv(vm, (void**)&env, JNI_VERSION_1_6) != JNI_OK) {
    return JNI_ERR;
  }
  static const char* const array_names[PRIMITIVE_ARRAY_TYPES] = {"[Z", "[B", "[C", "[S", "[I", "[F", "[J", "[D"};
  for (int i = 0; i < PRIMITIVE_ARRAY_TYPES; i++) {
    if ((g_array_classes[i] = global_class(env, array_names[i])) == NULL) {
      return JNI_ERR;
    }
  }
  g_lite_exception = global_class(env, "org/liteedge/runtime/LiteException");
  g_illegal_argument = global_class(env, "java/lang/IllegalArgumentException");
  if (g_lite_exception == NULL || g_illegal_argument == NULL) {
    return JNI_ERR;
  }
  g_lite_exception_init = (*env)->GetMethodID(env, g_lite_exception, "<init>", "(ILjava/lang/String;)V");
  jclass natives = (*env)->FindClass(env, "org/liteedge/runtime/NativeApi");
  if (g_lite_exception_init == NULL || natives == NULL) {
    return JNI_ERR;
  }
  jint registered = (*env)->RegisterNatives(env, natives, kNatives, (jint)(sizeof(kNatives) / sizeof(kNatives[0])));
  (*env)->DeleteLocalRef(env, natives);
  return registered == 0 ? JNI_VERSION_1_6 : JNI_ERR;
}
