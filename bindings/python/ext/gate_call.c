/*
 * gate_call.c - the lean protected call for Python: Gate.call(fn, *args,
 * **kwargs) in C. One C function admits, calls fn with vectorcall, and
 * reports success; everything rare (refusal, closed, fn raising, events to
 * log) goes back to the Gate's Python methods, so behaviour and messages
 * stay in one place. Registered into the SWIG module by python.i's %init.
 *
 * The gate's Python object keeps its handle in `_own` (an Owned with the
 * pointer as an int in `addr`); holding a reference to that Owned for the
 * whole call keeps the handle alive even if another thread closes the gate.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "respite.h"

#include <stdio.h>

static PyObject *str_own;
static PyObject *str_addr;
static PyObject *str_watch;
static PyObject *str_poll;
static PyObject *str_refused;
static PyObject *str_failed;
static PyObject *translate_fn; /* respite._errors.translate, set by setup */

/* Raises the core's error as the raw module would ("<status>: <message>"),
 * translated to respite's exception classes. */
static PyObject *raise_core_error(const respite_error *err)
{
    int status = err->status != RESPITE_OK ? err->status : RESPITE_E_INTERNAL;
    PyObject *text = PyUnicode_FromFormat("%s: %s", respite_status_name(status),
                                          err->message[0] ? err->message : respite_strerror(status));
    if (!text)
        return NULL;
    PyObject *raw = PyObject_CallOneArg(PyExc_RuntimeError, text);
    Py_DECREF(text);
    if (!raw)
        return NULL;
    PyObject *translated = translate_fn ? PyObject_CallOneArg(translate_fn, raw) : NULL;
    if (!translated) {
        if (!PyErr_Occurred())
            PyErr_SetObject(PyExc_RuntimeError, raw);
        Py_DECREF(raw);
        return NULL;
    }
    Py_DECREF(raw);
    PyErr_SetObject((PyObject *)Py_TYPE(translated), translated);
    Py_DECREF(translated);
    return NULL;
}

/* gate.call(fn, *args, **kwargs) */
static PyObject *gate_call(PyObject *gate, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    if (nargs < 1) {
        PyErr_SetString(PyExc_TypeError, "call() needs the function to call");
        return NULL;
    }
    PyObject *own = PyObject_GetAttr(gate, str_own);
    if (!own)
        return NULL;
    PyObject *addr = PyObject_GetAttr(own, str_addr);
    if (!addr) {
        Py_DECREF(own);
        return NULL;
    }
    respite_gate *handle = (respite_gate *)PyLong_AsVoidPtr(addr);
    Py_DECREF(addr);
    if (!handle && PyErr_Occurred()) {
        Py_DECREF(own);
        return NULL;
    }

    respite_error err;
    err.status = RESPITE_OK;
    err.message[0] = '\0';
    /* admit_now/report_now read the clock only when the answer depends on
     * it, so a closed gate's call costs no clock read. */
    int64_t permit = respite_gate_admit_now(handle, &err);
    if (permit < 0) { /* closed (NULL handle) or an error */
        Py_DECREF(own);
        return raise_core_error(&err);
    }
    if (permit == 0) { /* refused: the Gate raises TemporarilyUnavailableError (retry_after read now) */
        PyObject *res = PyObject_CallMethodObjArgs(gate, str_refused, own, Py_None, NULL);
        Py_DECREF(own);
        Py_XDECREF(res);
        if (!PyErr_Occurred())
            PyErr_SetString(PyExc_RuntimeError, "internal: the refusal was not raised");
        return NULL;
    }

    PyObject *result = PyObject_Vectorcall(args[0], args + 1, (size_t)(nargs - 1), kwnames);
    if (!result) { /* fn raised: the Gate reports its kind, then it propagates */
        PyObject *type, *value, *tb;
        PyErr_Fetch(&type, &value, &tb);
        PyErr_NormalizeException(&type, &value, &tb);
        if (tb)
            PyException_SetTraceback(value, tb);
        PyObject *permit_obj = PyLong_FromLongLong(permit);
        PyObject *res = permit_obj ? PyObject_CallMethodObjArgs(gate, str_failed, own, permit_obj, value, NULL) : NULL;
        Py_XDECREF(permit_obj);
        Py_DECREF(own);
        if (!res) { /* reporting failed (e.g. closed meanwhile): that error wins, chained */
            Py_XDECREF(type);
            Py_XDECREF(value);
            Py_XDECREF(tb);
            return NULL;
        }
        Py_DECREF(res);
        PyErr_Restore(type, value, tb);
        return NULL;
    }

    if (respite_gate_report_now(handle, permit, RESPITE_OUTCOME_SUCCESS, 0.0, &err) != RESPITE_OK) {
        Py_DECREF(own);
        Py_DECREF(result);
        return raise_core_error(&err);
    }
    PyObject *watch = PyObject_GetAttr(gate, str_watch);
    if (!watch) {
        Py_DECREF(own);
        Py_DECREF(result);
        return NULL;
    }
    if (watch == Py_True) { /* a transition may be pending: log its events */
        PyObject *res = PyObject_CallMethodObjArgs(gate, str_poll, own, NULL);
        if (!res) {
            Py_DECREF(watch);
            Py_DECREF(own);
            Py_DECREF(result);
            return NULL;
        }
        Py_DECREF(res);
    }
    Py_DECREF(watch);
    Py_DECREF(own);
    return result;
}

static PyMethodDef gate_call_def = {
    "call", (PyCFunction)(void (*)(void))gate_call, METH_FASTCALL | METH_KEYWORDS,
    "call(fn, /, *args, **kwargs)\n--\n\n"
    "Calls fn(*args, **kwargs) through the gate: refused -> TemporarilyUnavailableError\n"
    "and fn is not called; fn returning -> success; fn raising -> a failure of its kind."};

/* _gate_call_install(gate_class, translate): makes gate_class.call the C method. */
static PyObject *install(PyObject *self, PyObject *args)
{
    (void)self;
    PyObject *cls, *translate;
    if (!PyArg_ParseTuple(args, "O!O:_gate_call_install", &PyType_Type, &cls, &translate))
        return NULL;
    Py_INCREF(translate);
    Py_XDECREF(translate_fn);
    translate_fn = translate;
    PyObject *descr = PyDescr_NewMethod((PyTypeObject *)cls, &gate_call_def);
    if (!descr)
        return NULL;
    int rc = PyObject_SetAttrString(cls, "call", descr);
    Py_DECREF(descr);
    if (rc != 0)
        return NULL;
    Py_RETURN_NONE;
}

static PyMethodDef methods[] = {
    {"_gate_call_install", install, METH_VARARGS, "Installs the C Gate.call on the Gate class."},
    {NULL, NULL, 0, NULL},
};

int respite_py_gate_call_register(PyObject *module)
{
    if (!(str_own = PyUnicode_InternFromString("_own")) || !(str_addr = PyUnicode_InternFromString("addr")) ||
        !(str_watch = PyUnicode_InternFromString("_watch")) || !(str_poll = PyUnicode_InternFromString("_poll")) ||
        !(str_refused = PyUnicode_InternFromString("_call_refused")) ||
        !(str_failed = PyUnicode_InternFromString("_call_failed")))
        return -1;
    return PyModule_AddFunctions(module, methods);
}
