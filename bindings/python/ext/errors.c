/*
 * errors.c - a filled respite_error becomes the Python exception. The class
 * and its fields come from respite.generated.errors.error_from_fields(code, message,
 * setting, retry_after, problems), so swig/python.i's typemap and the lean
 * Gate.call path raise the same exceptions; no message text is ever parsed.
 */
#define PY_SSIZE_T_CLEAN
#include "errors.h"

#include <string.h>

static PyObject *factory; /* respite.generated.errors.error_from_fields, looked up once */
static PyObject *problem;  /* respite.generated.errors.Problem */

static PyObject *decoded(const char *text)
{
    return PyUnicode_DecodeUTF8(text, (Py_ssize_t)strlen(text), "replace");
}

/* A list of Problem(pointer, message, line, column), None without problems;
 * NULL with an exception. */
static PyObject *problem_list(const respite_problems *problems)
{
    if (!problems) {
        Py_INCREF(Py_None);
        return Py_None;
    }
    int count = respite_problems_count(problems);
    PyObject *list = PyList_New(count);
    for (int i = 0; list && i < count; i++) {
        PyObject *item = PyObject_CallFunction(problem, "NNii", decoded(respite_problems_pointer(problems, i)),
                                               decoded(respite_problems_message(problems, i)),
                                               respite_problems_line(problems, i), respite_problems_column(problems, i));
        if (!item || PyList_SetItem(list, i, item) != 0)
            Py_CLEAR(list);
    }
    return list;
}

PyObject *respite_py_raise(const respite_error *err)
{
    return respite_py_raise_problems(err, NULL);
}

PyObject *respite_py_raise_problems(const respite_error *err, const respite_problems *problems)
{
    if (!factory) {
        PyObject *module = PyImport_ImportModule("respite.generated.errors");
        problem = module ? PyObject_GetAttrString(module, "Problem") : NULL;
        factory = problem ? PyObject_GetAttrString(module, "error_from_fields") : NULL;
        Py_XDECREF(module);
        if (!factory)
            return NULL;
    }
    int status = err->status != RESPITE_OK ? err->status : RESPITE_E_INTERNAL;
    const char *message = err->message[0] ? err->message : respite_strerror(status);
    /* "replace": a message quoting the caller's bytes still becomes a str */
    PyObject *text = decoded(message);
    PyObject *setting = text ? decoded(err->setting) : NULL;
    PyObject *list = setting ? problem_list(problems) : NULL;
    PyObject *exc = list ? PyObject_CallFunction(factory, "iOOdO", status, text, setting, err->retry_after, list) : NULL;
    Py_XDECREF(text);
    Py_XDECREF(setting);
    Py_XDECREF(list);
    if (exc) {
        PyErr_SetObject((PyObject *)Py_TYPE(exc), exc);
        Py_DECREF(exc);
    }
    return NULL;
}
