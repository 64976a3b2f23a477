/*
 * gate_handle.c - what the C paths (gate_call.c, attempt.c) read of a
 * respite.Gate: its Owned (gate._own), the handle in it (own.addr), its
 * status_of (gate._status_of), and the gate's event rule after a call into
 * it (Gate._poll when events are pending).
 *
 * Reading slots by attribute is a good part of a closed-path call's
 * cost, so on the full C API the slots are read at their offsets when the
 * objects are exactly Gate and Owned: gate.py hands over both classes
 * (_gate_classes), whose member descriptors give the offsets. A subclass,
 * an unknown class, or the limited API (abi3) reads them by attribute.
 *
 * An Owned also keeps its handle's fast path (fast_path.h) in its slot
 * `_fast`, made at the handle's first call here; then the handle is read
 * from it, not from `addr`.
 */
#define PY_SSIZE_T_CLEAN
#include "respite_py.h"

#ifndef Py_LIMITED_API
#include <structmember.h>
#endif

static PyObject *str_own;
static PyObject *str_status_of;
static PyObject *str_addr;
static PyObject *str_poll;
static PyObject *str_fast;

#ifndef Py_LIMITED_API
respite_py_layout respite_py_slots;

/* The offset of cls's object slot `name`, or -1 (with no exception) when it is not one. */
static Py_ssize_t slot_offset(PyObject *cls, PyObject *name)
{
    PyObject *descr = PyObject_GetAttr(cls, name);
    Py_ssize_t offset = -1;
    if (descr && Py_IS_TYPE(descr, &PyMemberDescr_Type)) {
        PyMemberDef *member = ((PyMemberDescrObject *)descr)->d_member;
        if (member->type == T_OBJECT_EX && !(member->flags & READONLY))
            offset = member->offset;
    }
    Py_XDECREF(descr);
    PyErr_Clear();
    return offset;
}

/* A slot's value, new reference; NULL with AttributeError when unset. */
static PyObject *slot_read(PyObject *obj, Py_ssize_t offset, PyObject *name)
{
    PyObject *value = *(PyObject **)((char *)obj + offset);
    if (!value) {
        PyErr_SetObject(PyExc_AttributeError, name);
        return NULL;
    }
    Py_INCREF(value);
    return value;
}
#endif

static PyObject *read_own(PyObject *gate)
{
#ifndef Py_LIMITED_API
    if (Py_TYPE(gate) == respite_py_slots.gate_type)
        return slot_read(gate, respite_py_slots.own_offset, str_own);
#endif
    return PyObject_GetAttr(gate, str_own);
}

PyObject *respite_py_gate_status_of(PyObject *gate)
{
#ifndef Py_LIMITED_API
    if (Py_TYPE(gate) == respite_py_slots.gate_type)
        return slot_read(gate, respite_py_slots.status_of_offset, str_status_of);
#endif
    return PyObject_GetAttr(gate, str_status_of);
}

static PyObject *read_addr(PyObject *own)
{
#ifndef Py_LIMITED_API
    if (Py_TYPE(own) == respite_py_slots.owned_type)
        return slot_read(own, respite_py_slots.addr_offset, str_addr);
#endif
    return PyObject_GetAttr(own, str_addr);
}

/* The handle in own.addr; NULL with an exception when it cannot be read. */
static int read_handle(PyObject *own, respite_gate **handle)
{
    PyObject *addr = read_addr(own);
    *handle = addr ? (respite_gate *)PyLong_AsVoidPtr(addr) : NULL;
    Py_XDECREF(addr);
    return !addr || (*handle == NULL && PyErr_Occurred()) ? -1 : 0;
}

PyObject *respite_py_gate_own_slow(PyObject *gate, respite_gate **handle, respite_py_fast **fast)
{
    PyObject *own = read_own(gate);
    if (!own)
        return NULL;
    *fast = NULL;
#ifdef RESPITE_PY_FAST_PATH
    if (Py_TYPE(own) == respite_py_slots.owned_type) {
        PyObject **slot = (PyObject **)((char *)own + respite_py_slots.fast_offset);
        if (*slot && Py_TYPE(*slot) == respite_py_fast_type) {
            *fast = (respite_py_fast *)*slot;
            *handle = (*fast)->gate;
            return own;
        }
        if (read_handle(own, handle) != 0) {
            Py_DECREF(own);
            return NULL;
        }
        if (!*slot && *handle) { /* the handle's first call (an Owned that is not a gate's is never read here) */
            PyObject *made = respite_py_fast_new(*handle);
            if (!made) { /* out of memory: the core answers for this handle from now on */
                Py_INCREF(Py_None);
                made = Py_None;
            }
            *slot = made;
            *fast = made != Py_None ? (respite_py_fast *)made : NULL;
        }
        return own;
    }
#endif
    if (read_handle(own, handle) != 0) {
        Py_DECREF(own);
        return NULL;
    }
    return own;
}

int respite_py_gate_take_events(PyObject *gate, PyObject *own)
{
    PyObject *res = PyObject_CallMethodObjArgs(gate, str_poll, own, NULL);
    Py_XDECREF(res);
    return res ? 0 : -1;
}

/* _gate_classes(Gate, Owned): the classes whose slots are read at their offsets. */
static PyObject *gate_classes(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    (void)module;
    if (nargs != 2 || !PyType_Check(args[0]) || !PyType_Check(args[1])) {
        PyErr_SetString(PyExc_TypeError, "_gate_classes() takes the classes Gate and Owned");
        return NULL;
    }
#ifndef Py_LIMITED_API
    Py_ssize_t own = slot_offset(args[0], str_own), status_of = slot_offset(args[0], str_status_of);
    Py_ssize_t addr = slot_offset(args[1], str_addr), fast = slot_offset(args[1], str_fast);
    if (own < 0 || status_of < 0 || addr < 0 || fast < 0) {
        PyErr_SetString(PyExc_TypeError,
                        "_gate_classes(): Gate._own, Gate._status_of, Owned.addr and Owned._fast must be __slots__");
        return NULL;
    }
    Py_INCREF(args[0]);
    Py_INCREF(args[1]);
    Py_XDECREF(respite_py_slots.gate_type);
    Py_XDECREF(respite_py_slots.owned_type);
    respite_py_slots.gate_type = (PyTypeObject *)args[0];
    respite_py_slots.owned_type = (PyTypeObject *)args[1];
    respite_py_slots.own_offset = own;
    respite_py_slots.status_of_offset = status_of;
    respite_py_slots.addr_offset = addr;
    respite_py_slots.fast_offset = fast;
#endif
    Py_RETURN_NONE;
}

static PyMethodDef gate_classes_def = {"_gate_classes", (PyCFunction)(void (*)(void))gate_classes, METH_FASTCALL,
                                       "Names the classes Gate and Owned, whose slots the C paths read."};

int respite_py_gate_handle_register(PyObject *module)
{
    if (!(str_own = PyUnicode_InternFromString("_own")) ||
        !(str_status_of = PyUnicode_InternFromString("_status_of")) || !(str_addr = PyUnicode_InternFromString("addr")) ||
        !(str_poll = PyUnicode_InternFromString("_poll")) || !(str_fast = PyUnicode_InternFromString("_fast")))
        return -1;
    PyObject *fn = PyCFunction_New(&gate_classes_def, NULL);
    if (!fn || PyModule_AddObject(module, "_gate_classes", fn) != 0) {
        Py_XDECREF(fn);
        return -1;
    }
    return 0;
}
