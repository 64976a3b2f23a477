/*
 * gate_handle.c - what the C paths (gate_call.c, attempt.c) read of a
 * respite.Gate: its Owned (gate._own), the handle in it (own.addr), its
 * status_of (gate._status_of), and the gate's event rule after a call into
 * it (Gate._poll when events are pending).
 *
 * Reading slots by attribute is a good part of a closed-path call's cost,
 * so the slots read here live in two C bases, respite._GateSlots (of Gate)
 * and respite._OwnedSlots (of Owned), whose layout (respite_py.h) this file
 * knows in every build, the limited API (abi3) included. They are read
 * directly when the objects are exactly Gate and Owned, which gate.py
 * names (_gate_classes); a subclass or an unknown class is read by attribute.
 *
 * An Owned also keeps its handle's fast path (fast_path.h) in its slot
 * `_fast`, made at the handle's first call here; then the handle is read
 * from it, not from `addr`.
 */
#define PY_SSIZE_T_CLEAN
#include "respite_py.h"

#include <stddef.h>
#include <string.h>
#if PY_VERSION_HEX < 0x030C0000
#include <structmember.h>
#define Py_T_OBJECT_EX T_OBJECT_EX
#endif

static PyObject *str_own;
static PyObject *str_status_of;
static PyObject *str_addr;
static PyObject *str_poll;

respite_py_classes respite_py_slots;

/* A slot's value, new reference; NULL with AttributeError when unset. */
static PyObject *slot_read(PyObject *value, PyObject *name)
{
    if (!value) {
        PyErr_SetObject(PyExc_AttributeError, name);
        return NULL;
    }
    Py_INCREF(value);
    return value;
}

static PyObject *read_own(PyObject *gate)
{
    if (Py_TYPE(gate) == respite_py_slots.gate_type)
        return slot_read(((respite_py_gate_slots *)gate)->own, str_own);
    return PyObject_GetAttr(gate, str_own);
}

PyObject *respite_py_gate_status_of(PyObject *gate)
{
    if (Py_TYPE(gate) == respite_py_slots.gate_type)
        return slot_read(((respite_py_gate_slots *)gate)->status_of, str_status_of);
    return PyObject_GetAttr(gate, str_status_of);
}

static PyObject *read_addr(PyObject *own)
{
    if (Py_TYPE(own) == respite_py_slots.owned_type)
        return slot_read(((respite_py_owned_slots *)own)->addr, str_addr);
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
        PyObject **slot = &((respite_py_owned_slots *)own)->fast;
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

/* Gate's and Owned's C bases (respite_py.h): two object slots each, which
 * behave as __slots__ do (unset: AttributeError; collected as a cycle). */
typedef struct {
    PyObject_HEAD
    PyObject *slot[2];
} two_slots;
_Static_assert(sizeof(two_slots) == sizeof(respite_py_gate_slots) && sizeof(two_slots) == sizeof(respite_py_owned_slots),
               "Gate's and Owned's bases are two object slots");
static PyTypeObject *gate_base, *owned_base;

static int slots_traverse(PyObject *op, visitproc visit, void *arg)
{
    Py_VISIT(Py_TYPE(op));
    Py_VISIT(((two_slots *)op)->slot[0]);
    Py_VISIT(((two_slots *)op)->slot[1]);
    return 0;
}

static int slots_clear(PyObject *op)
{
    Py_CLEAR(((two_slots *)op)->slot[0]);
    Py_CLEAR(((two_slots *)op)->slot[1]);
    return 0;
}

static void slots_dealloc(PyObject *op)
{
    PyTypeObject *type = Py_TYPE(op);
    PyObject_GC_UnTrack(op);
    slots_clear(op);
    ((freefunc)PyType_GetSlot(type, Py_tp_free))(op);
    Py_DECREF(type);
}

static PyMemberDef gate_members[] = {
    {"_own", Py_T_OBJECT_EX, offsetof(respite_py_gate_slots, own), 0, NULL},
    {"_status_of", Py_T_OBJECT_EX, offsetof(respite_py_gate_slots, status_of), 0, NULL},
    {NULL, 0, 0, 0, NULL},
};
static PyMemberDef owned_members[] = {
    {"addr", Py_T_OBJECT_EX, offsetof(respite_py_owned_slots, addr), 0, NULL},
    {"_fast", Py_T_OBJECT_EX, offsetof(respite_py_owned_slots, fast), 0, NULL},
    {NULL, 0, 0, 0, NULL},
};

/* A base named name with members; its __slots__ name them, as copyreg
 * counts slots: copy.copy and pickle see the state Python slots gave. */
static PyTypeObject *add_base(PyObject *module, const char *name, PyMemberDef *members)
{
    PyType_Slot slots[] = {{Py_tp_new, PyType_GenericNew}, {Py_tp_members, members}, {Py_tp_traverse, slots_traverse},
                           {Py_tp_clear, slots_clear},     {Py_tp_dealloc, slots_dealloc}, {0, NULL}};
    PyType_Spec spec = {name, sizeof(two_slots), 0, Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE | Py_TPFLAGS_HAVE_GC, slots};
    PyObject *type = PyType_FromSpec(&spec);
    PyObject *names = type ? Py_BuildValue("(ss)", members[0].name, members[1].name) : NULL;
    int rc = names ? PyObject_SetAttrString(type, "__slots__", names) : -1;
    Py_XDECREF(names);
    if (rc == 0 && PyModule_AddObject(module, strchr(name, '.') + 1, type) == 0)
        return (PyTypeObject *)type; /* borrowed: the module keeps it */
    Py_XDECREF(type);
    return NULL;
}

/* _gate_classes(Gate, Owned): the classes whose slots are read directly. */
static PyObject *gate_classes(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    (void)module;
    if (nargs != 2 || !PyType_Check(args[0]) || !PyType_Check(args[1]) ||
        !PyType_IsSubtype((PyTypeObject *)args[0], gate_base) || !PyType_IsSubtype((PyTypeObject *)args[1], owned_base)) {
        PyErr_SetString(PyExc_TypeError, "_gate_classes() takes the classes Gate and Owned");
        return NULL;
    }
    Py_INCREF(args[0]);
    Py_INCREF(args[1]);
    Py_XDECREF((PyObject *)respite_py_slots.gate_type);
    Py_XDECREF((PyObject *)respite_py_slots.owned_type);
    respite_py_slots.gate_type = (PyTypeObject *)args[0];
    respite_py_slots.owned_type = (PyTypeObject *)args[1];
    Py_RETURN_NONE;
}

static PyMethodDef gate_classes_def = {"_gate_classes", (PyCFunction)(void (*)(void))gate_classes, METH_FASTCALL,
                                       "Names the classes Gate and Owned, whose slots the C paths read."};

int respite_py_gate_handle_register(PyObject *module)
{
    if (!(str_own = PyUnicode_InternFromString("_own")) ||
        !(str_status_of = PyUnicode_InternFromString("_status_of")) || !(str_addr = PyUnicode_InternFromString("addr")) ||
        !(str_poll = PyUnicode_InternFromString("_poll")) ||
        !(gate_base = add_base(module, "respite._GateSlots", gate_members)) ||
        !(owned_base = add_base(module, "respite._OwnedSlots", owned_members)))
        return -1;
    PyObject *fn = PyCFunction_New(&gate_classes_def, module);
    if (!fn || PyModule_AddObject(module, "_gate_classes", fn) != 0) {
        Py_XDECREF(fn);
        return -1;
    }
    return 0;
}
