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
 * an exception when they cannot be read (ext/gate_handle.c). */
PyObject *respite_py_gate_own(PyObject *gate, respite_gate **handle, respite_py_fast **fast);
/* gate._status_of, new reference (None: results are successes). */
PyObject *respite_py_gate_status_of(PyObject *gate);
/* The gate's event rule after a call into it (K4 on the fast path):
 * Gate._poll(own) when events are pending; 0, or -1 when logging raised. */
int respite_py_gate_poll(PyObject *gate, PyObject *own, const respite_gate *handle, const respite_py_fast *fast);
/* Adds _gate_classes, which names Gate and Owned for the two above, to the module; 0 or -1. */
int respite_py_gate_handle_register(PyObject *module);
/* Adds _gate_call, Gate.call, to the module (ext/gate_call.c); 0 or -1. */
int respite_py_gate_call_register(PyObject *module);
/* Adds Attempt and _gate_attempt, `with gate.attempt()`, to the module (ext/attempt.c); 0 or -1. */
int respite_py_attempt_register(PyObject *module);

#endif
