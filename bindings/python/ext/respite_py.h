/* respite_py.h - the C helpers compiled into respite._respite_swig. */
#ifndef RESPITE_PY_H
#define RESPITE_PY_H

#include <Python.h>

#include "fast_path.h"
#include "respite.h"

/* Raises the exception for a filled respite_error (ext/errors.c); returns NULL. */
PyObject *respite_py_raise(const respite_error *err);
/* gate._own, new reference, the handle in it (NULL once closed) and the
 * handle's fast path (borrowed from own; NULL: the core answers); NULL with
 * an exception when they cannot be read. Inline below for a handle whose
 * fast path is made; the rest in ext/gate_handle.c (which makes it). */
static inline PyObject *respite_py_gate_own(PyObject *gate, respite_gate **handle, respite_py_fast **fast);
PyObject *respite_py_gate_own_slow(PyObject *gate, respite_gate **handle, respite_py_fast **fast);
/* gate._status_of, new reference (None: results are successes). */
PyObject *respite_py_gate_status_of(PyObject *gate);
/* The gate's event rule after a call into it (K4 on the fast path):
 * Gate._poll(own) when events are pending; 0, or -1 when logging raised. */
static inline int respite_py_gate_poll(PyObject *gate, PyObject *own, const respite_gate *handle,
                                       const respite_py_fast *fast);
/* Gate._poll(own), whatever is pending; 0, or -1 when logging raised. */
int respite_py_gate_take_events(PyObject *gate, PyObject *own);
/* Adds _GateSlots, _OwnedSlots and _gate_classes (which names Gate and Owned) to the module; 0 or -1. */
int respite_py_gate_handle_register(PyObject *module);
/* Adds _gate_call, Gate.call, to the module (ext/gate_call.c); 0 or -1. */
int respite_py_gate_call_register(PyObject *module);
/* Adds Attempt and _gate_attempt, `with gate.attempt()`, to the module (ext/attempt.c); 0 or -1. */
int respite_py_attempt_register(PyObject *module);

/* The C bases of Gate and Owned (respite._GateSlots, _OwnedSlots; ext/gate_handle.c):
 * the slots the C paths read, at offsets known in every build. */
typedef struct {
    PyObject_HEAD
    PyObject *own, *status_of;
} respite_py_gate_slots;
typedef struct {
    PyObject_HEAD
    PyObject *addr, *fast;
} respite_py_owned_slots;
/* Gate and Owned themselves (_gate_classes): a subclass is read by attribute. */
typedef struct {
    PyTypeObject *gate_type, *owned_type;
} respite_py_classes;
extern respite_py_classes respite_py_slots;

/* gate's fast path when gate is a Gate whose Owned has made it, with that
 * Owned in *own, both borrowed (valid until Python code runs); else NULL. */
static inline respite_py_fast *respite_py_gate_fast(PyObject *gate, PyObject **own)
{
#ifdef RESPITE_PY_FAST_PATH
    if (Py_TYPE(gate) == respite_py_slots.gate_type) {
        *own = ((respite_py_gate_slots *)gate)->own;
        PyObject *f = *own && Py_TYPE(*own) == respite_py_slots.owned_type ? ((respite_py_owned_slots *)*own)->fast : NULL;
        if (f && Py_TYPE(f) == respite_py_fast_type)
            return (respite_py_fast *)f;
    }
#else
    (void)gate;
    (void)own;
#endif
    return NULL;
}

static inline PyObject *respite_py_gate_own(PyObject *gate, respite_gate **handle, respite_py_fast **fast)
{
    PyObject *own;
    *fast = respite_py_gate_fast(gate, &own);
    if (!*fast)
        return respite_py_gate_own_slow(gate, handle, fast);
    Py_INCREF(own);
    *handle = (*fast)->gate;
    return own;
}

static inline int respite_py_gate_poll(PyObject *gate, PyObject *own, const respite_gate *handle,
                                       const respite_py_fast *fast)
{
    if (fast ? !respite_fast_reader_events_waiting(&fast->reader) : respite_gate_events_pending(handle) <= 0)
        return 0;
    return respite_py_gate_take_events(gate, own);
}

#endif
