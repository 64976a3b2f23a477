/* respite_py.h - the C helpers compiled into respite._respite_swig. */
#ifndef RESPITE_PY_H
#define RESPITE_PY_H

#include <Python.h>

#include "respite.h"

/* Raises the exception for a filled respite_error (ext/errors.c); returns NULL. */
PyObject *respite_py_raise(const respite_error *err);
/* Adds _gate_call, Gate.call, to the module (ext/gate_call.c); 0 or -1. */
int respite_py_gate_call_register(PyObject *module);
/* Adds _Attempt, _attempt_class and _gate_attempt, `with gate.attempt()`, to the module (ext/attempt.c); 0 or -1. */
int respite_py_attempt_register(PyObject *module);

#endif
