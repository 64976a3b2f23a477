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

#ifndef Py_GIL_DISABLED
#define RESPITE_PY_FAST_PATH 1
#endif

/* respite._FastPath: what respite_gate_fast_path gave, with a reference of
 * its own to the gate, so the addresses live as long as this object. */
typedef struct {
    PyObject_HEAD
    respite_gate *gate;
    const uint64_t *word, *events, *cursor;
    int64_t *admitted, *reported;
    uint64_t admit_mask, admit_value, permit_mask, success_mask, success_value;
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

/* K5: the block's owner adds with a plain relaxed store. */
static inline void respite_py_fast_count(int64_t *cell)
{
    __atomic_store_n(cell, __atomic_load_n(cell, __ATOMIC_RELAXED) + 1, __ATOMIC_RELAXED);
}

/* K1, K2: the closed gate's permit, counted; 0 when the core must answer. */
static inline int64_t respite_py_fast_admit(respite_py_fast *f)
{
    uint64_t word = __atomic_load_n(f->word, __ATOMIC_ACQUIRE);
    if ((word & f->admit_mask) != f->admit_value)
        return 0;
    respite_py_fast_count(f->admitted);
    return (int64_t)(word & f->permit_mask);
}

/* K3: a success with `permit` (or RESPITE_NO_PERMIT), counted when the gate is closed and
 * confirmed in the permit's generation; 0 when the core must answer. */
static inline int respite_py_fast_success(respite_py_fast *f, int64_t permit)
{
    uint64_t word = __atomic_load_n(f->word, __ATOMIC_ACQUIRE);
    if ((word & f->success_mask) != f->success_value || (permit != RESPITE_NO_PERMIT && (uint64_t)permit != (word & f->permit_mask)))
        return 0;
    respite_py_fast_count(f->reported);
    return 1;
}

/* K4: events wait for this handle. */
static inline int respite_py_fast_events_waiting(const respite_py_fast *f)
{
    return __atomic_load_n(f->events, __ATOMIC_ACQUIRE) != __atomic_load_n(f->cursor, __ATOMIC_RELAXED);
}

#endif
