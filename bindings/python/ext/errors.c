/*
 * errors.c - a filled respite_error becomes the Python exception. The class
 * and its fields come from respite.generated.errors.error_from_fields(code, message,
 * setting, retry_after), so swig/python.i's typemap and the lean Gate.call
 * path raise the same exceptions; no message text is ever parsed.
 */
#define PY_SSIZE_T_CLEAN
#include "respite_py.h"

#include <string.h>

static PyObject *factory; /* respite._errors.error_from_fields, looked up once */

PyObject *respite_py_raise(const respite_error *err)
{
    if (!factory) {
        PyObject *module = PyImport_ImportModule("respite.generated.errors");
        factory = module ? PyObject_GetAttrString(module, "error_from_fields") : NULL;
        Py_XDECREF(module);
        if (!factory)
            return NULL;
    }
    int status = err->status != RESPITE_OK ? err->status : RESPITE_E_INTERNAL;
    const char *message = err->message[0] ? err->message : respite_strerror(status);
    /* "replace": a message quoting the caller's bytes still becomes a str */
    PyObject *text = PyUnicode_DecodeUTF8(message, (Py_ssize_t)strlen(message), "replace");
    PyObject *setting = text ? PyUnicode_DecodeUTF8(err->setting, (Py_ssize_t)strlen(err->setting), "replace") : NULL;
    PyObject *exc = setting ? PyObject_CallFunction(factory, "iOOd", status, text, setting, err->retry_after) : NULL;
    Py_XDECREF(text);
    Py_XDECREF(setting);
    if (exc) {
        PyErr_SetObject((PyObject *)Py_TYPE(exc), exc);
        Py_DECREF(exc);
    }
    return NULL;
}
