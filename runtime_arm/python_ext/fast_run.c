/* _fast_run: Interpreter.run's set / invoke / read in one C call (runtime_arm/fast_run.py loads it).
 *
 * A tiny model invokes in ~30 us; the ctypes path spends ~50k instructions around it (argument
 * conversion of each foreign call). This module takes the same steps through the same public C API
 * (the function addresses come from the ctypes-loaded library, so it always calls the library the
 * binding loaded, the ASan build's included) with no ctypes in between.
 *
 * The fast path only takes what it can check cheaply: every input a C-contiguous ndarray of the
 * input's dtype with a rank <= LITE_MAX_RANK, given as the model's inputs in order (an array, a
 * list / tuple, or a dict with the names in the model's order). Anything else returns None and
 * the caller takes the Python path, which converts what it can and raises its usual errors. Errors
 * of the runtime itself raise the binding's LiteError(status, message), as the Python path does.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <stdint.h>
#include <string.h>

#include "lite_runtime.h"

/* The C API calls this module makes, in the order of FUNCTION_NAMES. */
typedef struct {
  const char* (*error_message)(const lite_interpreter*);
  int (*input_count)(const lite_interpreter*);
  int (*output_count)(const lite_interpreter*);
  int (*input_dtype)(const lite_interpreter*, int);
  int (*output_dtype)(const lite_interpreter*, int);
  int (*input_shape)(const lite_interpreter*, int, int64_t*, int);
  int (*output_shape)(const lite_interpreter*, int, int64_t*, int);
  lite_status (*resize_input)(lite_interpreter*, int, const int64_t*, int);
  lite_status (*set_input)(lite_interpreter*, int, const void*, size_t);
  lite_status (*invoke)(lite_interpreter*);
  lite_status (*get_output)(lite_interpreter*, int, void*, size_t);
} CApi;

static const char* const FUNCTION_NAMES[] = {
    "lite_interpreter_error_message", "lite_interpreter_input_count",  "lite_interpreter_output_count",
    "lite_interpreter_input_dtype",   "lite_interpreter_output_dtype", "lite_interpreter_input_shape",
    "lite_interpreter_output_shape",  "lite_interpreter_resize_input", "lite_interpreter_set_input",
    "lite_interpreter_invoke",        "lite_interpreter_get_output",
};
#define FUNCTION_COUNT ((Py_ssize_t)(sizeof(FUNCTION_NAMES) / sizeof(FUNCTION_NAMES[0])))

typedef struct {
  PyObject_HEAD
  CApi api;
  lite_interpreter* handle; /* NULL once detached (the interpreter closed) */
  Py_ssize_t input_count;
  Py_ssize_t output_count;
  PyObject* input_names;   /* tuple of str */
  PyObject* output_names;  /* tuple of str */
  PyObject* input_dtypes;  /* tuple of numpy dtypes, one per input */
  PyObject* dtype_by_code; /* tuple: lite_dtype value -> numpy dtype */
  PyObject* ndarray_type;
  PyObject* empty;       /* numpy.empty */
  PyObject* error_type;  /* LiteError(status, message) */
  PyObject* dtype_attr;  /* "dtype" */
} Runner;

static void raise_lite_error(PyObject* error_type, int status, const char* message) {
  PyObject* text = PyUnicode_DecodeUTF8(message ? message : "", message ? (Py_ssize_t)strlen(message) : 0,
                                        "replace");
  if (text == NULL) return;
  PyObject* error = PyObject_CallFunction(error_type, "iO", status, text);
  Py_DECREF(text);
  if (error != NULL) {
    PyErr_SetObject((PyObject*)Py_TYPE(error), error);
    Py_DECREF(error);
  }
}

static void raise_runtime_error(Runner* self, int status) {
  raise_lite_error(self->error_type, status, self->api.error_message(self->handle));
}

/* Up to LITE_FAST_RUN_MAX_INPUTS inputs take the fast path (more: the Python path). */
#define LITE_FAST_RUN_MAX_INPUTS 64

/* Fills `values` with new references to the inputs in the model's order: a lone array (one-input
 * models), a list / tuple of n, or a dict whose keys are the input names in the model's order.
 * 0 (nothing held) for any other container. The references keep the values alive while Python code
 * may run (a dtype comparison), whatever that code does to the container. */
