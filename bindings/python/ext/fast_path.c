/*
 * fast_path.c - respite._FastPath, one gate handle's fast path (spec K1-K5;
 * the decisions are in fast_path.h). Made at a handle's first call by
 * gate_handle.c and kept in its Owned; `admitted` and `reported` read its
 * counter block (what the fast path decided, for the replay test). A build
 * without the fast path (fast_path.h) never makes one.
 */
#define PY_SSIZE_T_CLEAN
#include "fast_path.h"

PyTypeObject *respite_py_fast_type;

PyObject *respite_py_fast_new(respite_gate *gate)
{
    respite_fast_path fp;
    respite_error err;
    respite_error_clear(&err);
    if (!gate || respite_gate_fast_path(gate, &fp, &err) != RESPITE_OK)
        return NULL;
    allocfunc alloc = (allocfunc)PyType_GetSlot(respite_py_fast_type, Py_tp_alloc);
    respite_py_fast *f = (respite_py_fast *)alloc(respite_py_fast_type, 0);
    if (!f) {
        PyErr_Clear(); /* the core answers instead */
        return NULL;
    }
    f->gate = respite_gate_retain(gate);
    respite_fast_reader_init(&f->reader, &fp);
    return (PyObject *)f;
}

static void fast_dealloc(PyObject *op)
{
    PyTypeObject *type = Py_TYPE(op);
    respite_gate_free(((respite_py_fast *)op)->gate);
    freefunc free_slot = (freefunc)PyType_GetSlot(type, Py_tp_free);
    free_slot(op);
    Py_DECREF(type);
}

static PyObject *fast_admitted(PyObject *op, void *unused)
{
    (void)unused;
    return PyLong_FromLongLong(__atomic_load_n(((respite_py_fast *)op)->reader.admitted, __ATOMIC_RELAXED));
}

static PyObject *fast_reported(PyObject *op, void *unused)
{
    (void)unused;
    return PyLong_FromLongLong(__atomic_load_n(((respite_py_fast *)op)->reader.reported, __ATOMIC_RELAXED));
}

static PyGetSetDef fast_getset[] = {
    {"admitted", fast_admitted, NULL, "closed admits decided by the fast path", NULL},
    {"reported", fast_reported, NULL, "successes decided by the fast path", NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

static PyType_Slot fast_slots[] = {
    {Py_tp_doc, "A gate handle's fast path (spec K1-K5): its counts."},
    {Py_tp_dealloc, fast_dealloc},
    {Py_tp_getset, fast_getset},
    {0, NULL},
};

static PyType_Spec fast_spec = {"respite._FastPath", sizeof(respite_py_fast), 0, Py_TPFLAGS_DEFAULT, fast_slots};

int respite_py_fast_register(PyObject *module)
{
    /* The type is made by the binding only: not in the module; _fast_path says whether this build uses it. */
    respite_py_fast_type = (PyTypeObject *)PyType_FromSpec(&fast_spec);
#ifdef RESPITE_PY_FAST_PATH
    int used = 1;
#else
    int used = 0;
#endif
    return respite_py_fast_type && PyModule_AddIntConstant(module, "_fast_path", used) == 0 ? 0 : -1;
}
