/*
 * gate_call.c - the lean protected call for Python: Gate.call(fn, *args,
 * **kwargs) in C. One C function admits (a refusal comes back as the
 * core's error, with retry_after), calls fn with vectorcall, reports
 * success and, when the gate has events pending, has the Gate log them.
 * A closed admit and a closed, confirmed success are decided by the
 * fast-path protocol (fast_path.h) when the handle has one.
 * fn raising goes back to Gate._call_failed, and a result goes to
 * Gate._call_returned when the gate has a status_of, so the gate's
 * classifier is read in one place. Added to the SWIG module by python.i's %init.
 *
 * The gate's Python object keeps its handle in `_own` (an Owned with the
 * pointer as an int in `addr`); holding a reference to that Owned for the
 * whole call keeps the handle alive even if another thread closes the gate.
 */
#define PY_SSIZE_T_CLEAN
#include "respite_py.h"

static PyObject *str_failed;
static PyObject *str_returned;
static PyObject *coroutine_type; /* types.CoroutineType */

/* gate.call(fn, *args, **kwargs) */
static PyObject *gate_call(PyObject *gate, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    if (nargs < 1) {
        PyErr_SetString(PyExc_TypeError, "call() needs the function to call");
        return NULL;
    }
    respite_gate *handle;
    respite_py_fast *fast;
    PyObject *own = respite_py_gate_own(gate, &handle, &fast);
    if (!own)
        return NULL;

    respite_error err;
    /* admit_now/report_now read the clock only when the answer depends on
     * it, so a closed gate's call costs no clock read. */
    int64_t permit = fast ? respite_fast_reader_admit(&fast->reader) : 0;
    if (permit == 0) {
        respite_error_clear(&err); /* not = {0}: the message buffer is written only on errors */
        permit = respite_gate_admit_now(handle, &err);
    }
    if (permit <= 0) { /* refused (err is the refusal), closed or an error */
        int polled = respite_py_gate_poll(gate, own, handle, fast);
        Py_DECREF(own);
        return polled == 0 ? respite_py_raise(&err) : NULL;
    }

    PyObject *result = PyObject_Vectorcall(args[0], args + 1, (size_t)(nargs - 1), kwnames);
    if (result && (PyObject *)Py_TYPE(result) == coroutine_type) {
        /* an async def: nothing has run yet, so no success to report; the
         * caller's own mistake (reported as such), never awaited */
        PyObject *closed = PyObject_CallMethod(result, "close", NULL);
        Py_XDECREF(closed);
        Py_DECREF(result);
        result = NULL;
        if (closed)
            PyErr_SetString(PyExc_TypeError, "gate.call() got a coroutine function: use await gate.call_async(fn, ...)");
    }
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
        if (!res) { /* reporting failed (e.g. closed meanwhile): that error wins */
            Py_XDECREF(type);
            Py_XDECREF(value);
            Py_XDECREF(tb);
            return NULL;
        }
        Py_DECREF(res);
        PyErr_Restore(type, value, tb);
        return NULL;
    }

    PyObject *status_of = respite_py_gate_status_of(gate);
    if (!status_of) {
        Py_DECREF(result);
        Py_DECREF(own);
        return NULL;
    }
    if (status_of != Py_None) { /* the result says how the call ended */
        Py_DECREF(status_of);
        PyObject *permit_obj = PyLong_FromLongLong(permit);
        PyObject *res = permit_obj ? PyObject_CallMethodObjArgs(gate, str_returned, own, permit_obj, result, NULL) : NULL;
        Py_XDECREF(permit_obj);
        Py_DECREF(own);
        if (!res)
            Py_CLEAR(result);
        Py_XDECREF(res);
        return result;
    }
    Py_DECREF(status_of);
    int rc = RESPITE_OK;
    if (!fast || !respite_fast_reader_success(&fast->reader, permit)) {
        respite_error_clear(&err);
        rc = respite_gate_report_now(handle, permit, RESPITE_OUTCOME_SUCCESS, 0.0, &err);
    }
    if (rc != RESPITE_OK) {
        Py_DECREF(result);
        result = respite_py_raise(&err);
    } else if (respite_py_gate_poll(gate, own, handle, fast) != 0) {
        Py_CLEAR(result);
    }
    Py_DECREF(own);
    return result;
}

static PyMethodDef gate_call_def = {
    "call", (PyCFunction)(void (*)(void))gate_call, METH_FASTCALL | METH_KEYWORDS,
    "call(fn, /, *args, **kwargs)\n--\n\n"
    "Calls fn(*args, **kwargs) through the gate: refused -> TemporarilyUnavailableError\n"
    "and fn is not called; fn returning -> success; fn raising -> a failure of its kind."};

/* respite_swig._gate_call: a method descriptor for any class (gate.py makes
 * it Gate.call); a self without `_own` raises, never crashes. */
int respite_py_gate_call_register(PyObject *module)
{
    if (!(str_failed = PyUnicode_InternFromString("_call_failed")) ||
        !(str_returned = PyUnicode_InternFromString("_call_returned")))
        return -1;
    PyObject *types = PyImport_ImportModule("types");
    coroutine_type = types ? PyObject_GetAttrString(types, "CoroutineType") : NULL;
    Py_XDECREF(types);
    if (!coroutine_type)
        return -1;
    PyObject *descr = PyDescr_NewMethod(&PyBaseObject_Type, &gate_call_def);
    if (!descr || PyModule_AddObject(module, "_gate_call", descr) != 0) {
        Py_XDECREF(descr);
        return -1;
    }
    return 0;
}