static int gather_inputs(Runner* self, PyObject* inputs, PyObject** values) {
  Py_ssize_t n = self->input_count;
  if (n > LITE_FAST_RUN_MAX_INPUTS) return 0;
  if (PyList_CheckExact(inputs) || PyTuple_CheckExact(inputs)) {
    if (PySequence_Fast_GET_SIZE(inputs) != n) return 0;
    PyObject** items = PySequence_Fast_ITEMS(inputs);
    for (Py_ssize_t i = 0; i < n; ++i) {
      Py_INCREF(items[i]);
      values[i] = items[i];
    }
    return 1;
  }
  if (PyDict_CheckExact(inputs)) {
    if (PyDict_GET_SIZE(inputs) != n) return 0;
    Py_ssize_t position = 0, i = 0;
    PyObject *key, *value;
    /* key comparisons of exact str run no Python code: the dict cannot change during the walk */
    while (i < n && PyDict_Next(inputs, &position, &key, &value)) {
      PyObject* name = PyTuple_GET_ITEM(self->input_names, i);
      if (key != name && (!PyUnicode_CheckExact(key) || PyUnicode_Compare(key, name) != 0)) break;
      values[i++] = value;
    }
    if (i != n) return 0;
    for (i = 0; i < n; ++i) Py_INCREF(values[i]);
    return 1;
  }
  if (n == 1 && PyObject_TypeCheck(inputs, (PyTypeObject*)self->ndarray_type)) {
    Py_INCREF(inputs);
    values[0] = inputs;
    return 1;
  }
  return 0;
}

/* Whether `value` is an ndarray of input i's dtype whose C-contiguous buffer we can read; fills
 * `view` (released by the caller) when so. 0 with no exception set: take the Python path. */
static int take_input(Runner* self, Py_ssize_t i, PyObject* value, Py_buffer* view) {
  if (!PyObject_TypeCheck(value, (PyTypeObject*)self->ndarray_type)) return 0;
  PyObject* dtype = PyObject_GetAttr(value, self->dtype_attr);
  if (dtype == NULL) {
    PyErr_Clear();
    return 0;
  }
  PyObject* expected = PyTuple_GET_ITEM(self->input_dtypes, i);
  int same = dtype == expected;
  if (!same) {
    same = PyObject_RichCompareBool(dtype, expected, Py_EQ);
    if (same < 0) {
      PyErr_Clear();
      same = 0;
    }
  }
  Py_DECREF(dtype);
  if (!same) return 0;
  if (PyObject_GetBuffer(value, view, PyBUF_C_CONTIGUOUS) != 0) {
    PyErr_Clear(); /* not C-contiguous: np.asarray(order="C") copies it on the Python path */
    return 0;
  }
  /* The buffer must be what its shape says: ndim within the C API's rank, len = prod(shape) * itemsize. */
  int ok = view->ndim >= 0 && view->ndim <= LITE_MAX_RANK && view->itemsize > 0 &&
           (view->ndim == 0 || view->shape != NULL);
  Py_ssize_t count = 1;
  for (int d = 0; ok && d < view->ndim; ++d) {
    Py_ssize_t extent = view->shape[d];
    if (extent < 0 || (extent > 0 && count > PY_SSIZE_T_MAX / extent)) ok = 0;
    else count *= extent;
  }
  if (ok && (count > PY_SSIZE_T_MAX / view->itemsize || count * view->itemsize != view->len)) ok = 0;
  if (!ok) {
    PyBuffer_Release(view);
    return 0;
  }
  return 1;
}

/* Resizes input i to the buffer's shape when it differs from the interpreter's; marks the
 * binding's cached shape (shape_cache[i]) stale. -1 with LiteError set when the runtime refuses. */
static int match_shape(Runner* self, Py_ssize_t i, const Py_buffer* view, PyObject* shape_cache) {
  int64_t current[LITE_MAX_RANK];
  int rank = self->api.input_shape(self->handle, (int)i, current, LITE_MAX_RANK);
  int same = rank == view->ndim;
  for (int d = 0; same && d < rank; ++d) same = current[d] == (int64_t)view->shape[d];
  if (same) return 0;
  int64_t dims[LITE_MAX_RANK] = {0};
  for (int d = 0; d < view->ndim; ++d) dims[d] = (int64_t)view->shape[d];
  if (PyList_CheckExact(shape_cache) && i < PyList_GET_SIZE(shape_cache)) {
    Py_INCREF(Py_None);
    PyList_SetItem(shape_cache, i, Py_None); /* steals; drops the old entry */
  }
  lite_status status = self->api.resize_input(self->handle, (int)i, dims, view->ndim);
  if (status != LITE_OK) {
    raise_runtime_error(self, status);
    return -1;
  }
  return 0;
}

