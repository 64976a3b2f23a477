/*
 * fast_path.h - the gate's closed path decided in the binding (spec K1-K5,
 * core/include/respite/fast_path.h): a closed admit and a closed, confirmed
 * success are counted in the gate's own counter block for this process's
 * Python, with no call into the core; every other answer is the core's.
 *
 * One block per gate handle (kept in its Owned, see gate_handle.c) is one
 * owner under K5: every write to it is made holding the GIL, which orders
 * them as one thread's. Without a GIL (a free-threaded build) there is no
 * fast path: the core answers everything, exactly as well.
 */
#ifndef RESPITE_PY_FAST_PATH_H
#define RESPITE_PY_FAST_PATH_H

#include <Python.h>
#include <float.h>
#include <stdint.h>

#include "respite.h"
#include "respite/fast_path_reader.h"

#ifndef Py_GIL_DISABLED
#define RESPITE_PY_FAST_PATH 1
#endif

/* respite._FastPath: what respite_gate_fast_path gave, with a reference of
 * its own to the gate, so the addresses live as long as this object. */
typedef struct {
    PyObject_HEAD
    respite_gate *gate;
    respite_fast_reader reader; /* the decisions: respite/fast_path_reader.h */
} respite_py_fast;

/* respite._FastPath (ext/fast_path.c). */
extern PyTypeObject *respite_py_fast_type;

/* The fast path of a gate handle (a new object), or NULL with no exception
 * when the core cannot give one (closed, out of memory): then the core
 * answers. */
PyObject *respite_py_fast_new(respite_gate *gate);
/* Makes the type respite._FastPath and adds _fast_path (1: this build
 * uses it) to the module (ext/fast_path.c); 0 or -1. */
int respite_py_fast_register(PyObject *module);

/* K2's times: none (the core's clock), or finite and 0 or more. */
static inline int respite_py_fast_time(int timed, double now)
{
    return !timed || (now >= 0.0 && now <= DBL_MAX);
}

#endif