/* A new array holding output i, or NULL with an exception set. */
static PyObject* read_output(Runner* self, int i) {
  int64_t dims[LITE_MAX_RANK];
  int rank = self->api.output_shape(self->handle, i, dims, LITE_MAX_RANK);
  if (rank < 0 || rank > LITE_MAX_RANK) {
    raise_lite_error(self->error_type, LITE_INTERNAL, "an output has no shape after invoke");
    return NULL;
  }
  int code = self->api.output_dtype(self->handle, i);
  if (code < 0 || code >= PyTuple_GET_SIZE(self->dtype_by_code)) {
    PyErr_Format(PyExc_ValueError, "unknown lite dtype %d", code);
    return NULL;
  }
  PyObject* shape = PyTuple_New(rank);
  if (shape == NULL) return NULL;
  for (int d = 0; d < rank; ++d) {
    PyObject* extent = PyLong_FromLongLong(dims[d]);
    if (extent == NULL) {
      Py_DECREF(shape);
      return NULL;
    }
    PyTuple_SET_ITEM(shape, d, extent);
  }
  PyObject* args[2] = {shape, PyTuple_GET_ITEM(self->dtype_by_code, code)};
  PyObject* array = PyObject_Vectorcall(self->empty, args, 2, NULL);
  Py_DECREF(shape);
  if (array == NULL) return NULL;
  Py_buffer view;
  if (PyObject_GetBuffer(array, &view, PyBUF_WRITABLE | PyBUF_C_CONTIGUOUS) != 0) {
    Py_DECREF(array);
    return NULL;
  }
  lite_status status = self->api.get_output(self->handle, i, view.buf, (size_t)view.len);
  PyBuffer_Release(&view);
  if (status != LITE_OK) {
    raise_runtime_error(self, status);
    Py_DECREF(array);
    return NULL;
  }
  return array;
}

/* Runner.run(inputs, shape_cache) -> {output name: array}, or None: take the Python path. */
static PyObject* Runner_run(Runner* self, PyObject* const* args, Py_ssize_t nargs) {
  if (nargs != 2) {
    PyErr_SetString(PyExc_TypeError, "run(inputs, shape_cache) takes 2 arguments");
    return NULL;
  }
  if (self->handle == NULL) {
    raise_lite_error(self->error_type, LITE_INVALID_ARGUMENT, "the interpreter is closed");
    return NULL;
  }
  Py_ssize_t n = self->input_count;
  PyObject* values[LITE_FAST_RUN_MAX_INPUTS];
  if (!gather_inputs(self, args[0], values)) Py_RETURN_NONE;
  Py_buffer views[LITE_FAST_RUN_MAX_INPUTS];
  Py_ssize_t taken = 0;
  PyObject* result = NULL;
  int fall_back = 0;
  while (taken < n && !fall_back) {
    if (take_input(self, taken, values[taken], &views[taken])) ++taken;
    else fall_back = 1;
  }
  if (fall_back) {
    Py_INCREF(Py_None);
    result = Py_None;
    goto done;
  }
  for (Py_ssize_t i = 0; i < n; ++i)
    if (match_shape(self, i, &views[i], args[1]) != 0) goto done;
  for (Py_ssize_t i = 0; i < n; ++i) {
    lite_status status = self->api.set_input(self->handle, (int)i, views[i].buf, (size_t)views[i].len);
    if (status != LITE_OK) {
      raise_runtime_error(self, status);
      goto done;
    }
  }
  lite_status status;
  Py_BEGIN_ALLOW_THREADS
  status = self->api.invoke(self->handle);
  Py_END_ALLOW_THREADS
  if (status != LITE_OK) {
    raise_runtime_error(self, status);
    goto done;
  }
  PyObject* outputs = PyDict_New();
  if (outputs == NULL) goto done;
  for (Py_ssize_t i = 0; i < self->output_count; ++i) {
    PyObject* array = read_output(self, (int)i);
    if (array == NULL || PyDict_SetItem(outputs, PyTuple_GET_ITEM(self->output_names, i), array) != 0) {
      Py_XDECREF(array);
      Py_DECREF(outputs);
      goto done;
    }
    Py_DECREF(array);
  }
  result = outputs;
done:
  for (Py_ssize_t i = 0; i < taken; ++i) PyBuffer_Release(&views[i]);
  for (Py_ssize_t i = 0; i < n; ++i) Py_DECREF(values[i]);
  return result;
}

static PyObject* Runner_detach(Runner* self, PyObject* Py_UNUSED(ignored)) {
  self->handle = NULL;
  Py_RETURN_NONE;
}

static int Runner_traverse(Runner* self, visitproc visit, void* arg) {
  Py_VISIT(self->input_names);
  Py_VISIT(self->output_names);
  Py_VISIT(self->input_dtypes);
  Py_VISIT(self->dtype_by_code);
  Py_VISIT(self->ndarray_type);
  Py_VISIT(self->empty);
  Py_VISIT(self->error_type);
  return 0;
}

static int Runner_clear(Runner* self) {
  Py_CLEAR(self->input_names);
  Py_CLEAR(self->output_names);
  Py_CLEAR(self->input_dtypes);
  Py_CLEAR(self->dtype_by_code);
  Py_CLEAR(self->ndarray_type);
  Py_CLEAR(self->empty);
  Py_CLEAR(self->error_type);
  Py_CLEAR(self->dtype_attr);
  return 0;
}

static void Runner_dealloc(Runner* self) {
  PyObject_GC_UnTrack(self);
  Runner_clear(self);
  Py_TYPE(self)->tp_free((PyObject*)self);
}

static int tuple_of_str(PyObject* value, Py_ssize_t count, const char* what) {
  if (!PyTuple_CheckExact(value) || PyTuple_GET_SIZE(value) != count) {
    PyErr_Format(PyExc_ValueError, "%s must be a tuple of %zd names", what, count);
    return 0;
  }
  for (Py_ssize_t i = 0; i < count; ++i) {
    if (!PyUnicode_CheckExact(PyTuple_GET_ITEM(value, i))) {
      PyErr_Format(PyExc_TypeError, "%s must hold str", what);
      return 0;
    }
  }
  return 1;
}

/* Runner(addresses, handle, input_names, output_names, dtype_by_code, ndarray, empty, error_type):
 * `addresses` are the C API functions of FUNCTION_NAMES in the loaded library, `handle` the
 * lite_interpreter* as an int. Input dtypes are read from the interpreter once. */
static int Runner_init(Runner* self, PyObject* args, PyObject* kwargs) {
  static char* keywords[] = {"addresses",     "handle",  "input_names", "output_names",
                             "dtype_by_code", "ndarray", "empty",       "error_type", NULL};
  PyObject *addresses, *handle, *input_names, *output_names, *dtype_by_code, *ndarray, *empty, *error_type;
  if (!PyArg_ParseTupleAndKeywords(args, kwargs, "OOOOO!O!OO", keywords, &addresses, &handle, &input_names,
                                   &output_names, &PyTuple_Type, &dtype_by_code, &PyType_Type, &ndarray, &empty,
                                   &error_type))
    return -1;
  if (!PyTuple_CheckExact(addresses) || PyTuple_GET_SIZE(addresses) != FUNCTION_COUNT) {
    PyErr_Format(PyExc_ValueError, "addresses must be a tuple of %zd function addresses", FUNCTION_COUNT);
    return -1;
  }
  void* pointers[sizeof(FUNCTION_NAMES) / sizeof(FUNCTION_NAMES[0])];
  for (Py_ssize_t i = 0; i < FUNCTION_COUNT; ++i) {
    pointers[i] = PyLong_AsVoidPtr(PyTuple_GET_ITEM(addresses, i));
    if (pointers[i] == NULL) {
      if (!PyErr_Occurred()) PyErr_Format(PyExc_ValueError, "%s: NULL address", FUNCTION_NAMES[i]);
      return -1;
    }
  }
  CApi api;
  /* function pointers from object pointers: what dlsym does (POSIX guarantees the representation) */
  memcpy(&api, pointers, sizeof api);
  _Static_assert(sizeof(CApi) == sizeof(pointers), "CApi must hold one pointer per FUNCTION_NAMES entry");
  lite_interpreter* it = (lite_interpreter*)PyLong_AsVoidPtr(handle);
  if (it == NULL) {
    if (!PyErr_Occurred()) PyErr_SetString(PyExc_ValueError, "handle is NULL");
    return -1;
  }
  int inputs = api.input_count(it), outputs = api.output_count(it);
  if (inputs < 0 || outputs < 0) {
    PyErr_SetString(PyExc_ValueError, "not an interpreter handle");
    return -1;
  }
  if (!tuple_of_str(input_names, inputs, "input_names") || !tuple_of_str(output_names, outputs, "output_names"))
    return -1;
  PyObject* input_dtypes = PyTuple_New(inputs);
  if (input_dtypes == NULL) return -1;
  for (int i = 0; i < inputs; ++i) {
    int code = api.input_dtype(it, i);
    if (code < 0 || code >= PyTuple_GET_SIZE(dtype_by_code)) {
      PyErr_Format(PyExc_ValueError, "unknown lite dtype %d", code);
      Py_DECREF(input_dtypes);
      return -1;
    }
    PyObject* dtype = PyTuple_GET_ITEM(dtype_by_code, code);
    Py_INCREF(dtype);
    PyTuple_SET_ITEM(input_dtypes, i, dtype);
  }
  PyObject* dtype_attr = PyUnicode_InternFromString("dtype");
  if (dtype_attr == NULL) {
    Py_DECREF(input_dtypes);
    return -1;
  }
  Runner_clear(self);
  self->api = api;
  self->handle = it;
  self->input_count = inputs;
  self->output_count = outputs;
  Py_INCREF(input_names);
  self->input_names = input_names;
  Py_INCREF(output_names);
  self->output_names = output_names;
  self->input_dtypes = input_dtypes;
  Py_INCREF(dtype_by_code);
  self->dtype_by_code = dtype_by_code;
  Py_INCREF(ndarray);
  self->ndarray_type = ndarray;
  Py_INCREF(empty);
  self->empty = empty;
  Py_INCREF(error_type);
  self->error_type = error_type;
  self->dtype_attr = dtype_attr;
  return 0;
}

static PyMethodDef Runner_methods[] = {
    {"run", (PyCFunction)(void (*)(void))Runner_run, METH_FASTCALL,
     "run(inputs, shape_cache) -> {output name: array}, or None when the inputs need the Python path"},
    {"detach", (PyCFunction)Runner_detach, METH_NOARGS,
     "forgets the interpreter handle (before it is destroyed): run() raises LiteError afterwards"},
    {NULL, NULL, 0, NULL},
};

static PyTypeObject RunnerType = {
    PyVarObject_HEAD_INIT(NULL, 0).tp_name = "runtime_arm._fast_run.Runner",
    .tp_basicsize = sizeof(Runner),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC,
    .tp_doc = "Interpreter.run's set / invoke / read over the C API, one call from Python",
    .tp_new = PyType_GenericNew,
    .tp_init = (initproc)Runner_init,
    .tp_dealloc = (destructor)Runner_dealloc,
    .tp_traverse = (traverseproc)Runner_traverse,
    .tp_clear = (inquiry)Runner_clear,
    .tp_methods = Runner_methods,
};

static struct PyModuleDef fast_run_module = {
    PyModuleDef_HEAD_INIT, "_fast_run", "Interpreter.run in one C call over the C API (no ctypes)", -1, NULL,
    NULL, NULL, NULL, NULL,
};

PyMODINIT_FUNC PyInit__fast_run(void) {
  if (PyType_Ready(&RunnerType) < 0) return NULL;
  PyObject* module = PyModule_Create(&fast_run_module);
  if (module == NULL) return NULL;
  PyObject* names = PyTuple_New(FUNCTION_COUNT);
  if (names == NULL) goto fail;
  for (Py_ssize_t i = 0; i < FUNCTION_COUNT; ++i) {
    PyObject* name = PyUnicode_FromString(FUNCTION_NAMES[i]);
    if (name == NULL) {
      Py_DECREF(names);
      goto fail;
    }
    PyTuple_SET_ITEM(names, i, name);
  }
  if (PyModule_AddObject(module, "FUNCTION_NAMES", names) != 0) {
    Py_DECREF(names);
    goto fail;
  }
  Py_INCREF(&RunnerType);
  if (PyModule_AddObject(module, "Runner", (PyObject*)&RunnerType) != 0) {
    Py_DECREF(&RunnerType);
    goto fail;
  }
  if (PyModule_AddIntConstant(module, "MAX_INPUTS", LITE_FAST_RUN_MAX_INPUTS) != 0) goto fail;
  return module;
fail:
  Py_DECREF(module);
  return NULL;
}
